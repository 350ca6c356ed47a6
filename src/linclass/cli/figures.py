"""``linclass plot``: one figure of :mod:`linclass.plot`, written to --out."""

from __future__ import annotations

import numpy as np

from linclass.cli.data import Data, frame, keep_classes, labels, load
from linclass.cli.errors import UsageError
from linclass.cli.models import FIGURE_MODELS, make_model
from linclass.cli.passes import watching
from linclass.sources.tables import DataError

__all__ = ["plot"]

_TWO_FEATURES = ("regions", "contours")


def plot(args) -> int:
    """Decision regions, Fisher's projections, Gaussian contours or a training curve."""
    if args.kind != "fisher" and args.model is None:
        raise UsageError(f"--kind {args.kind} needs --model NAME")
    if args.kind in FIGURE_MODELS and args.model not in FIGURE_MODELS[args.kind]:
        raise UsageError(f"--kind {args.kind} draws {', '.join(FIGURE_MODELS[args.kind])} models; "
                         f"not {args.model}")
    if args.scale and args.kind in ("fisher", "contours"):
        raise UsageError(f"--scale goes with --kind regions or curve: --kind {args.kind} draws "
                         + ("no model" if args.kind == "fisher" else "the Gaussian densities in the "
                            "units the model was fitted in"))
    data = load(args)
    if args.classes:
        data = keep_classes(data, args.classes)
    import linclass.plot as figures

    if args.kind == "fisher":
        _fisher(data, args.out, figures)
        if not args.quiet:
            print(f"wrote {args.out}")
        return 0
    if args.kind in _TWO_FEATURES:
        if data.X.shape[1] < 2:
            raise UsageError(f"--kind {args.kind} draws two features; the data have one")
        if data.X.shape[1] > 2:
            if args.features:
                raise UsageError(f"--kind {args.kind} draws two features; --features names "
                                 f"{len(args.features)}")
            data = Data(data.X[:, :2], data.y, data.feature_names[:2], data.source, data.target)
    model = make_model(args.model, args.params, scale=args.scale)
    with watching(model, f"fitting {args.model}"):
        model.fit(frame(data.X, data.feature_names), labels(data, args.model))
    names = data.feature_names
    if args.kind == "regions":
        figures.decision_regions(model, data.X, data.y, feature_names=names, path=args.out)
    elif args.kind == "contours":
        figures.gaussian_contours(model, data.X, data.y, feature_names=names, path=args.out)
    else:
        figures.training_curve(model, path=args.out)
    if not args.quiet:
        print(f"wrote {args.out}")
    return 0


def _fisher(data: Data, out: str, figures) -> None:
    classes = np.unique(data.y)
    if classes.size != 2:
        raise DataError(f"--kind fisher compares two classes; {data.source} has {classes.size} "
                        f"({', '.join(map(str, classes[:10]))}): choose two with --classes A B")
    figures.fisher_figure(data.X, data.y, path=out)
