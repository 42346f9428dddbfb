"""Fixtures of the Python package's tests: virtual devices served by the `adbwire vdevice` command
in processes of their own on loopback TCP (as a phone is a machine of its own), and a private
real adb server (Debian's adb) for server: targets.

ctest sets ADBWIRE_CLI (the adbwire binary), ADBWIRE_SOURCE_DIR and PYTHONPATH (the built
package); see python/CMakeLists.txt.
"""

import asyncio
import os
import pathlib
import queue
import re
import shutil
import socket
import subprocess
import threading
import time

import pytest

SOURCE_DIR = pathlib.Path(
    os.environ.get("ADBWIRE_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2])
)
DEMO_SCREENS = SOURCE_DIR / "src" / "vdevice" / "screens" / "demo"
DEMO_PACKAGE = "com.example.adbwire.demo"
ADB = "/usr/bin/adb"


def cli_path():
    cli = os.environ.get("ADBWIRE_CLI")
    if not cli or not os.access(cli, os.X_OK):
        pytest.fail(
            "ADBWIRE_CLI does not name the adbwire binary (%r): run these tests through ctest "
            "(scripts/test, or ctest --preset default -R python_), which sets it" % cli
        )
    return cli


class VirtualDevice:
    """`adbwire vdevice --print-events ARGS…` on a free loopback port until stop().

    events() are the input/am/monkey/cmd/pm command lines it ran, as the device logged them."""

    def __init__(self, *args, root=None):
        command = [cli_path(), "vdevice", "--print-events", *args]
        if root is not None:
            command += ["--root", str(root)]
        self.process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace"
        )
        self._lines = queue.Queue()
        self._events = []
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        try:
            first = self._lines.get(timeout=15)
        except queue.Empty:
            first = ""
        match = re.search(r"listening on (tcp:\S+)", first)
        if not match:
            self.stop()
            pytest.fail(
                "adbwire vdevice did not start: %r %s" % (first, self.process.stderr.read())
            )
        self.target = match.group(1)
        self.port = int(self.target.rsplit(":", 1)[1])
        self.serial = "127.0.0.1:%d" % self.port

    def _read(self):
        for line in self.process.stdout:
            line = line.rstrip("\n")
            if line.startswith("event: "):
                with self._changed:
                    self._events.append(line[len("event: ") :])
                    self._changed.notify_all()
            else:
                self._lines.put(line)

    def events(self):
        with self._changed:
            return list(self._events)

    def wait_for_event(self, pattern, timeout=5.0, after=0):
        """The first event from index `after` on matching the regular expression (the device
        prints it before it answers, but the pipe may lag behind the answer)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                for event in self._events[after:]:
                    if re.fullmatch(pattern, event):
                        return event
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(
                        "no event matching %r; events: %r" % (pattern, self._events)
                    )
                self._changed.wait(left)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._reader.join(timeout=5)
        self.process.stdout.close()
        self.process.stderr.close()


@pytest.fixture
def device_root(tmp_path):
    root = tmp_path / "device"
    (root / "sdcard").mkdir(parents=True)
    return root


@pytest.fixture
def vdevice(device_root):
    """A virtual device showing the demo app (a grocery list, an add form, details), its file
    system in device_root."""
    device = VirtualDevice("--screens", str(DEMO_SCREENS), root=device_root)
    yield device
    device.stop()


@pytest.fixture
def dev(vdevice):
    import adbwire

    device = adbwire.Device.connect(vdevice.target)
    yield device
    device.close()


@pytest.fixture
def page(vdevice):
    import adbwire

    opened = adbwire.Page.connect(vdevice.target)
    yield opened
    opened.close()


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def adb_server_answers(port):
    """True once the adb server on port answers host:version (`adb version` does not ask it)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as connection:
            connection.sendall(b"000chost:version")
            return connection.recv(4) == b"OKAY"
    except OSError:
        return False


class PrivateAdb:
    """The real adb server on a free port with HOME in a temporary folder (the user's server,
    keys and devices stay out of it), stopped by its PID."""

    def __init__(self, home):
        if not os.access(ADB, os.X_OK):
            pytest.fail("%s not found: apt-get install adb (or run scripts/setup)" % ADB)
        self.port = free_port()
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("ANDROID_", "ADB_"))}
        self.env.update(HOME=str(home), ADB_MDNS="0")
        self.server = subprocess.Popen(
            [ADB, "-P", str(self.port), "nodaemon", "server"],
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while not adb_server_answers(self.port):
            if time.monotonic() > deadline:
                self.stop()
                pytest.fail("the private adb server never listened on port %d" % self.port)
            time.sleep(0.05)

    def run(self, *args, timeout=30):
        return subprocess.run(
            [ADB, "-P", str(self.port), *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def connect(self, serial):
        result = self.run("connect", serial)
        assert "connected" in result.stdout, result.stdout + result.stderr
        waited = self.run("-s", serial, "wait-for-device", timeout=15)
        assert waited.returncode == 0, waited.stderr

    def stop(self):
        if self.server.poll() is None:
            self.server.terminate()
            self.server.wait(timeout=10)


@pytest.fixture
def private_adb(tmp_path):
    home = tmp_path / "adb-home"
    home.mkdir()
    adb = PrivateAdb(home)
    yield adb
    adb.stop()


def which_or_fail(program, package):
    path = shutil.which(program)
    if path is None:
        pytest.fail("%s not found: apt-get install %s (or run scripts/setup)" % (program, package))
    return path


class LoopTicker:
    """Counts 10 ms ticks of the running event loop while the block runs: a call that blocks the
    loop leaves the count near zero."""

    def __init__(self):
        self.ticks = 0
        self._task = None

    async def _tick(self):
        while True:
            await asyncio.sleep(0.01)
            self.ticks += 1

    async def __aenter__(self):
        self._task = asyncio.create_task(self._tick())
        return self

    async def __aexit__(self, *exc):
        self._task.cancel()
        return False
