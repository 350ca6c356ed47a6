"""The ``linclass`` argument parser: its commands, options, argument types and help text."""

from __future__ import annotations

import argparse
from pathlib import Path

from linclass.cli.errors import UsageError
from linclass.cli.models import FIGURE_MODELS, MODELS, model_name, models_that, parse_param
from linclass.plot.canvas import FORMATS as FIGURE_FORMATS
from linclass.datasets import DATASETS

__all__ = ["FIGURE_KINDS", "build_parser"]

#: ``plot --kind`` values
FIGURE_KINDS = ("regions", "fisher", "contours", "curve")


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage mistake raises :class:`UsageError` (one line, no usage dump)."""

    def error(self, message):
        raise UsageError(f"{message} (see '{self.prog} --help')")


# ------------------------------------------------------------------------------ argument types
def _integer_at_least(minimum: int, what: str):
    """An argparse type: an integer >= ``minimum``, refused with a message naming ``what``."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{what} must be an integer >= {minimum}; got "
                                             f"{text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{what} must be an integer >= {minimum}; got {value}")
        return value
    return parse


_folds = _integer_at_least(2, "--cv")
_rows = _integer_at_least(1, "--chunksize")


def _dataset_name(text: str) -> str:
    key = text.strip().lower().replace("-", "_")
    if key not in DATASETS:
        raise argparse.ArgumentTypeError(f"unknown data set {text!r}; choose from: {', '.join(DATASETS)}")
    return key


def _figure_path(text: str) -> str:
    if Path(text).suffix.lower() not in FIGURE_FORMATS:
        raise argparse.ArgumentTypeError(f"--out {text!r} must end in {', '.join(FIGURE_FORMATS)}")
    return text


# ----------------------------------------------------------------------------------- options
def _model_help() -> str:
    width = max(map(len, MODELS))
    lines = [f"  {alias.ljust(width)}  {e.name}: {e.summary}" for alias, e in MODELS.items()]
    return "models (--model):\n" + "\n".join(lines)


def _dataset_help() -> str:
    return "data sets (--dataset): " + ", ".join(DATASETS)


class _Files(argparse.Action):
    """--data FILE [FILE ...], repeatable: one name stays a str, several make a list."""

    def __call__(self, parser, namespace, values, option_string=None):
        before = getattr(namespace, self.dest, None) or []
        files = ([before] if isinstance(before, str) else list(before)) + list(values)
        setattr(namespace, self.dest, files[0] if len(files) == 1 else files)


_DATA_HELP = ("CSV (.csv, .tsv, .csv.gz) or Parquet file; several files, a directory of them or a "
              "quoted glob ('parts/*.parquet') are read in sorted order as one table; '-' reads "
              "the table from standard input (CSV, or gzip-compressed CSV or Parquet)")


_NA_HELP = ("CSV fields that mark a missing value besides the usual ones (an empty field, NA, NaN, "
            "null, N/A, ...), e.g. --na-values '?': a missing feature or label is then named as "
            "missing (the rows need a value: drop or fill them first)")


_SEPARATORS = {"tab": "\t", "\\t": "\t", "\t": "\t", "comma": ",", "semicolon": ";",
               "pipe": "|", "space": " "}


def _separator(text: str) -> str:
    """--sep's value: one character, or tab / \\t / comma / semicolon / pipe / space."""
    sep = _SEPARATORS.get(text.lower(), text)
    if len(sep) != 1 or sep in "\r\n\"'":
        raise argparse.ArgumentTypeError(
            f"{text!r} is not one character; give the delimiter between fields, such as ';', '|' "
            "or tab")
    return sep


def _add_na_values(parser) -> None:
    parser.add_argument("--na-values", metavar="TEXT", nargs="+", default=[], help=_NA_HELP)
    parser.add_argument("--sep", metavar="CHAR", type=_separator, default=None,
                        help="the delimiter between a CSV file's fields (default: by the file's "
                             "name, ',' for .csv and tab for .tsv), such as ';' or tab")
    parser.add_argument("--decimal", choices=[".", ","], default=".",
                        help="the decimal mark of the CSV file's numbers: ',' for 1,5 (with a "
                             "--sep other than ',')")


def _add_data(parser, *, target_required_note: str = "required with --data") -> None:
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("-d", "--data", metavar="FILE", nargs="+", action=_Files, help=_DATA_HELP)
    source.add_argument("--dataset", metavar="NAME", type=_dataset_name,
                        help=f"bundled data set: {', '.join(DATASETS)}")
    parser.add_argument("-t", "--target", metavar="COL",
                        help=f"label column of --data ({target_required_note})")
    _add_na_values(parser)


def _add_verbose(parser, text: str) -> None:
    parser.add_argument("--verbose", action="store_true", help=text)


_QUIET_HELP = ("print only the results and errors: no progress bar, no hints, no 'fitted ...' or "
               "'wrote ...' lines (warnings still print, once each)")


def _add_format(parser, formats: tuple[str, ...], what: str) -> None:
    parser.add_argument("--format", choices=formats, default=formats[0],
                        help=f"'{formats[0]}' to read (default)"
                             + (", 'csv' for a spreadsheet" if "csv" in formats else "")
                             + f", 'json' for a script ({what} as one JSON object on stdout)")


def _add_columns(parser, *, features_help: str | None = None) -> None:
    parser.add_argument("--features", metavar="COL", nargs="+",
                        help=features_help or "use only these feature columns, in this order (names, "
                        "or positions from 0 among the features; default: every column but --target)")
    parser.add_argument("--drop", metavar="COL", nargs="+", default=[],
                        help="leave these columns out (an ID column, say): names, or positions from 0")


def _add_scale(parser) -> None:
    parser.add_argument("--scale", action="store_true",
                        help="standardise each feature (mean 0, standard deviation 1 on the training "
                             "rows) inside the model: for the models whose fit depends on the "
                             f"features' units ({', '.join(models_that('units'))}); a saved model "
                             "predicts on raw data")


def _add_model(parser, *, required: bool = True, note: str = "") -> None:
    parser.add_argument("-m", "--model", metavar="NAME", type=model_name, required=required,
                        help=f"model{note}: {', '.join(MODELS)} (described in 'linclass --help')")
    parser.add_argument("--param", metavar="KEY=VALUE", type=parse_param, action="append", default=[],
                        dest="params", help="model parameter, repeatable (e.g. --param C=0.5)")


def build_parser() -> argparse.ArgumentParser:
    """The ``linclass`` argument parser; ``args.command`` names the command to run."""
    fmt = argparse.RawDescriptionHelpFormatter
    parser = _Parser(prog="linclass", formatter_class=fmt,
                     epilog=f"{_model_help()}\n\n{_dataset_help()}",
                     description="Fit, evaluate and compare the classic linear classifiers.")
    from linclass import __version__

    parser.add_argument("--version", action="version", version=f"linclass {__version__}")
    parser.add_argument("-q", "--quiet", action="store_true", default=False, help=_QUIET_HELP)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def command(name, text, example, *, models=True, datasets=True):
        # the models are described once, in 'linclass --help' (their names are in --model's help)
        lists = [_dataset_help()] if datasets else []
        epilog = "\n\n".join([f"example:\n  {example}", *lists])
        sub = commands.add_parser(name, help=text, description=text, formatter_class=fmt,
                                  epilog=epilog)
        # after the command too; SUPPRESS keeps a -q given before the command
        sub.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                         help=_QUIET_HELP)
        return sub

    p = command("fit", "fit a model and save it", "linclass fit --model lda --dataset iris --out lda.linclass")
    _add_model(p)
    _add_data(p)
    _add_columns(p)
    _add_scale(p)
    p.add_argument("-o", "--out", metavar="MODEL_FILE", required=True, help="where to save the model")
    p.add_argument("--chunksize", metavar="ROWS", type=_rows, default=None,
                   help="read --data this many rows at a time (memory stays bounded whatever the "
                        f"file's size; for {', '.join(models_that('chunks'))}); the passes over the "
                        "data the fit made are printed")
    p.add_argument("--train-score", action="store_true",
                   help="with --chunksize: one more pass over the data for the training accuracy "
                        "(a fit in memory always reports it)")
    p.add_argument("--no-cache", action="store_true",
                   help="with --chunksize: decode the files on every pass (by default an "
                        "iterative fit keeps the decoded blocks for its later passes, in memory "
                        "when small, else memory-mapped in a temporary directory removed at the end)")
    p.add_argument("--cache-dir", metavar="DIR", default=None,
                   help="with --chunksize: where that temporary directory is made (default: the "
                        "system's, $TMPDIR)")
    _add_verbose(p, "with --chunksize: a line on stderr for each pass over the data")

    p = command("predict", "predict with a saved model (CSV on stdout or --out)",
                "linclass predict --model-file lda.linclass --data new.csv --proba", models=False)
    p.add_argument("--model-file", metavar="FILE", required=True,
                   help="a model saved by 'linclass fit' or linclass.save; its features are read "
                        "from --data by name")
    _add_data(p, target_required_note="optional: then it is not a feature, and accuracy is reported")
    p.add_argument("--proba", action="store_true", help="add a probability column per class")
    p.add_argument("-o", "--out", metavar="CSV", help="write here (atomically) instead of stdout")
    p.add_argument("--chunksize", metavar="ROWS", type=_rows, default=None,
                   help="read --data this many rows at a time and write the predictions as they "
                        "come (memory stays bounded whatever the file's size)")
    p.add_argument("--id-column", metavar="COL",
                   help="a column of --data (any type) copied to the output as its first column, "
                        "to tell which row each prediction is for")
    _add_verbose(p, "a line on stderr for each block of rows predicted (with --chunksize)")

    p = command("evaluate", "cross-validated accuracy, log-loss, confusion matrix, fit time",
                "linclass evaluate --model logistic --dataset wine --cv 5")
    _add_model(p)
    _add_data(p)
    _add_columns(p)
    _add_scale(p)
    p.add_argument("--cv", metavar="K", type=_folds, default=5, help="folds (default 5)")
    _add_format(p, ("table", "json"), "the metrics, per fold too, and the confusion matrix")

    p = command("compare", "cross-validate every applicable model on one data set",
                "linclass compare --dataset iris --cv 5 --models lda qda logistic")
    _add_data(p)
    _add_columns(p)
    _add_scale(p)
    p.add_argument("--cv", metavar="K", type=_folds, default=5, help="folds (default 5)")
    p.add_argument("--models", metavar="NAME", nargs="+", type=model_name,
                   help="models to compare, by the names of --model (described in 'linclass "
                        "--help'; default: every applicable one)")
    _add_format(p, ("table", "csv", "json"), "every model's scores")

    kinds = {"regions": "decision regions of --model on two features",
             "fisher": "two classes projected on the mean difference and on Fisher's direction "
                       "(no --model)",
             "contours": f"Gaussian class densities on two features ({', '.join(FIGURE_MODELS['contours'])})",
             "curve": f"training curve ({', '.join(FIGURE_MODELS['curve'])})"}
    p = command("plot", "draw a figure: decision regions, Fisher projections, Gaussian contours, "
                "training curve", "linclass plot --model qda --dataset iris --kind regions --out r.png")
    _add_model(p, required=False, note=" (needed for --kind regions, contours and curve)")
    _add_data(p)
    p.add_argument("--kind", choices=FIGURE_KINDS, required=True,
                   help="; ".join(f"{k}: {v}" for k, v in kinds.items()))
    _add_columns(p, features_help="the features to draw: two for regions and contours (default: "
                 "the first two), any for fisher and curve (default: all); names, or positions from 0")
    _add_scale(p)
    p.add_argument("--classes", metavar="C", nargs="+", help="keep only these classes")
    p.add_argument("-o", "--out", metavar="FIG", type=_figure_path, required=True,
                   help=f"figure file ({', '.join(FIGURE_FORMATS)})")

    p = command("summary", "describe a saved model (and LogisticRegression's inference table)",
                "linclass summary --model-file logistic.linclass", models=False, datasets=False)
    p.add_argument("--model-file", metavar="FILE", required=True,
                   help="a model saved by 'linclass fit' or linclass.save")
    _add_format(p, ("text", "json"), "the parameters, fitted attributes and inference table")
    p.add_argument("--ci", choices=("wald", "profile"), default="wald",
                   help="the inference table's intervals and p-values: 'wald' (default), or "
                        "'profile': profile-likelihood intervals and likelihood-ratio p-values: "
                        "as R's logistf for a model fitted with --param penalty=firth, as R's "
                        "confint(glm) for an unpenalised one (--param penalty=None; needs the "
                        "training rows: --data/--target or --dataset)")
    p.add_argument("--cov-type", choices=("nonrobust", "HC0", "HC1", "HC2", "HC3", "cluster"),
                   default="nonrobust",
                   help="the inference table's covariance, as statsmodels' fit(cov_type=...): "
                        "'nonrobust' (default: the inverse information), 'HC0' / 'HC1' "
                        "(heteroscedasticity robust; HC1 = HC0 * N/(N-k)), 'HC2' / 'HC3' (the "
                        "squared scores divided by 1-h or (1-h)^2, h the leverages, as R's "
                        "sandwich::vcovHC), 'cluster' (cluster robust, with --groups); "
                        "unpenalised logistic models, from the training rows (--data/--target or "
                        "--dataset)")
    p.add_argument("--groups", metavar="COL", nargs="+",
                   help="the cluster column of --data (or a feature of --dataset) for "
                        "--cov-type cluster; two or more columns: multi-way clustering, as R's "
                        "vcovCL(m, cluster = ~ g1 + g2)")
    p.add_argument("--cluster-correction", choices=("stata", "statsmodels", "none"), default=None,
                   help="--cov-type cluster's small-sample factor: 'stata' (default: G/(G-1), as "
                        "Stata's vce(cluster) and R's sandwich::vcovCL), 'statsmodels' "
                        "(G/(G-1)(N-1)/(N-k)) or 'none'")
    rows = p.add_mutually_exclusive_group()
    rows.add_argument("-d", "--data", metavar="FILE", nargs="+", action=_Files,
                      help="the training rows (CSV or Parquet; several files, a directory or a "
                           "quoted glob as one table) for --cov-type and --ci profile; the "
                           "model's features are read by name")
    rows.add_argument("--dataset", metavar="NAME", type=_dataset_name,
                      help=f"bundled training data set: {', '.join(DATASETS)}")
    p.add_argument("-t", "--target", metavar="COL", help="label column of --data (required with --data)")
    _add_na_values(p)

    p = command("export", "write a saved model as an ONNX graph (onnxruntime runs it without linclass)",
                "linclass export --model-file lda.linclass --onnx lda.onnx", models=False,
                datasets=False)
    p.add_argument("--model-file", metavar="FILE", required=True,
                   help="a model saved by 'linclass fit' or linclass.save")
    p.add_argument("-o", "--onnx", metavar="OUT", required=True,
                   help="where to write the ONNX graph (atomically); needs linclass[onnx]")
    p.add_argument("--double", action="store_true",
                   help="take float64 rows (default: float32, the usual ONNX input)")
    return parser
