"""Control Android devices over the ADB wire protocol itself, with no process per command.

adbwire speaks ADB directly (TCP, USB, or through a running adb server): one connection per
device, a stream per command, so a command costs a round trip instead of an ``adb`` process.
``Page`` turns the screen into ``[ref=N]`` text an agent acts on::

    import adbwire
    dev = adbwire.Device.connect("tcp:127.0.0.1:5555")
    print(dev.shell("getprop ro.product.model").out)
    page = adbwire.Page(dev)
    print(page.snapshot())          # - Button [ref=3] "Add item"
    page.tap(3)

Blocking calls release the GIL; every call ends by its timeout. Errors are ``adbwire.Error``
subclasses, one per code (``StaleRefError``, ``TimeoutError``, ``UnauthorizedError``, ...),
with ``.code`` and ``.detail``. ``adbwire.droidrun.AdbwireDriver`` is a DroidRun-shaped driver.

The agent verbs the MCP server and the CLI offer (``adbwire.verbs()`` lists them) run on a Page
with ``page.call("tap", text="OK")``; each verb Page has no method of its own for is also a
method taking the CLI's positional arguments: ``page.launch("com.android.settings")``,
``page.find("Wi-Fi")``, ``page.wait(text="Done", timeout=5)``: durations in seconds, as
everywhere in the package (the table's ``timeout_ms`` still works, deprecated; ``call`` takes the
table's own names).
"""

import warnings

from adbwire._adbwire import (
    BusyError,
    CancelledError,
    CancelScope,
    Capabilities,
    ClosedError,
    CommandFailedError,
    ConnectionRefusedError,
    ConnectOptions,
    Device,
    DeviceEntry,
    DeviceOfflineError,
    Error,
    ErrorCode,
    ExecStream,
    ForegroundActivity,
    Forwarder,
    HelperStatus,
    InvalidArgumentError,
    IoError,
    LimitExceededError,
    MdnsService,
    NotFoundError,
    NotSupportedError,
    OcrStatus,
    Page,
    PageOptions,
    PairResult,
    ParseError,
    PermissionDeniedError,
    ProtocolError,
    ShellResult,
    StaleRefError,
    TimeoutError,
    TransferStats,
    UnauthorizedError,
    VerbReply,
    WebStatus,
    __version__,
    devices,
    input_text_command,
    mdns_services,
    pair,
    verbs,
)


def _seconds_arguments(name, properties, arguments):
    """The verb's *_ms arguments given in seconds under the name without _ms (timeout=2.5 for
    timeout_ms=2500), as every other call of the package takes durations; the _ms names still
    work, with a DeprecationWarning."""
    for key in list(arguments):
        if key.endswith("_ms") and key in properties:
            warnings.warn(
                "%s(%s=...) is deprecated: give %s in seconds" % (name, key, key[: -len("_ms")]),
                DeprecationWarning,
                stacklevel=3,
            )
        elif key + "_ms" in properties and key not in properties:
            if key + "_ms" in arguments:
                raise TypeError("%s() got both %s and %s_ms" % (name, key, key))
            seconds = arguments.pop(key)
            if not isinstance(seconds, (int, float)) or seconds < 0 or seconds != seconds:
                raise InvalidArgumentError(
                    "%s: %s must be a number of seconds >= 0, not %r" % (name, key, seconds)
                )
            arguments[key + "_ms"] = round(seconds * 1000)


def _verb_method(verb):
    """A Page method running one verb of the table: positional arguments in the CLI's order."""
    name = verb["name"]
    positional = verb["positional"]
    properties = verb["inputSchema"].get("properties", {})

    def method(self, *args, **arguments):
        if len(args) > len(positional):
            raise TypeError(
                "%s() takes at most %d positional arguments (%s), %d given"
                % (name, len(positional), ", ".join(positional) or "none", len(args))
            )
        for parameter, value in zip(positional, args):
            if parameter in arguments:
                raise TypeError("%s() got multiple values for argument %r" % (name, parameter))
            arguments[parameter] = value
        _seconds_arguments(name, properties, arguments)
        return self.call(name, **arguments)

    lines = [
        "%s: %s" % (key, value.get("description", ""))
        if not key.endswith("_ms")
        else "%s: %s (in seconds; %s, in milliseconds, is deprecated)"
        % (key[: -len("_ms")], value.get("description", ""), key)
        for key, value in properties.items()
    ]
    method.__name__ = name
    method.__qualname__ = "Page." + name
    method.__doc__ = verb["description"] + (
        "\n\nArguments (keywords; positional: %s):\n" % (", ".join(positional) or "none")
        + "\n".join(lines)
        if lines
        else ""
    )
    setattr(method, "_adbwire_verb", name)
    return method


for _verb in verbs():
    if not hasattr(Page, _verb["name"]):
        setattr(Page, _verb["name"], _verb_method(_verb))
del _verb

__all__ = [
    "BusyError",
    "CancelledError",
    "CancelScope",
    "Capabilities",
    "ClosedError",
    "CommandFailedError",
    "ConnectionRefusedError",
    "ConnectOptions",
    "Device",
    "DeviceEntry",
    "DeviceOfflineError",
    "Error",
    "ErrorCode",
    "ExecStream",
    "ForegroundActivity",
    "Forwarder",
    "HelperStatus",
    "InvalidArgumentError",
    "IoError",
    "LimitExceededError",
    "MdnsService",
    "NotFoundError",
    "NotSupportedError",
    "OcrStatus",
    "Page",
    "PageOptions",
    "PairResult",
    "ParseError",
    "PermissionDeniedError",
    "ProtocolError",
    "ShellResult",
    "StaleRefError",
    "TimeoutError",
    "TransferStats",
    "UnauthorizedError",
    "VerbReply",
    "WebStatus",
    "__version__",
    "devices",
    "input_text_command",
    "mdns_services",
    "pair",
    "verbs",
]
