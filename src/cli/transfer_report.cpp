#include "cli/transfer_report.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "adbwire/error.hpp"
#include "adbwire/protocol/printable.hpp"
#include "cli/terminal_text.hpp"

namespace adbwire::cli {
namespace {

constexpr auto kRedrawInterval = std::chrono::milliseconds(100);

}  // namespace

void add_compression_options(CLI::App& command, std::string& algorithm, bool& none,
                             std::string_view fallback) {
  command
      .add_option("-z", algorithm,
                  "compression when the device offers it: any (the best both sides have), none, "
                  "brotli, lz4, zstd")
      ->check(CLI::IsMember({"any", "none", "brotli", "lz4", "zstd"}))
      ->default_val(std::string(fallback));
  command.add_flag("-Z", none, "no compression (as -z none)");
}

SyncCompression compression_choice(const CLI::App& command, const std::string& algorithm,
                                   bool none) {
  if (none) return SyncCompression::none;
  SyncCompression choice = SyncCompression::any;
  const char* variable = std::getenv("ADB_COMPRESSION");
  if (command.count("-z") != 0 || variable == nullptr) {
    parse_sync_compression(algorithm, choice);  // checked by the option's IsMember
    return choice;
  }
  const std::string_view wanted = variable;
  if (wanted == "0") return SyncCompression::none;
  if (wanted == "1") return SyncCompression::any;
  if (!parse_sync_compression(wanted, choice)) {
    throw Error(errc::invalid_argument,
                "unexpected compression type '" + protocol::printable(wanted, 40) +
                    "' in ADB_COMPRESSION (any, none, brotli, lz4, zstd, 1 or 0)");
  }
  return choice;
}

SyncProgressHandler progress_bar(bool quiet) {
  if (quiet || ::isatty(STDERR_FILENO) != 1) return {};
  auto last = std::make_shared<Clock::time_point>();
  return [last](const SyncProgress& p) {
    const auto now = Clock::now();
    const bool finished = p.files_done == p.files_total && p.total_bytes == p.total_size;
    if (now - *last < kRedrawInterval && !finished) return;
    *last = now;
    const unsigned percent =
        p.total_size == 0 ? 100u : static_cast<unsigned>(p.total_bytes * 100 / p.total_size);
    // The name comes from the device: escaped, so it cannot act on the terminal.
    const std::string name = protocol::printable(p.remote);
    progress(format("[%3u%%] %s", percent, name.c_str()));
  };
}

void print_summary(std::string_view what, std::string_view verb, const TransferStats& stats,
                   bool quiet) {
  if (::isatty(STDERR_FILENO) == 1 && !quiet) end_progress();
  if (quiet) return;
  const double seconds = std::chrono::duration<double>(stats.elapsed).count();
  // adb's rate: MiB per second, labelled MB/s.
  const double rate =
      seconds > 0 ? static_cast<double>(stats.bytes) / 1024.0 / 1024.0 / seconds : 0.0;
  print(format("%.*s: %zu file%s %.*s, %zu skipped. %.1f MB/s (%llu bytes in %.3fs)\n",
               static_cast<int>(what.size()), what.data(), stats.files, stats.files == 1 ? "" : "s",
               static_cast<int>(verb.size()), verb.data(), stats.skipped, rate,
               static_cast<unsigned long long>(stats.bytes), seconds));
}

}  // namespace adbwire::cli
