// `bugreport [PATH]` as adb 29's (client/bugreport.cpp): bugreportz -p on the device, its
// progress shown, then the zip it names pulled to PATH; a device without bugreportz gets the
// plain-text `bugreport` on stdout when no PATH was given.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "adbwire/error.hpp"
#include "adbwire/shell_stream.hpp"
#include "adbwire/sync.hpp"
#include "base/number.hpp"
#include "base/signal_cleanup.hpp"
#include "cli/commands.hpp"
#include "cli/connect.hpp"
#include "cli/device_selection.hpp"
#include "cli/pull_files.hpp"
#include "cli/terminal_text.hpp"
#include "cli/transfer_report.hpp"
#include "services/device_command.hpp"

namespace adbwire::cli {
namespace {

namespace fs = std::filesystem;

// bugreportz's lines are a path or a short message; a longer one is cut (bounded memory).
constexpr std::size_t kMaxLine = 4096;
// Unknown lines kept for the warning at the end; more are counted, not kept.
constexpr std::size_t kMaxOddLines = 20;

bool ends_with_zip(std::string_view name) {
  if (name.size() < 4) return false;
  std::string tail(name.substr(name.size() - 4));
  std::transform(tail.begin(), tail.end(), tail.begin(), [](char c) {
    return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  });
  return tail == ".zip";
}

// The device names the report; only its last component is used, as a plain file name: no
// folder, no "..", nothing a terminal or a shell would read as more than a name.
std::string host_name_of(std::string_view device_path) {
  const std::size_t slash = device_path.rfind('/');
  std::string name(slash == std::string_view::npos ? device_path : device_path.substr(slash + 1));
  for (char& c : name) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '.' || c == '_' || c == '-' || c == '+' || c == '@' || c == ',';
    if (!plain) c = '_';
  }
  if (name.empty() || name == "." || name == "..") name = "bugreport.zip";
  if (name.front() == '.') name.front() = '_';
  return name;
}

// What bugreportz -p said, line by line (adb's BugreportStandardStreamsCallback).
class Bugreportz {
 public:
  Bugreportz(std::string dest_dir, std::string dest_file, bool show_progress)
      : dest_dir_(std::move(dest_dir)), dest_file_(std::move(dest_file)), show_(show_progress) {}

  void feed(std::span<const std::uint8_t> bytes) {
    for (const std::uint8_t byte : bytes) {
      if (byte == '\n') {
        line_done();
      } else if (line_.size() < kMaxLine) {
        line_ += static_cast<char>(byte);
      }
    }
  }

  // Pulls the report; returns the exit status as adb's.
  // adb judges by the lines alone, not bugreportz's exit status.
  int finish(const GlobalOptions& globals, Device& device) {
    line_done();
    if (drew_) end_progress();
    if (!odd_lines_.empty()) {
      print_error(
          format("adbwire: WARNING: bugreportz generated %zu line(s) with unknown "
                 "commands, device might not support zipped bugreports:",
                 odd_count_));
      for (const std::string& line : odd_lines_) print_error("  " + line);
      print_error("If the zipped bugreport was not generated, try 'adbwire bugreport' instead.");
    }
    if (failed_) return 255;
    if (source_.empty()) {
      print_error("adbwire: bugreportz did not return a 'OK:' or 'FAIL:' line");
      return 255;
    }
    const std::string destination =
        dest_dir_.empty() ? dest_file_ : (fs::path(dest_dir_) / dest_file_).string();
    const auto cannot_copy = [&] {
      print_error("Bug report finished but could not be copied to '" + destination +
                  "'.\nTry to run 'adbwire pull " + source_ +
                  " <directory>'\nto copy it to a directory that can be written.");
      return 1;
    };
    // As adb's pull: the destination's folder must exist.
    const fs::path parent = fs::path(destination).parent_path();
    if (!parent.empty() && !fs::is_directory(parent)) {
      print("adbwire: error: cannot create file/directory '" + destination +
            "': No such file or directory\n");
      return cannot_copy();
    }
    PullOptions options;
    options.progress = progress_bar(false);
    TransferStats stats;
    try {
      stats =
          pull_to_host(globals, device, {source_}, destination, options, pull_on_own_connection);
    } catch (const Error& e) {
      // As adb: a sync error is printed where the summary would be, on stdout.
      print("adbwire: error: " + std::string(e.what()) + "\n");
      return cannot_copy();
    }
    print_summary(source_, "pulled", stats, false);
    return 0;
  }

 private:
  void line_done() {
    std::string line = std::move(line_);
    line_.clear();
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) return;
    if (line.starts_with("BEGIN:")) {
      set_source(line.substr(6));
    } else if (line.starts_with("OK:")) {
      set_source(line.substr(3));
    } else if (line.starts_with("FAIL:")) {
      print_error("adbwire: device failed to take a zipped bugreport: " + line.substr(5));
      failed_ = true;
    } else if (show_ && line.starts_with("PROGRESS:")) {
      const std::size_t slash = line.rfind('/');
      const auto done = detail::parse_number<std::uint64_t>(
          std::string_view(line).substr(9, slash == std::string::npos ? 0 : slash - 9));
      const auto total = detail::parse_number<std::uint64_t>(
          slash == std::string::npos ? std::string_view()
                                     : std::string_view(line).substr(slash + 1));
      if (!done || !total || *total == 0 || *done > *total) {
        odd(std::move(line));
        return;
      }
      const int percent = static_cast<int>(*done * 100 / *total);
      if (percent != 0 && percent <= last_percent_) return;  // dumpstate's progress can recede
      last_percent_ = percent;
      if (::isatty(STDERR_FILENO) == 1)
        progress(format("[%3d%%] generating %s", percent, dest_file_.c_str()));
    } else {
      odd(std::move(line));
    }
  }

  void odd(std::string line) {
    ++odd_count_;
    if (odd_lines_.size() < kMaxOddLines) odd_lines_.push_back(std::move(line));
  }

  void set_source(std::string path) {
    source_ = std::move(path);
    // As adb: the device's name is used only when the user gave a folder (or nothing).
    if (!dest_dir_.empty()) dest_file_ = host_name_of(source_);
  }

  std::string dest_dir_;
  std::string dest_file_;
  bool show_;
  std::string line_;
  std::string source_;  // the report's path on the device: only ever pulled from
  std::vector<std::string> odd_lines_;
  std::size_t odd_count_ = 0;
  bool failed_ = false;
  bool drew_ = false;  // a progress line is on the terminal
  int last_percent_ = 0;
};

int run_bugreport(const GlobalOptions& globals, const std::optional<std::string>& path) {
  GlobalOptions chosen = globals;
  chosen.serial = select_target(globals);
  Device device = connect_device(chosen);
  const ShellResult version_result = device.shell("bugreportz -v");
  const std::string version = detail::trim(version_result.err);
  if (version_result.exit_code != 0 || version.empty()) {
    if (!path) {
      // As adb: a device older than Android 7 has no bugreportz; its text report instead.
      print_error(
          "Failed to get bugreportz version, which is only available on devices running Android "
          "7.0 or later.\nTrying a plain-text bug report instead.");
      ShellOptions options;
      options.command = "bugreport";
      ShellStream shell = ShellStream::open(device, options, kDefaultDeadline);
      const int status = shell.wait(write_to(stdout), write_to(stderr), kNoDeadline);
      return status < 0 ? 0 : status;
    }
    print_error("adbwire: failed to get bugreportz version: 'bugreportz -v' returned '" +
                detail::trim(version_result.out) + "' (code " +
                std::to_string(version_result.exit_code) +
                ").\nIf the device does not run Android 7.0 or above, try 'adbwire bugreport' "
                "instead.");
    return version_result.exit_code > 0 ? version_result.exit_code : 255;
  }
  std::string dest_dir;
  std::string dest_file;
  if (!path) {
    dest_dir = fs::current_path().string();
  } else if (fs::is_directory(*path)) {
    dest_dir = *path;
  } else {
    dest_file = *path;
  }
  if (dest_file.empty()) {
    dest_file = "bugreport.zip";  // until the device names it
  } else if (!ends_with_zip(dest_file)) {
    dest_file += ".zip";
  }
  bool show_progress = true;
  ShellOptions options;
  options.command = "bugreportz -p";
  if (version == "1.0") {
    print_error(
        "Bugreport is in progress and it could take minutes to complete.\nPlease be patient and do "
        "not cancel or disconnect your device until it completes.");
    show_progress = false;
    options.command = "bugreportz";
  }
  Bugreportz report(dest_dir, dest_file, show_progress);
  detail::remove_on_signals();  // Ctrl-C leaves no hidden temporary file of the pull behind
  ShellStream shell = ShellStream::open(device, options, kDefaultDeadline);
  shell.wait([&report](std::span<const std::uint8_t> bytes) { report.feed(bytes); },
             write_to(stderr), kNoDeadline);
  return report.finish(chosen, device);
}

}  // namespace

void add_bugreport_command(CLI::App& app, const GlobalOptions& globals, Run& run) {
  auto paths = std::make_shared<std::vector<std::string>>();
  auto* cmd = app.add_subcommand(
      "bugreport",
      "write a zipped bug report to PATH (a folder: the device's file name in it; default: the "
      "current folder), as adb bugreport: bugreport [PATH]. A device older than Android 7 "
      "prints its text report instead (without PATH)");
  cmd->add_option("path", *paths, "the zip or a folder for it");
  cmd->callback([paths, &globals, &run] {
    run = [paths, &globals] {
      if (paths->size() > 1) {
        print_error("adbwire: usage: adbwire bugreport [PATH]");
        return 1;
      }
      const std::optional<std::string> given =
          paths->empty() ? std::nullopt : std::optional<std::string>(paths->front());
      return run_bugreport(globals, given);
    };
  });
}

}  // namespace adbwire::cli
