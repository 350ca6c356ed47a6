"""BLAS threads by the size of the work (linclass.core.threads): one thread for small products,
the library's own setting for large ones, and the same answers either way."""

import numpy as np
import pytest
import scipy.linalg  # noqa: F401 - SciPy's BLAS loaded, as in every fit
from threadpoolctl import threadpool_info, threadpool_limits

import linclass as lc
from linclass.core.threads import BLAS_THREADS_MIN, blas_threads_for


def blas_threads():
    return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]


def test_small_work_runs_one_blas_thread_and_restores_the_setting(monkeypatch):
    import linclass.core.threads as threads

    monkeypatch.setattr(threads, "free_cores", lambda: 2)  # a quiet machine
    before = blas_threads()
    with blas_threads_for(BLAS_THREADS_MIN - 1):
        assert set(blas_threads()) == {1}
    assert blas_threads() == before
    with threadpool_limits(2, user_api="blas"):
        with blas_threads_for(BLAS_THREADS_MIN):
            assert set(blas_threads()) == {2}


def test_large_work_runs_one_thread_when_a_core_is_taken(monkeypatch):
    """Another process running on one of two cores: BLAS and numba's parallel loops run one
    thread, even for large products, and get their settings back after."""
    import numba

    import linclass.core.threads as threads

    monkeypatch.setattr(threads, "free_cores", lambda: 1)
    with threadpool_limits(2, user_api="blas"):
        numba.set_num_threads(2)
        with blas_threads_for(10 * BLAS_THREADS_MIN):
            assert set(blas_threads()) == {1}
            assert numba.get_num_threads() == 1
        assert set(blas_threads()) == {2} and numba.get_num_threads() == 2


def test_free_cores_counts_a_spinning_process():
    """A process spinning on a core is seen (the count is a snapshot: it is taken a few times)."""
    import multiprocessing
    import time

    from linclass.core.threads import free_cores

    cores = len(__import__("os").sched_getaffinity(0))
    assert 1 <= free_cores() <= cores
    if cores < 2:
        pytest.skip("one core")
    spinner = multiprocessing.get_context("fork").Process(target=_spin, daemon=True)
    spinner.start()
    try:
        time.sleep(0.2)
        seen = [free_cores() for _ in range(20)]
    finally:
        spinner.terminate()
        spinner.join()
    assert min(seen) <= cores - 1


def _spin():
    while True:
        pass


def test_a_small_fit_runs_one_thread_and_gives_the_same_answer(monkeypatch):
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    seen = []
    import linclass.linear.fitting.fit as fit_module

    original = fit_module._fit_aliased

    def spy(problem, options):
        seen.append(blas_threads())
        return original(problem, options)

    monkeypatch.setattr(fit_module, "_fit_aliased", spy)
    with threadpool_limits(2, user_api="blas"):
        a = lc.LogisticRegression(max_iter=500).fit(X, y)
    assert seen and set(seen[0]) == {1}
    with threadpool_limits(1, user_api="blas"):
        b = lc.LogisticRegression(max_iter=500).fit(X, y)
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=0, atol=1e-12)


@pytest.mark.parametrize("penalty", ["l1", "l2"])
def test_paths_hold_one_thread_only_while_a_fit_runs(penalty):
    from sklearn.datasets import load_breast_cancer
    from sklearn.preprocessing import StandardScaler

    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    before = blas_threads()
    path = lc.logistic_path(X, y, Cs=5, penalty=penalty)
    assert blas_threads() == before
    assert path.coefs.shape == (5, 1, X.shape[1])


def test_worker_threads_follow_the_work_and_the_blas_setting():
    from linclass.core.threads import WORKERS_MIN, worker_threads

    with threadpool_limits(2, user_api="blas"):
        assert worker_threads(WORKERS_MIN - 1, 10) == 1  # small: one thread
        assert worker_threads(WORKERS_MIN, 1) == 1  # one task
        assert worker_threads(WORKERS_MIN, 10) == 2
    with threadpool_limits(1, user_api="blas"):  # the caller's limit holds
        assert worker_threads(10 * WORKERS_MIN, 10) == 1


def test_one_blas_thread_contexts_interleaved_across_threads_restore_the_setting(monkeypatch):
    """Two threads whose one-thread contexts interleave (A opens, B opens, A closes, B closes)
    share one limit: set by the first, restored by the last, so BLAS ends at its setting from
    before (a limit per context, each restoring what it saw, would leave it at one thread)."""
    import threading

    import linclass.core.threads as threads

    class Library:  # stands in for BLAS's one process-wide setting
        setting = 4

        def get_num_threads(self):
            return Library.setting

        def set_num_threads(self, count):
            Library.setting = count

    monkeypatch.setattr(threads, "_blas_libraries", lambda: [Library()])
    a_open, b_open, a_closed = threading.Event(), threading.Event(), threading.Event()
    inside = []

    def a():
        with threads.one_blas_thread():
            a_open.set()
            b_open.wait()
            inside.append(Library.setting)
        a_closed.set()

    def b():
        a_open.wait()
        with threads.one_blas_thread():
            b_open.set()
            a_closed.wait()
            inside.append(Library.setting)  # A has closed: still one thread while B works

    workers = [threading.Thread(target=a), threading.Thread(target=b)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    assert inside == [1, 1]
    assert Library.setting == 4 and threads._holders == 0


def test_threads_allowed_by_the_work_and_the_free_cores():
    """The decision itself: the libraries' own counts only for products of at least
    BLAS_THREADS_MIN multiply-adds with at least two cores free; one thread otherwise."""
    from linclass.core.threads import threads_allowed

    assert threads_allowed(BLAS_THREADS_MIN, 2)
    assert threads_allowed(100 * BLAS_THREADS_MIN, 16)
    assert not threads_allowed(BLAS_THREADS_MIN - 1, 16)  # a parallel region of a few ms
    assert not threads_allowed(100 * BLAS_THREADS_MIN, 1)  # another process holds a core
    assert not threads_allowed(0, 0)


def test_a_worker_thread_gets_its_one_thread_while_another_thread_holds_threadpoolctl():
    """threadpoolctl 3.8 lets one thread at a time set OpenBLAS's count (the first to set it, until
    it leaves a ``with threadpool_limits`` block) and silently drops the others' settings: a fit in
    a worker thread (a cross-validation fold) must still get its one BLAS thread while the main
    thread is inside such a block, and the main thread's own limit must hold after."""
    import threading

    import threadpoolctl

    from linclass.core.threads import one_blas_thread

    release = getattr(threadpoolctl.OpenBLASController, "clear_controlling_thread", None)
    if release is None:
        pytest.skip("threadpoolctl < 3.8 lets any thread set the count")
    release(force=True)  # as in a fresh process: no thread has set a count yet
    seen, opened, finish = [], threading.Event(), threading.Event()

    def worker():
        with one_blas_thread():
            seen.append(set(blas_threads()))
        opened.set()
        finish.wait()  # alive after its context, as a pool's thread is

    t = threading.Thread(target=worker)
    with threadpool_limits(2, user_api="blas"):
        t.start()
        try:
            opened.wait()
            assert set(blas_threads()) == {2}
            with one_blas_thread():
                assert set(blas_threads()) == {1}
            assert set(blas_threads()) == {2}
        finally:
            finish.set()
            t.join()
    assert seen == [{1}]
