"""What the C++ library has that Python now reaches too: shell with an argv list and with stdin,
adbwire.devices() from a real adb server, forward and reverse (adbwire.Forwarder), durations
in seconds for the agent verbs (the table's *_ms names deprecated), the typing options, and an
opt-in reconnect after the connection dropped (cut by a loopback relay in front of the virtual
device, as a pulled cable or a restarted adbd would)."""

import asyncio
import socket
import threading
import time
import warnings

import pytest

import adbwire
import adbwire.aio
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


class CuttableRelay:
    """A loopback TCP relay to a virtual device's port: cut() closes every connection relayed so
    far (the device sees its client go, the client its device), while new connections still get
    through. accepted counts the connections made through it."""

    def __init__(self, port):
        self._port = port
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.target = "tcp:127.0.0.1:%d" % self._listener.getsockname()[1]
        self.accepted = 0
        self._sockets = []
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            device = socket.create_connection(("127.0.0.1", self._port))
            with self._lock:
                self.accepted += 1
                self._sockets += [client, device]
            for source, sink in ((client, device), (device, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pump(source, sink):
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        for end in (source, sink):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self):
        with self._lock:
            for end in self._sockets:
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            self._sockets = []

    def close(self):
        self._listener.close()
        self.cut()


def wait_until(condition, timeout=5.0):
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, "not within %s s" % timeout
        time.sleep(0.01)


def test_reconnect_is_opt_in_after_the_connection_dropped(vdevice):
    relay = CuttableRelay(vdevice.port)
    try:
        plain = adbwire.Device.connect(relay.target)
        keeping = adbwire.Device.connect(relay.target, reconnect=True)
        assert plain.shell("echo one").out == keeping.shell("echo one").out == "one\n"
        assert plain.connected and keeping.connected and relay.accepted == 2

        relay.cut()
        wait_until(lambda: not plain.connected and not keeping.connected)
        # Without the opt-in a dropped connection stays dropped: a typed error, every time.
        for _ in range(2):
            with pytest.raises(adbwire.DeviceOfflineError):
                plain.shell("echo two")
        # With it, the next call connects again (a third connection) and runs.
        assert keeping.shell("echo two").out == "two\n"
        assert keeping.connected and relay.accepted == 3
        assert keeping.exec("echo three") == b"three\n"

        # reconnect() by hand brings the plain Device back.
        plain.reconnect()
        assert plain.connected and plain.shell("echo four").out == "four\n"
        assert relay.accepted == 4

        # close() is meant: no reconnect undoes it.
        keeping.close()
        with pytest.raises(adbwire.ClosedError):
            keeping.shell("echo five")
        assert relay.accepted == 4
        plain.close()
    finally:
        relay.close()


def test_reconnect_of_a_page_device_is_refused_and_aio_reconnects(vdevice):
    page = adbwire.Page.connect(vdevice.target)
    with pytest.raises(adbwire.NotSupportedError, match="Page.connect"):
        page.device.reconnect()
    page.close()

    relay = CuttableRelay(vdevice.port)

    async def scenario():
        device = await adbwire.aio.Device.connect(relay.target, reconnect=True)
        assert (await device.shell("echo one")).out == "one\n"
        relay.cut()
        await asyncio.wait_for(_until_dropped(device), 5)
        assert (await device.shell("echo two")).out == "two\n"
        await device.close()

    async def _until_dropped(device):
        while device.connected:
            await asyncio.sleep(0.01)

    try:
        asyncio.run(scenario())
        assert relay.accepted == 2
    finally:
        relay.close()


def test_typing_options_of_page_options(vdevice):
    options = adbwire.PageOptions(
        typing_settle=0.05, typing_focus_wait=0.5, typing_read_back_settle=0.25
    )
    assert (options.typing_settle, options.typing_focus_wait) == (0.05, 0.5)
    assert options.typing_read_back is True and options.typing_read_back_settle == 0.25
    with pytest.raises(adbwire.InvalidArgumentError, match="typing_settle"):
        options.typing_settle = -1
    page = adbwire.Page.connect(vdevice.target, options)
    assert page.options.typing_focus_wait == 0.5
    page.snapshot()
    page.tap(5)
    page.snapshot()
    assert page.type(2, "pears") == "pears"  # read back
    page.close()

    options.typing_read_back = False
    page = adbwire.Page.connect(vdevice.target, options)  # on the same screen
    page.snapshot()
    before = len(vdevice.events())
    assert page.type(2, "plums", clear=True) is None  # typed, not read back
    vdevice.wait_for_event(r"input text plums", after=before)
    assert '- TextInput [ref=2] "plums"' in page.snapshot()
    page.close()
