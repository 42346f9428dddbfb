"""PEP 517 build backend for adbwire's Python package: CMake builds the extension module, this
file packs it into a wheel.

Why our own backend: pip builds with `--no-build-isolation` from what the environment has, and
a fresh venv (over Debian's python3 or a pyenv build) has pip and setuptools but not `wheel`,
without which setuptools cannot build a wheel; PyPI may be unreachable. A wheel is a zip file
with three small metadata files, so this backend needs only the standard library: it runs
CMake on the repository (the folder above python/) with ADBWIRE_PYTHON on and the
interpreter pip runs, builds the `_adbwire` target, and zips the module with python/adbwire.

The CMake build folder is kept between builds (reinstalling is quick) in
<repository>/build/python-<interpreter>, or where ADBWIRE_PYTHON_BUILD_DIR or the config
setting build-dir (`pip install -C build-dir=…`) says. CMAKE_CXX_COMPILER_LAUNCHER=ccache in
the environment is honoured, as CMake does. No sdist and no editable install are offered: the
package is built from a checkout of the repository.
"""

import base64
import hashlib
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

PYTHON_DIR = Path(__file__).resolve().parent.parent
REPOSITORY = PYTHON_DIR.parent
PACKAGE_FILES = ("__init__.py", "_adbwire.pyi", "aio.py", "droidrun.py", "py.typed")


class BuildError(Exception):
    """A build step failed; the message says what to install or fix."""


def _project():
    with open(PYTHON_DIR / "pyproject.toml", "rb") as file:
        return tomllib.load(file)["project"]


def _version():
    cmake_lists = REPOSITORY / "CMakeLists.txt"
    try:
        text = cmake_lists.read_text()
    except OSError as error:
        raise BuildError(
            "%s is missing: the Python package is built from a checkout of the adbwire "
            "repository (pip install ./python from its root)" % cmake_lists
        ) from error
    match = re.search(r"project\(\s*adbwire\s+VERSION\s+([0-9][0-9.]*)", text)
    if not match:
        raise BuildError("no `project(adbwire VERSION …)` in %s" % cmake_lists)
    return match.group(1)


def _tag():
    if sys.implementation.name != "cpython":
        raise BuildError("adbwire's module is built for CPython, not %s" % sys.implementation.name)
    python = "cp%d%d" % sys.version_info[:2]
    platform = re.sub(r"[^A-Za-z0-9_]", "_", sysconfig.get_platform())
    return "%s-%s-%s" % (python, python, platform)


def _dist_info_name():
    return "adbwire-%s.dist-info" % _version()


def _metadata():
    project = _project()
    lines = [
        "Metadata-Version: 2.1",
        "Name: %s" % project["name"],
        "Version: %s" % _version(),
        "Summary: %s" % project["description"],
        "Requires-Python: %s" % project["requires-python"],
    ]
    lines += ["Classifier: %s" % classifier for classifier in project.get("classifiers", ())]
    return "\n".join(lines) + "\n"


def _wheel_file():
    return "Wheel-Version: 1.0\nGenerator: adbwire_build %s\nRoot-Is-Purelib: false\nTag: %s\n" % (
        _version(),
        _tag(),
    )


def _base_interpreter():
    # The interpreter a venv was made from builds the same module as the venv's, and stays put
    # while venvs come and go, so the CMake cache of the build folder stays valid.
    return os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)


def _build_dir(config_settings):
    chosen = (config_settings or {}).get("build-dir") or os.environ.get("ADBWIRE_PYTHON_BUILD_DIR")
    if chosen:
        return Path(chosen).resolve()
    interpreter = _base_interpreter()
    key = hashlib.sha256(interpreter.encode()).hexdigest()[:8]
    # One level under build/, as the presets' folders are, so ccache (base_dir) shares objects.
    return REPOSITORY / "build" / ("python-%s-%s" % (sys.implementation.cache_tag, key))


def _run(command):
    print("adbwire_build: " + " ".join(str(part) for part in command), flush=True)
    try:
        subprocess.run([str(part) for part in command], check=True)
    except FileNotFoundError as error:
        raise BuildError(
            "%s not found: apt-get install cmake ninja-build g++ (or run scripts/setup)"
            % command[0]
        ) from error
    except subprocess.CalledProcessError as error:
        raise BuildError(
            "`%s` failed (exit %d); its output is above. Missing packages: run scripts/setup "
            "(pybind11-dev, python3-dev and the C++ libraries)"
            % (" ".join(map(str, command)), error.returncode)
        ) from error


def _build_module(build_dir):
    cmake = shutil.which("cmake")
    if cmake is None:
        raise BuildError(
            "cmake not found: apt-get install cmake ninja-build (or run scripts/setup)"
        )
    configure = [
        cmake,
        "-S",
        REPOSITORY,
        "-B",
        build_dir,
        "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
        "-DADBWIRE_PYTHON=ON",
        "-DADBWIRE_BUILD_TESTS=OFF",
        "-DADBWIRE_BUILD_BENCH=OFF",
        "-DADBWIRE_BUILD_PROGRAMS=OFF",
        "-DPython_EXECUTABLE=%s" % _base_interpreter(),
    ]
    if not (build_dir / "CMakeCache.txt").exists() and shutil.which("ninja"):
        configure += ["-G", "Ninja"]
    _run(configure)
    _run([cmake, "--build", build_dir, "--target", "_adbwire", "--parallel"])
    module = (
        build_dir / "python" / "adbwire" / ("_adbwire" + sysconfig.get_config_var("EXT_SUFFIX"))
    )
    if not module.exists():
        raise BuildError(
            "the build made no %s: CMake found another Python than %s (see Python_EXECUTABLE in "
            "%s/CMakeCache.txt)" % (module, _base_interpreter(), build_dir)
        )
    return module


def _stripped_copy(module, folder):
    # The build keeps debug information (RelWithDebInfo, shared with the C++ build through
    # ccache); the wheel does not need it.
    copy = folder / module.name
    shutil.copyfile(module, copy)
    strip = shutil.which("strip")
    if strip is None:
        raise BuildError("strip not found: apt-get install binutils (it comes with g++)")
    _run([strip, "--strip-debug", copy])
    return copy


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (name, digest, len(data))


def _write_wheel(path, files):
    dist_info = _dist_info_name()
    files = dict(files)
    files[dist_info + "/METADATA"] = _metadata().encode()
    files[dist_info + "/WHEEL"] = _wheel_file().encode()
    files[dist_info + "/top_level.txt"] = b"adbwire\n"
    record = [_record_line(name, data) for name, data in files.items()]
    record.append(dist_info + "/RECORD,,")
    files[dist_info + "/RECORD"] = ("\n".join(record) + "\n").encode()
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as wheel:
        for name, data in files.items():
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if name.endswith(".so") else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(info, data)


# ---- PEP 517 hooks


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    folder = Path(metadata_directory) / _dist_info_name()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "METADATA").write_text(_metadata())
    (folder / "WHEEL").write_text(_wheel_file())
    (folder / "top_level.txt").write_text("adbwire\n")
    return folder.name


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    build_dir = _build_dir(config_settings)
    module = _build_module(build_dir)
    staging = build_dir / "wheel-staging"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    files = {
        "adbwire/" + name: (PYTHON_DIR / "adbwire" / name).read_bytes() for name in PACKAGE_FILES
    }
    files["adbwire/" + module.name] = _stripped_copy(module, staging).read_bytes()
    shutil.rmtree(staging)
    name = "adbwire-%s-%s.whl" % (_version(), _tag())
    _write_wheel(Path(wheel_directory) / name, files)
    return name
