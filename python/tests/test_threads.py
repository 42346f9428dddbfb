"""Threads: blocking calls release the GIL, a Device serves many threads at once, a Page shared
by threads runs one call at a time, Page(dev) refuses a Device another thread is using."""

import threading
import time

import pytest

import adbwire


class Counter(threading.Thread):
    """Counts as fast as it can until stopped; it only runs while no thread holds the GIL."""

    def __init__(self):
        super().__init__(daemon=True)
        self.count = 0
        self.running = True

    def run(self):
        while self.running:
            self.count += 1

    def stop(self):
        self.running = False
        self.join()


def count_during(call):
    counter = Counter()
    counter.start()
    time.sleep(0.05)  # the counter is running
    before = counter.count
    started = time.monotonic()
    result = call()
    elapsed = time.monotonic() - started
    during = counter.count - before
    counter.stop()
    return result, during, elapsed


def test_a_blocking_shell_lets_other_threads_run(dev):
    result, during, elapsed = count_during(lambda: dev.shell("sleep 1"))
    assert result.exit_code == 0 and elapsed >= 0.9
    # A thread holding the GIL for that second would have let the counter run for at most a
    # few switch intervals; released, it counts for the whole second.
    _, baseline, base_elapsed = count_during(lambda: time.sleep(1))
    assert during > baseline * 0.3, (during, baseline)


def test_blocking_page_and_stream_calls_release_the_gil(dev):
    chunks = dev.exec_stream("sleep 1; echo done")
    chunk, during, elapsed = count_during(lambda: next(chunks))
    assert chunk == b"done\n" and elapsed >= 0.9
    _, baseline, _ = count_during(lambda: time.sleep(1))
    assert during > baseline * 0.3, (during, baseline)
    chunks.close()


def test_many_threads_on_one_device(dev):
    failures = []

    def work(n):
        try:
            for i in range(20):
                out = dev.shell("echo %d-%d" % (n, i)).out
                if out != "%d-%d\n" % (n, i):
                    failures.append(out)
        except Exception as error:  # noqa: BLE001 - reported below
            failures.append(error)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert failures == []


def test_calls_overlap_on_one_connection(dev):
    # Two 1 s commands from two threads take about 1 s together, not 2: each has its own stream.
    started = time.monotonic()
    threads = [threading.Thread(target=dev.shell, args=("sleep 1",)) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert time.monotonic() - started < 1.8


def test_a_page_shared_by_threads(page):
    expected = page.snapshot()
    results = []
    threads = [threading.Thread(target=lambda: results.append(page.snapshot())) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert results == [expected] * 6


def test_progress_callbacks_run_on_the_calling_thread(dev, tmp_path):
    local = tmp_path / "f.bin"
    local.write_bytes(b"x" * (1 << 20))
    seen = set()
    dev.push(local, "/sdcard/f.bin", progress=lambda done, total: seen.add(threading.get_ident()))
    assert seen == {threading.get_ident()}


def test_page_over_a_device_in_use_is_refused(dev):
    started = threading.Event()

    def long_call():
        started.set()
        dev.shell("sleep 1")

    thread = threading.Thread(target=long_call)
    thread.start()
    started.wait()
    time.sleep(0.2)  # the call is under way, waiting for the device
    with pytest.raises(adbwire.BusyError, match="other threads"):
        adbwire.Page(dev)
    thread.join()
    assert "[ref=" in adbwire.Page(dev).snapshot()  # once idle, it is fine
