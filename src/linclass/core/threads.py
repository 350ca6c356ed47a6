"""How work is shared among threads: how many threads BLAS runs for a product, by the size of the
work and the cores free for it, and the row chunks of a large X that worker threads read apart.

BLAS threads by the size of the work and the cores free for it: a logistic fit makes many products
of X with its coefficients, and on small problems a threaded BLAS spends more on waking and waiting
for its threads than it saves (measured on 2 cores with another process busy: raw digits, 1,797 x
64 with 10 classes, 1.2-6.1 s with two BLAS threads against 0.50 s with one).  Products of at least
:data:`BLAS_THREADS_MIN` multiply-adds keep the library's own setting, when at least two cores are
free: a core held by another process makes every threaded product wait for the thread that shares
it, and BLAS's and OpenMP's idle threads spin (they wait for work by polling) on the cores a serial
step needs (measured: dense L1, 50,000 x 100, 3.4x slower at two threads than at one with one core
busy).  Within :func:`blas_threads_for`'s one-thread context numba's parallel loops run one thread
too.

Row workers: class statistics (and other one-read passes) of a large X from row chunks, read by as
many threads as BLAS may use.  The statistics of a dense X are one read of its rows (class sums,
squares, the Gram product) and merge exactly (:meth:`linclass.generative.class_stats.ClassStats.merge`),
so X is cut into contiguous row chunks (views, no copy) whose statistics are computed apart and
merged in chunk order.  The chunks depend only on X's shape, never on the thread count, so one, two
or more threads give the same numbers, bit for bit.

With BLAS allowed several threads (threadpoolctl's setting, which the user may lower), the chunks
are shared among that many threads, each running BLAS in one thread and the compiled loops (which
release the GIL) on its own chunk; a thread takes the next chunk when it is done, so a core that
another process holds slows the pass by its share, not by half.  This parallelises the parts of the
pass that a threaded BLAS product leaves on one core (the class sums beside the Gram product, the
per-class gather of the full scatter), and small products on one thread each avoid BLAS's
synchronisation on every block.  Each chunk costs about 0.15 ms of its own (a few small arrays and
a merge), so chunks are large (:data:`CHUNK_BYTES`).

numba is not imported here (:func:`_one_thread` uses it only when a compiled loop has loaded it).

Idle threads, and what can be changed after the libraries load
-------------------------------------------------------------
A library's worker threads do not sleep as soon as a parallel region ends: OpenBLAS's (pthreads
build, NumPy's and SciPy's wheels) poll for new work for up to ``2**OPENBLAS_THREAD_TIMEOUT``
cycles (default ``2**28``, about 0.1 s) before they sleep (measured here: 20 ms of a worker's CPU
time in the half second after one threaded 600 x 600 product, on a loaded machine), and the
OpenMP runtime under numba's parallel loops (``numba.threading_layer()`` is ``'omp'``, GNU
libgomp, on Linux wheels) spins for ``GOMP_SPINCOUNT`` iterations (``OMP_WAIT_POLICY``) before it
waits on a futex.  All three are read once, when the library loads (OpenBLAS with NumPy's import,
libgomp at numba's first parallel loop); nothing changes them afterwards, and a library must not
set them for its caller's process (children inherit the environment).  What can be changed at any
time is how many threads the next region starts: BLAS's count (threadpoolctl, process-wide) and
numba's (``numba.set_num_threads``, per calling thread).  So the policy here starts no second
thread where it would not pay (:func:`threads_allowed`): a fit whose products are small, or that
runs while another process holds a core, never wakes BLAS's or OpenMP's workers, and they have no
reason to spin.

threadpoolctl 3.8 lets only one Python thread at a time set OpenBLAS's process-wide count (the
first to set it, until it leaves a ``with threadpool_limits`` block); another thread's settings are
silently dropped.  :func:`one_blas_thread` sets and restores the count under its own lock, from
whichever thread opens first and closes last, and gives that control back after each change, so
that a fit in a worker thread (a cross-validation's folds) and a fit in the main thread both get
their one thread.
"""


from __future__ import annotations

import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, nullcontext
from itertools import pairwise

__all__ = ["BLAS_THREADS_MIN", "CHUNK_BYTES", "MIN_CHUNK_ROWS", "blas_controller", "blas_threads_for",
           "free_cores", "map_chunks", "one_blas_thread", "row_chunks", "threads_allowed"]


# -------------------- BLAS threads by the size of the work
# multiply-adds of one product of X below which BLAS runs one thread: a product of a few million
# is read-bound (two threads share one memory bus) and lasts a few milliseconds, too little to pay
# for waking a second thread and for its spinning afterwards (dense 50,000 x 100, L1: 2.3x slower
# at two threads than at one on a quiet 2-core machine)
BLAS_THREADS_MIN = 30_000_000
WORKERS_MIN = 4_000_000  # multiply-adds in all below which independent tasks run in one thread

_controller = None
_libraries = None  # the loaded BLAS libraries' threadpoolctl controllers
_lock = threading.Lock()
_holders = 0  # contexts of one_blas_thread open now, in any thread
_saved = None  # the libraries' counts from before the first of them, restored by the last


def blas_threads_for(work: float):
    """A context in which BLAS, and numba's parallel loops started from this thread, run one
    thread when ``work`` (multiply-adds of one product of the data with the coefficients: rows x
    parameters, or stored entries x coefficient rows for sparse X) is below
    :data:`BLAS_THREADS_MIN` or fewer than two cores are free (:func:`free_cores`); otherwise the
    libraries' own settings (the decision: :func:`threads_allowed`)."""
    # the size first: the free cores are read (about 0.1 ms) only for a product that may thread
    if work >= BLAS_THREADS_MIN and threads_allowed(work, free_cores()):
        return nullcontext()
    return _one_thread()


def threads_allowed(work: float, free: int) -> bool:
    """Whether products of ``work`` multiply-adds each may run the libraries' own thread counts
    when ``free`` cores are free: at least :data:`BLAS_THREADS_MIN` (below it a parallel region
    lasts a few milliseconds and its threads' start and spinning cost more than they save), and
    at least two free cores (a core held by another process makes every threaded region wait
    for the thread that shares it).  The libraries' counts are an upper bound that the caller
    sets (threadpoolctl, ``OMP_NUM_THREADS``, ``NUMBA_NUM_THREADS``, ``numba.set_num_threads``):
    allowing threads never raises them."""
    return work >= BLAS_THREADS_MIN and free >= 2


@contextmanager
def _one_thread():
    numba = sys.modules.get("numba")  # loaded by the compiled loops that would use threads
    saved = numba.get_num_threads() if numba is not None else None
    with one_blas_thread():
        if saved is not None and saved > 1:
            numba.set_num_threads(1)
        try:
            yield
        finally:
            if saved is not None and saved > 1:
                numba.set_num_threads(saved)


def free_cores() -> int:
    """Cores this process may use that no other process's thread is running on now: the CPUs in
    its affinity mask less the threads the kernel counts as running (``/proc/loadavg``) that are
    not this process's own (``/proc/self/task``).  A snapshot, taken once per fit (about 0.1 ms);
    where ``/proc`` is absent, every core counts as free."""
    try:
        cores = len(os.sched_getaffinity(0))
        with open("/proc/loadavg") as f:
            running = int(f.read().split()[3].split("/")[0])
        own = 0
        for task in os.listdir("/proc/self/task"):
            try:
                with open(f"/proc/self/task/{task}/stat") as f:
                    stat = f.read()
            except OSError:  # the thread ended meanwhile
                continue
            own += stat[stat.rfind(")") + 2:stat.rfind(")") + 3] == "R"
    except (OSError, ValueError, IndexError, AttributeError):
        return os.cpu_count() or 1
    return max(cores - max(running - own, 0), 1)


@contextmanager
def one_blas_thread():
    """A context in which BLAS runs one thread.  The limit is process-wide (BLAS has one setting),
    so contexts opened by several threads at once share it: the first sets it and the last to close
    restores the setting from before the first (nested threadpoolctl limits, each restoring what it
    saw, would leave BLAS at one thread when two threads' contexts interleave)."""
    global _holders, _saved
    with _lock:
        if _holders == 0:
            _saved = _set_blas_threads(1)
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0:  # back from one thread where the first context changed it
                _set_blas_threads(_saved, before=[1 if n is not None else None for n in _saved])
                _saved = None


def _set_blas_threads(counts, before=None) -> list:
    """Set each loaded BLAS library's thread count (``counts``: one for all, or one per library)
    where it differs from its count now (``before``, read when not given), and return the counts
    from before.  threadpoolctl's hold on OpenBLAS (the one thread that may set it) is taken for
    the change and given back after it: the caller's lock, not the thread, orders the changes
    here, and a thread that holds it must not make a fit in another thread run BLAS's default
    count (a user's ``with threadpool_limits`` block in another thread still restores its own
    setting when it ends)."""
    libraries = _blas_libraries()
    if before is None:
        before = [lib.get_num_threads() for lib in libraries]
    wanted = counts if isinstance(counts, list) else [counts] * len(libraries)
    changes = [(lib, count) for lib, now, count in zip(libraries, before, wanted)
               if count is not None and now != count]
    # threadpoolctl >= 3.8: one hold per controller class (all OpenBLAS libraries share it)
    releases = {getattr(type(lib), "clear_controlling_thread", None) for lib, _ in changes} - {None}
    for release in releases:
        release(force=True)  # else a setting from this thread may be dropped
    for lib, count in changes:
        lib.set_num_threads(count)
    for release in releases:
        release(force=True)
    return before


def _blas_libraries() -> list:
    """threadpoolctl's controllers of the loaded BLAS libraries (cached with the controller)."""
    global _libraries
    if _libraries is None:
        _libraries = list(blas_controller().select(user_api="blas").lib_controllers)
    return _libraries


def blas_controller():
    """One cached threadpoolctl controller of the loaded BLAS libraries (NumPy's and SciPy's)."""
    global _controller
    if _controller is None:  # after SciPy's BLAS is loaded (the fits use both NumPy's and SciPy's)
        import scipy.linalg  # noqa: F401
        from threadpoolctl import ThreadpoolController

        _controller = ThreadpoolController()
    return _controller


def worker_threads(work: float, tasks: int) -> int:
    """How many threads should share ``tasks`` independent tasks of ``work`` multiply-adds in all
    (each task's BLAS calls then run one thread: :func:`blas_threads_for` of 0): one below
    :data:`WORKERS_MIN`, else as many as the BLAS library's own setting allows (so a limit the
    caller set with threadpoolctl or OMP_NUM_THREADS holds), at most ``tasks``.  Threads that each
    take the next task when done, unlike BLAS's threads inside one product, do not wait for each
    other at every step when another process holds a core."""
    if work < WORKERS_MIN or tasks < 2:
        return 1
    blas = [info["num_threads"] for info in blas_controller().info()
            if info["user_api"] == "blas"]
    return max(1, min(tasks, min(blas) if blas else 1))


# -------------------- row workers: row chunks of X shared among threads
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


def _blas_threads() -> int:
    """How many threads BLAS may use now (the largest setting over the loaded BLAS libraries)."""
    return max((lib.get_num_threads() or 1 for lib in _blas_libraries()), default=1)


def map_chunks(fn, chunks: list[slice]) -> list:
    """``[fn(c) for c in chunks]``, on up to as many threads as BLAS may use (each running BLAS in
    one thread while they work); the results in chunk order."""
    global _pool, _pool_size
    threads = min(_blas_threads(), len(chunks))
    if threads < 2:
        return [fn(c) for c in chunks]
    if _pool is None or _pool_size != threads:
        if _pool is not None:
            _pool.shutdown(wait=False)
        _pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="linclass-rows")
        _pool_size = threads
    with one_blas_thread():
        return list(_pool.map(fn, chunks))
