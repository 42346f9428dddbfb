#include <cstdio>
#include <exception>

#include "adbwire/error.hpp"
#include "cli/commands.hpp"

int main(int argc, char** argv) {
  using namespace adbwire::cli;
  CLI::App app{"adbwire: control Android devices over the ADB wire protocol, no adb binary"};
  app.require_subcommand(1);
  GlobalOptions globals;
  app.add_option(
      "-s", globals.serial,
      "target: tcp:HOST[:PORT], usb:[SERIAL], server:[HOST:PORT/]SERIAL (default $ANDROID_SERIAL)");
  app.add_option("-H", globals.host, "adb server host (like adb -H)");
  app.add_option("-P", globals.port, "adb server port (like adb -P)");
  app.add_option(
      "--record", globals.record,
      "record every byte of the connection (or, for vdevice, of every host connection) as pcapng");
  Run run;
  for (AddCommand add : kCommands) add(app, globals, run);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    return run ? run() : 0;
  } catch (const adbwire::Error& e) {
    std::fprintf(stderr, "adbwire: error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "adbwire: error: %s\n", e.what());
    return 1;
  }
}
