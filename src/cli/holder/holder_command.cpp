// adbwire holder: the connection holder process, started by the front program on a one-shot
// call's first use of a target (holder_server.hpp). Not listed in --help: nobody types it.
#include <memory>

#include "cli/commands.hpp"
#include "cli/connect.hpp"
#include "cli/holder/holder_server.hpp"

namespace adbwire::cli {
namespace {

struct HolderArgs {
  int idle = 1800;
  int open_wait = 30;
  int ready_fd = -1;
};

}  // namespace

void add_holder_command(CLI::App& app, const GlobalOptions& globals, Run& run) {
  auto args = std::make_shared<HolderArgs>();
  auto* cmd = app.add_subcommand(
      "holder", "hold the connection to -s TARGET for one-shot commands (adbwire starts it)");
  cmd->group("");
  cmd->add_option("--idle", args->idle, "end after this many seconds without a client")
      ->check(CLI::Range(1, 7 * 24 * 3600));
  cmd->add_option("--open-wait", args->open_wait,
                  "seconds to wait for the device to open a stream (two waits in a row that pass "
                  "make it connect again)")
      ->check(CLI::Range(1, 7 * 24 * 3600));
  cmd->add_option("--ready-fd", args->ready_fd, "descriptor that gets OKAY or FAIL once connected")
      ->required()
      ->check(CLI::NonNegativeNumber);
  cmd->callback([args, &globals, &run] {
    run = [args, &globals] {
      holder::HolderOptions options;
      options.target = globals.serial;
      options.connect = connect_options(globals);
      options.idle = std::chrono::seconds(args->idle);
      options.open_wait = std::chrono::seconds(args->open_wait);
      options.ready_fd = args->ready_fd;
      return holder::serve_holder(options);
    };
  });
}

}  // namespace adbwire::cli
