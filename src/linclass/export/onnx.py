"""ONNX export: :func:`to_onnx` writes a fitted linclass classifier as an ONNX graph that
onnxruntime (or any ONNX runtime) runs without linclass, NumPy or Python.

The graph is built through skl2onnx's converter registry: each exportable class is registered with
:func:`skl2onnx.update_registered_converter` (:func:`register_converters`), with skl2onnx's shape
calculator for classifiers and a converter that writes the model's
:class:`~linclass.export.forms.Plan` (:mod:`linclass.export.reading`) as nodes of ONNX's standard
operators in skl2onnx's model container (:mod:`linclass.export.graph`).  So a scikit-learn ``Pipeline`` that ends in a linclass
classifier converts with ``skl2onnx.to_onnx`` as well, once :func:`register_converters` has run.

Inputs and outputs are those of skl2onnx's own classifiers:

* one input ``X`` of shape (N, n_features), float32 (the usual) or float64 (a float64 ``X_sample``
  asks for it, as in skl2onnx);
* ``label`` (N,): int64 for integer (or boolean, or integral float) class labels, string for
  strings;
* ``probabilities`` (N, n_classes) of the input's type: ``predict_proba``.  A model without
  probabilities (the perceptron, and schemes over it) gives its decision values there instead,
  laid out as skl2onnx lays out its perceptron's: (N, n_classes), or :math:`(-d, d)` for two classes.

``linclass.to_onnx`` leaves out skl2onnx's ZipMap (``zipmap=False``): the probabilities stay one
tensor, which is what most deployments read and what runs fastest; ``zipmap=True`` gives skl2onnx's
list of {label: probability} maps.  (Converted by ``skl2onnx.to_onnx`` directly, skl2onnx's default,
ZipMap on, applies.)  The options ``nocl`` and ``output_class_labels`` work as for skl2onnx's
classifiers.

Arithmetic.  A float32 input is cast to float64 at the start of the graph, every score and
probability is computed in float64, and the probabilities are cast back at the end: the class
scores of a Gaussian model on raw features reach thousands (quadratic forms), where float32's
relative 6e-8 would move the probabilities by more than 1e-5.  The graph then agrees with
linclass on the same (float32) rows to the last bits of float32.

The graph does not check its input as linclass does: NaN or infinite values, negative counts, or
values that are not category codes give whatever the arithmetic gives (CategoricalNB's graph reads
negative codes as 0).  A model fitted with ``offset=`` is exported as ``predict_proba(X)`` without
one.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import numpy as np

from linclass.export.reading import NotExportableError, read_plan

if TYPE_CHECKING:
    import onnx
    from numpy.typing import ArrayLike
    from sklearn.base import BaseEstimator

__all__ = ["MIN_OPSET", "NotExportableError", "register_converters", "to_onnx"]

#: the oldest ONNX opset the graphs are written for
MIN_OPSET = 13

_INSTALL = "pip install 'linclass[onnx]'"
_REGISTERED = False
_OPTIONS = {"zipmap": [True, False, "columns"], "nocl": [False, True],
            "output_class_labels": [False, True]}


def _require():
    try:
        import onnx  # noqa: F401
        import skl2onnx  # noqa: F401
    except ImportError as exc:
        raise ImportError(f"ONNX export needs skl2onnx and onnx (and onnxruntime to run the graph): "
                          f"{_INSTALL}") from exc


def register_converters() -> None:
    """Register every linclass classifier with skl2onnx's converter registry (once; later calls do
    nothing).  :func:`to_onnx` calls it; call it yourself before converting a scikit-learn
    ``Pipeline`` holding a linclass classifier with ``skl2onnx.to_onnx``."""
    global _REGISTERED
    if _REGISTERED:
        return
    _require()
    from skl2onnx import update_registered_converter

    from linclass import registry

    for entry in registry.ENTRIES:
        update_registered_converter(entry.cls, f"Linclass{entry.name}", _shapes, _convert,
                                    options=_OPTIONS)
    _REGISTERED = True


def _label_classes(classes: np.ndarray, name: str) -> np.ndarray:
    """The class labels as an ONNX label tensor holds them: int64 or strings."""
    classes = np.asarray(classes)
    if classes.dtype.kind in "biu":
        return classes.astype(np.int64)
    if classes.dtype.kind == "f" and np.all(classes == np.round(classes)):
        return classes.astype(np.int64)
    if all(isinstance(c, str) for c in classes.tolist()):
        return np.array([str(c) for c in classes], dtype=object)
    raise NotExportableError(
        f"This {name}'s class labels {classes.tolist()[:5]} are neither integers nor strings: an "
        "ONNX classifier's label output is int64 or string. Fit on integer or string labels."
    )


def _shapes(operator) -> None:
    """skl2onnx's shape calculator for classifiers: ``label`` (N,), ``probabilities`` (N, K)."""
    from skl2onnx.common.shape_calculator import calculate_linear_classifier_output_shapes

    calculate_linear_classifier_output_shapes(operator)


def _convert(scope, operator, container) -> None:
    """skl2onnx converter: the graph of the model's plan, from ``X`` to ``label`` and
    ``probabilities``."""
    from onnx import TensorProto
    from skl2onnx.common.data_types import DoubleTensorType
    from skl2onnx.common.utils_classifier import get_label_classes

    from linclass.export.forms import Single
    from linclass.export.graph import single_heads
    from linclass.export.graph_multiclass import scheme_heads
    from linclass.export.graph_ops import Ops

    model = operator.raw_operator
    if container.target_opset < MIN_OPSET:
        raise NotExportableError(f"linclass's ONNX graphs need opset {MIN_OPSET} or later; "
                                 f"target_opset is {container.target_opset}.")
    plan = read_plan(model)
    classes = _label_classes(get_label_classes(scope, model), type(model).__name__)
    ops = Ops(scope, container)
    X = operator.inputs[0]
    x = X.full_name if isinstance(X.type, DoubleTensorType) else ops.to_double(X.full_name)
    heads = (single_heads if isinstance(plan, Single) else scheme_heads)(ops, plan, x)
    label, proba = operator.outputs[0], operator.outputs[1]
    ops.gather(ops.labels(classes), heads.index, output=label.full_name)
    out_type = TensorProto.DOUBLE if isinstance(proba.type, DoubleTensorType) else TensorProto.FLOAT
    ops.cast(heads.output, out_type, output=proba.full_name)


def to_onnx(model: BaseEstimator, X_sample: ArrayLike | None = None, *, zipmap: bool | str = False,
            target_opset: int | None = None) -> onnx.ModelProto:
    """The ONNX graph of a fitted linclass classifier.

    Parameters
    ----------
    model : a fitted linclass classifier
        Every registry entry with a linear or Gaussian scoring form: the discriminant analyses
        (plug-in posterior), the naive Bayes models, logistic regression (and its CV), the
        perceptron (``basis`` None or 'poly'), Fisher's discriminant, the standardised, formula
        (without a formula) and multi-class wrappers around them.  Kernel Fisher discriminants
        are refused (their scores are kernel expansions over the training rows).
    X_sample : array-like of shape (n_samples, n_features), default=None
        Rows like those the graph will get: their dtype chooses the input type (float64: a
        double input, anything else: float32; None: float32) and their width is checked.
    zipmap : bool or 'columns', default=False
        skl2onnx's ZipMap on the probabilities (module docstring).
    target_opset : int, default=None
        The ONNX opset (None: skl2onnx's latest tested one); at least 13.

    Returns
    -------
    onnx.ModelProto
        Input ``X``; outputs ``label`` and ``probabilities``.  ``SerializeToString()`` gives the
        file's content.  A model fitted on named columns records them, in order, as the JSON list
        of the metadata property ``feature_names``.

    Raises
    ------
    NotExportableError
        The model's scores have no linear or Gaussian form, or its labels are neither integers
        nor strings; the message says why.
    ImportError
        skl2onnx or onnx is not installed (``pip install 'linclass[onnx]'``).

    See Also
    --------
    linclass.save : linclass's own model file.
    skl2onnx.convert_sklearn : skl2onnx's converter for scikit-learn's models, which builds these
        graphs.

    Examples
    --------
    >>> import numpy as np, onnxruntime as ort
    >>> from sklearn.datasets import load_iris
    >>> import linclass
    >>> X, y = load_iris(return_X_y=True)
    >>> model = linclass.QuadraticDiscriminantAnalysis().fit(X, y)
    >>> graph = linclass.to_onnx(model, X[:1].astype(np.float32))
    >>> session = ort.InferenceSession(graph.SerializeToString())
    >>> label, proba = session.run(None, {"X": X[:2].astype(np.float32)})
    >>> label.tolist()
    [0, 0]
    """
    _require()
    from skl2onnx import convert_sklearn
    from skl2onnx.common.data_types import DoubleTensorType, FloatTensorType

    read_plan(model)  # refuse what cannot be exported before skl2onnx starts
    n_features = int(model.n_features_in_)
    tensor = FloatTensorType
    if X_sample is not None:
        sample = np.asarray(X_sample)
        width = sample.shape[1] if sample.ndim == 2 else None
        if width != n_features:
            raise ValueError(f"X_sample has shape {sample.shape}, but this {type(model).__name__} "
                             f"takes {n_features} features: give rows of shape (n, {n_features}).")
        if sample.dtype == np.float64:
            tensor = DoubleTensorType
    if target_opset is not None and target_opset < MIN_OPSET:
        raise ValueError(f"target_opset={target_opset}: linclass's ONNX graphs need opset "
                         f"{MIN_OPSET} or later.")
    register_converters()
    onx = convert_sklearn(model, initial_types=[("X", tensor([None, n_features]))],
                          options={id(model): {"zipmap": zipmap}}, target_opset=target_opset)
    from onnx.helper import set_model_props

    from linclass.io.persistence.format import linclass_version

    onx.doc_string = f"linclass {linclass_version()} {type(model).__name__}"
    names = getattr(model, "feature_names_in_", None)
    if names is not None:  # the columns of X, in order, for whoever feeds the graph
        set_model_props(onx, {"feature_names": json.dumps([str(n) for n in names])})
    return onx
