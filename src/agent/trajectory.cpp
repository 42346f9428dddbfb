#include "adbwire/trajectory.hpp"

#include <fcntl.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "adbwire/error.hpp"
#include "base/failure.hpp"
#include "base/mutex.hpp"
#include "base/private_files.hpp"
#include "ui/escape.hpp"

namespace adbwire {
namespace {

namespace fs = std::filesystem;

std::string numbered(std::uint64_t step, std::string_view suffix) {
  char prefix[32];
  std::snprintf(prefix, sizeof prefix, "%04llu-", static_cast<unsigned long long>(step));
  return prefix + std::string(suffix);
}

void append_number_field(std::string& line, std::string_view name, std::int64_t value) {
  line += ",\"";
  line += name;
  line += "\":";
  line += std::to_string(value);
}

void append_string_field(std::string& line, std::string_view name, std::string_view value) {
  line += ",\"";
  line += name;
  line += "\":";
  ui::append_json_string(line, value);
}

void append_element(std::string& line, const TrajectoryElement& e) {
  line += "{\"ref\":" + std::to_string(e.ref);
  append_string_field(line, "label", e.label);
  if (!e.row.empty()) append_string_field(line, "row", e.row);
  append_string_field(line, "package", e.package);
  append_string_field(line, "class", e.class_name);
  append_string_field(line, "resource_id", e.resource_id);
  append_string_field(line, "text", e.text);
  append_string_field(line, "desc", e.content_desc);
  line += ",\"bounds\":[" + std::to_string(e.bounds.left) + "," + std::to_string(e.bounds.top) +
          "," + std::to_string(e.bounds.right) + "," + std::to_string(e.bounds.bottom) + "]";
  append_string_field(line, "exact_token", e.exact_token);
  append_string_field(line, "identity_token", e.identity_token);
  append_number_field(line, "look_alikes", e.look_alikes);
  line += '}';
}

}  // namespace

std::string snapshot_hash(std::string_view text) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(text.data(), text.size(), digest, &size, EVP_sha256(), nullptr) != 1)
    throw Error(errc::io_error, "SHA-256 is not available from OpenSSL");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hash = "sha256:";
  for (unsigned int i = 0; i < size; ++i) {
    hash += kHex[digest[i] >> 4];
    hash += kHex[digest[i] & 15];
  }
  return hash;
}

struct Trajectory::Files {
  ~Files() {
    if (log_fd >= 0) ::close(log_fd);
    if (folder_fd >= 0) ::close(folder_fd);
  }

  int folder_fd = -1;  // set by open(), then only read
  detail::Mutex mutex;
  int log_fd ADBWIRE_GUARDED_BY(mutex) = -1;  // one line per write, in step order
  std::uint64_t steps ADBWIRE_GUARDED_BY(mutex) = 0;
};

void Trajectory::open(detail::Failure& failure) {
  detail::FolderFd folder =
      detail::open_private_folder(options_.dir, detail::FolderTrust::chosen, failure);
  if (!folder) return;
  const int log_fd = ::openat(folder.get(), "trajectory.jsonl",
                              O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (log_fd < 0) {
    failure.set(errc::io_error, "cannot write the trajectory to " +
                                    (options_.dir / "trajectory.jsonl").string() + ": " +
                                    std::strerror(errno));
    return;
  }
  detail::MutexLock lock(files_->mutex);
  files_->log_fd = log_fd;
  files_->folder_fd = ::dup(folder.get());
}

Trajectory::Trajectory(TrajectoryOptions options)
    : options_(std::move(options)), files_(std::make_unique<Files>()) {
  detail::or_throw([&](detail::Failure& f) { open(f); });
}

Trajectory::Trajectory(TrajectoryOptions options, std::error_code& error)
    : options_(std::move(options)), files_(std::make_unique<Files>()) {
  detail::or_code(error, [&](detail::Failure& f) { open(f); });
}

Trajectory::~Trajectory() = default;

std::string Trajectory::save_file(std::string_view suffix, std::string_view bytes,
                                  detail::Failure& failure) {
  std::string name;
  {
    detail::MutexLock lock(files_->mutex);
    name = numbered(files_->steps + 1, suffix);
  }
  if (!detail::write_private_file(files_->folder_fd, name, bytes, failure)) {
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
  detail::MutexLock lock(files_->mutex);
  ++files_->steps;
  line += "{\"step\":" + std::to_string(files_->steps);
  line += ",\"time_ms\":" + std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                               step.started.time_since_epoch())
                                               .count());
  line += ",\"action\":";
  ui::append_json_string(line, step.action);
  line += ",\"args\":{";
  for (std::size_t i = 0; i < step.args.size(); ++i) {
    if (i > 0) line += ',';
    ui::append_json_string(line, step.args[i].first);
    line += ':';
    ui::append_json_string(line, step.args[i].second);
  }
  line += "},\"ok\":";
  line += step.error ? "false" : "true";
  char ms[32];
  std::snprintf(ms, sizeof ms, "%.3f", static_cast<double>(step.duration.count()) / 1000.0);
  line += ",\"ms\":";
  line += ms;
  if (!step.snapshot.empty()) {
    line += ",\"snapshot\":";
    ui::append_json_string(line, step.snapshot);
  }
  if (!step.screenshot.empty()) {
    line += ",\"screenshot\":";
    ui::append_json_string(line, step.screenshot);
  }
  if (!step.snapshot_hash.empty()) append_string_field(line, "snapshot_hash", step.snapshot_hash);
  if (!step.elements.empty()) {
    line += ",\"elements\":[";
    for (std::size_t i = 0; i < step.elements.size(); ++i) {
      if (i > 0) line += ',';
      append_element(line, step.elements[i]);
    }
    line += ']';
  }
  if (!step.points.empty()) {
    line += ",\"points\":[";
    for (std::size_t i = 0; i < step.points.size(); ++i) {
      line += (i > 0 ? ",[" : "[") + std::to_string(step.points[i].x) + "," +
              std::to_string(step.points[i].y) + "]";
    }
    line += ']';
  }
  if (!step.observation.empty()) append_string_field(line, "observation", step.observation);
  if (step.error) {
    line += ",\"error\":";
    ui::append_json_string(line, step.error.message());
    line += ",\"message\":";
    ui::append_json_string(line, step.message);
  }
  line += "}\n";
  // One write per line, so a line is never interleaved with another process's.
  if (::write(files_->log_fd, line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
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
  detail::MutexLock lock(files_->mutex);
  return files_->steps;
}

}  // namespace adbwire
