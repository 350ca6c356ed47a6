"""The ONNX operators the exported graphs are built from: nodes and initializers added to
skl2onnx's model container (``container.add_node`` / ``container.add_initializer``) under names
unique in its scope, spelled as short methods so that the graphs read like the formulas they
compute.  Each method adds its node at once and returns the name of its output, so a value used
many times is computed once (skl2onnx's operator algebra re-walks shared sub-expressions, which
grows exponentially with the unrolled elimination of :mod:`linclass.export.graph_multiclass`).

Constants are float64 (the graphs compute in float64, see :mod:`linclass.export.onnx`); indices
int64.  The spelling of the reductions follows the opset (axes an input from opset 13 for
ReduceSum and Unsqueeze, from 18 for ReduceMax).
"""

from __future__ import annotations

from functools import partialmethod

import numpy as np
from onnx import TensorProto

__all__ = ["Ops"]


def _operator(op_type: str, formula: str):
    """The method of :class:`Ops` that adds one ``op_type`` node on its inputs, in order, and
    returns the name of its output; ``formula`` says what it computes."""

    def method(self, *inputs) -> str:
        return self._node(op_type, list(inputs))

    method.__doc__ = f"{formula} (ONNX ``{op_type}``)."
    return method


class Ops:
    """Nodes added to ``container`` (names unique in ``scope``), at the container's opset."""

    def __init__(self, scope, container):
        self.scope = scope
        self.container = container
        self.opset = container.target_opset
        self._constants = {}  # one initializer per distinct constant

    def _node(self, op_type: str, inputs: list, output: str | None = None, **attributes) -> str:
        output = output or self.scope.get_unique_variable_name(op_type.lower())
        self.container.add_node(op_type, list(inputs), [output],
                                name=self.scope.get_unique_operator_name(op_type), **attributes)
        return output

    def _initializer(self, values: np.ndarray, onnx_type: int) -> str:
        key = (onnx_type, values.shape, repr(values.tolist()) if values.dtype == object
               else values.tobytes())
        if key not in self._constants:
            name = self.scope.get_unique_variable_name("c")
            content = values.ravel().tolist() if onnx_type == TensorProto.STRING else values.ravel()
            self.container.add_initializer(name, onnx_type, list(values.shape), content)
            self._constants[key] = name
        return self._constants[key]

    # ------------------------------------------------------------------------ constants
    def const(self, values) -> str:
        """A float64 constant."""
        return self._initializer(np.asarray(values, dtype=np.float64), TensorProto.DOUBLE)

    def index(self, values) -> str:
        """An int64 constant."""
        return self._initializer(np.asarray(values, dtype=np.int64), TensorProto.INT64)

    def labels(self, classes: np.ndarray) -> str:
        """The class labels: int64, or strings (an object array of str)."""
        if classes.dtype == object:
            return self._initializer(np.array([c.encode("utf-8") for c in classes], dtype=object),
                                     TensorProto.STRING)
        return self.index(classes)

    # ------------------------------------------------------------------------ element-wise
    # one node on the inputs in order; ONNX broadcasts them as NumPy does
    add = _operator("Add", "``a + b``")
    sub = _operator("Sub", "``a - b``")
    mul = _operator("Mul", "``a * b``")
    div = _operator("Div", "``a / b``")
    neg = _operator("Neg", "``-a``")
    abs = _operator("Abs", "``|a|``")
    exp = _operator("Exp", "``exp(a)``")
    log = _operator("Log", "``log(a)``")
    matmul = _operator("MatMul", "``a @ b``")
    minimum = _operator("Min", "``np.minimum(a, b)``")
    maximum = _operator("Max", "``np.maximum(a, b)``")
    greater = _operator("Greater", "``a > b``, boolean")
    greater_or_equal = _operator("GreaterOrEqual", "``a >= b``, boolean")
    where = _operator("Where", "``np.where(condition, a, b)``")

    def flag(self, values) -> str:
        """A boolean constant."""
        return self._initializer(np.asarray(values, dtype=bool), TensorProto.BOOL)

    # ------------------------------------------------------------------------ reductions
    def row_sum(self, a, axis: int = 1, keepdims: int = 1):
        return self._node("ReduceSum", [a, self.index([axis])], keepdims=keepdims)

    def row_max(self, a, axis: int = 1, keepdims: int = 1):
        if self.opset >= 18:
            return self._node("ReduceMax", [a, self.index([axis])], keepdims=keepdims)
        return self._node("ReduceMax", [a], axes=[axis], keepdims=keepdims)

    def argmax(self, a):
        """Column of the largest entry of each row, shape (n,); ties go to the first."""
        return self._node("ArgMax", [a], axis=1, keepdims=0)

    # ------------------------------------------------------------------------ shapes and types
    def cast(self, a, to: int, output: str | None = None):
        return self._node("Cast", [a], output, to=to)

    to_double = partialmethod(cast, to=TensorProto.DOUBLE)
    to_int64 = partialmethod(cast, to=TensorProto.INT64)

    def concat(self, parts, axis: int = 1):
        return self._node("Concat", list(parts), axis=axis)

    def columns(self, a, start: int, stop: int, axis: int = 1):
        """``a[..., start:stop, ...]`` along ``axis``."""
        return self._node("Slice", [a, self.index([start]), self.index([stop]), self.index([axis])])

    def gather(self, a, indices, axis: int = 0, output: str | None = None):
        return self._node("Gather", [a, indices], output, axis=axis)

    def reshape(self, a, shape):
        return self._node("Reshape", [a, self.index(shape)])

    def unsqueeze(self, a, axis: int):
        return self._node("Unsqueeze", [a, self.index([axis])])
