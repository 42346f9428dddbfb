// `adbwire doctor`: what a rig operator runs first. Lists the USB devices with an ADB
// interface and whether this user can open them, whether an adb server runs (it would hold
// the USB devices), and which adb keys will be offered. Read-only: creates no key and claims
// no device for longer than a probe. Exit code 0 whenever the checks ran.
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "adbwire/adb_server.hpp"
#include "adbwire/error.hpp"
#include "adbwire/keys.hpp"
#include "adbwire/usb.hpp"
#include "cli/commands.hpp"
#include "cli/connect.hpp"
#include "cli/doctor_usb.hpp"
#include "cli/helper_option.hpp"
#include "cli/terminal_text.hpp"

namespace adbwire::cli {
namespace {

void check_usb() {
  std::error_code error;
  const std::vector<UsbDevice> devices = list_usb_devices(error);
  print(usb_report(devices, error).c_str());
}

void check_server(const GlobalOptions& globals) {
  std::error_code error;
  const ServerAddress address = resolve_server_address(server_address(globals), error);
  if (error) {
    print(
        format("adb server: the address is malformed (%s): check -H/-P, ADB_SERVER_SOCKET and "
               "ANDROID_ADB_SERVER_PORT\n",
               error.message().c_str()));
    return;
  }
  const std::string where = to_string(address);
  print(format("adb server (%s):\n", where.c_str()));
  const AdbServer server(address, std::chrono::seconds(3), error);
  const Deadline deadline = deadline_after(std::chrono::seconds(3));
  const int version = error ? 0 : server.version(deadline, error);
  if (error == errc::connection_refused) {
    print("  not running: usb: and tcp: targets work without it\n");
    return;
  }
  if (error) {
    print(format("  not usable: %s\n", error.message().c_str()));
    return;
  }
  print(
      format("  running, protocol version %d: it holds the USB devices it sees, so usb: targets "
             "for them report busy; use server:SERIAL or stop it with `adb kill-server`\n",
             version));
  const auto devices = server.devices(true, deadline, error);
  if (error) return;
  for (const auto& entry : devices) {
    print(
        format("  lists %s (%s)\n", shown(entry.serial).c_str(), shown(entry.state_text).c_str()));
  }
}

void check_keys() {
  print("adb keys:\n");
  KeyOptions options;
  options.generate_if_missing = false;
  const auto path = default_key_path(options);
  if (path.empty()) {
    print("  no home directory known: set HOME so adb's key can be found\n");
    return;
  }
  std::error_code error;
  const PrivateKey key = PrivateKey::load(path, error);
  if (error == errc::not_found) {
    print(format("  %s: missing; it is created on the first connect (or `adbwire keygen %s`)\n",
                 path.c_str(), path.c_str()));
  } else if (error) {
    print(format("  %s: unusable: %s\n", path.c_str(), error.message().c_str()));
  } else {
    print(
        format("  %s: present, fingerprint %s (the phone's \"Allow USB debugging\" dialog "
               "shows it)\n",
               path.c_str(), key.fingerprint().c_str()));
  }
  const auto keys = load_host_keys(options, error);
  if (!error) print(format("  %zu key(s) will be offered to devices\n", keys.size()));
}

}  // namespace

void add_doctor_command(CLI::App& app, const GlobalOptions& globals, Run& run) {
  auto* cmd = app.add_subcommand(
      "doctor", "check USB access, a running adb server and adb keys (run this first on a rig)");
  auto helper = std::make_shared<bool>(false);
  cmd->add_flag("--helper", *helper,
                "also try the on-device dumper on the device (-s TARGET): pushes it to "
                "/data/local/tmp, takes two snapshots through it and says whether it works");
  cmd->callback([&globals, &run, helper] {
    run = [&globals, helper] {
      check_usb();
      check_server(globals);
      check_keys();
      if (*helper) check_helper(globals);
      return 0;
    };
  });
}

}  // namespace adbwire::cli
