"""What the C++ library has that Python now reaches too: shell with an argv list and with stdin,
adbwire.devices() from a real adb server, forward and reverse (adbwire.Forwarder), and durations
in seconds for the agent verbs (the table's *_ms names deprecated)."""

import socket
import threading
import warnings

import pytest

import adbwire
from conftest import VirtualDevice


def test_shell_and_exec_take_an_argv_list_quoted_for_the_device(dev):
    argv = ["echo", "two  words", "it's", "$HOME", "*", "a;b", "c&&d", ""]
    assert dev.shell(argv).out == "two  words it's $HOME * a;b c&&d \n"
    assert dev.exec(["echo", "a;b", "c  d"]) == b"a;b c  d\n"


def test_shell_feeds_stdin_then_ends_it(dev):
    result = dev.shell("cat; echo done", stdin=b"line one\nline two\n")
    assert result.out == "line one\nline two\ndone\n"
    assert result.exit_code == 0
    assert dev.shell(["cat"], stdin="héllo").out_bytes == "héllo".encode()
    # A command that ends without reading its input is no error.
    big = b"x" * (4 << 20)
    assert dev.shell("echo early", stdin=big).out == "early\n"
    assert dev.shell("echo after").out == "after\n"


def test_stdin_needs_shell_v2():
    old = VirtualDevice("--profile", "no-shell-v2")
    try:
        device = adbwire.Device.connect(old.target)
        with pytest.raises(adbwire.NotSupportedError, match="shell_v2"):
            device.shell("cat", stdin=b"x")
        device.close()
    finally:
        old.stop()


def test_devices_lists_what_the_adb_server_lists(vdevice, private_adb):
    private_adb.connect(vdevice.serial)
    options = adbwire.ConnectOptions()
    options.server = "127.0.0.1:%d" % private_adb.port
    (entry,) = adbwire.devices(options)
    assert entry.serial == vdevice.serial
    assert entry.state == "device"
    assert entry.transport_id is not None
    assert entry.serial in repr(entry)


def test_devices_without_a_server_says_how_to_start_one():
    options = adbwire.ConnectOptions()
    options.server = "127.0.0.1:1"
    with pytest.raises(adbwire.ConnectionRefusedError):
        adbwire.devices(options, timeout=5)


def test_verbs_take_seconds_and_the_ms_names_are_deprecated(page):
    page.snapshot()
    assert "Groceries" in page.wait(text="Groceries", timeout=5).text
    with pytest.raises(adbwire.TimeoutError):
        page.wait(text="Nothing shows this", timeout=0.3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert "Groceries" in page.wait(text="Groceries", timeout_ms=5000).text
    assert [w.category for w in caught] == [DeprecationWarning]
    assert "timeout" in str(caught[0].message)
    with pytest.raises(TypeError, match="both"):
        page.wait(text="Groceries", timeout=5, timeout_ms=5000)
    with pytest.raises(adbwire.InvalidArgumentError, match="seconds"):
        page.wait(text="Groceries", timeout=-1)


class EchoServer:
    """A loopback TCP server that sends back what it receives, one thread per connection."""

    def __init__(self):
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen()
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._echo, args=(connection,), daemon=True).start()

    @staticmethod
    def _echo(connection):
        with connection:
            while True:
                data = connection.recv(65536)
                if not data:
                    return
                connection.sendall(data)

    def close(self):
        self.listener.close()


def round_trip(port, payload):
    with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
        connection.sendall(payload)
        received = b""
        while len(received) < len(payload):
            chunk = connection.recv(65536)
            assert chunk, "the bridge closed after %d bytes" % len(received)
            received += chunk
        return received


def listening_ports(pid):
    try:
        import psutil
    except ImportError:
        pytest.fail("psutil is not installed: apt-get install python3-psutil (or scripts/setup)")
    return {
        c.laddr.port
        for c in psutil.Process(pid).connections(kind="tcp")
        if c.status == psutil.CONN_LISTEN
    }


def test_forward_and_reverse_bridge_tcp_over_the_connection(vdevice, dev):
    echo = EchoServer()
    try:
        with adbwire.Forwarder(dev) as forwarder:
            local = forwarder.forward("tcp:0", "tcp:%d" % echo.port)
            assert forwarder.forward_list() == [(local, "tcp:%d" % echo.port)]
            payload = bytes(range(256)) * 1024
            assert round_trip(int(local.split(":")[1]), payload) == payload

            listening = listening_ports(vdevice.process.pid)
            assert forwarder.reverse("tcp:6000", "tcp:%d" % echo.port) == ""
            assert forwarder.reverse_list() == [("tcp:6000", "tcp:%d" % echo.port)]
            # The virtual device shares this host's network, so its tcp:6000 listens on a
            # loopback port of its own: the one its process opened for the rule.
            (device_port,) = listening_ports(vdevice.process.pid) - listening
            assert round_trip(device_port, b"through the device") == b"through the device"
            forwarder.reverse_remove_all()
            assert forwarder.reverse_list() == []
            forwarder.remove(local)
            with pytest.raises(adbwire.NotFoundError):
                forwarder.remove(local)
            # While the Forwarder uses the Device, a Page cannot take the Device over.
            with pytest.raises(adbwire.BusyError):
                adbwire.Page(dev)
        with pytest.raises(adbwire.ClosedError):
            forwarder.forward_list()
        assert dev.shell("echo still").out == "still\n"
    finally:
        echo.close()
