"""PEP 517 build backend for adbwire's Python package: CMake builds the extension module, this
file packs it into a wheel.

Why our own backend: pip builds with `--no-build-isolation` from what the environment has, and
a fresh venv (over Debian's python3 or a pyenv build) has pip and setuptools but not `wheel`,
without which setuptools cannot build a wheel; PyPI may be unreachable. A wheel is a zip file
with three small metadata files, so this backend needs only the standard library: it runs
CMake on the repository (the folder above python/) with ADBWIRE_PYTHON on and the
interpreter pip runs, builds the `_adbwire` target, and zips the module with python/adbwire.

The wheel travels: every library the module links beyond glibc and the C++ runtime (libusb,
OpenSSL, brotli, lz4, zstd, spng, turbojpeg, pugixml, cairo, Tesseract and what they link in
turn) is copied into adbwire.libs/ under a name carrying a hash of its content, and the module's and the copies'
RPATH point there ($ORIGIN-relative), as auditwheel repair does; patchelf does the rewriting.
Copies rather than static linking: libusb needs libudev, of which Debian ships no static archive,
and one path for every library is easier to check (python/tests/test_install.py, with readelf).

The CMake build folder is kept between builds (reinstalling is quick) in
<repository>/build/python-<interpreter> (ignored by git), or where ADBWIRE_PYTHON_BUILD_DIR or
the config setting build-dir (`pip install -C build-dir=…`) says. CMAKE_CXX_COMPILER_LAUNCHER=ccache
in the environment is honoured, as CMake does. pip hides a backend's output until it fails, so
the build's progress (CMake's steps, ninja's [done/total]) also goes to the terminal, /dev/tty,
when there is one; `pip install -v` shows the whole output.

build_sdist packs what the C++ build needs (CMakeLists.txt, cmake/, include/, protocol/, src/,
python/ without its tests) with a pyproject.toml at its root: `pip install adbwire-*.tar.gz`
builds it where the -dev packages of scripts/setup are installed. From a checkout:
`python3 python/build_backend/adbwire_build.py sdist [folder]` (or `python3 -m build --sdist
python`). No editable install is offered: the module is compiled, so an editable install would
go stale at the first C++ change (build_editable refuses, saying what to do instead).
"""

import base64
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tomllib
import zipfile
from pathlib import Path

PYTHON_DIR = Path(__file__).resolve().parent.parent
REPOSITORY = PYTHON_DIR.parent
PACKAGE_FILES = ("__init__.py", "_adbwire.pyi", "aio.py", "droidrun.py", "py.typed")
# Where the wheel keeps its copies of the libraries the module links (auditwheel's layout).
LIBS_FOLDER = "adbwire.libs"
# glibc's parts and the C++ runtime: every Linux that runs a C++ program has them, and a copy of
# glibc could not be loaded beside the system's anyway. Every other library travels in the wheel.
RUNTIME_LIBRARIES = re.compile(
    r"^(libc|libm|libpthread|libdl|librt|libresolv|libutil|libanl|libstdc\+\+|libgcc_s"
    r"|ld-linux[-\w.]*)\.so(\.\d+)*$"
)
# The folders and files of the repository an sdist carries (the C++ build and the package).
SDIST_PATHS = ("CMakeLists.txt", "README.md", "cmake", "include", "protocol", "src", "python")
SDIST_EXCLUDED = ("python/tests",)


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


class _Progress:
    """Says what the build does on stdout (pip shows it with -v or when the build fails) and, when
    there is a terminal, on it too (pip hides a backend's output otherwise)."""

    def __init__(self):
        try:
            self._tty = open("/dev/tty", "w", encoding="utf-8", errors="replace")
        except OSError:
            self._tty = None

    def say(self, text):
        print(text, flush=True)
        if self._tty is not None:
            self._tty.write(text + "\n")
            self._tty.flush()

    def line(self, text):
        """A line of a tool's output: all of it to stdout, ninja's [done/total] to the terminal."""
        sys.stdout.write(text)
        sys.stdout.flush()
        if self._tty is not None and re.match(r"^\[\d+/\d+\] ", text):
            self._tty.write("adbwire_build: " + text)
            self._tty.flush()


_progress = _Progress()


def _run(command, capture=False):
    _progress.say("adbwire_build: " + " ".join(str(part) for part in command))
    try:
        with subprocess.Popen(
            [str(part) for part in command],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
        ) as process:
            output = []
            for text in process.stdout:
                if capture:
                    output.append(text)
                else:
                    _progress.line(text)
        if process.returncode != 0:
            if capture:
                sys.stdout.write("".join(output))
            raise subprocess.CalledProcessError(process.returncode, command)
        return "".join(output)
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
    _progress.say("adbwire_build: building the extension module in %s" % build_dir)
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


def _tool(name, package):
    path = shutil.which(name)
    if path is None:
        raise BuildError("%s not found: apt-get install %s (or run scripts/setup)" % (name, package))
    return path


def _stripped_copy(module, folder):
    # The build keeps debug information (RelWithDebInfo, shared with the C++ build through
    # ccache); the wheel does not need it.
    copy = folder / module.name
    shutil.copyfile(module, copy)
    _run([_tool("strip", "binutils"), "--strip-debug", copy], capture=True)
    return copy


def _linked_libraries(module):
    """{name: path} of every library the module loads, directly or through another, as the
    dynamic loader resolves them here (ldd prints the whole closure)."""
    found = {}
    for text in _run([_tool("ldd", "libc-bin"), module], capture=True).splitlines():
        match = re.match(r"^\s*(\S+) => (/\S+) \(0x[0-9a-f]+\)$", text)
        if match:
            found[match.group(1)] = Path(match.group(2))
        elif "not found" in text:
            raise BuildError("%s: %s (install the library's package)" % (module, text.strip()))
    return found


def _hashed_name(name, data):
    # libusb-1.0.so.0 → libusb-1-0-<hash>.so.0, as auditwheel names them: a copy never takes the
    # place of the system's library of the same soname in a process that loads both.
    stem, _, versions = name.partition(".so")
    stem = stem.replace(".", "-")
    return "%s-%s.so%s" % (stem, hashlib.sha256(data).hexdigest()[:8], versions)


def _vendored(module, folder):
    """Copies the libraries the module links (except the C and C++ runtimes) into folder under
    hashed names and rewrites the module's and the copies' NEEDED entries and RPATH to them.
    Returns {wheel path: bytes} of the copies."""
    patchelf = _tool("patchelf", "patchelf")
    travelling = {
        name: path
        for name, path in _linked_libraries(module).items()
        if not RUNTIME_LIBRARIES.match(name)
    }
    _progress.say(
        "adbwire_build: the wheel carries %s" % (", ".join(sorted(travelling)) or "no library")
    )
    renamed = {}
    for name, path in travelling.items():
        data = path.read_bytes()
        renamed[name] = _hashed_name(name, data)
        (folder / renamed[name]).write_bytes(data)

    def relink(binary, rpath):
        # One change per patchelf run: Debian's patchelf (0.14) garbles the string table the
        # loader reads when one run both renames NEEDED entries and sets the RPATH.
        needed = _run([patchelf, "--print-needed", binary], capture=True).split()
        replacements = []
        for name in needed:
            if name in renamed:
                replacements += ["--replace-needed", name, renamed[name]]
        if replacements:
            _run([patchelf, *replacements, binary], capture=True)
        _run([patchelf, "--set-rpath", rpath, binary], capture=True)

    for name, copy in renamed.items():
        (folder / copy).chmod(0o755)
        _run([patchelf, "--set-soname", copy, folder / copy], capture=True)
        relink(folder / copy, "$ORIGIN")
    relink(module, "$ORIGIN/../" + LIBS_FOLDER)
    return {LIBS_FOLDER + "/" + copy: (folder / copy).read_bytes() for copy in renamed.values()}


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
            info.external_attr = (0o755 if ".so" in name else 0o644) << 16
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
    copy = _stripped_copy(module, staging)
    files.update(_vendored(copy, staging))
    files["adbwire/" + module.name] = copy.read_bytes()
    shutil.rmtree(staging)
    name = "adbwire-%s-%s.whl" % (_version(), _tag())
    _write_wheel(Path(wheel_directory) / name, files)
    return name


def build_sdist(sdist_directory, config_settings=None):
    base = "adbwire-%s" % _version()
    pyproject = (PYTHON_DIR / "pyproject.toml").read_text()
    # At the sdist's root the backend sits in python/build_backend; the folder layout below it is
    # the repository's, so the backend finds CMakeLists.txt one level above python/ as here.
    pyproject, count = re.subn(
        r'backend-path = \["build_backend"\]', 'backend-path = ["python/build_backend"]', pyproject
    )
    if count != 1:
        raise BuildError("python/pyproject.toml has no `backend-path = [\"build_backend\"]`")
    members = {"pyproject.toml": pyproject.encode(), "PKG-INFO": _metadata().encode()}
    for top in SDIST_PATHS:
        for path in sorted(_tracked(REPOSITORY / top)):
            relative = path.relative_to(REPOSITORY).as_posix()
            if not relative.startswith(SDIST_EXCLUDED) and "__pycache__" not in relative:
                members[relative] = path.read_bytes()
    name = base + ".tar.gz"
    with tarfile.open(Path(sdist_directory) / name, "w:gz", format=tarfile.PAX_FORMAT) as sdist:
        for relative, data in members.items():
            info = tarfile.TarInfo("%s/%s" % (base, relative))
            info.size = len(data)
            info.mode = 0o755 if os.access(REPOSITORY / relative, os.X_OK) else 0o644
            sdist.addfile(info, io.BytesIO(data))
    return name


def _tracked(path):
    """The files under path git tracks (the sdist carries no build output), or all of them when
    this is no git checkout (an unpacked sdist)."""
    if path.is_file():
        return [path]
    try:
        listing = subprocess.run(
            ["git", "-C", REPOSITORY, "ls-files", "-z", "--", path],
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return [file for file in path.rglob("*") if file.is_file()]
    return [REPOSITORY / os.fsdecode(name) for name in listing.split(b"\0") if name]


def get_requires_for_build_sdist(config_settings=None):
    return []


def _refuse_editable(*arguments, **keywords):
    raise BuildError(
        "adbwire cannot be installed in editable mode (pip install -e): its module is compiled "
        "C++, which an editable install would not rebuild. Run `pip install ./python` again after "
        "a change (the CMake build folder is kept, so it is quick), or build the default preset "
        "and put build/default/python on PYTHONPATH."
    )


get_requires_for_build_editable = _refuse_editable
prepare_metadata_for_build_editable = _refuse_editable
build_editable = _refuse_editable


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3) or sys.argv[1] != "sdist":
        sys.exit("usage: %s sdist [folder]" % sys.argv[0])
    out = Path(sys.argv[2] if len(sys.argv) == 3 else "dist")
    out.mkdir(parents=True, exist_ok=True)
    print(out / build_sdist(out))
