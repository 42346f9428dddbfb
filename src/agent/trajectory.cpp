#include "adbwire/trajectory.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "adbwire/error.hpp"
#include "base/failure.hpp"
#include "base/private_files.hpp"

namespace adbwire {
namespace {

namespace fs = std::filesystem;

void append_json_string(std::string& out, std::string_view text) {
  out += '"';
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (byte < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", byte);
          out += escaped;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

std::string numbered(std::uint64_t step, std::string_view suffix) {
  char prefix[32];
  std::snprintf(prefix, sizeof prefix, "%04llu-", static_cast<unsigned long long>(step));
  return prefix + std::string(suffix);
}

}  // namespace

bool Trajectory::open(std::error_code& code, std::string& detail) {
  detail::Failure failure;
  detail::FolderFd folder =
      detail::open_private_folder(options_.dir, detail::FolderTrust::chosen, failure);
  if (folder) {
    log_fd_ = ::openat(folder.get(), "trajectory.jsonl",
                       O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (log_fd_ < 0) {
      failure.set(errc::io_error, "cannot write the trajectory to " +
                                      (options_.dir / "trajectory.jsonl").string() + ": " +
                                      std::strerror(errno));
    }
  }
  code = failure.code;
  detail = std::move(failure.detail);
  if (!code) folder_fd_ = ::dup(folder.get());
  return !code;
}

Trajectory::Trajectory(TrajectoryOptions options) : options_(std::move(options)) {
  std::error_code code;
  std::string detail;
  if (!open(code, detail)) throw Error(code, detail);
}

Trajectory::Trajectory(TrajectoryOptions options, std::error_code& error)
    : options_(std::move(options)) {
  std::string detail;
  open(error, detail);
}

Trajectory::~Trajectory() {
  if (log_fd_ >= 0) ::close(log_fd_);
  if (folder_fd_ >= 0) ::close(folder_fd_);
}

std::string Trajectory::save_file(std::string_view suffix, std::string_view bytes,
                                  detail::Failure& failure) {
  std::string name;
  {
    std::lock_guard lock(mutex_);
    name = numbered(steps_ + 1, suffix);
  }
  if (!detail::write_private_file(folder_fd_, name, bytes, failure)) {
    failure.set(errc::io_error,
                "cannot write " + (options_.dir / name).string() + ": " + failure.detail);
    return {};
  }
  return name;
}

std::string Trajectory::save(std::string_view suffix, std::string_view bytes) {
  return detail::or_throw([&](detail::Failure& f) { return save_file(suffix, bytes, f); });
}

std::string Trajectory::save(std::string_view suffix, std::string_view bytes,
                             std::error_code& error) {
  return detail::or_code(error, [&](detail::Failure& f) { return save_file(suffix, bytes, f); });
}

void Trajectory::append(const TrajectoryStep& step, detail::Failure& failure) {
  std::string line;
  std::lock_guard lock(mutex_);
  ++steps_;
  line += "{\"step\":" + std::to_string(steps_);
  line += ",\"time_ms\":" + std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                               step.started.time_since_epoch())
                                               .count());
  line += ",\"action\":";
  append_json_string(line, step.action);
  line += ",\"args\":{";
  for (std::size_t i = 0; i < step.args.size(); ++i) {
    if (i > 0) line += ',';
    append_json_string(line, step.args[i].first);
    line += ':';
    append_json_string(line, step.args[i].second);
  }
  line += "},\"ok\":";
  line += step.error ? "false" : "true";
  char ms[32];
  std::snprintf(ms, sizeof ms, "%.3f", static_cast<double>(step.duration.count()) / 1000.0);
  line += ",\"ms\":";
  line += ms;
  if (!step.snapshot.empty()) {
    line += ",\"snapshot\":";
    append_json_string(line, step.snapshot);
  }
  if (!step.screenshot.empty()) {
    line += ",\"screenshot\":";
    append_json_string(line, step.screenshot);
  }
  if (step.error) {
    line += ",\"error\":";
    append_json_string(line, step.error.message());
    line += ",\"message\":";
    append_json_string(line, step.message);
  }
  line += "}\n";
  // One write per line, so a line is never interleaved with another process's.
  if (::write(log_fd_, line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
    failure.set(errc::io_error, "cannot append to " + (options_.dir / "trajectory.jsonl").string());
  }
}

void Trajectory::record(const TrajectoryStep& step) {
  detail::or_throw([&](detail::Failure& f) { append(step, f); });
}

void Trajectory::record(const TrajectoryStep& step, std::error_code& error) {
  detail::or_code(error, [&](detail::Failure& f) { append(step, f); });
}

std::uint64_t Trajectory::steps() const {
  std::lock_guard lock(mutex_);
  return steps_;
}

}  // namespace adbwire
