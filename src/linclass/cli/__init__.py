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
Warnings print as one line each, once (NumPy's ``np.float64(13.74)`` as ``13.74``), hints
(``linclass: hint: ...``) too.  A progress bar (tqdm, when installed) shows on work that takes more
than two seconds, only when stderr is a terminal, with the fit's iterations (or passes over the
data, or folds) so far; ``-q`` / ``--quiet`` leaves out the bars, hints and confirmations.
``--data -`` reads the table from standard input; ``--format json`` makes ``evaluate``,
``compare`` and ``summary`` print one JSON object.

``parser``       the argument parser and its help
``models``       model names, which data and figures they apply to (all from the registry), --scale
``data``         --dataset / --data with --features / --drop: the rows and columns a command works on
``evaluation``   cross-validation: folds, tallies, log-loss, warnings per fold
``formatting``   tables, numbers, and library hints in command-line spelling
``model_files``  --model-file: loading a saved model, one line for a file that cannot be used
``commands``     fit, evaluate, compare, summary; ``prediction`` (predict), ``figures`` (plot) and
                 ``exporting`` (export)
``passes``       what a chunked fit or prediction says as it reads: passes, --verbose lines, a bar
``stdin``        ``--data -``: the table piped in, kept in a temporary file for the command
"""

from __future__ import annotations

import gc
import os
import sys
import warnings

from linclass.cli.errors import UsageError
from linclass.cli.formatting import command_line, one_line
from linclass.cli.models import MODELS, make_model, parameter_names, parse_param
from linclass.cli.parser import build_parser
from linclass.cli.stdin import named

__all__ = ["MODELS", "build_parser", "main", "make_model", "parse_param"]


def _said(text) -> str:
    """A library's message as one line, its hints spelled for the command line (and a table read
    from standard input named so)."""
    return named(command_line(one_line(text), parameter_names()))


def _warning_printer():
    """A ``warnings.showwarning`` that prints each warning as one line, once per command: a fit
    and the prediction after it (the training accuracy) may raise the same warning twice."""
    shown = set()

    def show(message, category, filename, lineno, file=None, line=None):
        text = f"linclass: warning: {category.__name__}: {_said(message)}"
        if text not in shown:
            shown.add(text)
            print(text, file=sys.stderr)
    return show


def main(argv: list[str] | None = None) -> int:
    """Run the ``linclass`` command; returns the exit status."""
    debug = bool(os.environ.get("LINCLASS_DEBUG"))
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _warning_printer()
            args = build_parser().parse_args(argv)
            if args.quiet and getattr(args, "verbose", False):
                raise UsageError("--quiet and --verbose contradict each other: give one")
            # the commands (and scikit-learn, SciPy, numba behind them) are imported only once
            # the arguments parse: --help, --version and a usage error cost none of them
            from linclass.cli.commands import COMMANDS
            from linclass.cli.stdin import standard_input
            from linclass.core.progress import silenced
            from linclass.sources.csv_blocks import csv_dialect, more_na_values

            _freeze_imports(argv)

            dialect = csv_dialect(getattr(args, "sep", None), getattr(args, "decimal", "."))
            with more_na_values(getattr(args, "na_values", None) or ()), dialect, \
                    silenced(args.quiet), standard_input(args):
                return COMMANDS[args.command](args)
    except SystemExit as exc:  # --help, --version
        return exc.code if isinstance(exc.code, int) else 0
    except UsageError as exc:
        if debug:
            raise
        print(f"linclass: error: {named(one_line(exc))}", file=sys.stderr)
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
    finally:
        _freeze_imports(argv)


def _freeze_imports(argv) -> None:
    """When this process is the command (``argv`` None: the console script, ``python -m linclass``),
    move the objects allocated so far (the imported modules' ~200,000, alive until the process
    ends) out of the garbage collector's view: each full collection would scan them again, about
    0.1 s here, and one runs at the interpreter's exit (``gc.freeze``).  A program that calls
    :func:`main` with its own arguments keeps its collector as it was."""
    if argv is None:
        gc.freeze()
