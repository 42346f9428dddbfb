#include "vdevice/device_state_store.hpp"

#include <algorithm>
#include <chrono>

#include "base/mutex.hpp"

namespace adbwire::vdevice {

bool DeviceStateStore::root() const {
  detail::MutexLock lock(mutex_);
  return root_;
}

void DeviceStateStore::set_root(bool root) {
  detail::MutexLock lock(mutex_);
  root_ = root;
}

void DeviceStateStore::add_package(std::string name, std::uint64_t version_code) {
  detail::MutexLock lock(mutex_);
  packages_[std::move(name)] = version_code;
}

std::optional<std::uint64_t> DeviceStateStore::package_version(std::string_view name) const {
  detail::MutexLock lock(mutex_);
  const auto it = packages_.find(name);
  if (it == packages_.end()) return std::nullopt;
  return it->second;
}

bool DeviceStateStore::remove_package(std::string_view name) {
  detail::MutexLock lock(mutex_);
  const auto it = packages_.find(name);
  if (it == packages_.end()) return false;
  packages_.erase(it);
  return true;
}

std::vector<std::string> DeviceStateStore::packages() const {
  detail::MutexLock lock(mutex_);
  std::vector<std::string> names;
  for (const auto& [name, version] : packages_) names.push_back(name);
  return names;
}

void DeviceStateStore::set_label(std::string package, std::string label) {
  detail::MutexLock lock(mutex_);
  labels_[std::move(package)] = std::move(label);
}

std::string DeviceStateStore::label(std::string_view package) const {
  detail::MutexLock lock(mutex_);
  const auto it = labels_.find(package);
  return it == labels_.end() ? std::string() : it->second;
}

std::uint32_t DeviceStateStore::create_session(bool allow_downgrade) {
  detail::MutexLock lock(mutex_);
  const std::uint32_t id = next_session_++;
  sessions_[id] = {};
  sessions_[id].allow_downgrade = allow_downgrade;
  return id;
}

bool DeviceStateStore::write_session(std::uint32_t id, std::string apk, std::uint64_t bytes,
                                     const std::string& package, std::uint64_t version_code) {
  detail::MutexLock lock(mutex_);
  const auto it = sessions_.find(id);
  if (it == sessions_.end()) return false;
  it->second.apks.push_back(std::move(apk));
  it->second.bytes += bytes;
  if (!package.empty()) {
    it->second.package = package;
    it->second.version_code = version_code;
  }
  return true;
}

std::optional<InstallSession> DeviceStateStore::take_session(std::uint32_t id) {
  detail::MutexLock lock(mutex_);
  const auto it = sessions_.find(id);
  if (it == sessions_.end()) return std::nullopt;
  InstallSession session = std::move(it->second);
  sessions_.erase(it);
  return session;
}

void DeviceStateStore::append_log(LogRecord record) {
  if (record.sec == 0) {
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(now);
    record.sec = static_cast<std::uint32_t>(seconds.count());
    record.nsec = static_cast<std::uint32_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(now - seconds).count());
  }
  detail::MutexLock lock(mutex_);
  logs_.push_back(std::move(record));
  if (logs_.size() > kLogCapacity) {
    logs_.pop_front();
    ++first_log_;
  }
}

std::vector<LogRecord> DeviceStateStore::logs_from(std::uint64_t from, std::size_t max,
                                                   std::uint64_t& next) const {
  detail::MutexLock lock(mutex_);
  std::vector<LogRecord> out;
  std::uint64_t at = std::max(from, first_log_);
  while (at < first_log_ + logs_.size() && out.size() < max) {
    out.push_back(logs_[static_cast<std::size_t>(at - first_log_)]);
    ++at;
  }
  next = at;
  return out;
}

std::uint64_t DeviceStateStore::log_end() const {
  detail::MutexLock lock(mutex_);
  return first_log_ + logs_.size();
}

void DeviceStateStore::clear_logs() {
  detail::MutexLock lock(mutex_);
  first_log_ += logs_.size();
  logs_.clear();
}

void DeviceStateStore::set_reverse_port(const std::string& device_local, std::uint16_t port) {
  detail::MutexLock lock(mutex_);
  reverse_ports_[device_local] = port;
}

void DeviceStateStore::erase_reverse_port(const std::string& device_local) {
  detail::MutexLock lock(mutex_);
  reverse_ports_.erase(device_local);
}

std::uint16_t DeviceStateStore::reverse_port(std::string_view device_local) const {
  detail::MutexLock lock(mutex_);
  const auto it = reverse_ports_.find(device_local);
  return it == reverse_ports_.end() ? 0 : it->second;
}

void DeviceStateStore::count_reverse_refused() {
  detail::MutexLock lock(mutex_);
  ++reverse_refused_;
}

std::uint64_t DeviceStateStore::reverse_refused() const {
  detail::MutexLock lock(mutex_);
  return reverse_refused_;
}

}  // namespace adbwire::vdevice
