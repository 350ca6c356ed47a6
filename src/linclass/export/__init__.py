"""Deployment: fitted classifiers written for other runtimes.

``forms``             what a classifier computes, as plain data (feature steps, linear / whitened /
                      diagonal / categorical class scores, multi-class schemes)
``reading``           from a fitted estimator to its forms; what cannot be exported is refused here
``graph_ops``         the ONNX operators, added to skl2onnx's model container
``graph``             one model's graph: steps, scores, labels, posteriors
``graph_multiclass``  one-vs-rest and one-vs-one (with the pairwise coupling) over two-class models
``onnx``              :func:`to_onnx` and the registration with skl2onnx's converter registry

skl2onnx, onnx and onnxruntime are optional (``pip install 'linclass[onnx]'``); nothing here imports
them until an export runs.
"""

from linclass.export.onnx import NotExportableError, register_converters, to_onnx

__all__ = ["NotExportableError", "register_converters", "to_onnx"]
