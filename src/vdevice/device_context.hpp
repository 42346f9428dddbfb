// What every connection and shell command of one virtual device shares: the file system
// root, the system properties and the log of injected events.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "adbwire/testing/vdevice.hpp"
#include "base/mutex.hpp"
#include "vdevice/device_state_store.hpp"

namespace adbwire::vdevice {

class ScreenGraph;

class DeviceContext {
 public:
  // root must exist. serial is what ro.serialno reports. The device shows the bundled
  // sample screen, or screens.
  DeviceContext(std::filesystem::path root, std::string serial);
  DeviceContext(std::filesystem::path root, std::string serial,
                std::unique_ptr<ScreenGraph> screens);
  ~DeviceContext();

  const std::filesystem::path& root() const noexcept { return root_; }

  // Maps a device path into root. Relative paths start at "/" (adbd's shell runs there);
  // ".." stops at "/" as in POSIX. Errors: permission_denied when an existing symlink would
  // lead outside root; invalid_argument for an empty path.
  std::filesystem::path resolve(std::string_view device_path, std::error_code& error) const;

  // System properties, sorted by key (getprop).
  const std::map<std::string, std::string, std::less<>>& properties() const noexcept {
    return properties_;
  }

  // Records an input/am/monkey/cmd command line. Thread safe.
  void log_event(std::string line);
  // A copy of the log, oldest first. Thread safe.
  std::vector<std::string> events() const;
  // VirtualDeviceOptions::on_event. Set before serving.
  void set_event_listener(std::function<void(std::string_view)> listener) {
    on_event_ = std::move(listener);
  }

  // The screen graph uiautomator, screencap and input act on. Thread safe.
  ScreenGraph& screens() noexcept { return *screens_; }

  // `settings get/put NAMESPACE KEY`: values a host wrote. Thread safe.
  std::optional<std::string> setting(const std::string& space, const std::string& key) const;
  void put_setting(const std::string& space, const std::string& key, std::string value);

  // Root flag, packages, logcat ring and reverse ports (apps, ports, logs, device state).
  DeviceStateStore& state() noexcept { return state_; }

  // Test-only fault, VirtualDeviceOptions::drop_after_bytes (0: none). Set before serving.
  std::uint64_t drop_after_bytes() const noexcept { return drop_after_bytes_; }
  void set_drop_after_bytes(std::uint64_t bytes) noexcept { drop_after_bytes_ = bytes; }
  // SND2/RCV2 compression flags served (from the sendrecv_v2_<algorithm> features offered)
  // and the test-only fault VirtualDeviceOptions::corrupt_compressed_sync. Set before serving.
  std::uint32_t sync_compression_flags() const noexcept { return sync_compression_flags_; }
  bool corrupt_compressed_sync() const noexcept { return corrupt_compressed_sync_; }
  void set_sync_compression(std::uint32_t flags, bool corrupt) noexcept {
    sync_compression_flags_ = flags;
    corrupt_compressed_sync_ = corrupt;
  }

  // Test-only, VirtualDeviceOptions::hostile_sync. Set before serving.
  HostileSync hostile_sync() const noexcept { return hostile_sync_; }
  void set_hostile_sync(HostileSync mode) noexcept { hostile_sync_ = mode; }

  // Command lines the shell could not parse (a quote left open, a substitution): how a host that
  // forgot to quote an argument shows. Thread safe.
  void note_syntax_error(std::string_view line);
  std::vector<std::string> syntax_errors() const;

  // Test-only, VirtualDeviceOptions::hostile_output. Set before serving.
  HostileOutput hostile_output() const noexcept { return hostile_output_; }
  void set_hostile_output(HostileOutput mode) noexcept { hostile_output_ = mode; }

  // VirtualDeviceOptions::auth_delay and ::hang_up_on_refused_key. Set before serving.
  std::chrono::milliseconds auth_delay() const noexcept { return auth_delay_; }
  bool hang_up_on_refused_key() const noexcept { return hang_up_on_refused_key_; }
  void set_auth_answers(std::chrono::milliseconds delay, bool hang_up_on_refused_key) noexcept {
    auth_delay_ = delay;
    hang_up_on_refused_key_ = hang_up_on_refused_key;
  }

  // VirtualDeviceOptions::legacy_pty and ::refused_services (old adbd). Set before serving.
  bool legacy_pty() const noexcept { return legacy_pty_; }
  void set_legacy_pty(bool legacy) noexcept { legacy_pty_ = legacy; }
  // True when destination starts with one of the refused prefixes.
  bool refuses(std::string_view destination) const;
  void set_refused_services(std::vector<std::string> prefixes) {
    refused_services_ = std::move(prefixes);
  }

  // VirtualDeviceOptions::missing_commands and ::missing_services. Set before serving.
  bool lacks_command(std::string_view name) const;
  bool lacks_service(std::string_view name) const;
  void set_missing(std::vector<std::string> commands, std::vector<std::string> services) {
    missing_commands_ = std::move(commands);
    missing_services_ = std::move(services);
  }

  // VirtualDeviceOptions::radios_locked and ::camera_app. Set before serving.
  bool radios_locked() const noexcept { return radios_locked_; }
  bool camera_app() const noexcept { return camera_app_; }
  void set_hardware(bool radios_locked, bool camera_app) noexcept {
    radios_locked_ = radios_locked;
    camera_app_ = camera_app;
  }
  // Whether the camera app is in front (the still-image intent opened it). Thread safe.
  bool camera_open() const noexcept { return camera_open_; }
  void set_camera_open(bool open) noexcept { camera_open_ = open; }

  // VirtualDeviceOptions::api_level and ::displays (screencap). Set before serving.
  void set_property(std::string key, std::string value) {
    properties_[std::move(key)] = std::move(value);
  }
  std::uint32_t displays() const noexcept { return displays_; }
  void set_displays(std::uint32_t count) noexcept { displays_ = count; }

  // The loopback port serving DevTools socket `name` (VirtualDeviceOptions::devtools); 0 when
  // the device has no such socket. Set before serving.
  std::uint16_t devtools_port(std::string_view name) const;
  void set_devtools(std::vector<DevtoolsSocket> sockets) { devtools_ = std::move(sockets); }

  // VirtualDeviceOptions::jdwp_pids. Set before serving.
  const std::vector<std::uint32_t>& jdwp_pids() const noexcept { return jdwp_pids_; }
  void set_jdwp_pids(std::vector<std::uint32_t> pids) { jdwp_pids_ = std::move(pids); }
  // VirtualDeviceOptions::sideload. Set before serving.
  SideloadMode sideload() const noexcept { return sideload_; }
  void set_sideload(SideloadMode mode) noexcept { sideload_ = mode; }

  // Emulated long-lived processes (the on-device dumper run by app_process), by name: a
  // process holds the device's single UiAutomation connection until it exits or is killed,
  // even when the stream that started it is gone (a process hung in a binder call does not
  // notice its stdin closing). Thread safe.
  // Other long-lived processes (screenrecord) pass holds_ui_automation = false.
  void add_process(const std::string& name, bool holds_ui_automation = true);
  void remove_process(const std::string& name);
  // Whether a process of that name runs (pkill has not ended it).
  bool has_process(const std::string& name) const;
  // `pkill -f`: ends the processes whose name contains literal; how many.
  std::size_t kill_processes(std::string_view literal);
  // True while a process holds UiAutomation (`uiautomator dump` then fails as on a phone).
  bool ui_automation_held() const;

  // Test-only: how the emulated dumper misbehaves (VirtualDevice::set_dumper_fault). Thread safe.
  void set_dumper_fault(DumperFault fault, std::uint32_t after_requests) noexcept {
    dumper_fault_after_ = after_requests;
    dumper_fault_ = fault;
  }
  DumperFault dumper_fault() const noexcept { return dumper_fault_; }
  std::uint32_t dumper_fault_after() const noexcept { return dumper_fault_after_; }

 private:
  std::filesystem::path root_;
  std::map<std::string, std::string, std::less<>> properties_;
  mutable detail::Mutex mutex_;
  std::vector<std::string> events_ ADBWIRE_GUARDED_BY(mutex_);
  std::vector<std::string> syntax_errors_ ADBWIRE_GUARDED_BY(mutex_);
  std::function<void(std::string_view)> on_event_;
  std::vector<std::string> missing_commands_;
  std::vector<std::string> missing_services_;
  std::multiset<std::string> processes_ ADBWIRE_GUARDED_BY(mutex_);  // holding UiAutomation
  std::multiset<std::string> other_processes_ ADBWIRE_GUARDED_BY(mutex_);
  std::vector<DevtoolsSocket> devtools_;
  std::vector<std::uint32_t> jdwp_pids_;
  SideloadMode sideload_ = SideloadMode::off;
  std::map<std::string, std::string, std::less<>> settings_
      ADBWIRE_GUARDED_BY(mutex_);  // "space/key"
  std::unique_ptr<ScreenGraph> screens_;
  std::uint64_t drop_after_bytes_ = 0;
  std::uint32_t sync_compression_flags_ = 0;
  bool corrupt_compressed_sync_ = false;
  HostileSync hostile_sync_ = HostileSync::none;
  HostileOutput hostile_output_ = HostileOutput::none;
  std::uint32_t displays_ = 1;
  bool legacy_pty_ = false;
  bool radios_locked_ = false;
  bool camera_app_ = true;
  std::atomic<bool> camera_open_{false};
  std::chrono::milliseconds auth_delay_{0};
  bool hang_up_on_refused_key_ = false;
  std::vector<std::string> refused_services_;
  std::atomic<DumperFault> dumper_fault_{DumperFault::none};
  std::atomic<std::uint32_t> dumper_fault_after_{0};
  DeviceStateStore state_;
};

// The CNXN features the virtual device implements (AOSP names), what it offers by default.
std::vector<std::string> implemented_features();

// The product properties the CNXN banner and getprop agree on.
inline constexpr std::string_view kProductName = "adbwire_vdevice";
inline constexpr std::string_view kProductModel = "adbwire_virtual";
inline constexpr std::string_view kProductDevice = "vdevice";

}  // namespace adbwire::vdevice
