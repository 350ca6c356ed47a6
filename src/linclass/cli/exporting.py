"""``linclass export``: a saved model written as an ONNX graph (:func:`linclass.to_onnx`), atomically,
for runtimes without linclass (onnxruntime, and the ONNX runtimes of other languages)."""

from __future__ import annotations

import numpy as np

from linclass.cli.model_files import load_model, uses_model_file
from linclass.io.atomic import atomic_write

__all__ = ["export"]

_SHOWN_NAMES = 8  # feature names listed in the report, then "..."


@uses_model_file
def export(args) -> int:
    """Write the model of --model-file as an ONNX graph to --onnx (float32 input, or float64 with
    --double) and say what its input and outputs are."""
    from linclass.export.onnx import to_onnx

    model = load_model(args.model_file)
    dtype = np.float64 if args.double else np.float32
    n_features = int(model.n_features_in_)
    graph = to_onnx(model, np.zeros((1, n_features), dtype=dtype))
    path = atomic_write(args.onnx, lambda handle: handle.write(graph.SerializeToString()))
    names = getattr(model, "feature_names_in_", None)
    columns = ""
    if names is not None:
        shown = ", ".join(str(n) for n in names[:_SHOWN_NAMES])
        more = (f", ... (all {len(names)} in the graph's metadata 'feature_names')"
                if len(names) > _SHOWN_NAMES else "")
        columns = f"; columns in this order: {shown}{more}"
    K = len(model.classes_)
    second = (f"probabilities (N x {K})" if hasattr(model, "predict_proba") else
              f"probabilities (N x {K}: the decision values, {type(model).__name__} gives no "
              "probabilities)")
    if not args.quiet:
        print(f"exported {type(model).__name__} to {path}: input X ({np.dtype(dtype).name}, "
              f"N x {n_features}{columns}); outputs label (N), {second}")
    return 0
