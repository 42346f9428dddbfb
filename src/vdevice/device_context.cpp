#include "vdevice/device_context.hpp"

#include <algorithm>
#include <utility>

#include "adbwire/error.hpp"
#include "base/mutex.hpp"
#include "vdevice/sample_screen.hpp"
#include "vdevice/screen_graph.hpp"

namespace adbwire::vdevice {

DeviceContext::DeviceContext(std::filesystem::path root, std::string serial)
    : DeviceContext(std::move(root), std::move(serial), nullptr) {}

DeviceContext::DeviceContext(std::filesystem::path root, std::string serial,
                             std::unique_ptr<ScreenGraph> screens)
    : root_(std::move(root)),
      screens_(screens ? std::move(screens) : std::make_unique<ScreenGraph>()) {
  auto density = std::to_string(SampleScreen::kDensity);
  properties_ = {
      {"ro.product.name", std::string(kProductName)},
      {"ro.product.model", std::string(kProductModel)},
      {"ro.product.device", std::string(kProductDevice)},
      {"ro.product.brand", "adbwire"},
      {"ro.product.manufacturer", "adbwire"},
      {"ro.product.cpu.abi", "x86_64"},
      {"ro.build.version.sdk", "34"},
      {"ro.build.version.release", "14"},
      {"ro.build.type", "userdebug"},
      {"ro.build.characteristics", "default"},
      {"ro.debuggable", "1"},
      {"ro.secure", "1"},
      {"ro.sf.lcd_density", density},
      {"ro.serialno", serial},
      {"sys.boot_completed", "1"},
      {"persist.sys.locale", "en-US"},
  };
  // The radios' global settings as a phone on Wi-Fi with a SIM has them (hardware_commands.cpp).
  for (const char* key : {"wifi_on", "mobile_data"}) put_setting("global", key, "1");
  put_setting("global", "airplane_mode_on", "0");
}

std::filesystem::path DeviceContext::resolve(std::string_view device_path,
                                             std::error_code& error) const {
  error.clear();
  if (device_path.empty()) {
    error = make_error_code(errc::invalid_argument);
    return {};
  }
  // Lexical normalisation on the device side, so ".." can never climb above root.
  std::vector<std::string_view> parts;
  std::size_t pos = 0;
  while (pos <= device_path.size()) {
    std::size_t slash = device_path.find('/', pos);
    if (slash == std::string_view::npos) slash = device_path.size();
    std::string_view part = device_path.substr(pos, slash - pos);
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    pos = slash + 1;
  }
  std::filesystem::path host = root_;
  for (std::string_view part : parts) host /= std::filesystem::path(std::string(part));

  // A symlink already inside root could still point outside it.
  std::error_code ignored;
  auto canonical_root = std::filesystem::weakly_canonical(root_, ignored);
  auto canonical = std::filesystem::weakly_canonical(host, ignored);
  if (!ignored) {
    auto rel = canonical.lexically_relative(canonical_root);
    if (rel.empty() || *rel.begin() == "..") {
      error = make_error_code(errc::permission_denied);
      return {};
    }
  }
  return host;
}

void DeviceContext::log_event(std::string line) {
  // What a host made the device do shows in its logcat too, as ActivityManager would log it.
  state_.append_log({.tag = "adbwire", .message = line});
  if (on_event_) on_event_(line);
  detail::MutexLock lock(mutex_);
  events_.push_back(std::move(line));
}

std::vector<std::string> DeviceContext::events() const {
  detail::MutexLock lock(mutex_);
  return events_;
}

void DeviceContext::note_syntax_error(std::string_view line) {
  detail::MutexLock lock(mutex_);
  syntax_errors_.emplace_back(line);
}

std::vector<std::string> DeviceContext::syntax_errors() const {
  detail::MutexLock lock(mutex_);
  return syntax_errors_;
}

void DeviceContext::add_process(const std::string& name, bool holds_ui_automation) {
  detail::MutexLock lock(mutex_);
  (holds_ui_automation ? processes_ : other_processes_).insert(name);
}

void DeviceContext::remove_process(const std::string& name) {
  detail::MutexLock lock(mutex_);
  if (const auto it = processes_.find(name); it != processes_.end()) {
    processes_.erase(it);
  } else if (const auto other = other_processes_.find(name); other != other_processes_.end()) {
    other_processes_.erase(other);
  }
}

bool DeviceContext::has_process(const std::string& name) const {
  detail::MutexLock lock(mutex_);
  return processes_.contains(name) || other_processes_.contains(name);
}

std::size_t DeviceContext::kill_processes(std::string_view literal) {
  detail::MutexLock lock(mutex_);
  const auto matches = [&](const std::string& name) {
    return name.find(literal) != std::string::npos;
  };
  return std::erase_if(processes_, matches) + std::erase_if(other_processes_, matches);
}

bool DeviceContext::ui_automation_held() const {
  detail::MutexLock lock(mutex_);
  return !processes_.empty();
}

std::uint16_t DeviceContext::devtools_port(std::string_view name) const {
  for (const DevtoolsSocket& socket : devtools_) {
    if (socket.name == name) return socket.port;
  }
  return 0;
}

bool DeviceContext::refuses(std::string_view destination) const {
  for (const std::string& prefix : refused_services_) {
    if (destination.starts_with(prefix)) return true;
  }
  return false;
}

bool DeviceContext::lacks_command(std::string_view name) const {
  return std::find(missing_commands_.begin(), missing_commands_.end(), name) !=
         missing_commands_.end();
}

bool DeviceContext::lacks_service(std::string_view name) const {
  return std::find(missing_services_.begin(), missing_services_.end(), name) !=
         missing_services_.end();
}

DeviceContext::~DeviceContext() = default;

std::optional<std::string> DeviceContext::setting(const std::string& space,
                                                  const std::string& key) const {
  detail::MutexLock lock(mutex_);
  auto it = settings_.find(space + "/" + key);
  if (it == settings_.end()) return std::nullopt;
  return it->second;
}

void DeviceContext::put_setting(const std::string& space, const std::string& key,
                                std::string value) {
  detail::MutexLock lock(mutex_);
  settings_[space + "/" + key] = std::move(value);
}

}  // namespace adbwire::vdevice
