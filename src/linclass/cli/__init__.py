"""The ``linclass`` command: fit, predict, evaluate, compare, plot and summarise models from a shell.

Subcommands (``linclass COMMAND --help`` for each)::

    linclass fit      --model lda --dataset iris --out iris-lda.linclass
    linclass predict  --model-file iris-lda.linclass --data new.csv --proba --out predictions.csv
    linclass evaluate --model logistic --data train.csv --target label --cv 5
    linclass fit      --model lda --data 'parts/*.parquet' --target label --chunksize 100000 --out lda.linclass
    linclass compare  --dataset wine --cv 5
    linclass plot     --model qda --dataset iris --kind regions --features 2 3 --out regions.png
    linclass summary  --model-file iris-logistic.linclass
    linclass export   --model-file iris-lda.linclass --onnx iris-lda.onnx

A user's mistake (missing file, unknown column or model, non-numeric feature, bad ``--param``, a file
that is not a model, a directory that does not exist) prints one line, ``linclass: error: ...``, and
exits with status 2 (a mistake on the command line, a ``--param`` value the model refuses included)
or 1 (data, model file, output path); set ``LINCLASS_DEBUG=1`` to see the traceback instead.
Warnings print as one line each, hints (``linclass: hint: ...``) too.  A progress bar (tqdm, when
installed) shows on long work, only when stderr is a terminal.

``parser``       the argument parser and its help
``models``       model names, which data and figures they apply to (all from the registry), --scale
``data``         --dataset / --data with --features / --drop: the rows and columns a command works on
``evaluation``   cross-validation: folds, tallies, log-loss, warnings per fold
``formatting``   tables, numbers, and library hints in command-line spelling
``model_files``  --model-file: loading a saved model, one line for a file that cannot be used
``commands``     fit, evaluate, compare, summary; ``prediction`` (predict), ``figures`` (plot) and
                 ``exporting`` (export)
``passes``       what a chunked fit or prediction says as it reads: passes, --verbose lines, a bar
"""

from __future__ import annotations

import os
import sys
import warnings

from linclass.cli.errors import UsageError
from linclass.cli.formatting import command_line, one_line
from linclass.cli.models import MODELS, make_model, parameter_names, parse_param
from linclass.cli.parser import build_parser

__all__ = ["MODELS", "build_parser", "main", "make_model", "parse_param"]


def _said(text) -> str:
    """A library's message as one line, its hints spelled for the command line."""
    return command_line(one_line(text), parameter_names())


def _show_warning(message, category, filename, lineno, file=None, line=None):
    print(f"linclass: warning: {category.__name__}: {_said(message)}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """Run the ``linclass`` command; returns the exit status."""
    debug = bool(os.environ.get("LINCLASS_DEBUG"))
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            args = build_parser().parse_args(argv)
            # the commands (and scikit-learn, SciPy, numba behind them) are imported only once
            # the arguments parse: --help, --version and a usage error cost none of them
            from linclass.cli.commands import COMMANDS
            from linclass.sources.csv_blocks import csv_dialect, more_na_values

            dialect = csv_dialect(getattr(args, "sep", None), getattr(args, "decimal", "."))
            with more_na_values(getattr(args, "na_values", None) or ()), dialect:
                return COMMANDS[args.command](args)
    except SystemExit as exc:  # --help, --version
        return exc.code if isinstance(exc.code, int) else 0
    except UsageError as exc:
        if debug:
            raise
        print(f"linclass: error: {one_line(exc)}", file=sys.stderr)
        return 2
    except (ValueError, OSError) as exc:  # DataError, ModelFileError, a missing directory, input checks
        if isinstance(exc, BrokenPipeError):  # `linclass predict ... | head`: not an error
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 0
        if debug:
            raise
        print(f"linclass: error: {_said(exc)}", file=sys.stderr)
        return 1
    except ImportError as exc:  # an optional dependency (matplotlib, pyarrow) is not installed
        optional = exc.name in ("matplotlib", "pyarrow", "pandas") or "pip install" in str(exc)
        if debug or not optional:
            raise
        print(f"linclass: error: {one_line(exc)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("linclass: interrupted", file=sys.stderr)
        return 130
