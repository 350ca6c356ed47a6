"""Progress bars for long work: tqdm when it is installed (``pip install linclass[progress]``), shown
only on a terminal and only once the work has taken more than two seconds; otherwise nothing."""

from __future__ import annotations

__all__ = ["progress"]


def progress(iterable, *, desc: str, enabled: bool = True, total: int | None = None):
    """Wrap ``iterable`` in a tqdm bar when tqdm is available and ``enabled``; else return it."""
    if not enabled:
        return iterable
    try:
        from tqdm import tqdm
    except ImportError:
        return iterable
    # disable=None: off when stderr is not a terminal; delay: only for work that takes a while
    return tqdm(iterable, desc=desc, total=total, disable=None, delay=2.0, leave=False)
