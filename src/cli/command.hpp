// The CLI is a table of subcommands (see commands.hpp), one small file each.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace adbwire {
class Device;
}

namespace adbwire::cli {

struct GlobalOptions;

// How a program reaches the device of -s: the full program connects directly
// (connect_directly, connect.hpp); the lean front through the connection holder
// (front/front_connect.hpp). Each program's main() sets GlobalOptions::connector.
using DeviceConnector = Device (*)(const GlobalOptions& globals);

// adb-style global flags, shared by every subcommand (program.hpp registers them).
struct GlobalOptions {
  std::string serial;        // -s TARGET (or ANDROID_SERIAL)
  std::string host;          // -H adb server host
  int port = 0;              // -P adb server port (0 = ANDROID_ADB_SERVER_PORT or 5037)
  std::string record;        // --record FILE.pcapng: record the connection's every byte
  double auth_timeout = -1;  // --auth-timeout SECONDS for a person to accept the key (<0: default)
  std::string session;       // --session NAME: the session verbs run in ("" = the default one)
  bool no_holder = false;    // --no-holder: connect directly, never through a connection holder
  std::vector<std::string> max_output;  // --max-output KIND=BYTES: raise an OutputLimits bound
  DeviceConnector connector = nullptr;
};

// What a subcommand's parse hands back: the work to run, returning the process exit code.
using Run = std::function<int()>;

// Registers one subcommand on app; its callback stores the work into run.
using AddCommand = void (*)(CLI::App& app, const GlobalOptions& globals, Run& run);

}  // namespace adbwire::cli
