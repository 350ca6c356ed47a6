"""Class statistics of a large X from row chunks, read by as many threads as BLAS may use.

The statistics of a dense X are one read of its rows (class sums, squares, the Gram product) and
merge exactly (:meth:`linclass.generative.class_stats.ClassStats.merge`), so X is cut into contiguous row
chunks (views, no copy) whose statistics are computed apart and merged in chunk order.  The chunks
depend only on X's shape, never on the thread count, so one, two or more threads give the same
numbers, bit for bit.

With BLAS allowed several threads (threadpoolctl's setting, which the user may lower), the chunks
are shared among that many threads, each running BLAS in one thread and the compiled loops (which
release the GIL) on its own chunk; a thread takes the next chunk when it is done, so a core that
another process holds slows the pass by its share, not by half.  This parallelises the parts of the
pass that a threaded BLAS product leaves on one core (the class sums beside the Gram product, the
per-class gather of the full scatter), and small products on one thread each avoid BLAS's
synchronisation on every block.  Each chunk costs about 0.15 ms of its own (a few small arrays and
a merge), so chunks are large (:data:`CHUNK_BYTES`).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from itertools import pairwise

from linclass.core.threads import blas_controller, one_blas_thread

__all__ = ["CHUNK_BYTES", "MIN_CHUNK_ROWS", "map_chunks", "row_chunks"]

CHUNK_BYTES = 32 * 2**20  # a chunk's rows fill about this much
MIN_CHUNK_ROWS = 16_384  # rows: below this a chunk's fixed costs (a few small arrays) start to show
MAX_HELD_BYTES = 2**27  # statistics of all chunks held at once before the merge
_GRAIN = 4  # the number of chunks is a multiple of this where the rows allow: 2 or 4 threads share
# them evenly (a thread left alone with the last chunk would leave a core idle)

_pool: ThreadPoolExecutor | None = None
_pool_size = 0


def row_chunks(n_rows: int, n_features: int, stat_bytes: int, align: int = 1,
               min_rows: int = 0) -> list[slice]:
    """Contiguous row ranges covering ``range(n_rows)``, of about :data:`CHUNK_BYTES` of float64 rows
    (or fewer, to make their number a multiple of ``_GRAIN``, or 2) and at least
    :data:`MIN_CHUNK_ROWS` (and ``min_rows``) rows each, with bounds at multiples of ``align`` rows
    (so the blocks of a blocked pass stay those of one pass over all rows), and no more than
    ``MAX_HELD_BYTES / stat_bytes`` of them (``stat_bytes``: the size of one chunk's statistics).
    One range when X is small."""
    least = max(MIN_CHUNK_ROWS, min_rows)
    rows = max(least, CHUNK_BYTES // (8 * max(n_features, 1)))
    count = min(-(-round(n_rows / rows) // _GRAIN) * _GRAIN, n_rows // least,
                MAX_HELD_BYTES // max(stat_bytes, 1))
    count = count - count % _GRAIN if count >= _GRAIN else min(count, 2)
    if count < 2:
        return [slice(0, n_rows)]
    bounds = [n_rows * i // count // align * align for i in range(count)] + [n_rows]
    return [slice(a, b) for a, b in pairwise(bounds)]


def _threads() -> int:
    """How many threads BLAS may use now (the largest setting over the loaded BLAS libraries)."""
    return max((lib.num_threads for lib in blas_controller().select(user_api="blas").lib_controllers),
               default=1)


def map_chunks(fn, chunks: list[slice]) -> list:
    """``[fn(c) for c in chunks]``, on up to as many threads as BLAS may use (each running BLAS in
    one thread while they work); the results in chunk order."""
    global _pool, _pool_size
    threads = min(_threads(), len(chunks))
    if threads < 2:
        return [fn(c) for c in chunks]
    if _pool is None or _pool_size != threads:
        if _pool is not None:
            _pool.shutdown(wait=False)
        _pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="linclass-rows")
        _pool_size = threads
    with one_blas_thread():
        return list(_pool.map(fn, chunks))
