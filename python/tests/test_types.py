"""mypy accepts the package's pure-Python modules (adbwire.droidrun, adbwire.aio) against the
extension's stubs, and accepts AdbwireDriver where code typed against DroidRun's DeviceDriver
(mobilerun/tools/driver/base.py: its attributes and coroutine signatures, restated here as a
Protocol since DroidRun is not installed) expects one."""

import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

import adbwire

PACKAGE_ROOT = pathlib.Path(adbwire.__file__).resolve().parents[1]

DEVICE_DRIVER_USER = textwrap.dedent(
    """
    from typing import Any, Dict, List, Optional, Protocol

    from adbwire import aio
    from adbwire.droidrun import AdbwireDriver


    class DeviceDriver(Protocol):
        platform: str
        supported: set[str]
        supported_buttons: set[str]

        async def connect(self) -> None: ...
        async def ensure_connected(self) -> None: ...
        async def tap(self, x: int, y: int) -> None: ...
        async def swipe(
            self, x1: int, y1: int, x2: int, y2: int, duration_ms: float = 1000
        ) -> None: ...
        async def input_text(
            self, text: str, clear: bool = False, stealth: bool = False, wpm: int = 0
        ) -> bool: ...
        async def press_button(self, button: str) -> None: ...
        async def drag(
            self, x1: int, y1: int, x2: int, y2: int, duration: float = 3.0
        ) -> None: ...
        async def start_app(self, package: str, activity: Optional[str] = None) -> str: ...
        async def install_app(self, path: str, **kwargs: Any) -> str: ...
        async def get_apps(self, include_system: bool = True) -> List[Dict[str, str]]: ...
        async def list_packages(self, include_system: bool = False) -> List[str]: ...
        async def screenshot(self, hide_overlay: bool = True) -> bytes: ...
        async def get_ui_tree(self) -> Dict[str, Any]: ...
        async def get_date(self) -> str: ...


    async def stealth_swipe(driver: AdbwireDriver) -> str:
        await driver.ensure_connected()
        assert driver.device is not None
        return await driver.device.shell("input motionevent DOWN 1 2")


    async def agent(target: str) -> bytes:
        driver: DeviceDriver = AdbwireDriver(target)
        await driver.connect()
        dev = await aio.Device.connect(target)
        result = await dev.shell("true")
        async for chunk in await dev.exec_stream("echo"):
            return chunk + result.out.encode()
        return await driver.screenshot()
    """
)


def test_mypy_accepts_the_package_and_the_driver_as_droidruns(tmp_path):
    try:
        import mypy  # noqa: F401
    except ImportError:
        pytest.fail(
            "mypy is not installed for %s: apt-get install python3-mypy (or run scripts/setup)"
            % sys.executable
        )
    user = tmp_path / "driver_user.py"
    user.write_text(DEVICE_DRIVER_USER)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--cache-dir",
            str(tmp_path / "cache"),
            "--check-untyped-defs",
            "--warn-unused-ignores",
            str(PACKAGE_ROOT / "adbwire" / "droidrun.py"),
            str(PACKAGE_ROOT / "adbwire" / "aio.py"),
            str(user),
        ],
        cwd=PACKAGE_ROOT,
        env={**os.environ, "MYPYPATH": str(PACKAGE_ROOT)},
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert result.returncode == 0, result.stdout + result.stderr
