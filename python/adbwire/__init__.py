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
"""

from adbwire._adbwire import (
    BusyError,
    CancelledError,
    Capabilities,
    ClosedError,
    CommandFailedError,
    ConnectionRefusedError,
    ConnectOptions,
    Device,
    DeviceOfflineError,
    Error,
    ErrorCode,
    ExecStream,
    ForegroundActivity,
    HelperStatus,
    InvalidArgumentError,
    IoError,
    LimitExceededError,
    NotFoundError,
    NotSupportedError,
    Page,
    PageOptions,
    ParseError,
    PermissionDeniedError,
    ProtocolError,
    ShellResult,
    StaleRefError,
    TimeoutError,
    TransferStats,
    UnauthorizedError,
    WebStatus,
    __version__,
)

__all__ = [
    "BusyError",
    "CancelledError",
    "Capabilities",
    "ClosedError",
    "CommandFailedError",
    "ConnectionRefusedError",
    "ConnectOptions",
    "Device",
    "DeviceOfflineError",
    "Error",
    "ErrorCode",
    "ExecStream",
    "ForegroundActivity",
    "HelperStatus",
    "InvalidArgumentError",
    "IoError",
    "LimitExceededError",
    "NotFoundError",
    "NotSupportedError",
    "Page",
    "PageOptions",
    "ParseError",
    "PermissionDeniedError",
    "ProtocolError",
    "ShellResult",
    "StaleRefError",
    "TimeoutError",
    "TransferStats",
    "UnauthorizedError",
    "WebStatus",
    "__version__",
]
