"""adbwire.aio against the virtual device: awaitable calls, many at once on one connection,
cancellation (asyncio.wait_for, task.cancel) that ends the device's command and leaves the
connection usable, exec_stream as an async iterator, push/pull with progress on the loop."""

import asyncio
import math
import time

import pytest

import adbwire
from adbwire import aio
from conftest import LoopTicker


def run(coroutine):
    return asyncio.run(coroutine)


def test_calls_are_awaitables(vdevice):
    async def main():
        dev = await aio.Device.connect(vdevice.target)
        result = await dev.shell("echo hello; echo oops >&2; exit 3")
        assert (result.out, result.err, result.exit_code) == ("hello\n", "oops\n", 3)
        assert await dev.exec("echo raw") == b"raw\n"
        assert dev.serial == vdevice.serial
        await dev.close()
        with pytest.raises(adbwire.ClosedError):
            await dev.shell("true")

    run(main())


def test_a_hundred_calls_at_once_on_one_connection(vdevice):
    async def main():
        async with await aio.Device.connect(vdevice.target) as dev:
            results = await asyncio.gather(*(dev.shell("echo %d" % i) for i in range(100)))
            assert [r.out for r in results] == ["%d\n" % i for i in range(100)]
            assert all(r.exit_code == 0 for r in results)

    run(main())


def test_the_loop_runs_while_a_call_waits(vdevice):
    async def main():
        async with await aio.Device.connect(vdevice.target) as dev:
            async with LoopTicker() as ticker:
                await dev.shell("sleep 0.5")
            assert ticker.ticks >= 10

    run(main())


@pytest.mark.parametrize("how", ["wait_for", "cancel"])
def test_cancelling_ends_the_command_and_keeps_the_connection(vdevice, device_root, how):
    async def main():
        async with await aio.Device.connect(vdevice.target) as dev:
            # The command writes a file only if it is not ended within its sleep.
            command = "sleep 2; echo late > /sdcard/late.txt"
            started = time.monotonic()
            if how == "wait_for":
                with pytest.raises(asyncio.TimeoutError):
                    await asyncio.wait_for(dev.shell(command, timeout=math.inf), 0.3)
            else:
                task = asyncio.create_task(dev.exec(command, timeout=math.inf))
                await asyncio.sleep(0.3)
                task.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await task
            assert time.monotonic() - started < 1.5
            assert (await dev.shell("echo still here")).out == "still here\n"
            await asyncio.sleep(2.5)
            assert not (device_root / "sdcard" / "late.txt").exists()

    run(main())


def test_exec_stream_is_an_async_iterator_and_cancelling_a_read_ends_it(vdevice):
    async def main():
        async with await aio.Device.connect(vdevice.target) as dev:
            chunks = []
            async for chunk in await dev.exec_stream("echo one; sleep 0.1; echo two"):
                chunks.append(chunk)
            assert b"".join(chunks) == b"one\ntwo\n"

            stream = await dev.exec_stream("echo first; sleep 30", timeout=math.inf)
            assert await stream.__anext__() == b"first\n"
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(stream.__anext__(), 0.2)
            with pytest.raises(adbwire.ClosedError):
                await stream.__anext__()
            assert (await dev.exec("echo after")) == b"after\n"

    run(main())


def test_push_and_pull_report_progress_on_the_loop(vdevice, tmp_path):
    local = tmp_path / "big.bin"
    local.write_bytes(bytes(range(256)) * 4096)

    async def main():
        loop_thread = None
        seen = []

        def progress(done, total):
            seen.append((done, total, loop_thread))

        async with await aio.Device.connect(vdevice.target) as dev:
            import threading

            loop_thread = threading.get_ident()
            pushed = await dev.push(local, "/sdcard/big.bin", progress=progress)
            assert pushed.bytes == local.stat().st_size
            pulled = await dev.pull("/sdcard/big.bin", tmp_path / "back.bin", progress=progress)
            assert pulled.bytes == local.stat().st_size
            await asyncio.sleep(0)  # the last progress calls were queued on the loop
        assert (tmp_path / "back.bin").read_bytes() == local.read_bytes()
        assert seen and seen[-1][0] == seen[-1][1] == local.stat().st_size
        assert {thread for _, _, thread in seen} == {loop_thread}

    run(main())


def test_page_calls_are_awaitables(vdevice):
    async def main():
        page = await aio.Page.connect(vdevice.target)
        text = await page.snapshot()
        assert "[ref=" in text
        await page.press("back")
        reply = await page.call("find", text="Add item")
        assert "[ref=5]" in reply.text
        assert (await page.device.shell("echo same connection")).out == "same connection\n"
        await page.close()

    run(main())
    vdevice.wait_for_event(r"input keyevent 4")


def test_ctrl_c_in_asyncio_run_leaves_no_call_behind(vdevice):
    # asyncio.run cancels the main task on KeyboardInterrupt: the call ends with it, and
    # asyncio.run returns at once rather than waiting for the device's command to end.
    async def main(dev):
        asyncio.get_running_loop().call_later(0.3, _raise_keyboard_interrupt)
        await dev.shell("sleep 30", timeout=math.inf)

    dev = adbwire.Device.connect(vdevice.target)
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        run(main(aio.Device(dev)))
    assert time.monotonic() - started < 2
    assert dev.shell("echo usable").out == "usable\n"
    dev.close()


def _raise_keyboard_interrupt():
    raise KeyboardInterrupt
