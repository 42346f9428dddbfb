"""adbwire from Python against the alternatives, one virtual device, one run:

1. a warm `dev.exec("true")` vs `subprocess.run(["adb", "-s", SERIAL, "shell", "true"])` (the real
   adb from Debian's package, through a private adb server), and vs the same exec from C++;
2. `page.snapshot()` from Python vs `Page::snapshot().to_text()` from C++;
3. a warm `await dev.shell("true")` through adbwire.aio vs the blocking `dev.shell("true")`, and
   100 concurrent `shell("true")` tasks on one connection vs 100 blocking shells one after another.

The virtual device (`adbwire vdevice`, demo screens) runs in a process of its own, as a phone is
a machine of its own; the C++ figures come from python_bench_baseline, run against it in the
same run. Timings on a shared machine are for reading, not asserting: medians are printed.

Usage, from the repository root after the default build:
    PYTHONPATH=build/default/python /usr/bin/python3 bench/python_bench.py [N] [--build DIR]
N commands per variant and round (default 200; adb gets min(N, 100): each is a process).
"""

import argparse
import asyncio
import os
import pathlib
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

import adbwire
from adbwire import aio

REPOSITORY = pathlib.Path(__file__).resolve().parent.parent
ADB = "/usr/bin/adb"
ROUNDS = 9


def median_ms(call, n):
    samples = []
    for _ in range(n):
        started = time.perf_counter()
        call()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def aio_figures(dev, n):
    """Medians in ms: one awaited shell("true"), and 100 of them gathered at once."""

    async def measure():
        device = aio.Device(dev)
        for _ in range(50):
            await device.shell("true")
        single = []
        for _ in range(n):
            started = time.perf_counter()
            await device.shell("true")
            single.append((time.perf_counter() - started) * 1000)
        gathered = []
        for _ in range(ROUNDS):
            started = time.perf_counter()
            await asyncio.gather(*(device.shell("true") for _ in range(100)))
            gathered.append((time.perf_counter() - started) * 1000)
        return statistics.median(single), statistics.median(gathered)

    return asyncio.run(measure())


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def adb_server_answers(port):
    """True once the adb server on port answers host:version (`adb version` does not ask it)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as connection:
            connection.sendall(b"000chost:version")
            return connection.recv(4) == b"OKAY"
    except OSError:
        return False


def start_vdevice(cli):
    process = subprocess.Popen(
        [cli, "vdevice", "--screens", str(REPOSITORY / "src/vdevice/screens/demo")],
        stdout=subprocess.PIPE,
        text=True,
    )
    match = re.search(r"listening on (tcp:\S+)", process.stdout.readline())
    if not match:
        process.kill()
        sys.exit("python_bench: adbwire vdevice did not start")
    return process, match.group(1)


def start_adb(home):
    if not os.access(ADB, os.X_OK):
        sys.exit("python_bench: %s not found: apt-get install adb (or run scripts/setup)" % ADB)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANDROID_", "ADB_"))}
    env.update(HOME=home, ADB_MDNS="0")
    server = subprocess.Popen(
        [ADB, "-P", str(port), "nodaemon", "server"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(200):
        if adb_server_answers(port):
            return server, port, env
        time.sleep(0.05)
    server.kill()
    sys.exit("python_bench: the private adb server never listened on port %d" % port)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("n", nargs="?", type=int, default=200)
    parser.add_argument("--build", default=str(REPOSITORY / "build/default"))
    args = parser.parse_args()
    build = pathlib.Path(args.build)
    cli = build / "src/cli/adbwire"
    baseline = build / "bench/python_bench_baseline"
    for program in (cli, baseline):
        if not os.access(program, os.X_OK):
            sys.exit("python_bench: %s not built (cmake --build --preset default)" % program)

    vdevice, target = start_vdevice(cli)
    serial = target[len("tcp:") :]
    home = tempfile.mkdtemp(prefix="adbwire-python-bench-")
    server, adb_port, adb_env = start_adb(home)
    try:
        subprocess.run(
            [ADB, "-P", str(adb_port), "connect", serial],
            env=adb_env,
            check=True,
            capture_output=True,
        )
        subprocess.run(
            [ADB, "-P", str(adb_port), "-s", serial, "wait-for-device"],
            env=adb_env,
            check=True,
            timeout=15,
        )

        page = adbwire.Page.connect(target)
        dev = page.device
        # The device answers faster once it has been busy a while (its I/O thread stays hot):
        # warm it, then alternate rounds of C++ and Python so neither gets the warmer half.
        for _ in range(500):
            dev.exec("true")
        for _ in range(50):
            page.snapshot()
        rounds = {"cpp_exec": [], "cpp_snapshot": [], "python_exec": [], "python_snapshot": []}
        for _ in range(ROUNDS):
            cpp = subprocess.run(
                [baseline, target, str(args.n)], capture_output=True, text=True, check=True
            ).stdout
            values = dict(re.findall(r"(\w+)=([0-9.]+)", cpp))
            rounds["cpp_exec"].append(float(values["exec_true_ms"]))
            rounds["cpp_snapshot"].append(float(values["snapshot_ms"]))
            rounds["python_exec"].append(median_ms(lambda: dev.exec("true"), args.n))
            rounds["python_snapshot"].append(median_ms(page.snapshot, args.n))
        python_shell = median_ms(lambda: dev.shell("true"), args.n)
        hundred_blocking = statistics.median(
            median_ms(lambda: [dev.shell("true") for _ in range(100)], 1) for _ in range(ROUNDS)
        )
        aio_shell, hundred_gathered = aio_figures(dev, args.n)
        adb_command = [ADB, "-P", str(adb_port), "-s", serial, "shell", "true"]
        adb_n = min(args.n, 100)
        adb_shell = median_ms(lambda: subprocess.run(adb_command, env=adb_env, check=True), adb_n)
        page.close()
    finally:
        server.terminate()
        server.wait()
        vdevice.terminate()
        vdevice.wait()
        shutil.rmtree(home, ignore_errors=True)

    cpp_exec, cpp_snapshot, python_exec, python_snapshot = (
        statistics.median(rounds[key])
        for key in ("cpp_exec", "cpp_snapshot", "python_exec", "python_snapshot")
    )
    print(
        "python_bench: medians in ms (of %d alternating rounds of N = %d), one virtual device "
        "on loopback (demo screens)" % (ROUNDS, args.n)
    )
    print('  Python dev.exec("true") (warm)                %8.3f' % python_exec)
    print('  C++ Device::exec("true") (warm)               %8.3f' % cpp_exec)
    print("  subprocess.run([adb -s SERIAL shell true])     %8.3f   (N = %d)" % (adb_shell, adb_n))
    print('  Python dev.shell("true") (warm)                %8.3f' % python_shell)
    print('  adbwire.aio await dev.shell("true") (warm)     %8.3f' % aio_shell)
    print('  100 x dev.shell("true") one after another      %8.3f' % hundred_blocking)
    print('  100 x aio shell("true") gathered, one device   %8.3f' % hundred_gathered)
    print("  Python page.snapshot()                         %8.3f" % python_snapshot)
    print("  C++ Page::snapshot().to_text()                 %8.3f" % cpp_snapshot)
    print("ratios")
    print("  adb shell / Python exec:        %6.1fx" % (adb_shell / python_exec))
    print("  aio shell / blocking shell:     %6.2fx" % (aio_shell / python_shell))
    print("  adb shell / aio shell:          %6.1fx" % (adb_shell / aio_shell))
    print("  100 sequential / 100 gathered:  %6.2fx" % (hundred_blocking / hundred_gathered))
    # Python against C++ round by round: the two halves of a round share the machine's mood.
    exec_ratio = statistics.median(p / c for p, c in zip(rounds["python_exec"], rounds["cpp_exec"]))
    snapshot_ratio = statistics.median(
        p / c for p, c in zip(rounds["python_snapshot"], rounds["cpp_snapshot"])
    )
    print("  Python exec / C++ exec:         %6.2fx (median of the rounds' ratios)" % exec_ratio)
    print(
        "  Python snapshot / C++ snapshot: %6.2fx (median of the rounds' ratios)" % snapshot_ratio
    )


if __name__ == "__main__":
    main()
