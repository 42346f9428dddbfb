"""A device driver in the shape of DroidRun's ``DeviceDriver``, over adbwire.

DroidRun (and its successor Mobilerun) drive a phone through a driver object: a ``supported``
set naming the methods that work, and coroutines ``connect``, ``tap``, ``swipe``,
``input_text``, ``press_key`` / ``press_button``, ``start_app``, ``screenshot``,
``get_ui_tree`` and so on, each raising ``NotImplementedError`` when unsupported.
``AdbwireDriver`` has that shape without DroidRun being installed (it does not import it), so
it can be handed to DroidRun's tools or used directly::

    from adbwire.droidrun import AdbwireDriver
    driver = AdbwireDriver("tcp:192.168.1.20:5555")
    await driver.connect()
    await driver.tap(540, 1200)
    tree = await driver.get_ui_tree()

One connection serves every call (no ``adb`` process per action). Calls go through
``adbwire.aio``: the event loop keeps running while they wait, and a cancelled task (Ctrl-C in
``asyncio.run`` too) ends its call at once, the connection staying usable. ``driver.device`` is
the connection with DroidRun's ``device.shell``: ``await driver.device.shell("input ...")``
returns the command's output as text (what DroidRun's stealth mode sends its swipes through);
``driver.device.aio`` is the whole ``adbwire.aio.Device``.
``supported`` names every method: each works on any device adb reaches (input, uiautomator and
screencap are on every Android build; drag falls back to a slow swipe before Android 12, install
to push + pm before Android 7). What cannot be honoured raises ``NotImplementedError`` as
DroidRun's base class does (``input_text``'s stealth typing). Failures are ``adbwire.Error``
subclasses, except where DroidRun's contract is a return value (``input_text`` returns False,
``start_app`` and ``install_app`` return a message starting with "Failed").
"""

from __future__ import annotations

import html
import json
import os
import re
from typing import Any, Dict, List, Optional, Tuple

import adbwire
from adbwire import aio

# Named keys press_button() takes: those adbwire.Page.press knows by name.
BUTTONS = frozenset(
    {
        "back",
        "home",
        "enter",
        "delete",
        "tab",
        "escape",
        "up",
        "down",
        "left",
        "right",
        "space",
        "power",
        "volup",
        "voldown",
        "recent",
        "menu",
        "paste",
    }
)

# The root of a uiautomator dump: its first <node> start tag, found in the dump's head.
_FIRST_NODE = re.compile(r"<node\b([^>]*)>")
_ATTRIBUTE = re.compile(r'([\w-]+)="([^"]*)"')
_BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")
_ROOT_SCAN = 64 * 1024

# Android keycodes input_text sends to clear a field.
_KEYCODE_MOVE_END = 123
_KEYCODE_DEL = 67

# Roles of the snapshot that can be checked (Portal's isCheckable).
_CHECKABLE_ROLES = frozenset({"CheckBox", "Switch", "Radio", "Toggle"})

# Errors that mean the connection is gone: they propagate even where DroidRun's contract
# otherwise reports failure as a return value.
_CONNECTION_ERRORS = (
    adbwire.DeviceOfflineError,
    adbwire.ClosedError,
    adbwire.ConnectionRefusedError,
    adbwire.UnauthorizedError,
)


class ShellDevice:
    """The connection as DroidRun's drivers use ``driver.device``: ``await shell(command)``
    returns the command's output as text, stdout then stderr (DroidRun's adb device answers
    with both in one), whatever its exit code. ``aio`` is the adbwire.aio.Device."""

    def __init__(self, device: aio.Device) -> None:
        self.aio = device

    async def shell(self, command: str, timeout: Optional[float] = None) -> str:
        result = await self.aio.shell(command, timeout)
        return result.out + result.err


class AdbwireDriver:
    """DroidRun's DeviceDriver interface over one adbwire connection.

    target: an adbwire target ("tcp:HOST:PORT", "server:[HOST:PORT/]SERIAL", "usb:[SERIAL]",
    a serial, or "" for $ANDROID_SERIAL, else $ADB_SERIAL). page_options / connect_options:
    adbwire.PageOptions and adbwire.ConnectOptions for the connection (None: the defaults).

    Thread and task safety: coroutines may run concurrently; the Page behind them runs one call
    at a time. ``last_error`` keeps the message of the last failure reported as a return value.
    """

    platform: str = "Android"
    supported: set = {
        "tap",
        "swipe",
        "drag",
        "input_text",
        "press_key",
        "press_button",
        "start_app",
        "install_app",
        "get_apps",
        "list_packages",
        "screenshot",
        "get_ui_tree",
        "get_date",
    }
    supported_buttons: set = set(BUTTONS)

    def __init__(
        self,
        target: str = "",
        *,
        page_options: Optional[adbwire.PageOptions] = None,
        connect_options: Optional[adbwire.ConnectOptions] = None,
    ) -> None:
        self.target = target
        self.page: Optional[adbwire.Page] = None
        self.device: Optional[ShellDevice] = None
        self.capabilities: Optional[adbwire.Capabilities] = None
        self.last_error = ""
        self._page_options = page_options
        self._connect_options = connect_options

    # -- lifecycle -----------------------------------------------------------

    async def connect(self) -> None:
        """Connects (once) and probes the device (Page.capabilities(): screen size, API level,
        drag and drop). adbwire.Error when it fails."""
        if self.page is not None:
            return
        page = await aio.run(
            adbwire.Page.connect, self.target, self._page_options, self._connect_options
        )
        capabilities = await aio.run(page.capabilities)
        if self.page is not None:  # another task connected meanwhile: keep its connection
            await aio.run(page.close)
            return
        self.capabilities = capabilities
        self.device = ShellDevice(aio.Device(page.device))
        self.page = page

    async def ensure_connected(self) -> None:
        """Connects if not connected yet."""
        if self.page is None:
            await self.connect()

    async def close(self) -> None:
        """Closes the connection; the next call connects again."""
        page, self.page, self.device = self.page, None, None
        if page is not None:
            await aio.run(page.close)

    # -- input actions -------------------------------------------------------

    async def tap(self, x: int, y: int) -> None:
        """Taps at pixel coordinates (input tap)."""
        page = await self._ready()
        await aio.run(page.tap_at, x, y)

    async def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: float = 1000) -> None:
        """Swipes from (x1, y1) to (x2, y2) over duration_ms (input swipe; returns when done)."""
        page = await self._ready()
        await aio.run(page.swipe, x1, y1, x2, y2, duration_ms / 1000)

    async def drag(self, x1: int, y1: int, x2: int, y2: int, duration: float = 3.0) -> None:
        """Drags from (x1, y1) to (x2, y2) over duration seconds: input draganddrop (Android
        12+), else a swipe that slow, which apps read as a drag."""
        page = await self._ready()
        if self.capabilities is None or not self.capabilities.has("drag_and_drop"):
            await aio.run(page.swipe, x1, y1, x2, y2, duration)
            return
        command = "input draganddrop %d %d %d %d %d" % (x1, y1, x2, y2, round(duration * 1000))
        result = await aio.run(page.device.shell, command)
        if result.exit_code != 0:
            raise adbwire.CommandFailedError(
                "`%s` failed (exit %d): %s"
                % (command, result.exit_code, (result.err or result.out).strip())
            )

    async def input_text(
        self, text: str, clear: bool = False, stealth: bool = False, wpm: int = 0
    ) -> bool:
        """Types text where the focus is, as DroidRun's contract says: the agent focused the
        field, so it is not tapped again (a second tap can move the cursor or open a menu).
        ASCII goes as `input text` (spaces, quotes and shell characters kept; clear deletes the
        field's text first); other text through adbwire.Page.type (ADBKeyBoard or the on-device
        dumper), which taps the field first. Returns False when no editable field has focus or
        the text cannot be typed (last_error says why). stealth and wpm (DroidRun cloud typing)
        are not available: NotImplementedError."""
        if stealth or wpm:
            raise NotImplementedError(
                "adbwire types with `input text`; stealth typing and wpm are not available"
            )
        page = await self._ready()
        tree = json.loads(await aio.run(page.snapshot_json))
        field = _focused_field(tree["nodes"])
        if field is None:
            self.last_error = "no editable field has focus: tap one first"
            return False
        try:
            if text.isascii():
                await self._type_at_focus(page, text, field.get("text", "") if clear else "")
            else:
                await aio.run(page.type, field["ref"], text, clear)
        except _CONNECTION_ERRORS:
            raise
        except adbwire.Error as error:
            self.last_error = str(error)
            return False
        return True

    async def _type_at_focus(self, page: adbwire.Page, text: str, replaced: str) -> None:
        commands = []
        if replaced:
            # To the end of the field, then one backspace per character it holds.
            commands.append("input keyevent %d" % _KEYCODE_MOVE_END)
            commands.append("input keyevent" + (" %d" % _KEYCODE_DEL) * len(replaced))
        typed = adbwire.input_text_command(text)
        if typed:
            commands.append(typed)
        if not commands:
            return
        command = " && ".join(commands)
        result = await aio.run(page.device.shell, command)
        if result.exit_code not in (0, -1):
            raise adbwire.CommandFailedError(
                "typing failed (exit %d): %s"
                % (result.exit_code, (result.err or result.out).strip())
            )

    async def press_key(self, keycode: int) -> None:
        """Presses an Android keycode (input keyevent)."""
        page = await self._ready()
        await aio.run(page.press, int(keycode))

    async def press_button(self, button: str) -> None:
        """Presses a named button; ValueError when it is not in supported_buttons."""
        page = await self._ready()
        name = button.lower()
        if name not in self.supported_buttons:
            raise ValueError(
                "Button '%s' not supported. Supported: %s"
                % (button, ", ".join(sorted(self.supported_buttons)))
            )
        await aio.run(page.press, name)

    # -- app management ------------------------------------------------------

    async def start_app(self, package: str, activity: Optional[str] = None) -> str:
        """Starts an app (its launcher activity, or the activity given), named by its package or
        by its label as DroidRun's open_app takes it ("Settings", part of a name). Returns a
        message; one starting with "Failed" when the device refused (no such package or
        activity) or the name matches no app, or several."""
        page = await self._ready()
        try:
            await aio.run(page.call, "launch", package=package, activity=activity or "")
        except _CONNECTION_ERRORS:
            raise
        except adbwire.Error as error:
            self.last_error = str(error)
            return "Failed to start app %s: %s" % (package, error)
        return "App started: %s" % package + (" with activity %s" % activity if activity else "")

    async def install_app(self, path: str, **kwargs: Any) -> str:
        """Installs an APK, streamed from the host file. Keywords: grant_permissions (default
        True, as DroidRun), downgrade, allow_test; reinstall is accepted (adbwire always
        replaces). Returns the package manager's answer, or a message starting with "Failed"."""
        device = (await self._ready()).device
        if not os.path.exists(path):
            return "Failed to install app: APK file not found at %s" % path
        try:
            answer = await aio.run(
                device.install,
                path,
                grant_permissions=bool(kwargs.get("grant_permissions", True)),
                downgrade=bool(kwargs.get("downgrade", False)),
                allow_test=bool(kwargs.get("allow_test", False)),
            )
        except _CONNECTION_ERRORS:
            raise
        except adbwire.Error as error:
            self.last_error = str(error)
            return "Failed to install app: %s" % error
        return answer.strip()

    async def list_packages(self, include_system: bool = False) -> List[str]:
        """Installed package names (pm list packages, with -3 unless include_system)."""
        device = (await self._ready()).device
        return await aio.run(_list_packages, device, include_system)

    async def get_apps(self, include_system: bool = True) -> List[Dict[str, str]]:
        """Installed apps as [{"package": ..., "label": ...}]. Labels come from PackageManager
        through adbwire's on-device dumper (page_options.helper "auto" or "on"), as DroidRun's
        Portal app reads them; stock Android's shell prints none, so without the dumper (or
        when it cannot reach PackageManager) label is "" and last_error says why."""
        page = await self._ready()
        packages = await aio.run(_list_packages, page.device, include_system)
        labels: Dict[str, str] = {}
        try:
            labels = await aio.run(page.app_labels)
        except _CONNECTION_ERRORS:
            raise
        except adbwire.Error as error:
            self.last_error = str(error)
        return [{"package": package, "label": labels.get(package, "")} for package in packages]

    # -- state / observation -------------------------------------------------

    async def screenshot(self, hide_overlay: bool = True) -> bytes:
        """PNG bytes of the screen. adbwire draws no overlay, so hide_overlay changes nothing."""
        page = await self._ready()
        return await aio.run(page.screenshot)

    async def get_ui_tree(self) -> Dict[str, Any]:
        """The screen in the shape DroidRun's Portal returns: {"a11y_tree": root node,
        "phone_state": {...}, "device_context": {"screen_bounds": {...}}}. Nodes carry
        className, text, contentDescription, resourceId, boundsInScreen, isClickable (the node
        has a [ref]), isCheckable, isChecked, isEnabled, isFocused, isSelected, children, and
        adbwire's ref and role; "snapshot" holds the [ref=N] text whose refs these are."""
        page = await self._ready()
        return await aio.run(_ui_tree, page, self.capabilities)

    async def get_date(self) -> str:
        """The device's `date` output."""
        device = (await self._ready()).device
        result = await aio.run(device.shell, "date")
        return result.out.strip()

    # -- helpers -------------------------------------------------------------

    async def _ready(self) -> adbwire.Page:
        await self.ensure_connected()
        page = self.page
        if page is None:  # close() ran while this call connected
            raise adbwire.ClosedError("the driver was closed: call connect() again")
        return page


class RecordingDriver:
    """DroidRun's ``RecordingDriver`` over an AdbwireDriver: every mutating action is appended
    to ``log`` as DroidRun's dicts ({"action_type": "tap", "x": 540, "y": 1200}, "swipe",
    "input_text", "key_press", "system_button", "start_app", "drag"), other attributes reach
    the inner driver, and the Page behind it records an adbwire trajectory (the verbs
    record_trajectory_start/_stop): each snapshot with its hash, each action with its element
    and point, in a private trajectory.jsonl (docs/trajectory.md). The recording starts with
    the first action (or start_recording()), in ``path`` (a new folder) or a private folder.

    input_text types through Page.type on the focused field's ref, so the trajectory knows the
    field and a replay finds it again (the field is tapped before typing, which DroidRun's own
    driver leaves out). ``replay(file)`` plays a trajectory on this driver's device, each element
    found again on a fresh snapshot; it raises StaleRefError naming the first step whose element
    is not there (nothing is sent for it).
    """

    def __init__(
        self, inner: AdbwireDriver, path: Optional[str] = None, screenshots: bool = False
    ) -> None:
        self.inner = inner
        self.log: List[Dict[str, Any]] = []
        self.trajectory: Optional[str] = None  # the trajectory.jsonl recorded into
        self._path = path
        self._screenshots = screenshots
        self._recording = False

    @property
    def supported(self) -> set:
        return self.inner.supported

    @property
    def supported_system_buttons(self) -> set:
        return self.inner.supported_buttons

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    # -- the trajectory ------------------------------------------------------

    async def start_recording(self) -> str:
        """Starts the trajectory (once) and returns its trajectory.jsonl path."""
        if not self._recording:
            page = await self.inner._ready()
            arguments: Dict[str, Any] = {}
            if self._path is not None:
                arguments["path"] = self._path
            if self._screenshots:
                arguments["screenshots"] = True
            reply = await aio.run(page.call, "record_trajectory_start", **arguments)
            self.trajectory = _trajectory_file(reply.text)
            self._recording = True
        return self.trajectory or ""

    async def stop_recording(self) -> str:
        """Ends the trajectory and returns its trajectory.jsonl path ("" when none ran)."""
        if not self._recording:
            return ""
        page = await self.inner._ready()
        reply = await aio.run(page.call, "record_trajectory_stop")
        self._recording = False
        self.trajectory = _trajectory_file(reply.text)
        return self.trajectory

    async def replay(self, file: Optional[str] = None) -> str:
        """Plays a trajectory (default: the one recorded here) on the device; returns the
        verb's summary. adbwire.StaleRefError at the first element not found again."""
        page = await self.inner._ready()
        reply = await aio.run(page.call, "replay_trajectory", file=file or self.trajectory or "")
        return reply.text

    # -- recorded actions ----------------------------------------------------

    async def tap(self, x: int, y: int) -> None:
        await self.start_recording()
        await self.inner.tap(x, y)
        self.log.append({"action_type": "tap", "x": x, "y": y})

    async def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: float = 1000) -> None:
        await self.start_recording()
        await self.inner.swipe(x1, y1, x2, y2, duration_ms)
        self.log.append(
            {
                "action_type": "swipe",
                "start_x": x1,
                "start_y": y1,
                "end_x": x2,
                "end_y": y2,
                "duration_ms": duration_ms,
            }
        )

    async def input_text(
        self, text: str, clear: bool = False, stealth: bool = False, wpm: int = 0
    ) -> bool:
        if stealth or wpm:
            return await self.inner.input_text(text, clear, stealth, wpm)
        await self.start_recording()
        page = await self.inner._ready()
        field = _focused_field(json.loads(await aio.run(page.snapshot_json))["nodes"])
        if field is None:
            self.inner.last_error = "no editable field has focus: tap one first"
            return False
        try:
            await aio.run(page.type, field["ref"], text, clear)
        except _CONNECTION_ERRORS:
            raise
        except adbwire.Error as error:
            self.inner.last_error = str(error)
            return False
        self.log.append({"action_type": "input_text", "text": text, "clear": clear})
        return True

    async def press_key(self, keycode: int) -> None:
        await self.start_recording()
        await self.inner.press_key(keycode)
        self.log.append({"action_type": "key_press", "keycode": keycode})

    async def press_button(self, button: str) -> None:
        await self.start_recording()
        await self.inner.press_button(button)
        self.log.append({"action_type": "system_button", "button": button})

    async def start_app(self, package: str, activity: Optional[str] = None) -> str:
        await self.start_recording()
        result = await self.inner.start_app(package, activity)
        self.log.append({"action_type": "start_app", "package": package, "activity": activity})
        return result

    async def drag(self, x1: int, y1: int, x2: int, y2: int, duration: float = 3.0) -> None:
        await self.start_recording()
        await self.inner.drag(x1, y1, x2, y2, duration)
        self.log.append(
            {
                "action_type": "drag",
                "start_x": x1,
                "start_y": y1,
                "end_x": x2,
                "end_y": y2,
                "duration": duration,
            }
        )


def _trajectory_file(reply: str) -> str:
    match = re.search(r" to (/.*?trajectory\.jsonl)", reply)
    return match.group(1) if match else ""


def _list_packages(device: adbwire.Device, include_system: bool) -> List[str]:
    command = "pm list packages" if include_system else "pm list packages -3"
    result = device.shell(command)
    if result.exit_code not in (0, -1):
        raise adbwire.CommandFailedError(
            "`%s` failed (exit %d): %s"
            % (command, result.exit_code, (result.err or result.out).strip())
        )
    return [
        line[len("package:") :].strip()
        for line in result.out.splitlines()
        if line.startswith("package:")
    ]


def _focused_field(nodes: List[Dict[str, Any]]) -> Optional[Dict[str, Any]]:
    for node in nodes:
        if (
            node.get("role") == "TextInput"
            and "ref" in node
            and "focused" in node.get("states", ())
        ):
            return node
        found = _focused_field(node.get("children", ()))
        if found is not None:
            return found
    return None


def _portal_node(node: Dict[str, Any]) -> Dict[str, Any]:
    left, top, right, bottom = node.get("bounds", (0, 0, 0, 0))
    states = node.get("states", ())
    converted = {
        "className": node.get("class", ""),
        "text": node.get("text", ""),
        "contentDescription": node.get("desc", ""),
        "resourceId": node.get("resource_id", ""),
        "hint": node.get("hint", ""),
        "boundsInScreen": {"left": left, "top": top, "right": right, "bottom": bottom},
        "isClickable": "ref" in node,
        "isCheckable": node.get("role") in _CHECKABLE_ROLES or "checked" in states,
        "isChecked": "checked" in states,
        "isEnabled": "disabled" not in states,
        "isFocused": "focused" in states,
        "isSelected": "selected" in states,
        "role": node.get("role", ""),
        "children": [_portal_node(child) for child in node.get("children", ())],
    }
    if "ref" in node:
        converted["ref"] = node["ref"]
    return converted


def _root_node(
    dump: str, nodes: List[Dict[str, Any]], screen: Tuple[int, int, int, int]
) -> Dict[str, Any]:
    """The dump's root (the window's top view, as Portal's tree starts) in the snapshot's node
    shape, holding the snapshot's nodes: pruning drops layout-only views, the root among them.
    A dump whose root cannot be read (none: an empty screen) gets one covering the screen."""
    match = _FIRST_NODE.search(dump, 0, _ROOT_SCAN)
    attributes = (
        {name: html.unescape(value) for name, value in _ATTRIBUTE.findall(match.group(1))}
        if match
        else {}
    )
    bounds = _BOUNDS.fullmatch(attributes.get("bounds", ""))
    root: Dict[str, Any] = {
        "class": attributes.get("class", ""),
        "resource_id": attributes.get("resource-id", ""),
        "text": attributes.get("text", ""),
        "desc": attributes.get("content-desc", ""),
        "bounds": tuple(int(n) for n in bounds.groups()) if bounds else screen,
        "children": nodes,
    }
    if len(nodes) == 1 and all(
        nodes[0].get(key, "") == root[key] for key in ("class", "resource_id")
    ):
        if tuple(nodes[0].get("bounds", ())) == root["bounds"]:
            return nodes[0]  # the snapshot kept the root itself
    return root


def _ui_tree(page: adbwire.Page, capabilities: adbwire.Capabilities) -> Dict[str, Any]:
    tree = json.loads(page.snapshot_json())
    text = page.last_snapshot()  # the same snapshot, unless another thread took one between
    width, height = capabilities.screen_size
    if tree.get("rotation", 0) in (1, 3):
        width, height = height, width
    root = _portal_node(_root_node(page.last_dump, tree["nodes"], (0, 0, width, height)))
    focused = _focused_field(tree["nodes"])
    phone_state: Dict[str, Any] = {
        "currentApp": "",
        "packageName": "",
        "activityName": "",
        "isEditable": focused is not None,
        "focusedElement": {"text": focused.get("text", ""), "ref": focused["ref"]}
        if focused
        else None,
    }
    try:
        foreground = page.foreground()
        phone_state.update(
            currentApp=foreground.package,
            packageName=foreground.package,
            activityName=foreground.activity,
        )
    except adbwire.NotFoundError:
        pass  # no resumed activity reported (a lock screen, or mid-transition)
    return {
        "a11y_tree": root,
        "phone_state": phone_state,
        "device_context": {"screen_bounds": {"width": width, "height": height}},
        "snapshot": text,
    }
