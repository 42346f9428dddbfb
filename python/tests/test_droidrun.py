"""adbwire.droidrun.AdbwireDriver method by method against the virtual device, in asyncio."""

import asyncio
import datetime
import inspect
import json
import os
import socket
import struct

import pytest

import adbwire
from adbwire.droidrun import AdbwireDriver, RecordingDriver
from conftest import DEMO_PACKAGE, DEMO_SCREENS, LoopTicker, VirtualDevice

# DroidRun's DeviceDriver methods (droidrun/tools/driver/base.py, press_key of its releases before
# press_button replaced it), with their parameters.
DEVICE_DRIVER = {
    "connect": [],
    "ensure_connected": [],
    "tap": ["x", "y"],
    "swipe": ["x1", "y1", "x2", "y2", "duration_ms"],
    "input_text": ["text", "clear", "stealth", "wpm"],
    "press_key": ["keycode"],
    "press_button": ["button"],
    "drag": ["x1", "y1", "x2", "y2", "duration"],
    "start_app": ["package", "activity"],
    "install_app": ["path", "kwargs"],
    "get_apps": ["include_system"],
    "list_packages": ["include_system"],
    "screenshot": ["hide_overlay"],
    "get_ui_tree": [],
    "get_date": [],
}


def run(coroutine):
    return asyncio.run(coroutine)


@pytest.fixture
def driver(vdevice):
    created = AdbwireDriver(vdevice.target)
    yield created
    run(created.close())


def test_the_shape_of_droidruns_device_driver():
    for name, parameters in DEVICE_DRIVER.items():
        method = getattr(AdbwireDriver, name)
        assert inspect.iscoroutinefunction(method), name
        assert list(inspect.signature(method).parameters)[1:] == parameters, name
    assert AdbwireDriver.supported == set(DEVICE_DRIVER) - {"connect", "ensure_connected"}
    assert {"back", "home", "enter"} <= AdbwireDriver.supported_buttons
    assert AdbwireDriver.platform == "Android"


def test_connect_is_lazy_and_once(vdevice, driver):
    assert driver.page is None
    run(driver.ensure_connected())
    page = driver.page
    assert page is not None and driver.capabilities.sdk == 34
    run(driver.connect())
    assert driver.page is page


def test_tap_swipe_drag(vdevice, driver):
    async def scenario():
        await driver.tap(540, 2227)
        await driver.swipe(100, 2000, 100, 500, 400)
        await driver.drag(100, 300, 200, 400, 2.0)

    run(scenario())
    vdevice.wait_for_event(r"input tap 540 2227")
    vdevice.wait_for_event(r"input swipe 100 2000 100 500 400")
    vdevice.wait_for_event(r"input draganddrop 100 300 200 400 2000")


def test_drag_before_android_12_is_a_slow_swipe():
    old = VirtualDevice("--profile", "android-4")
    try:
        driver = AdbwireDriver(old.target)
        run(driver.drag(100, 300, 200, 400, 1.5))
        old.wait_for_event(r"input swipe 100 300 200 400 1500")
        run(driver.close())
    finally:
        old.stop()


def test_input_text_types_into_the_focused_field(vdevice, driver):
    async def scenario():
        assert await driver.input_text("nothing focused") is False
        assert "focus" in driver.last_error
        await driver.tap(540, 2227)  # "Add item": the form
        tree = await driver.get_ui_tree()
        field = _find(tree["a11y_tree"], lambda n: n["className"].endswith("EditText"))
        bounds = field["boundsInScreen"]
        x = (bounds["left"] + bounds["right"]) // 2
        y = (bounds["top"] + bounds["bottom"]) // 2
        await driver.tap(x, y)
        # The device's events come through a pipe that may lag behind its answer.
        vdevice.wait_for_event(r"input tap %d %d" % (x, y))
        taps = len([e for e in vdevice.events() if e.startswith("input tap")])
        assert await driver.input_text("milk and honey") is True
        typed = await driver.get_ui_tree()
        assert typed["phone_state"]["focusedElement"]["text"] == "milk and honey"
        assert typed["phone_state"]["isEditable"] is True
        assert await driver.input_text("tea", clear=True) is True
        cleared = await driver.get_ui_tree()
        assert cleared["phone_state"]["focusedElement"]["text"] == "tea"
        with pytest.raises(NotImplementedError, match="stealth"):
            await driver.input_text("x", stealth=True)
        # DroidRun focused the field: typing taps nothing more.
        assert len([e for e in vdevice.events() if e.startswith("input tap")]) == taps

    run(scenario())
    vdevice.wait_for_event(r"input text milk")


def test_keys(vdevice, driver):
    async def scenario():
        await driver.press_key(66)
        await driver.press_button("Back")
        with pytest.raises(ValueError, match="not supported"):
            await driver.press_button("teleport")

    run(scenario())
    vdevice.wait_for_event(r"input keyevent 66")
    vdevice.wait_for_event(r"input keyevent 4")


def test_start_app(vdevice, driver):
    async def scenario():
        assert await driver.start_app(DEMO_PACKAGE) == "App started: %s" % DEMO_PACKAGE
        started = await driver.start_app(DEMO_PACKAGE, ".ListActivity")
        assert started == "App started: %s with activity .ListActivity" % DEMO_PACKAGE
        failed = await driver.start_app("not a package!")
        assert failed.startswith("Failed to start app not a package!:")

    run(scenario())
    vdevice.wait_for_event(r"monkey -p %s -c android.intent.category.LAUNCHER 1" % DEMO_PACKAGE)
    vdevice.wait_for_event(r"am start -n %s/.ListActivity" % DEMO_PACKAGE)


def test_install_and_list_apps(vdevice, driver, tmp_path):
    apk = tmp_path / "fake.apk"
    apk.write_bytes(b"PK\x03\x04 package=com.example.driven versionCode=1 " + os.urandom(1024))

    async def scenario():
        assert await driver.install_app(str(apk)) == "Success"
        missing = await driver.install_app(str(tmp_path / "none.apk"))
        assert missing == "Failed to install app: APK file not found at %s" % (
            tmp_path / "none.apk"
        )
        assert "com.example.driven" in await driver.list_packages()
        everything = await driver.list_packages(include_system=True)
        apps = await driver.get_apps()
        return everything, apps

    everything, apps = run(scenario())
    vdevice.wait_for_event(r"cmd package install -S \d+ -r -g")
    vdevice.wait_for_event(r"pm list packages -3")
    vdevice.wait_for_event(r"pm list packages")
    assert {DEMO_PACKAGE, "com.example.driven"} <= set(everything)
    assert {"package": "com.example.driven", "label": ""} in apps


def test_app_labels_come_from_the_dumper(vdevice, tmp_path):
    apk = tmp_path / "labelled.apk"
    apk.write_bytes(b"PK\x03\x04 package=com.example.labelled versionCode=1 label=Labelled ")
    options = adbwire.PageOptions()
    options.helper = "on"
    labelled = AdbwireDriver(vdevice.target, page_options=options)
    plain = AdbwireDriver(vdevice.target)

    async def scenario():
        assert await labelled.install_app(str(apk)) == "Success"
        return await labelled.get_apps(), await plain.get_apps()

    try:
        with_dumper, without = run(scenario())
    finally:
        run(labelled.close())
        run(plain.close())
    assert {"package": "com.example.labelled", "label": "Labelled"} in with_dumper
    assert {"package": DEMO_PACKAGE, "label": "adbwire demo"} in with_dumper
    assert {"package": "com.example.labelled", "label": ""} in without
    assert "on-device dumper" in plain.last_error


def test_screenshot_and_date(driver):
    async def scenario():
        return await driver.screenshot(), await driver.get_date()

    png, date = run(scenario())
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert struct.unpack(">II", png[16:24]) == (1080, 2400)
    assert str(datetime.datetime.now().year) in date


def test_ui_tree_in_portals_shape(driver):
    tree = run(driver.get_ui_tree())
    # The root is the window's root view the dump starts with, as Portal's tree is.
    root = tree["a11y_tree"]
    assert root["className"] == "android.widget.FrameLayout"
    assert root["boundsInScreen"] == {"left": 0, "top": 0, "right": 1080, "bottom": 2400}
    assert [child["resourceId"] for child in root["children"]] == [
        "%s:id/main" % DEMO_PACKAGE
    ]
    assert tree["device_context"]["screen_bounds"] == {"width": 1080, "height": 2400}
    assert tree["phone_state"]["packageName"] == DEMO_PACKAGE
    assert tree["phone_state"]["activityName"] == ".ListActivity"
    assert tree["phone_state"]["focusedElement"] is None
    button = _find(tree["a11y_tree"], lambda n: n["text"] == "Add item")
    assert button["isClickable"] and button["ref"] == 5
    assert button["boundsInScreen"] == {"left": 42, "top": 2160, "right": 1038, "bottom": 2295}
    assert button["className"] == "android.widget.Button"
    assert button["resourceId"] == "%s:id/add_item" % DEMO_PACKAGE
    title = _find(tree["a11y_tree"], lambda n: n["text"] == "Groceries")
    assert not title["isClickable"] and "ref" not in title
    assert '- Button [ref=5] "Add item"' in tree["snapshot"]


def test_the_event_loop_keeps_running_while_a_call_blocks():
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()  # accepts the TCP connection, never answers: connect waits 1 s
        target = "tcp:127.0.0.1:%d" % listener.getsockname()[1]
        driver = AdbwireDriver(target, connect_options=adbwire.ConnectOptions(connect_timeout=1.0))

        async def scenario():
            async with LoopTicker() as ticker:
                with pytest.raises(adbwire.TimeoutError):
                    await driver.connect()
            return ticker.ticks

        ticks = run(scenario())
    assert ticks > 40, ticks


def test_connection_errors_propagate(vdevice):
    driver = AdbwireDriver(vdevice.target)
    run(driver.connect())
    vdevice.stop()

    async def scenario():
        for _ in range(50):  # the drop reaches the connection asynchronously
            await driver.start_app(DEMO_PACKAGE)

    with pytest.raises(adbwire.DeviceOfflineError):
        run(scenario())


def _find(node, predicate):
    if predicate(node):
        return node
    for child in node.get("children", ()):
        found = _find(child, predicate)
        if found is not None:
            return found
    return None


def test_stealth_mode_sends_its_swipes_through_an_awaitable_device_shell(vdevice, driver):
    # DroidRun's StealthDriver.swipe, call for call: ensure_connected, then each motion event
    # through `await driver.device.shell(...)`, whose answer is the command's output as text.
    async def scenario():
        await driver.ensure_connected()
        await driver.device.shell("input motionevent DOWN 100 2000")
        await driver.device.shell("input motionevent MOVE 100 1200")
        await driver.device.shell("input motionevent UP 100 500")
        return await driver.device.shell("echo answered")

    assert run(scenario()) == "answered\n"
    vdevice.wait_for_event(r"input motionevent DOWN 100 2000")
    vdevice.wait_for_event(r"input motionevent UP 100 500")


def test_cancelling_a_driver_call_ends_it_and_keeps_the_connection(driver):
    async def scenario():
        await driver.connect()
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(driver.device.shell("sleep 30"), 0.3)
        return await driver.get_date()

    assert str(datetime.datetime.now().year) in run(scenario())


def test_recording_driver_logs_as_droidrun_and_its_trajectory_replays_on_a_fresh_device(vdevice):
    recorder = RecordingDriver(AdbwireDriver(vdevice.target))
    assert recorder.supported == AdbwireDriver.supported

    async def record():
        await recorder.tap(540, 2227)  # "Add item": the form
        tree = await recorder.get_ui_tree()
        field = _find(tree["a11y_tree"], lambda n: n["className"].endswith("EditText"))
        bounds = field["boundsInScreen"]
        x = (bounds["left"] + bounds["right"]) // 2
        y = (bounds["top"] + bounds["bottom"]) // 2
        await recorder.tap(x, y)
        assert await recorder.input_text("pears") is True
        await recorder.press_button("back")
        file = await recorder.stop_recording()
        await recorder.close()
        return file, x, y

    file, x, y = run(record())
    assert recorder.log == [
        {"action_type": "tap", "x": 540, "y": 2227},
        {"action_type": "tap", "x": x, "y": y},
        {"action_type": "input_text", "text": "pears", "clear": False},
        {"action_type": "system_button", "button": "back"},
    ]
    assert os.stat(file).st_mode & 0o777 == 0o600
    with open(file) as lines:
        steps = [json.loads(line) for line in lines]
    typed = [step for step in steps if step["action"] == "type"]
    assert typed and typed[0]["elements"][0]["class"].endswith("EditText")
    assert typed[0]["snapshot_hash"].startswith("sha256:")

    fresh = VirtualDevice("--screens", str(DEMO_SCREENS))
    try:
        replayer = RecordingDriver(AdbwireDriver(fresh.target))
        summary = run(replayer.replay(file))
        assert "Replayed 4 actions" in summary
        fresh.wait_for_event(r"input text pears")
        fresh.wait_for_event(r"input keyevent 4")
        run(replayer.close())
    finally:
        fresh.stop()

    # Another app's screen: the field is not there, and replay stops at its step.
    other = VirtualDevice()
    try:
        replayer = RecordingDriver(AdbwireDriver(other.target))
        with pytest.raises(adbwire.StaleRefError, match=r"step %d \(type" % typed[0]["step"]):
            run(replayer.replay(file))
        assert not any("pears" in event for event in other.events())
        run(replayer.close())
    finally:
        other.stop()
