"""Ctrl-C: a real SIGINT sent to a Python process blocked in a call that would wait as long as it
takes raises KeyboardInterrupt there within half a second, and the same Device (or Page) then
runs another command."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

# What each child runs after `dev` (a Device) and `page` (a Page on another connection) are
# connected to the virtual device; each waits as long as it takes unless interrupted.
CALLS = {
    "shell": "dev.shell('sleep 30', timeout=math.inf)",
    "exec": "dev.exec('sleep 30', timeout=math.inf)",
    "exec_stream": "next(dev.exec_stream('sleep 30', timeout=math.inf))",
    "droidrun_coroutine": "asyncio.run(driver.device.shell('sleep 30', timeout=math.inf))",
    "aio_call": "asyncio.run(aio.Device(dev).exec('sleep 30', timeout=math.inf))",
    "page_wait_for_text": "page.wait_for_text('never on this screen', timeout=30)",
    "page_call_wait": "page.call('wait', text='never on this screen', timeout_ms=30000)",
    "page_device_shell": "page.device.shell('sleep 30', timeout=math.inf)",
}

CHILD = textwrap.dedent(
    """
    import asyncio, math, sys, time
    import adbwire
    from adbwire import aio
    from adbwire.droidrun import AdbwireDriver
    dev = adbwire.Device.connect(sys.argv[1])
    page = adbwire.Page.connect(sys.argv[1])
    driver = AdbwireDriver(sys.argv[1])
    asyncio.run(driver.connect())
    print("ready", flush=True)
    try:
        %s
        print("returned", flush=True)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
    print(dev.shell("echo again").out.strip(), page.device.shell("echo too").out.strip(),
          flush=True)
    """
)


@pytest.mark.parametrize("call", sorted(CALLS))
def test_sigint_interrupts_a_call_that_waits(vdevice, call):
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD % CALLS[call], vdevice.target],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout.readline() == "ready\n", child.stderr.read()
        time.sleep(0.5)  # the call is under way
        assert child.poll() is None
        os.kill(child.pid, signal.SIGINT)
        sent = time.monotonic()
        line = child.stdout.readline()
        waited = time.monotonic() - sent
        assert line == "interrupted\n", child.stderr.read()
        # Half a second, plus slack for a loaded machine (a process's wakeup, not the call).
        assert waited < 0.5 + 0.5, waited
        assert child.stdout.readline() == "again too\n", child.stderr.read()
        assert child.wait(timeout=10) == 0, child.stderr.read()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        child.stdout.close()
        child.stderr.close()
