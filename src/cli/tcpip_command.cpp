#include <cstdio>
#include <memory>
#include <string>

#include "adbwire/device_state.hpp"
#include "cli/commands.hpp"
#include "cli/connect.hpp"
#include "cli/terminal_text.hpp"

namespace adbwire::cli {
namespace {

struct TcpipArgs {
  int port = 0;
  TimeoutOption timeout;
};

}  // namespace

void add_tcpip_command(CLI::App& app, const GlobalOptions& globals, Run& run) {
  auto args = std::make_shared<TcpipArgs>();
  auto* cmd = app.add_subcommand(
      "tcpip", "restart adbd listening on TCP PORT (adb tcpip 5555); prints the answer");
  cmd->add_option("port", args->port, "the TCP port")->required()->check(CLI::Range(1, 65535));
  add_timeout_option(*cmd, args->timeout);
  cmd->callback([args, &globals, &run] {
    run = [args, &globals] {
      Device device = connect_device(globals);
      const Deadline deadline = args->timeout.deadline();
      print(tcpip(device, static_cast<std::uint16_t>(args->port), deadline));
      return 0;
    };
  });
}

}  // namespace adbwire::cli
