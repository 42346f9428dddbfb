"""Runs pytest for ctest (python/CMakeLists.txt) with the interpreter the module was built for,
and says how to get pytest when that interpreter has none."""

import sys

try:
    import pytest
except ImportError:
    sys.exit(
        "pytest is not installed for %s: apt-get install python3-pytest (or run scripts/setup)"
        % sys.executable
    )

# No cache folder in the source tree; -rfE lists what failed at the end.
sys.exit(pytest.main(["-p", "no:cacheprovider", "-q", "-rfE", *sys.argv[1:]]))
