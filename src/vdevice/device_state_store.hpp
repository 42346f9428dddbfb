// What the virtual device remembers for the app, port, log and state services: whether adbd
// runs as root, the installed packages and open install sessions, the logcat ring and the
// reverse rules' listening ports. One per device, shared by every connection; thread safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/mutex.hpp"

namespace adbwire::vdevice {

// One logcat record as the device stores it (liblog's fields).
struct LogRecord {
  std::uint32_t sec = 0;
  std::uint32_t nsec = 0;
  std::int32_t pid = 0;
  std::uint32_t tid = 0;
  std::uint8_t priority = 4;  // android_LogPriority: 2 verbose … 7 fatal; 4 info
  std::string tag;
  std::string message;
};

// One open `pm install-create` session.
struct InstallSession {
  std::vector<std::string> apks;  // names written with install-write
  std::uint64_t bytes = 0;
  std::string package;  // from the base APK, once written
  std::uint64_t version_code = 0;
  bool allow_downgrade = false;  // install-create -d
};

class DeviceStateStore {
 public:
  // Records the ring keeps; older ones are dropped as logd does.
  static constexpr std::size_t kLogCapacity = 4096;

  bool root() const;
  void set_root(bool root);

  // Installed packages with their version codes (see install_commands.cpp).
  void add_package(std::string name, std::uint64_t version_code);
  std::optional<std::uint64_t> package_version(std::string_view name) const;
  bool remove_package(std::string_view name);
  std::vector<std::string> packages() const;
  // An app's label (android:label), as PackageManager's loadLabel gives it; "" when none was
  // set (loadLabel then answers the package name).
  void set_label(std::string package, std::string label);
  std::string label(std::string_view package) const;

  // Install sessions: create returns the new id; write/commit/abandon answer false for an
  // unknown id.
  std::uint32_t create_session(bool allow_downgrade);
  // package: "" for a split without a manifest marker (see install_commands.cpp).
  bool write_session(std::uint32_t id, std::string apk, std::uint64_t bytes,
                     const std::string& package, std::uint64_t version_code);
  std::optional<InstallSession> take_session(std::uint32_t id);

  // The logcat ring: append stamps the record with the wall clock when sec is 0.
  void append_log(LogRecord record);
  // Records with sequence number >= from (the first is 0), at most max; next is set to the
  // sequence number after the last returned one. Records already dropped are skipped.
  std::vector<LogRecord> logs_from(std::uint64_t from, std::size_t max, std::uint64_t& next) const;
  // The sequence number the next appended record gets.
  std::uint64_t log_end() const;
  void clear_logs();

  // Reverse rules' device-side listeners: "tcp:6000" -> the loopback port serving it.
  void set_reverse_port(const std::string& device_local, std::uint16_t port);
  void erase_reverse_port(const std::string& device_local);
  std::uint16_t reverse_port(std::string_view device_local) const;
  // Device-initiated OPENs the host refused.
  void count_reverse_refused();
  std::uint64_t reverse_refused() const;

 private:
  mutable detail::Mutex mutex_;
  bool root_ ADBWIRE_GUARDED_BY(mutex_) = false;
  std::map<std::string, std::uint64_t, std::less<>> packages_ ADBWIRE_GUARDED_BY(mutex_);
  std::map<std::string, std::string, std::less<>> labels_ ADBWIRE_GUARDED_BY(mutex_);
  std::map<std::uint32_t, InstallSession> sessions_ ADBWIRE_GUARDED_BY(mutex_);
  std::uint32_t next_session_ ADBWIRE_GUARDED_BY(mutex_) = 1000;
  std::deque<LogRecord> logs_ ADBWIRE_GUARDED_BY(mutex_);
  // The sequence number of logs_.front().
  std::uint64_t first_log_ ADBWIRE_GUARDED_BY(mutex_) = 0;
  std::map<std::string, std::uint16_t, std::less<>> reverse_ports_ ADBWIRE_GUARDED_BY(mutex_);
  std::uint64_t reverse_refused_ ADBWIRE_GUARDED_BY(mutex_) = 0;
};

}  // namespace adbwire::vdevice
