"""adbwire.Page against the virtual device's demo app: every method, checked by what the device
ran (its events) and by what the screen shows afterwards."""

import datetime
import json
import os
import re
import struct

import pytest

import adbwire
from conftest import DEMO_PACKAGE, SOURCE_DIR, VirtualDevice


def png_size(data):
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_snapshot_text_json_and_last(page):
    text = page.snapshot()
    assert '- Text "Groceries"' in text
    assert '- Button [ref=5] "Add item"' in text
    assert page.last_snapshot() == text
    tree = json.loads(page.snapshot_json())
    assert tree["rotation"] == 0
    assert tree["nodes"][0]["role"] == "Group"
    assert "<hierarchy" in page.last_dump


def test_tap_moves_the_screen(vdevice, page):
    page.snapshot()
    page.tap(5)
    vdevice.wait_for_event(r"input tap 540 2227")
    assert '"New item"' in page.snapshot()


def test_type_press_and_back(vdevice, page):
    page.snapshot()
    page.tap(5)
    screen = page.snapshot()
    assert '- TextInput [ref=2] ""' in screen
    page.type(2, "two apples")
    vdevice.wait_for_event(r"input text two")
    vdevice.wait_for_event(r"input keyevent 62")
    assert '- TextInput [ref=2] "two apples"' in page.snapshot()
    page.type(2, "pears", clear=True)
    assert '- TextInput [ref=2] "pears"' in page.snapshot()
    before = len(vdevice.events())
    page.press("back")
    vdevice.wait_for_event(r"input keyevent 4", after=before)
    assert '"Groceries"' in page.snapshot()


def test_type_says_what_the_field_reads_and_refuses_what_takes_no_text(vdevice, page):
    page.snapshot()
    page.tap(5)
    page.snapshot()
    assert page.type(2, "pears", settle=0.5) == "pears"
    assert page.type(2, "plums", submit=True) is None  # sent away: not read back
    reply = page.call("type", ref=3, text="12", settle_ms=500)
    assert 'Typed "12" into ref 3' in reply.text
    vdevice.wait_for_event(r"input text 12")
    before = len(vdevice.events())
    with pytest.raises(adbwire.InvalidArgumentError) as raised:
        page.type(5, "x")
    assert "is not a text field" in str(raised.value)
    assert vdevice.events()[before:] == []


def test_press_by_keycode_and_named_keys(vdevice, page):
    page.press(66)
    vdevice.wait_for_event(r"input keyevent 66")
    for call, code in ((page.home, 3), (page.recent, 187), (page.back, 4)):
        before = len(vdevice.events())
        call()
        vdevice.wait_for_event(r"input keyevent %d" % code, after=before)


def test_gestures_on_refs(vdevice, page):
    page.snapshot()
    page.long_press(2)
    vdevice.wait_for_event(r"input swipe 540 391 540 391 1000")
    page.snapshot()
    page.scroll(1, "down")
    vdevice.wait_for_event(r"input swipe 540 \d+ 540 \d+ 300")
    page.snapshot()
    page.drag(2, 3)
    vdevice.wait_for_event(r"input draganddrop 540 391 540 601 1500")


def test_gestures_on_coordinates(vdevice, page):
    page.tap_at(0.5, 0.5, normalized=True)
    vdevice.wait_for_event(r"input tap 540 1200")
    page.long_press_at(100, 200)
    vdevice.wait_for_event(r"input swipe 100 200 100 200 1000")
    page.swipe(100, 2000, 100, 500, duration=0.25)
    vdevice.wait_for_event(r"input swipe 100 2000 100 500 250")
    with pytest.raises(adbwire.InvalidArgumentError):
        page.tap_at(5000, 5000)


def test_apps(vdevice, page, tmp_path):
    page.launch(DEMO_PACKAGE)
    vdevice.wait_for_event(r"monkey -p %s -c android.intent.category.LAUNCHER 1" % DEMO_PACKAGE)
    page.launch(DEMO_PACKAGE, ".ListActivity")
    vdevice.wait_for_event(r"am start -n %s/.ListActivity" % DEMO_PACKAGE)
    page.stop(DEMO_PACKAGE)
    vdevice.wait_for_event(r"am force-stop %s" % DEMO_PACKAGE)
    foreground = page.foreground()
    assert (foreground.package, foreground.activity) == (DEMO_PACKAGE, ".ListActivity")
    assert DEMO_PACKAGE in page.packages()

    apk = tmp_path / "fake.apk"
    apk.write_bytes(b"PK\x03\x04 package=com.example.paged versionCode=3 " + os.urandom(1024))
    page.install(apk)
    assert "com.example.paged" in page.packages()
    page.uninstall("com.example.paged")
    assert "com.example.paged" not in page.packages()


def test_screenshot_is_a_png_of_the_screen(page):
    assert png_size(page.screenshot()) == (1080, 2400)


def test_marked_screenshot_is_scaled_and_maps_points_back(vdevice, page):
    plain = page.screenshot(max_side=1200)
    marked = page.screenshot(marks=True, max_side=1200)
    assert png_size(marked) == (540, 1200)
    assert marked != plain
    reply = page.call("tap", x=270, y=600, space="screenshot")
    assert "of the screenshot" in reply.text
    vdevice.wait_for_event(r"input tap 540 1200")


def test_device_state_and_settings(vdevice, page):
    page.wake()
    vdevice.wait_for_event(r"wm dismiss-keyguard")
    page.open_notifications()
    vdevice.wait_for_event(r"cmd statusbar expand-notifications")
    page.put_setting("global", "adbwire_test", "a value with spaces")
    assert page.setting("global", "adbwire_test") == "a value with spaces"
    assert page.setting("secure", "never_set_here") == ""
    page.rotate("landscape")
    assert page.setting("system", "user_rotation") == "1"
    now = page.device_time()
    assert now.tzinfo is not None
    assert abs(now - datetime.datetime.now(datetime.timezone.utc)) < datetime.timedelta(minutes=1)


def test_waits(page):
    assert '"Groceries"' in page.wait_for_text("Groceries", timeout=2.0)
    with pytest.raises(adbwire.TimeoutError, match="Bananas"):
        page.wait_for_text("Bananas", timeout=0.5)
    assert "[ref=5]" in page.wait_for_idle(timeout=3.0)


def test_capabilities_status_and_clipboard(page):
    capabilities = page.capabilities()
    assert capabilities.sdk == 34
    assert capabilities.screen_size == (1080, 2400)
    assert capabilities.has("snapshot") and capabilities.has("drag_and_drop")
    assert not capabilities.has("clipboard")
    assert "input" in capabilities.names
    with pytest.raises(adbwire.NotSupportedError, match="helper"):
        page.clipboard_get()
    assert "helper" in page.last_error
    page.snapshot()
    assert page.helper_status.in_use is False
    assert page.web_status.webviews == 0 and page.web_status.problem == ""


def test_page_over_a_device_shares_its_connection(vdevice, dev):
    page = adbwire.Page(dev, adbwire.PageOptions(ref_check="always", swipe=0.5))
    assert page.options.ref_check == "always" and page.options.swipe == 0.5
    assert "[ref=5]" in page.snapshot()
    assert dev.shell("echo still").out == "still\n"  # dev now acts through the Page's connection
    assert page.device.shell("echo same").out == "same\n"
    assert page.device.serial == dev.serial
    with pytest.raises(adbwire.InvalidArgumentError, match="already belongs to a Page"):
        adbwire.Page(dev)
    with pytest.raises(adbwire.InvalidArgumentError, match="already belongs to a Page"):
        adbwire.Page(page.device)
    with page:
        pass
    with pytest.raises(adbwire.ClosedError):
        dev.shell("true")  # one connection: closing the Page closed it


def test_page_connect_with_options(vdevice):
    options = adbwire.PageOptions(ref_check="never", max_depth=2, dump_method="file")
    page = adbwire.Page.connect(vdevice.target, options, adbwire.ConnectOptions(command_timeout=5))
    text = page.snapshot()
    assert "refs" in text and "hidden" in text  # the cut levels name the refs they hide
    page.tap(5)  # ref_check never: acted on the last snapshot without re-reading
    vdevice.wait_for_event(r"input tap 540 2227")
    page.close()


def test_the_readme_example_runs(vdevice, capsys):
    readme = (SOURCE_DIR / "README.md").read_text()
    section = readme[readme.index("## Python") :]
    example = section[section.index("```python\n") + len("```python\n") :]
    example = example[: example.index("```")]
    exec(compile(example.replace("tcp:127.0.0.1:5555", vdevice.target), "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "ShellResult(exit_code=3, out='hi\\n', err='')" in out
    assert '- Button [ref=5] "Add item"' in out and '"New item"' in out
    vdevice.wait_for_event(r"input text two")
    vdevice.wait_for_event(r"input keyevent 4")


SURFACE_DUMP = (
    "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
    '<node index="0" text="" resource-id="" class="android.view.SurfaceView" '
    'package="com.example.game" content-desc="" checkable="false" checked="false" '
    'clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" '
    'long-clickable="false" password="false" selected="false" bounds="[0,0][720,1608]"/>'
    "</hierarchy>"
)


def test_ocr_reads_a_screen_with_nothing_accessible(tmp_path, device_root):
    """A tree of one SurfaceView over a real phone's screenshot: the words in its pixels become
    [ocr] refs a tap reaches; ocr="off" reads nothing; the options speak Python's words."""
    screenshot = SOURCE_DIR.parent / "shared" / "corpus" / "png" / "wecom-720x1608.png"
    assert screenshot.is_file(), "the shared corpus is missing: %s" % screenshot
    screens = tmp_path / "screens"
    screens.mkdir()
    (screens / "game.xml").write_text(SURFACE_DUMP)
    (screens / "screens.xml").write_text(
        '<screens start="s"><screen name="s" dump="game.xml" png="%s"/></screens>' % screenshot
    )
    device = VirtualDevice("--screens", str(screens), root=device_root)
    try:
        page = adbwire.Page.connect(device.target)
        assert page.options.ocr == "auto"
        text = page.snapshot()
        assert '- Text [ref=1] "16:10" [ocr]' in text, text
        status = page.ocr_status
        assert status.ran and status.texts >= 1 and status.took > 0 and status.problem == ""
        page.tap(1)
        event = device.wait_for_event(r"input tap \d+ \d+")
        x, y = (int(v) for v in event.split()[2:4])
        assert 20 <= x <= 130 and 15 <= y <= 70, event  # the clock's box, top left

        page.set_ocr("off")
        text = page.snapshot()
        assert "[ocr]" not in text and not page.ocr_status.ran, text
        with pytest.raises(adbwire.InvalidArgumentError, match="auto, on, off"):
            page.set_ocr("sometimes")
        page.close()
    finally:
        device.stop()

    assert adbwire.PageOptions(ocr="on").ocr == "on"
    with pytest.raises(adbwire.InvalidArgumentError, match='ocr "yes"'):
        adbwire.PageOptions(ocr="yes")


_TAP = r"input tap (\d+) (\d+)|dumper touch 1 finger 0 ms: (\d+),(\d+) -> \d+,\d+"


def test_stealth_taps_land_inside_the_element_away_from_its_centre_and_repeat_for_a_seed(vdevice):
    # PageOptions(stealth=True, seed=N): each tap at a random point of the element's clear area.
    def taps(seed):
        page = adbwire.Page.connect(vdevice.target, adbwire.PageOptions(stealth=True, seed=seed))
        points = []
        for _ in range(3):
            add = int(re.search(r'\[ref=(\d+)\] "Add item"', page.snapshot()).group(1))
            mark = len(vdevice.events())
            page.tap(add)
            match = re.fullmatch(_TAP, vdevice.wait_for_event(_TAP, after=mark))
            x, y = (int(v) for v in match.groups() if v is not None)
            points.append((x, y))
            page.back()
        page.close()
        return points

    first = taps(11)
    assert taps(11) == first
    assert taps(12) != first
    # "Add item": [42,2164][1038,2290]; its centre is 540,2227.
    for x, y in first:
        assert 42 <= x < 1038 and 2164 <= y < 2290, first
    assert first[0] != (540, 2227), first
