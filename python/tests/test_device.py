"""adbwire.Device against virtual devices: shell, exec, exec_stream, push, pull, install, the
connect targets (direct TCP, through a real adb server, a bare serial, $ANDROID_SERIAL)."""

import _thread
import hashlib
import math
import os
import threading
import time
import tracemalloc

import pytest

import adbwire
from conftest import VirtualDevice

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def test_shell_collects_out_err_and_exit_code(dev):
    result = dev.shell("echo hi; exit 3")
    assert result.out == "hi\n"
    assert result.err == ""
    assert result.exit_code == 3
    both = dev.shell("echo out; echo err >&2")
    assert (both.out, both.err, both.exit_code) == ("out\n", "err\n", 0)
    assert "exit_code=0" in repr(both)


def test_shell_text_from_the_device_that_is_not_utf8_is_replaced_not_fatal(dev, device_root):
    (device_root / "sdcard" / "latin1.txt").write_bytes(b"caf\xe9\n")
    result = dev.shell("cat /sdcard/latin1.txt")
    assert result.out == "caf\ufffd\n"
    assert result.out_bytes == b"caf\xe9\n"


def test_exec_returns_bytes_unchanged(dev, device_root):
    data = bytes(range(256)) * 64 + b"\r\n\n\r"
    (device_root / "sdcard" / "all.bin").write_bytes(data)
    assert dev.exec("cat /sdcard/all.bin") == data
    assert dev.exec("screencap -p").startswith(PNG_SIGNATURE)


def test_exec_stream_yields_output_as_it_arrives(dev):
    started = time.monotonic()
    with dev.exec_stream("echo first; sleep 2; echo second") as chunks:
        first = next(chunks)
        first_after = time.monotonic() - started
        rest = b"".join(chunks)
    assert first == b"first\n"
    # The first line comes while the command still sleeps: streamed, not collected.
    assert first_after < 1.5, first_after
    assert rest == b"second\n"


def test_exec_stream_memory_stays_bounded(dev, device_root):
    data = os.urandom(16 << 20)
    (device_root / "sdcard" / "big.bin").write_bytes(data)
    digest = hashlib.sha256()
    largest = chunks = 0
    tracemalloc.start()
    try:
        for chunk in dev.exec_stream("cat /sdcard/big.bin"):
            digest.update(chunk)
            largest = max(largest, len(chunk))
            chunks += 1
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert digest.digest() == hashlib.sha256(data).digest()
    assert chunks > 16
    assert largest <= 256 * 1024
    # 16 MiB went through; Python never held more than a few chunks of it.
    assert peak < 2 << 20, peak


def test_exec_stream_timeout_leaves_the_stream_usable_and_close_ends_it(dev):
    chunks = dev.exec_stream("sleep 1; echo late", timeout=0.2)
    with pytest.raises(adbwire.TimeoutError):
        next(chunks)
    chunks.close()
    with pytest.raises(adbwire.ClosedError):
        next(chunks)
    assert dev.shell("echo fine").out == "fine\n"


def test_exec_stream_rejects_a_bad_timeout_at_once(dev):
    with pytest.raises(adbwire.InvalidArgumentError, match="timeout"):
        dev.exec_stream("true", timeout=-1)


def test_push_and_pull_with_progress(dev, device_root, tmp_path):
    data = os.urandom(3 << 20)
    local = tmp_path / "local.bin"
    local.write_bytes(data)
    pushed = []
    stats = dev.push(
        local, "/sdcard/x.bin", progress=lambda done, total: pushed.append((done, total))
    )
    assert (device_root / "sdcard" / "x.bin").read_bytes() == data
    assert stats.files == 1 and stats.bytes == len(data)
    assert pushed[-1] == (len(data), len(data))
    assert all(a[0] <= b[0] for a, b in zip(pushed, pushed[1:]))
    assert len(pushed) > 3

    pulled = []
    back = tmp_path / "back.bin"
    stats = dev.pull(
        "/sdcard/x.bin", str(back), progress=lambda done, total: pulled.append((done, total))
    )
    assert back.read_bytes() == data
    assert pulled[-1] == (len(data), len(data))
    assert stats.compression in ("none", "zstd", "lz4", "brotli")
    assert stats.elapsed >= 0


def test_pull_plain_and_missing(dev, device_root, tmp_path):
    (device_root / "sdcard" / "a.txt").write_text("abc")
    stats = dev.pull("/sdcard/a.txt", tmp_path / "a.txt", compression="none")
    assert stats.compression == "none"
    assert (tmp_path / "a.txt").read_text() == "abc"
    with pytest.raises(adbwire.NotFoundError) as raised:
        dev.pull("/sdcard/missing.txt", tmp_path / "missing.txt")
    assert "/sdcard/missing.txt" in str(raised.value)
    assert not (tmp_path / "missing.txt").exists()
    with pytest.raises(adbwire.InvalidArgumentError, match="compression"):
        dev.pull("/sdcard/a.txt", tmp_path / "b.txt", compression="gzip")


def test_an_exception_in_progress_stops_the_pull_and_leaves_no_file(dev, device_root, tmp_path):
    (device_root / "sdcard" / "big.bin").write_bytes(os.urandom(2 << 20))

    def stop(done, total):
        raise KeyboardInterrupt("stop here")

    with pytest.raises(KeyboardInterrupt, match="stop here"):
        dev.pull("/sdcard/big.bin", tmp_path / "big.bin", progress=stop)
    assert list(tmp_path.iterdir()) == [tmp_path / "device"]  # no file, no temporary file
    assert dev.shell("echo usable").out == "usable\n"


def fake_apk(folder, package, version=1):
    # The virtual device reads these text markers instead of a binary manifest.
    path = folder / (package + ".apk")
    path.write_bytes(
        b"PK\x03\x04 package=%s versionCode=%d " % (package.encode(), version) + os.urandom(4096)
    )
    return path


def test_install_and_uninstall(dev, tmp_path):
    sent = []
    apk = fake_apk(tmp_path, "com.example.fake")
    assert dev.install(apk, progress=lambda done, total: sent.append((done, total))) == "Success\n"
    assert sent[-1] == (apk.stat().st_size, apk.stat().st_size)
    assert "package:com.example.fake" in dev.shell("pm list packages").out
    (tmp_path / "old").mkdir()
    older = fake_apk(tmp_path / "old", "com.example.fake", version=0)
    with pytest.raises(adbwire.CommandFailedError, match="INSTALL_FAILED_VERSION_DOWNGRADE"):
        dev.install([older])
    assert dev.install([older], downgrade=True, method="push") == "Success\n"
    assert dev.uninstall("com.example.fake") == "Success\n"
    with pytest.raises(adbwire.CommandFailedError, match="DELETE_FAILED"):
        dev.uninstall("com.example.fake")
    with pytest.raises(adbwire.NotFoundError):
        dev.install(tmp_path / "none.apk")


def test_identity_and_close(vdevice):
    with adbwire.Device.connect(vdevice.target) as device:
        assert device.serial == vdevice.serial
        assert device.target == vdevice.target
        assert "shell_v2" in device.features
        assert device.has_feature("shell_v2")
        assert not device.has_feature("no_such_feature")
        assert vdevice.target in repr(device)
    with pytest.raises(adbwire.ClosedError):
        device.shell("true")
    device.close()  # idempotent


def test_connect_options(vdevice):
    options = adbwire.ConnectOptions(connect_timeout=2.5, command_timeout=0.3)
    assert options.connect_timeout == 2.5
    device = adbwire.Device.connect(vdevice.target, options)
    with pytest.raises(adbwire.TimeoutError):
        device.shell("sleep 2")  # command_timeout is the default deadline
    assert device.shell("sleep 1", timeout=5).exit_code == 0
    device.close()


def test_output_gathered_whole_stops_at_its_bound():
    options = adbwire.ConnectOptions(max_output={"command": 1 << 20})
    assert options.max_output["command"] == 1 << 20
    assert options.max_output["ui_dump"] == 32 << 20
    with pytest.raises(adbwire.InvalidArgumentError, match="kinds: command"):
        options.max_output = {"typo": 1}
    endless = VirtualDevice("--hostile-output", "endless")
    try:
        device = adbwire.Device.connect(endless.target, options)
        with pytest.raises(adbwire.LimitExceededError, match=r"max_output\[\"command\"\]"):
            device.exec("getprop")
        assert device.shell("echo still here").out == "still here\n"
        device.close()
    finally:
        endless.stop()


def test_targets_through_a_real_adb_server(vdevice, private_adb, monkeypatch):
    private_adb.connect(vdevice.serial)
    through = adbwire.Device.connect("server:127.0.0.1:%d/%s" % (private_adb.port, vdevice.serial))
    assert through.shell("echo via server").out == "via server\n"
    through.close()

    # A bare serial goes through the adb server, as adb -s SERIAL does; "" is $ANDROID_SERIAL.
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(private_adb.port))
    bare = adbwire.Device.connect(vdevice.serial)
    assert bare.shell("echo bare").out == "bare\n"
    bare.close()
    monkeypatch.setenv("ANDROID_SERIAL", vdevice.target)
    from_env = adbwire.Device.connect("")
    assert from_env.serial == vdevice.serial
    from_env.close()
    # $ADB_SERIAL is the next choice after $ANDROID_SERIAL, for a Device and a Page alike.
    monkeypatch.setenv("ADB_SERIAL", "tcp:127.0.0.1:1")
    first = adbwire.Device.connect("")
    assert first.serial == vdevice.serial
    first.close()
    monkeypatch.setenv("ADB_SERIAL", vdevice.target)
    monkeypatch.delenv("ANDROID_SERIAL")
    page = adbwire.Page.connect("")
    assert page.device.shell("echo from ADB_SERIAL").out == "from ADB_SERIAL\n"
    page.close()
    monkeypatch.delenv("ADB_SERIAL")
    with pytest.raises(adbwire.InvalidArgumentError, match="ANDROID_SERIAL"):
        adbwire.Device.connect("")


def test_ctrl_c_interrupts_a_stream_that_waits_as_long_as_it_takes(dev):
    chunks = dev.exec_stream("sleep 5; echo late", timeout=math.inf)
    threading.Timer(0.3, _thread.interrupt_main).start()  # as a SIGINT reaching this thread
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        next(chunks)
    assert time.monotonic() - started < 2
    chunks.close()


def test_a_device_without_exec():
    old = VirtualDevice("--profile", "no-exec")
    try:
        device = adbwire.Device.connect(old.target)
        assert device.exec("echo through the shell") == b"through the shell\n"
        with pytest.raises(adbwire.NotSupportedError, match="Device.exec"):
            device.exec_stream("echo x")
        device.close()
    finally:
        old.stop()
