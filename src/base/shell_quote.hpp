// Quoting an argument for a POSIX sh: the device's sh (mksh or toybox) that runs every shell:
// and exec: command line adbwire builds, and the host's /bin/sh. Internal; any thread.
#pragma once

#include <string>
#include <string_view>

namespace adbwire::detail {

// text as one sh word, whatever it holds: in single quotes, each ' written '\'' (close, an
// escaped quote, reopen). Nothing inside is expanded: $, `, \, ", globs, spaces, newlines and
// bytes that are not UTF-8 pass literally. A NUL byte cannot travel in an argument at all
// (the C strings of execve end there): callers refuse text holding one.
std::string shell_quote(std::string_view text);

}  // namespace adbwire::detail
