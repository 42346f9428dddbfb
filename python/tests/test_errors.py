"""adbwire.Error and its subclasses, raised by real failures: a refused connection, a device that
never answers, a stale ref, an unknown key, a device that goes away."""

import socket
import threading

import pytest

import adbwire
from conftest import VirtualDevice, free_port

CLASSES = {
    "connection_refused": adbwire.ConnectionRefusedError,
    "unauthorized": adbwire.UnauthorizedError,
    "device_offline": adbwire.DeviceOfflineError,
    "protocol_error": adbwire.ProtocolError,
    "timeout": adbwire.TimeoutError,
    "not_found": adbwire.NotFoundError,
    "permission_denied": adbwire.PermissionDeniedError,
    "busy": adbwire.BusyError,
    "stale_ref": adbwire.StaleRefError,
    "parse_error": adbwire.ParseError,
    "not_supported": adbwire.NotSupportedError,
    "closed": adbwire.ClosedError,
    "invalid_argument": adbwire.InvalidArgumentError,
    "command_failed": adbwire.CommandFailedError,
    "io_error": adbwire.IoError,
    "cancelled": adbwire.CancelledError,
    "limit_exceeded": adbwire.LimitExceededError,
}


def test_one_class_per_error_code():
    assert {code.name for code in adbwire.ErrorCode} == set(CLASSES)
    for name, cls in CLASSES.items():
        assert issubclass(cls, adbwire.Error) and issubclass(cls, Exception)
        assert cls.code == adbwire.ErrorCode[name]
        assert cls.__module__ == "adbwire" and cls.__doc__
    assert adbwire.ErrorCode.stale_ref == 9  # the values of adbwire::errc, stable in logs
    assert adbwire.Error.code is None


def test_refused_connection():
    port = free_port()  # bound once, then released: nothing listens there
    with pytest.raises(adbwire.ConnectionRefusedError) as raised:
        adbwire.Device.connect("tcp:127.0.0.1:%d" % port)
    error = raised.value
    assert error.code == adbwire.ErrorCode.connection_refused
    assert "127.0.0.1:%d" % port in error.detail
    assert str(error).startswith(error.detail)


def test_connect_timeout_against_a_peer_that_never_answers():
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()  # the kernel accepts the TCP connection; nobody ever speaks ADB
        options = adbwire.ConnectOptions(connect_timeout=0.3)
        with pytest.raises(adbwire.TimeoutError) as raised:
            adbwire.Device.connect("tcp:127.0.0.1:%d" % listener.getsockname()[1], options)
    assert raised.value.code == adbwire.ErrorCode.timeout


def test_command_timeout_leaves_the_device_usable(dev):
    with pytest.raises(adbwire.TimeoutError):
        dev.shell("sleep 5", timeout=0.2)
    assert dev.shell("echo after").out == "after\n"


def test_stale_ref_sends_nothing(vdevice, page):
    screen = page.snapshot()
    assert '- Button [ref=5] "Add item"' in screen
    page.tap(5)  # to the "add item" form
    vdevice.wait_for_event(r"input tap \d+ \d+")
    taps = len(vdevice.events())
    with pytest.raises(adbwire.StaleRefError) as raised:
        page.tap(2)  # the Apples row of the list, no longer on the screen
    assert raised.value.code == adbwire.ErrorCode.stale_ref
    assert "snapshot" in str(raised.value)
    assert len(vdevice.events()) == taps


def test_unknown_ref_and_no_snapshot(page):
    with pytest.raises(adbwire.NotFoundError, match="snapshot"):
        page.tap(1)  # no snapshot yet
    page.snapshot()
    with pytest.raises(adbwire.NotFoundError, match="ref 99"):
        page.tap(99)


def test_unauthorized_names_the_key(tmp_path):
    keys = tmp_path / "adb_keys"
    keys.write_text("")
    locked = VirtualDevice("--auth", "required", "--keys", str(keys))
    try:
        options = adbwire.ConnectOptions(offer_public_key=False, android_dir=tmp_path / "android")
        with pytest.raises(adbwire.UnauthorizedError) as raised:
            adbwire.Device.connect(locked.target, options)
        assert "fingerprint" in str(raised.value) or "SHA256" in str(raised.value)
    finally:
        locked.stop()


def test_invalid_arguments(page):
    with pytest.raises(adbwire.InvalidArgumentError, match="bad target"):
        adbwire.Device.connect("tcp:host:99999")
    page.snapshot()
    with pytest.raises(adbwire.InvalidArgumentError, match="direction"):
        page.scroll(1, "sideways")
    with pytest.raises(adbwire.InvalidArgumentError, match="unknown key|key"):
        page.press("no-such-key")
    with pytest.raises(adbwire.InvalidArgumentError, match="ref_check"):
        adbwire.PageOptions(ref_check="sometimes")
    with pytest.raises(adbwire.InvalidArgumentError, match="server"):
        adbwire.ConnectOptions(server="host:0")


def test_device_going_away_is_offline(tmp_path):
    device_side = VirtualDevice()
    device = adbwire.Device.connect(device_side.target)
    assert device.shell("true").exit_code == 0
    device_side.stop()  # the device's process ends: its sockets close
    with pytest.raises(adbwire.DeviceOfflineError):
        for _ in range(50):  # the drop reaches the connection's I/O thread asynchronously
            device.shell("true")
    device.close()


def test_close_wakes_a_blocked_call_with_closed(dev):
    outcome = []

    def blocked():
        try:
            dev.shell("sleep 10")
        except adbwire.Error as error:
            outcome.append(error)

    thread = threading.Thread(target=blocked)
    thread.start()
    dev.exec("true")  # the other call is on its way; this one's answer means the link is live
    threading.Event().wait(0.3)
    dev.close()
    thread.join(timeout=5)
    assert not thread.is_alive()
    assert isinstance(outcome[0], (adbwire.ClosedError, adbwire.DeviceOfflineError)), outcome
    with pytest.raises(adbwire.ClosedError):
        dev.shell("true")


def test_text_from_the_device_that_is_not_utf8_never_breaks_a_call(tmp_path):
    # A screen whose button label is Latin-1, not UTF-8: the snapshot, the dump and the stale
    # ref error that quotes the label come back with U+FFFD, not a UnicodeDecodeError.
    (tmp_path / "screens.xml").write_text(
        '<screens start="a"><screen name="a" dump="a.xml">'
        '<tap bounds="[0,0][1080,1000]" goto="b"/></screen>'
        '<screen name="b" dump="b.xml"/></screens>'
    )
    node = (
        '<?xml version="1.0" encoding="UTF-8"?><hierarchy rotation="0"><node index="0" '
        'text="%s" resource-id="x:id/%s" class="android.widget.%s" package="x" '
        'clickable="%s" enabled="true" bounds="[0,0][1080,1000]"/></hierarchy>'
    )
    (tmp_path / "a.xml").write_bytes(
        (node % ("Caf\x00", "b", "Button", "true")).encode().replace(b"\x00", b"\xe9")
    )
    (tmp_path / "b.xml").write_text(node % ("Other", "o", "TextView", "false"))
    device_side = VirtualDevice("--screens", str(tmp_path))
    try:
        page = adbwire.Page.connect(device_side.target)
        assert page.snapshot() == '# app: x\n- Button [ref=1] "Caf\ufffd"\n'
        assert 'text="Caf\ufffd"' in page.last_dump
        page.tap(1)
        with pytest.raises(adbwire.StaleRefError) as raised:
            page.tap(1)
        assert 'Button "Caf\ufffd"' in raised.value.detail
        page.close()
    finally:
        device_side.stop()


def test_a_bound_on_a_hostile_device_is_limit_exceeded(tmp_path):
    hostile = VirtualDevice("--hostile-sync", "endless-listing")
    try:
        dev = adbwire.Device.connect(hostile.target)
        with pytest.raises(adbwire.LimitExceededError) as raised:
            dev.pull("/sdcard", str(tmp_path / "out"))
        assert "SyncLimits::max_" in raised.value.detail
    finally:
        hostile.stop()


def test_advice_names_python_options_not_cpp_or_cli_ones(page):
    """The library's advice, raised in Python, names Python's options and methods."""
    page.snapshot()
    raised = []
    with pytest.raises(adbwire.NotSupportedError) as error:
        page.pinch(0.5)  # multi-touch needs the on-device dumper, off here
    raised.append(str(error.value))
    with pytest.raises(adbwire.NotSupportedError) as error:
        page.clipboard_get()
    raised.append(str(error.value))
    page.tap(5)
    page.snapshot()
    with pytest.raises(adbwire.NotSupportedError) as error:
        page.type(2, "héllo")  # non-ASCII: the dumper or ADBKeyBoard
    raised.append(str(error.value))
    with pytest.raises(adbwire.NotSupportedError) as error:
        page.call("clipboard_get")
    raised.append(str(error.value))
    for message in raised:
        assert 'PageOptions(helper="auto")' in message, message
        assert "--helper" not in message and "PageOptions::" not in message, message


def test_limit_advice_names_python_options():
    endless = VirtualDevice("--hostile-output", "endless")
    try:
        options = adbwire.ConnectOptions(max_output={"command": 1 << 16})
        device = adbwire.Device.connect(endless.target, options)
        with pytest.raises(adbwire.LimitExceededError) as raised:
            device.exec("getprop")
        message = str(raised.value)
        assert 'ConnectOptions(max_output={"command": BYTES})' in message, message
        assert "--max-output" not in message and "::" not in message, message
        device.close()
    finally:
        endless.stop()
