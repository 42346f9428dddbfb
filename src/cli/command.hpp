// The CLI is a table of subcommands (see commands.hpp), one small file each.
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace adbwire {
class Device;
}

namespace adbwire::cli {

struct GlobalOptions;

// How a program reaches the device of -s: both through the daemon (daemon_connect.hpp), the full
// program directly when the call opts out or the target is an adb server's
// (connect_from_full_program, connect.hpp). Each program's main() sets GlobalOptions::connector.
using DeviceConnector = Device (*)(const GlobalOptions& globals);

// adb-style global flags, shared by every subcommand (program.hpp registers them).
struct GlobalOptions {
  std::string serial;        // -s TARGET (or ANDROID_SERIAL)
  bool usb_only = false;     // -d: the only USB device, as adb -d
  bool tcp_only = false;     // -e: the only TCP (or emulator) device, as adb -e
  std::string transport_id;  // -t ID: a transport id devices -l shows
  std::string host;          // -H adb server host
  int port = 0;              // -P adb server port (0 = ANDROID_ADB_SERVER_PORT or 5037)
  std::string record;        // --record FILE.pcapng: record the connection's every byte
  double auth_timeout = -1;  // --auth-timeout SECONDS for a person to accept the key (<0: default)
  std::string session;       // --session NAME: the session verbs run in ("" = the default one)
  bool no_daemon = false;    // --no-daemon (alias --no-holder): connect directly, not through
                             // the daemon
  std::vector<std::string> max_output;  // --max-output KIND=BYTES: raise an OutputLimits bound
  // The words after a command that reads its own arguments as adb does (shell, exec-out): they
  // never reach CLI11, so `--`, `-h` and unknown flags mean there what they mean to adb.
  std::vector<std::string> command_words;
  DeviceConnector connector = nullptr;
  // The full program (adbwire-full), whose file names this user's daemon (daemon_identity) and
  // which starts it; set by each main().
  std::filesystem::path full_program;
};

// What a subcommand's parse hands back: the work to run, returning the process exit code.
using Run = std::function<int()>;

// Registers one subcommand on app; its callback stores the work into run.
using AddCommand = void (*)(CLI::App& app, const GlobalOptions& globals, Run& run);

}  // namespace adbwire::cli
