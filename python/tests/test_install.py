"""`pip install --no-build-isolation ./python` into fresh venvs, with no package index, over each
interpreter a user may have: Debian's /usr/bin/python3 and the python3 first on PATH when that
is another one (a pyenv build without `wheel`, here). The installed package imports and drives a
virtual device; `pip wheel` makes a wheel.

The first build for an interpreter compiles the library (quick when ccache has it, as after the
default build); the CMake folder is kept in build/python-<interpreter> for the next run.
"""

import os
import pathlib
import shutil
import subprocess
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
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env.update(PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    if "CMAKE_CXX_COMPILER_LAUNCHER" not in env and shutil.which("ccache"):
        env["CMAKE_CXX_COMPILER_LAUNCHER"] = "ccache"  # the library was compiled once already
    return env


def run(command, timeout, cwd=SOURCE_DIR):
    result = subprocess.run(
        [str(part) for part in command],
        capture_output=True,
        text=True,
        errors="replace",
        cwd=cwd,
        env=clean_environment(),
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
    run(
        [venv_python, "-m", "pip", "install", "--no-build-isolation", "--no-index", "./python"],
        timeout=1500,
    )

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
