"""Threads by the size of the work and the cores free for it: a logistic fit makes many products
of X with its coefficients, and on small problems a threaded BLAS spends more on waking and waiting
for its threads than it saves (measured on 2 cores with another process busy: raw digits, 1,797 x
64 with 10 classes, 1.2-6.1 s with two BLAS threads against 0.50 s with one).  Products of at least
:data:`BLAS_THREADS_MIN` multiply-adds keep the library's own setting, when at least two cores are
free: a core held by another process makes every threaded product wait for the thread that shares
it, and BLAS's and OpenMP's idle threads spin (they wait for work by polling) on the cores a serial
step needs (measured: dense L1, 50,000 x 100, 3.4x slower at two threads than at one with one core
busy).  Within :func:`blas_threads_for`'s one-thread context numba's parallel loops run one thread
too.
"""

from __future__ import annotations

import os
import sys
import threading
from contextlib import contextmanager, nullcontext

__all__ = ["BLAS_THREADS_MIN", "blas_controller", "blas_threads_for", "free_cores",
           "one_blas_thread"]

# multiply-adds of one product of X below which BLAS runs one thread: a product of a few million
# is read-bound (two threads share one memory bus) and lasts a few milliseconds, too little to pay
# for waking a second thread and for its spinning afterwards (dense 50,000 x 100, L1: 2.3x slower
# at two threads than at one on a quiet 2-core machine)
BLAS_THREADS_MIN = 30_000_000
WORKERS_MIN = 4_000_000  # multiply-adds in all below which independent tasks run in one thread

_controller = None
_lock = threading.Lock()
_holders = 0  # contexts of one_blas_thread open now, in any thread
_limiter = None  # the limit they share, set by the first and restored by the last


def blas_threads_for(work: float):
    """A context in which BLAS, and numba's parallel loops started from this thread, run one
    thread when ``work`` (multiply-adds of one product of the data with the coefficients: rows x
    parameters, or stored entries x coefficient rows for sparse X) is below
    :data:`BLAS_THREADS_MIN` or fewer than two cores are free (:func:`free_cores`); otherwise the
    libraries' own settings."""
    if work >= BLAS_THREADS_MIN and free_cores() >= 2:
        return nullcontext()
    return _one_thread()


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
    global _holders, _limiter
    with _lock:
        if _holders == 0:
            _limiter = blas_controller().limit(limits=1, user_api="blas")
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0:
                _limiter.restore_original_limits()
                _limiter = None


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
