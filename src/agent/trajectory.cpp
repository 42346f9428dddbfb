#include "adbwire/trajectory.hpp"

#include <cstdio>

#include "adbwire/error.hpp"

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

Trajectory::Trajectory(TrajectoryOptions options) : options_(std::move(options)) {
  std::error_code error;
  fs::create_directories(options_.dir, error);
  if (!error) log_.open(options_.dir / "trajectory.jsonl", std::ios::app);
  if (error || !log_) {
    throw Error(errc::io_error,
                "cannot write the trajectory to " + (options_.dir / "trajectory.jsonl").string());
  }
}

Trajectory::Trajectory(TrajectoryOptions options, std::error_code& error)
    : options_(std::move(options)) {
  error.clear();
  fs::create_directories(options_.dir, error);
  if (!error) log_.open(options_.dir / "trajectory.jsonl", std::ios::app);
  if (error || !log_) error = make_error_code(errc::io_error);
}

std::string Trajectory::save(std::string_view suffix, std::string_view bytes) {
  std::string name;
  {
    std::lock_guard lock(mutex_);
    name = numbered(steps_ + 1, suffix);
  }
  std::ofstream file(options_.dir / name, std::ios::binary | std::ios::trunc);
  if (!file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()))) {
    throw Error(errc::io_error, "cannot write " + (options_.dir / name).string());
  }
  return name;
}

void Trajectory::record(const TrajectoryStep& step) {
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
  log_ << line;
  log_.flush();
  if (!log_)
    throw Error(errc::io_error, "cannot append to " + (options_.dir / "trajectory.jsonl").string());
}

std::uint64_t Trajectory::steps() const {
  std::lock_guard lock(mutex_);
  return steps_;
}

}  // namespace adbwire
