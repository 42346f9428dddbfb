"""`pip install --no-build-isolation ./python` into fresh venvs, with no package index, over each
interpreter a user may have: Debian's /usr/bin/python3 and the python3 first on PATH when that
is another one (a pyenv build without `wheel`, here). pip runs on a terminal of its own, where
the build's progress must show. The installed package imports and drives a virtual device with
LD_LIBRARY_PATH unset; `pip wheel` makes a wheel whose module links only the C and C++ runtimes
and the copies of libraries the wheel carries (readelf), and the installed module loads those
copies, not the system's (ldd). An sdist carries what its build needs; `pip install -e` is
refused with advice.

The first build for an interpreter compiles the library (quick when ccache has it, as after the
default build); the CMake folder is kept in build/python-<interpreter> for the next run.
"""

import fcntl
import os
import pathlib
import pty
import re
import shutil
import subprocess
import tarfile
import termios
import threading
import zipfile

import pytest

from conftest import SOURCE_DIR, which_or_fail

PACKAGE = SOURCE_DIR / "python"


def distinct_interpreters():
    """Debian's interpreter and the one first on PATH, once each (by the executable they run)."""
    found = {}
    for candidate in ("/usr/bin/python3", shutil.which("python3")):
        if candidate is None or not os.access(candidate, os.X_OK):
            continue
        real = subprocess.run(
            [candidate, "-c", "import os, sys; print(os.path.realpath(sys.executable))"],
            capture_output=True,
            text=True,
            env=clean_environment(),
        ).stdout.strip()
        found.setdefault(real or candidate, candidate)
    return sorted(found.values())


def clean_environment():
    """The test's environment without what points at the build tree, with no index for pip."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "PYTHONHOME", "LD_LIBRARY_PATH")
    }
    env.update(PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    if "CMAKE_CXX_COMPILER_LAUNCHER" not in env and shutil.which("ccache"):
        env["CMAKE_CXX_COMPILER_LAUNCHER"] = "ccache"  # the library was compiled once already
    return env


def run(command, timeout, cwd=SOURCE_DIR, **env):
    result = subprocess.run(
        [str(part) for part in command],
        capture_output=True,
        text=True,
        errors="replace",
        cwd=cwd,
        env={**clean_environment(), **env},
        timeout=timeout,
    )
    if result.returncode != 0:
        pytest.fail(
            "`%s` failed (exit %d):\n%s\n%s"
            % (
                " ".join(map(str, command)),
                result.returncode,
                result.stdout[-6000:],
                result.stderr[-6000:],
            )
        )
    return result


def run_on_terminal(command, timeout):
    """Runs command with a pseudo-terminal as its controlling terminal and standard streams, as a
    person's shell does; returns what appeared on that terminal."""
    controller, terminal = pty.openpty()

    def take_terminal():
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    process = subprocess.Popen(
        [str(part) for part in command],
        stdin=terminal,
        stdout=terminal,
        stderr=terminal,
        cwd=SOURCE_DIR,
        env=clean_environment(),
        start_new_session=True,
        preexec_fn=take_terminal,
    )
    os.close(terminal)
    chunks = []

    def read():
        while True:
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # EIO: the last holder of the terminal closed it
                return
            if not chunk:
                return
            chunks.append(chunk)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        code = process.wait(timeout=timeout)
    finally:
        if process.poll() is None:
            process.kill()
        reader.join(10)
        os.close(controller)
    shown = b"".join(chunks).decode(errors="replace")
    if code != 0:
        pytest.fail("`%s` failed (exit %d):\n%s" % (" ".join(map(str, command)), code, shown[-8000:]))
    return shown


# glibc's parts and the C++ runtime: what the module and its copies may link from the system.
RUNTIME = re.compile(
    r"^(libc|libm|libpthread|libdl|librt|libresolv|libutil|libanl|libstdc\+\+|libgcc_s"
    r"|ld-linux[-\w.]*)\.so(\.\d+)*$"
)


def dynamic_section(binary):
    """(NEEDED names, RUNPATH or RPATH) of binary, as readelf -d prints them."""
    readelf = which_or_fail("readelf", "binutils")
    out = subprocess.run(
        [readelf, "-d", str(binary)], capture_output=True, text=True, check=True
    ).stdout
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)
    paths = re.findall(r"\((?:RUNPATH|RPATH)\)\s+Library (?:runpath|rpath): \[([^\]]+)\]", out)
    return needed, paths


def check_wheel_links(wheel, folder):
    """The module in wheel links the runtimes and adbwire.libs' copies only, found through an
    $ORIGIN-relative RUNPATH; each copy likewise. Returns the copies' names."""
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(folder)
    (module,) = (folder / "adbwire").glob("_adbwire.cpython-*.so")
    libs = folder / "adbwire.libs"
    copies = {path.name for path in libs.iterdir()}
    # The module links libusb, OpenSSL, zstd, lz4, brotli, spng, turbojpeg and pugixml at least.
    for stem in ("libusb-1", "libssl", "libcrypto", "libzstd", "liblz4", "libbrotlienc",
                 "libspng", "libturbojpeg", "libpugixml"):
        assert any(name.startswith(stem + "-") for name in copies), (stem, copies)
    # Hashed like auditwheel's: libusb-1-0-<8 hex>.so.0. Not every soname starts with "lib":
    # Debian's libbacktrace (under libandroidfw) needs p7zip's 7z.so, carried as 7z-<8 hex>.so.
    for name in copies:
        assert re.match(r"^\w[\w+-]*-[0-9a-f]{8}\.so(\.\d+)*$", name), name
    needed, paths = dynamic_section(module)
    assert paths == ["$ORIGIN/../adbwire.libs"], paths
    foreign = [name for name in needed if not RUNTIME.match(name) and name not in copies]
    assert not foreign, "the module links system libraries the wheel does not carry: %s" % foreign
    assert any(name in copies for name in needed), needed
    for name in copies:
        needed, paths = dynamic_section(libs / name)
        assert paths == ["$ORIGIN"], (name, paths)
        foreign = [n for n in needed if not RUNTIME.match(n) and n not in copies]
        assert not foreign, "%s links %s, which the wheel does not carry" % (name, foreign)
    return copies


def check_loads_copies(venv_python, copies):
    """ldd on the installed module: every library beyond the runtimes resolves to the venv's
    adbwire.libs, none to the system's folders."""
    module = run(
        [venv_python, "-c", "import adbwire._adbwire as m; print(m.__file__)"], 60
    ).stdout.strip()
    out = run([which_or_fail("ldd", "libc-bin"), module], 60).stdout
    resolved = dict(re.findall(r"^\s*(\S+) => (\S+) \(0x", out, re.M))
    libs = os.path.join(os.path.dirname(os.path.dirname(module)), "adbwire.libs")
    assert set(copies) <= set(resolved), out
    for name, path in resolved.items():
        if RUNTIME.match(name):
            continue
        where = os.path.normpath(os.path.dirname(path))
        assert where == libs, "%s resolves to %s, not the wheel's copy" % (name, path)


def check_prerequisites(python):
    which_or_fail("cmake", "cmake")
    which_or_fail("c++", "g++")
    if not pathlib.Path("/usr/lib/cmake/pybind11/pybind11Config.cmake").exists():
        pytest.fail(
            "pybind11's CMake files are missing: "
            "apt-get install pybind11-dev (or run scripts/setup)"
        )
    probe = subprocess.run(
        [
            python,
            "-c",
            "import ensurepip, os, sysconfig, venv; "
            "print(os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h')))",
        ],
        capture_output=True,
        text=True,
        env=clean_environment(),
    )
    if probe.returncode != 0:
        pytest.fail(
            "%s cannot make venvs: apt-get install python3-venv (for Debian's python3)\n%s"
            % (python, probe.stderr)
        )
    if probe.stdout.strip() != "True":
        pytest.fail(
            "%s has no Python.h: apt-get install python3-dev (for Debian's python3)" % python
        )


@pytest.mark.parametrize("python", distinct_interpreters())
def test_pip_install_offline_then_import_and_connect(python, vdevice, tmp_path):
    check_prerequisites(python)
    venv = tmp_path / "venv"
    run([python, "-m", "venv", venv], timeout=120)
    venv_python = venv / "bin" / "python"
    shown = run_on_terminal(
        [venv_python, "-m", "pip", "install", "--no-build-isolation", "--no-index", "./python"],
        timeout=1500,
    )
    # pip hides the backend's output; the backend writes its steps to the terminal itself.
    assert "adbwire_build: building the extension module in " in shown, shown[-4000:]
    assert "adbwire_build: the wheel carries " in shown, shown[-4000:]

    script = (
        "import sys, adbwire, adbwire.aio, adbwire.droidrun\n"
        "assert adbwire.__file__.startswith(sys.prefix), adbwire.__file__\n"
        "dev = adbwire.Device.connect(sys.argv[1])\n"
        "print(dev.shell('echo installed').out, end='')\n"
        "print(adbwire.Page(dev).snapshot().splitlines()[-1])\n"
        "print(adbwire.__version__, sys.version_info[:2])\n"
    )
    out = run([venv_python, "-c", script, vdevice.target], timeout=60, cwd=tmp_path).stdout
    assert out.splitlines()[:2] == ["installed", '  - Button [ref=5] "Add item"'], out

    wheels = tmp_path / "wheels"
    run(
        [
            venv_python,
            "-m",
            "pip",
            "wheel",
            "--no-build-isolation",
            "--no-index",
            "--no-deps",
            "-w",
            wheels,
            "./python",
        ],
        timeout=1500,
    )
    (wheel,) = wheels.iterdir()
    version = run(
        [venv_python, "-c", "import sys; print('cp%d%d' % sys.version_info[:2])"], 30
    ).stdout.strip()
    assert (
        wheel.name.startswith("adbwire-") and ("-%s-%s-linux_" % (version, version)) in wheel.name
    )
    with zipfile.ZipFile(wheel) as archive:
        assert archive.testzip() is None
        names = set(archive.namelist())
    assert {
        "adbwire/__init__.py",
        "adbwire/aio.py",
        "adbwire/droidrun.py",
        "adbwire/_adbwire.pyi",
        "adbwire/py.typed",
    } <= names
    assert any(n.startswith("adbwire/_adbwire.cpython-") and n.endswith(".so") for n in names)
    assert any(n.endswith(".dist-info/RECORD") for n in names)
    copies = check_wheel_links(wheel, tmp_path / "unpacked")
    check_loads_copies(venv_python, copies)


def test_pip_install_editable_is_refused_with_advice(tmp_path):
    python = "/usr/bin/python3"
    check_prerequisites(python)
    run([python, "-m", "venv", tmp_path / "venv"], timeout=120)
    result = subprocess.run(
        [tmp_path / "venv" / "bin" / "python", "-m", "pip", "install", "--no-build-isolation",
         "--no-index", "-e", "./python"],
        capture_output=True, text=True, cwd=SOURCE_DIR, env=clean_environment(), timeout=300,
    )
    assert result.returncode != 0, result.stdout
    output = result.stdout + result.stderr
    assert "adbwire cannot be installed in editable mode" in output, output
    assert "pip install ./python" in output, output
    listing = subprocess.run(
        [tmp_path / "venv" / "bin" / "python", "-m", "pip", "list"],
        capture_output=True, text=True, env=clean_environment(),
    ).stdout
    assert "adbwire" not in listing, listing


def test_build_output_and_venvs_are_ignored_by_git():
    git = which_or_fail("git", "git")
    for path in ("build/python-cpython-311-0123abcd/x.o", ".venv/bin/python", "python/.venv/x"):
        result = subprocess.run([git, "check-ignore", "-q", path], cwd=SOURCE_DIR)
        assert result.returncode == 0, "%s is not ignored by .gitignore" % path


def test_sdist_carries_the_build_and_not_the_tests(tmp_path):
    backend = PACKAGE / "build_backend" / "adbwire_build.py"
    out = run(["/usr/bin/python3", backend, "sdist", tmp_path], timeout=120).stdout.strip()
    sdist = pathlib.Path(out)
    assert sdist.name.startswith("adbwire-") and sdist.name.endswith(".tar.gz"), out
    base = sdist.name[: -len(".tar.gz")]
    with tarfile.open(sdist) as archive:
        names = set(archive.getnames())
        pyproject = archive.extractfile(base + "/pyproject.toml").read().decode()
    for member in ("pyproject.toml", "PKG-INFO", "CMakeLists.txt", "src/CMakeLists.txt",
                   "include/adbwire/device.hpp", "protocol/CMakeLists.txt",
                   "python/CMakeLists.txt", "python/build_backend/adbwire_build.py",
                   "python/adbwire/__init__.py", "python/src/module.cpp"):
        assert base + "/" + member in names, member
    assert 'backend-path = ["python/build_backend"]' in pyproject, pyproject
    assert not [n for n in names if n.startswith((base + "/python/tests", base + "/build/",
                                                  base + "/tests/"))]


def test_pip_install_of_the_sdist_builds_it_and_runs(vdevice, tmp_path):
    python = "/usr/bin/python3"
    check_prerequisites(python)
    backend = PACKAGE / "build_backend" / "adbwire_build.py"
    sdist = run([python, backend, "sdist", tmp_path / "dist"], timeout=120).stdout.strip()
    run([python, "-m", "venv", tmp_path / "venv"], timeout=120)
    venv_python = tmp_path / "venv" / "bin" / "python"
    # pip unpacks the sdist under TMPDIR and builds it there. A folder in the checkout's build/
    # (ignored by git) puts the sources at the same paths relative to the CMake build folder as
    # in a checkout, so ccache serves the objects the default build compiled.
    unpack = SOURCE_DIR / "build" / "sdist-unpack"
    unpack.mkdir(parents=True, exist_ok=True)
    # As a user types it: with build isolation (the backend needs no package), no index.
    run([venv_python, "-m", "pip", "install", "--no-index", sdist], timeout=1500, TMPDIR=unpack)
    script = (
        "import os, sys, adbwire\n"
        "assert adbwire.__file__.startswith(sys.prefix), adbwire.__file__\n"
        "libs = os.path.join(os.path.dirname(os.path.dirname(adbwire.__file__)), 'adbwire.libs')\n"
        "assert any(n.startswith('libusb-1-0-') for n in os.listdir(libs)), os.listdir(libs)\n"
        "print(adbwire.Device.connect(sys.argv[1]).shell('echo from sdist').out, end='')\n"
    )
    out = run([venv_python, "-c", script, vdevice.target], timeout=60, cwd=tmp_path).stdout
    assert out == "from sdist\n", out
    assert not list(unpack.iterdir()), "pip left its build folder behind"
