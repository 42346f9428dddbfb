// What pull and push print: a progress bar on stderr (only when it is a terminal) and adb's
// one-line summary on stdout.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>

#include "adbwire/sync.hpp"

namespace adbwire::cli {

// adb's -z ALGORITHM (any|none|brotli|lz4|zstd) and -Z (no compression). fallback: the
// default, adb's: none for pull (the device compressing costs more than it saves on USB 3 and
// TCP, and data already compressed gains nothing), any for push.
void add_compression_options(CLI::App& command, std::string& algorithm, bool& none,
                             std::string_view fallback);
// The compression command's flags ask for. As adb: -Z, else -z, else $ADB_COMPRESSION (any,
// none, brotli, lz4, zstd, or 1 for any and 0 for none), else the fallback. Throws
// adbwire::Error (invalid_argument) when $ADB_COMPRESSION names none of those.
SyncCompression compression_choice(const CLI::App& command, const std::string& algorithm,
                                   bool none);

// A progress handler drawing "[ 42%] REMOTE" on stderr at most ten times a second, or an
// empty handler when stderr is not a terminal or quiet is set.
SyncProgressHandler progress_bar(bool quiet);

// Clears the progress line (if one was drawn) and prints, as adb does,
// "WHAT: N files pulled, S skipped. R MB/s (B bytes in T s)".
void print_summary(std::string_view what, std::string_view verb, const TransferStats& stats,
                   bool quiet);

}  // namespace adbwire::cli
