"""Saved models as the commands read them: a missing file, and a file whose fitted state does not
hold together, each give one line."""

from __future__ import annotations

from pathlib import Path

from linclass.cli.formatting import one_line
from linclass.sources.tables import DataError

__all__ = ["load_model", "uses_model_file"]

# What using a loaded model raises when its file holds values that are each valid but do not fit
# together (load() checks the format, the types and the checksums, not that classes_ matches coef_):
# a hand-edited or hostile file must give the one-line error, not a traceback.  ValueError is not
# here: main() reports it as it is (it is also how the estimators refuse the user's data).
_UNUSABLE_MODEL = (TypeError, LookupError, AttributeError, ArithmeticError, RuntimeError)


def load_model(path: str):
    """The model saved in ``path`` (:func:`linclass.load`), or a DataError naming a missing file."""
    from linclass.io.persistence import load

    if not Path(path).exists():
        raise DataError(f"{path!r}: no such model file")
    return load(path)


def uses_model_file(command):
    """Decorate a command that uses ``args.model_file``: an inconsistent fitted state is one
    DataError naming the file."""
    def run(args) -> int:
        try:
            return command(args)
        except _UNUSABLE_MODEL as exc:
            raise DataError(f"the model in {args.model_file!r} cannot be used: its fitted state is "
                            f"inconsistent ({type(exc).__name__}: {one_line(exc)})") from exc
    return run
