"""What the command shows of a long chunked fit or prediction: the passes over the data it makes
(counted, and with ``--verbose`` one line each on stderr) and, when stderr is a terminal and tqdm is
installed, a progress bar over the chunks of each pass: :class:`CountedSource`, the reporter of
:mod:`linclass.sources.pass_report` that estimators' ``verbose=`` uses too."""

from __future__ import annotations

from linclass.sources.pass_report import PassReport, say

__all__ = ["CountedSource", "say"]


class CountedSource(PassReport):
    """A chunk source (:class:`linclass.sources.files.FileSource`) whose complete passes over the
    data are counted in :attr:`passes`; ``verbose`` says each on stderr as it ends (rows, chunks,
    whether the files were decoded or the cache of decoded blocks read, seconds), and a progress
    bar shows the chunks of a pass on a terminal.  :attr:`rows` is the number of rows of a
    complete pass."""
