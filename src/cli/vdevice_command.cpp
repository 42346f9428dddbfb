#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "adbwire/error.hpp"
#include "adbwire/testing/vdevice.hpp"
#include "base/number.hpp"
#include "cli/commands.hpp"
#include "cli/terminal_text.hpp"

namespace adbwire::cli {
namespace {

struct VdeviceArgs {
  VirtualDeviceOptions options;
  std::string profile = "default";
  std::string auth = "none";
  std::string hostile_sync = "none";
  std::string mdns_txt = "normal";
  std::string hostile_output = "none";
  std::vector<std::string> apps;
  int port = 0;
  bool print_events = false;
};

// --app PACKAGE:VERSIONCODE:LABEL:APK (the APK's path may hold ':' itself).
InstalledApp parse_app(const std::string& text) {
  InstalledApp app;
  const std::size_t first = text.find(':');
  const std::size_t second = text.find(':', first + 1);
  const std::size_t third = second == std::string::npos ? second : text.find(':', second + 1);
  const auto version = third == std::string::npos
                           ? std::nullopt
                           : detail::parse_number<std::uint64_t>(
                                 std::string_view(text).substr(first + 1, second - first - 1));
  if (!version || first == 0) {
    throw Error(errc::invalid_argument, "--app takes PACKAGE:VERSIONCODE:LABEL:APK");
  }
  app.package = text.substr(0, first);
  app.version_code = *version;
  app.label = text.substr(second + 1, third - second - 1);
  app.apk = text.substr(third + 1);
  return app;
}

int run_vdevice(const VdeviceArgs& args) {
  VirtualDeviceOptions options = args.options;
  apply_profile(options, args.profile);
  if (!args.options.features.empty()) options.features = args.options.features;
  options.port = static_cast<std::uint16_t>(args.port);
  for (const std::string& app : args.apps) options.apps.push_back(parse_app(app));
  options.auth_required = args.auth == "required";
  parse_hostile_sync(args.hostile_sync, options.hostile_sync);        // checked by IsMember
  parse_hostile_output(args.hostile_output, options.hostile_output);  // checked by IsMember
  if (args.print_events) {
    options.on_event = [](std::string_view line) {
      print(format("event: %.*s\n", static_cast<int>(line.size()), line.data()));
    };
  }

  // Block the signals before the I/O thread starts (it inherits the mask), so only
  // sigwait below receives them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  VirtualDevice device(options);
  device.start();
  print(format("adbwire vdevice listening on %s\n", device.target().c_str()));
  if (device.pairing_port() != 0) {
    print(format("pairing on %s:%u, guid %s\n", options.address.c_str(),
                 static_cast<unsigned>(device.pairing_port()), device.guid().c_str()));
  }
  if (options.mdns) print(format("advertised by mDNS as %s\n", device.guid().c_str()));

  int received = 0;
  sigwait(&signals, &received);
  device.stop();
  return 0;
}

}  // namespace

void add_vdevice_command(CLI::App& app, const GlobalOptions& globals, Run& run) {
  auto args = std::make_shared<VdeviceArgs>();
  auto* cmd = app.add_subcommand(
      "vdevice", "serve a virtual Android device over ADB on a TCP port (until Ctrl-C)");
  cmd->add_option("--port", args->port, "TCP port to listen on (0 = any free port)")
      ->check(CLI::Range(0, 65535));
  cmd->add_option("--address", args->options.address, "address to listen on")
      ->capture_default_str();
  cmd->add_option("--serial", args->options.serial, "what getprop ro.serialno reports")
      ->capture_default_str();
  cmd->add_option("--auth", args->auth, "require RSA authentication like a phone: required|none")
      ->check(CLI::IsMember({"required", "none"}))
      ->capture_default_str();
  cmd->add_option("--keys", args->options.keys_file,
                  "adb_keys file: one adbkey.pub line per accepted host key");
  cmd->add_flag("--accept-new-keys", args->options.accept_new_keys,
                "accept (and append to --keys) any public key a host offers");
  cmd->add_option("--pairing-code", args->options.pairing_code,
                  "serve Wireless debugging's pairing with this code (adb pair); a paired host's "
                  "key is appended to --keys");
  cmd->add_option("--pairing-port", args->options.pairing_port,
                  "the pairing service's port (0 = any free port)");
  cmd->add_option("--guid", args->options.guid,
                  "the Wireless debugging id (default: adb-SERIAL- and six random characters)");
  cmd->add_flag(
      "--mdns", args->options.mdns,
      "advertise by multicast DNS as a phone in Wireless debugging does (the port as "
      "_adb-tls-connect._tcp with --tls, else _adb._tcp; pairing as _adb-tls-pairing._tcp)");
  cmd->add_option("--mdns-txt", args->mdns_txt,
                  "its TXT records: normal (adbd's v, name, api), none, or broken (as old adbd)")
      ->check(CLI::IsMember({"normal", "none", "broken"}))
      ->capture_default_str();
  cmd->add_flag("--tls", args->options.tls,
                "Wireless debugging port: answer CNXN with STLS, then TLS 1.3 for hosts whose key "
                "is in --keys");
  cmd->add_option("--screens", args->options.screens,
                  "screen graph folder that taps, keys and text move through "
                  "(src/vdevice/screens/demo: a 3-screen app)");
  cmd->add_option(
         "--features", args->options.features,
         "CNXN features to offer, comma separated (default: all the virtual device implements)")
      ->delimiter(',');
  std::string profiles;
  for (const VirtualDeviceProfile& profile : virtual_device_profiles())
    profiles += "\n  " + std::string(profile.name) + ": " + std::string(profile.description);
  cmd->add_option("--profile", args->profile,
                  "play an older or odd device (--features still overrides):" + profiles)
      ->capture_default_str();
  std::vector<std::string> hostile_modes;
  for (HostileSync mode :
       {HostileSync::none, HostileSync::traversal_names, HostileSync::climbing_folder,
        HostileSync::special_modes, HostileSync::endless_listing, HostileSync::endless_long_names,
        HostileSync::endless_tree, HostileSync::escape_names, HostileSync::bomb}) {
    hostile_modes.emplace_back(to_string(mode));
  }
  cmd->add_option("--hostile-sync", args->hostile_sync,
                  "answer sync with crafted data, to try a host against a hostile device")
      ->check(CLI::IsMember(hostile_modes))
      ->capture_default_str();
  std::vector<std::string> output_modes;
  for (HostileOutput mode :
       {HostileOutput::none, HostileOutput::endless, HostileOutput::escapes,
        HostileOutput::short_ranges, HostileOutput::long_ranges, HostileOutput::shifted_ranges})
    output_modes.emplace_back(to_string(mode));
  cmd->add_option("--hostile-output", args->hostile_output,
                  "answer the commands a host reads whole (dump, getprop, dumpsys, pm list, "
                  "logcat -d) without end, or with terminal escapes in their text; or answer "
                  "dd's ranges a byte short, too long or from the wrong offset")
      ->check(CLI::IsMember(output_modes))
      ->capture_default_str();
  cmd->add_option("--app", args->apps,
                  "install an app from an APK file: PACKAGE:VERSIONCODE:LABEL:APK (pm path, "
                  "dumpsys package and the dumper's labels name it; repeatable)");
  cmd->add_flag("--print-events", args->print_events,
                "print each input/am/monkey/cmd line the device runs as `event: LINE` on stdout");
  cmd->add_option(
      "--root", args->options.root,
      "host folder backing the device file system (default: a temporary folder, removed at exit)");
  cmd->callback([&run, &globals, args] {
    args->options.record = globals.record;
    args->options.mdns_txt = args->mdns_txt == "none"     ? MdnsTxt::none
                             : args->mdns_txt == "broken" ? MdnsTxt::broken
                                                          : MdnsTxt::normal;
    run = [args] { return run_vdevice(*args); };
  });
}

}  // namespace adbwire::cli
