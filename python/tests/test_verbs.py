"""The agent verb table (src/verbs: the MCP tools and the CLI subcommands) on a Python Page:
Page.call(verb, **arguments), one method per verb Page has no method of its own for, the
catalog adbwire.verbs(), and failures raised as the Error subclass of their code."""

import os
import re
import stat
import subprocess
import time

import pytest

import adbwire
from conftest import SOURCE_DIR, VirtualDevice


def test_the_catalog_names_every_verb_and_page_offers_each():
    catalog = adbwire.verbs()
    names = [verb["name"] for verb in catalog]
    for expected in ("snapshot", "tap", "type", "find", "wait", "launch", "open_url", "shell"):
        assert expected in names
    assert len(names) == len(set(names))
    for verb in catalog:
        assert verb["description"], verb["name"]
        assert verb["inputSchema"]["type"] == "object"
        assert set(verb["positional"]) <= set(verb["inputSchema"]["properties"]), verb["name"]
        assert callable(getattr(adbwire.Page, verb["name"])), verb["name"]


def test_methods_made_from_the_table_carry_its_description():
    for verb in adbwire.verbs():
        method = getattr(adbwire.Page, verb["name"])
        if getattr(method, "_adbwire_verb", None) == verb["name"]:
            assert method.__doc__.startswith(verb["description"])
            assert method.__name__ == verb["name"]


def test_call_taps_by_selector_in_one_call(vdevice, page):
    reply = page.call("tap", text="Add item")
    vdevice.wait_for_event(r"input tap 540 2227")
    assert isinstance(reply, adbwire.VerbReply)
    assert "Add item" in reply.text
    assert str(reply) == reply.text
    assert reply.images == []
    assert '"New item"' in page.snapshot()


def test_call_snapshot_gives_the_snapshot_text(page):
    reply = page.call("snapshot")
    assert '- Button [ref=5] "Add item"' in reply.text
    assert page.call("snapshot", json=True).text.lstrip().startswith("{")


def test_generated_methods_take_positional_arguments_in_the_table_order(vdevice, page):
    found = page.find("Groceries")
    assert "Groceries" in found.text
    page.setting_put("screen_off_timeout", "60000")
    assert "60000" in page.setting_get("screen_off_timeout").text
    assert "60000" in page.setting_get(key="screen_off_timeout", namespace="system").text
    with pytest.raises(TypeError, match="multiple values"):
        page.find("Groceries", text="Groceries")
    with pytest.raises(TypeError, match="at most"):
        page.find("Groceries", "extra")


def test_wait_returns_when_the_element_is_there(page):
    reply = page.call("wait", text="Groceries", timeout_ms=5000)
    assert "Groceries" in reply.text


def test_screenshot_comes_back_as_png_bytes(page):
    reply = page.call("screenshot")
    assert len(reply.images) == 1
    mime, data = reply.images[0]
    assert mime == "image/png"
    assert data.startswith(b"\x89PNG\r\n\x1a\n")


def test_page_source_is_saved_privately(page):
    reply = page.page_source()
    path = re.search(r"(/\S+\.xml)", reply.text).group(1)
    assert os.path.exists(path), reply.text
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(os.path.dirname(path)).st_mode) == 0o700
    with open(path, encoding="utf-8") as saved:
        assert "<hierarchy" in saved.read()


def test_failures_raise_the_error_of_their_code(page):
    with pytest.raises(adbwire.NotFoundError, match="unknown verb"):
        page.call("teleport")
    with pytest.raises(adbwire.InvalidArgumentError, match="direction"):
        page.call("scroll", direction="sideways")
    with pytest.raises(adbwire.InvalidArgumentError):
        page.call("tap", ref="five")
    with pytest.raises(adbwire.InvalidArgumentError, match="one device"):
        page.call("snapshot", device="tcp:127.0.0.1:1")
    with pytest.raises(adbwire.InvalidArgumentError, match="str, int, float or bool"):
        page.call("tap", text=object())
    with pytest.raises(adbwire.TimeoutError):
        page.call("wait", text="Nothing shows this", timeout_ms=300)


def test_a_ref_that_went_stale_is_refused_with_advice(vdevice, page):
    page.snapshot()
    page.call("tap", text="Add item")
    vdevice.wait_for_event(r"input tap 540 2227")
    before = len(vdevice.events())
    with pytest.raises(adbwire.Error) as raised:
        page.call("tap", ref=5)
    assert isinstance(raised.value, (adbwire.StaleRefError, adbwire.NotFoundError))
    assert "snapshot" in str(raised.value)
    assert not any("input tap" in event for event in vdevice.events()[before:])


def test_the_readme_table_lists_every_verb():
    readme = (SOURCE_DIR / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("## Agent verbs") :]
    for verb in adbwire.verbs():
        assert "| `%s` |" % verb["name"] in table, verb["name"]


def test_pinch_and_gesture_go_through_the_dumper(vdevice):
    options = adbwire.PageOptions()
    options.helper = "on"
    with adbwire.Page.connect(vdevice.target, options) as page:
        assert "multi_touch" in page.capabilities().names
        reply = page.pinch(2, x=540, y=1200)
        assert "zoom in" in reply.text
        vdevice.wait_for_event(
            r"dumper touch 2 fingers 300 ms: 324,1200 -> 108,1200; 756,1200 -> 972,1200"
        )
        page.gesture("100,900 100,300; 300,900 300,300", duration_ms=200)
        vdevice.wait_for_event(
            r"dumper touch 2 fingers 200 ms: 100,900 -> 100,300; 300,900 -> 300,300"
        )
        assert page.app_labels()["com.example.adbwire.demo"] == "adbwire demo"


def test_pinch_without_the_dumper_says_how_to_get_it(page):
    with pytest.raises(adbwire.NotSupportedError, match=r'PageOptions\(helper="auto"\)'):
        page.pinch(0.5)
    with pytest.raises(adbwire.NotSupportedError, match="on-device dumper"):
        page.app_labels()


def test_type_secret_types_a_value_no_reply_error_or_file_shows(vdevice, page, monkeypatch):
    value = "Py7-s3cret_Qw"
    monkeypatch.setenv("ADBWIRE_SECRET_pin", value)
    names = page.secrets().text
    assert "pin\n" in names and value not in names
    page.call("tap", text="Add item")
    snapshot = page.call("snapshot").text
    field = int(re.search(r"TextInput \[ref=(\d+)\]", snapshot).group(1))
    reply = page.type_secret(field, "pin")
    assert "Typed the secret pin into ref %d" % field in reply.text
    assert value not in reply.text
    vdevice.wait_for_event(r"input text .*%s.*" % re.escape(value))
    # The field shows it now; what a verb returns shows the secret's name instead.
    assert "<secret pin>" in page.call("snapshot").text
    saved = re.search(r"\S+page-source-\S+\.xml", page.page_source().text).group(0)
    with open(saved, encoding="utf-8") as source:
        assert value not in source.read()
    with pytest.raises(adbwire.NotFoundError) as missing:
        page.type_secret(field, "nope")
    assert "there are: pin" in str(missing.value) and value not in str(missing.value)
    with pytest.raises(adbwire.InvalidArgumentError, match="not both"):
        page.call("type", ref=field, text="x", secret="pin")


def test_type_secret_reads_a_private_secrets_file(vdevice, page, monkeypatch, tmp_path):
    value = "Fi1e-s3cret_Zx"
    secrets = tmp_path / "secrets"
    secrets.write_text("# the operator's\nbank_pin=%s\n" % value)
    os.chmod(secrets, 0o600)
    monkeypatch.setenv("ADBWIRE_SECRETS_FILE", str(secrets))
    assert "bank_pin\n" in page.secrets().text
    page.call("tap", text="Add item")
    field = int(re.search(r"TextInput \[ref=(\d+)\]", page.call("snapshot").text).group(1))
    reply = page.type_secret(field, "bank_pin")
    assert "Typed the secret bank_pin" in reply.text and value not in reply.text
    vdevice.wait_for_event(r"input text .*%s.*" % re.escape(value))
    assert value not in page.call("snapshot").text
    # A file others may read is refused, naming what to do, never the value.
    os.chmod(secrets, 0o644)
    with pytest.raises(adbwire.PermissionDeniedError) as refused:
        page.type_secret(field, "bank_pin")
    assert "chmod 600" in str(refused.value) and value not in str(refused.value)


def test_type_secret_reads_the_desktop_keyring(vdevice, page, monkeypatch, tmp_path):
    # A real Secret Service (GNOME Keyring on a private session bus, both our children) holds the
    # secret, stored with secret-tool as the README says; ADBWIRE_SECRETS_KEYRING=1 asks it.
    programs = ("/usr/bin/dbus-daemon", "/usr/bin/gnome-keyring-daemon", "/usr/bin/secret-tool")
    for program in programs:
        if not os.access(program, os.X_OK):
            pytest.fail(
                "%s is missing: apt-get install gnome-keyring libsecret-tools dbus-daemon "
                "(or run scripts/setup)" % program
            )
    (tmp_path / "home").mkdir()
    (tmp_path / "run").mkdir(mode=0o700)
    env = {"HOME": str(tmp_path / "home"), "XDG_RUNTIME_DIR": str(tmp_path / "run"),
           "PATH": "/usr/bin:/bin"}
    bus = subprocess.Popen(
        ["/usr/bin/dbus-daemon", "--session", "--nofork", "--print-address=1"],
        stdout=subprocess.PIPE, env=env, text=True,
    )
    keyring = None
    try:
        address = bus.stdout.readline().strip()
        assert address.startswith("unix:"), address
        env["DBUS_SESSION_BUS_ADDRESS"] = address
        keyring = subprocess.Popen(
            ["/usr/bin/gnome-keyring-daemon", "--foreground", "--unlock", "--components=secrets"],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
        )
        keyring.stdin.write(b"test-keyring-password")
        keyring.stdin.close()
        value = "Py-k3yring_Vx"
        for _ in range(100):
            stored = subprocess.run(
                ["/usr/bin/secret-tool", "store", "--label=adbwire bank_pin", "xdg:schema",
                 "org.adbwire.Secret", "name", "bank_pin"],
                input=value, env=env, text=True, capture_output=True, timeout=10,
            )
            if stored.returncode == 0:
                break
            time.sleep(0.1)
        assert stored.returncode == 0, stored.stderr
        monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", address)
        monkeypatch.setenv("ADBWIRE_SECRETS_KEYRING", "1")
        names = page.secrets().text
        assert "bank_pin\n" in names and value not in names
        page.call("tap", text="Add item")
        field = int(re.search(r"TextInput \[ref=(\d+)\]", page.call("snapshot").text).group(1))
        reply = page.type_secret(field, "bank_pin")
        assert "Typed the secret bank_pin" in reply.text and value not in reply.text
        vdevice.wait_for_event(r"input text .*%s.*" % re.escape(value))
        assert "<secret bank_pin>" in page.call("snapshot").text
    finally:
        for process in (keyring, bus):
            if process is not None:
                process.terminate()
                process.wait(timeout=10)
        bus.stdout.close()


def test_push_and_pull_verbs_copy_files_both_ways(vdevice, page, tmp_path):
    local = tmp_path / "notes.txt"
    local.write_bytes(b"from python\n")
    assert "/sdcard/Download/notes.txt" in page.push(str(local), "/sdcard/Download/").text
    back = tmp_path / "back.txt"
    assert "1 file" in page.pull("/sdcard/Download/notes.txt", str(back)).text
    assert back.read_bytes() == b"from python\n"


def test_logs_follow_returns_lines_after_the_cursor(vdevice, page):
    first = page.logs(follow=True, lines=5).text
    cursor = int(re.search(r"cursor: (\d+)", first).group(1))
    page.press("66")
    text = ""
    for _ in range(10):
        reply = page.logs(follow=True, cursor=cursor).text
        text += reply
        cursor = int(re.search(r"cursor: (\d+)", reply).group(1))
        if "input keyevent 66" in text:
            break
    assert "input keyevent 66" in text


def test_launch_opens_an_app_by_its_label_read_from_its_apk(device_root):
    # The virtual device installs an APK aapt built (tests/data/apk); without the dumper the
    # label is read on the host from the APK's manifest and resources.arsc.
    apk = os.path.join(os.environ["ADBWIRE_TEST_APK_DIR"], "groceries.apk")
    app = "com.example.groceries:7:Demo Groceries:" + apk
    device = VirtualDevice("--app", app, root=device_root)
    page = adbwire.Page.connect(device.target)
    try:
        reply = page.call("launch", package="Demo Groceries")
        assert "Demo Groceries (com.example.groceries)" in reply.text
        device.wait_for_event(r"monkey -p com\.example\.groceries -c .*")
        with pytest.raises(adbwire.NotFoundError, match="the nearest is"):
            page.call("launch", package="Weather Radar Pro")
    finally:
        page.close()
        device.stop()


def test_memory_db_and_observe_are_options_of_the_page(page, tmp_path):
    assert page.memory_db == "" and page.observe is False
    page.memory_db = str(tmp_path / "memory" / "memory.db")
    assert page.memory_db == str(tmp_path / "memory" / "memory.db")
    assert "Remembered as note 1" in page.remember("the list is the start screen").text
    assert stat.S_IMODE(os.stat(page.memory_db).st_mode) == 0o600
    page.call("snapshot")
    assert "The observation cache is off" in page.observations().text
    # The verbs feed the cache (Page.call and the methods made from the table).
    page.observe = True
    page.call("snapshot")
    page.call("tap", text="Add item")
    page.call("snapshot")
    page.call("tap", x=60, y=200)
    page.call("snapshot")
    seen = page.observations().text
    # Two snapshots, and the one tap took to find "Add item" on it.
    assert "seen 3 times" in seen, seen
    assert 'tap {"text":"Add item"} -> screen ' in seen, seen
    form = re.search(r"-> screen ([0-9a-f]{16})", seen).group(1)
    assert 'tap {"x":60,"y":200} -> screen ' in page.observations(form).text
    assert "and 6 observations" in page.forget(observations=True).text


def test_camera_gives_the_photo_itself(page, tmp_path):
    reply = page.camera()
    assert re.search(
        r"Took a photo: /sdcard/DCIM/Camera/IMG_\S+ on the device \(\d+ KiB\)\.$", reply.text
    ), reply.text
    [(mime, photo)] = reply.images
    assert mime == "image/jpeg" and photo.startswith(b"\xff\xd8\xff")
    remote = re.search(r"(/sdcard/\S+\.jpg)", reply.text).group(1)
    page.pull(remote, str(tmp_path / "pulled.jpg"))
    assert (tmp_path / "pulled.jpg").read_bytes() == photo


def test_the_pages_own_methods_feed_the_observation_cache(page, tmp_path):
    # Page.snapshot, tap, type, back … (not only Page.call) record what they saw and did.
    page.memory_db = str(tmp_path / "memory.db")
    page.snapshot()
    page.back()
    assert "nothing observed here yet" in page.observations().text
    page.observe = True
    add = int(re.search(r'\[ref=(\d+)\] "Add item"', page.snapshot()).group(1))
    page.tap(add)
    # observations answers for the screen of the latest snapshot: the list, tapped on.
    on_list = page.observations().text
    assert 'tap {"ref":%d} on Button "Add item"' % add in on_list, on_list
    field = int(re.search(r"TextInput \[ref=(\d+)\]", page.snapshot()).group(1))
    page.type(field, "milk")
    page.tap_at(60, 200)
    page.press("back")
    on_form = page.observations().text
    assert "seen 1 time" in on_form, on_form
    assert 'type {"clear":false,"ref":%d,"submit":false,"text":"milk"}' % field in on_form, on_form
    assert 'tap {"normalized":false,"x":60.0,"y":200.0}' in on_form, on_form
    assert 'press {"key":"back"}' in on_form, on_form
    # The list's tap now says where it led: the form's screen.
    form = re.search(r"Screen ([0-9a-f]{16})", on_form).group(1)
    assert "-> screen %s" % form in page.observations(re.search(
        r"Screen ([0-9a-f]{16})", on_list).group(1)).text


def test_device_state_verbs_and_the_small_rows_run_from_python(vdevice, page):
    # The rows the CLI's and the MCP server's every-verb tests show, from a Python Page.
    assert "Battery: 87%, charging" in page.call("battery").text
    assert "LSM6DSV Gyroscope (STMicro)" in page.call("sensors", filter="gyro").text
    for verb, state, said, event in (
        ("wifi", "off", "Turned Wi-Fi off", "svc wifi disable"),
        ("data", "off", "Turned mobile data off", "svc data disable"),
        ("airplane", "on", "Turned airplane mode on", "cmd connectivity airplane-mode enable"),
    ):
        mark = len(vdevice.events())
        assert said in page.call(verb, state=state).text
        vdevice.wait_for_event(re.escape(event), after=mark)
    mark = len(vdevice.events())
    assert "centre of the area" in page.call("click_area", x1=100, y1=200, x2=300, y2=400).text
    vdevice.wait_for_event(r"input tap 200 300|dumper touch 1 finger 0 ms: 200,300 -> 200,300",
                           after=mark)
    started = time.monotonic()
    assert "Waited 0.2 s" in page.call("wait", seconds=0.2).text
    assert time.monotonic() - started >= 0.2
    assert "1 package the user installed" in page.call("apps", third_party=True).text
    mark = len(vdevice.events())
    assert "packages of the system image" in page.call("apps", system=True).text
    vdevice.wait_for_event(r"pm list packages -s", after=mark)
