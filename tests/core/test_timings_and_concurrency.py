"""The per-candidate stopwatch (exclusive stages that add up to the wall time) and side-by-side runs (results in
order, the first error raised only once every call ended, artefacts recorded into the caller's folder)."""

import threading
import time

import pytest

from repo2env.core import artefacts, concurrency, timings


def test_stages_are_exclusive_and_add_up_to_the_wall():
    with timings.measuring() as watch:
        with timings.stage("controls"):
            time.sleep(0.05)
            with timings.stage("container start"):  # pauses "controls"
                time.sleep(0.1)
        time.sleep(0.02)  # no stage: "other"
    got = watch.record()
    assert list(got) == ["controls", "container start", "other"]  # STAGES order
    assert 0.09 <= got["container start"] < 0.2
    assert 0.04 <= got["controls"] < 0.09  # without the 0.1 s inside it
    assert got["other"] >= 0.015
    assert abs(sum(got.values()) - (time.monotonic() - watch._start)) < 0.05


def test_no_stopwatch_no_record():
    with timings.stage("controls"):  # outside measuring(): nothing to count into, no error
        pass
    assert timings.current() is None


def test_run_all_keeps_order_records_into_the_callers_folder_and_raises_after_all(tmp_path):
    ended = []

    def slow(n):
        def call():
            time.sleep(0.05 * (3 - n))
            artefacts.record(f"run-{n}", ".log", threading.current_thread().name)
            ended.append(n)
            if n == 1:
                raise ValueError("second failed")
            return n
        return call

    with artefacts.collecting(tmp_path / "logs"):
        assert concurrency.run_all([slow(0), slow(2)], 2) == [0, 2]
        with pytest.raises(ValueError, match="second failed"):
            concurrency.run_all([slow(0), slow(1), slow(2)], 3)
    assert sorted(ended) == [0, 0, 1, 2, 2]  # the failing one did not cut the others short
    logs = sorted(p.name for p in (tmp_path / "logs").iterdir())
    assert logs == ["run-0-1.log", "run-0-2.log", "run-1-1.log", "run-2-1.log", "run-2-2.log"]
    assert (tmp_path / "logs" / "run-2-1.log").read_text().startswith("r2e-run")  # written from a worker thread


def test_one_worker_runs_on_the_calling_thread():
    names = concurrency.run_all([lambda: threading.current_thread().name] * 2, 1)
    assert names == [threading.current_thread().name] * 2
    assert concurrency.default_workers(jobs=10**6) == 1


def test_an_interrupted_pool_starts_nothing_more():
    import time

    import pytest

    from repo2env.core import concurrency

    ran = []

    def work(n):
        time.sleep(0.3)
        ran.append(n)

    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        with concurrency.pool(1, "t") as executor:
            for n in range(6):
                executor.submit(work, n)
            time.sleep(0.1)
            raise KeyboardInterrupt  # Ctrl-C, or SIGTERM through the command line's handler
    assert ran == [0] and time.monotonic() - start < 1.2  # the running call ended; the queued five never began
