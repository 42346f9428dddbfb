#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "adbwire/error.hpp"
#include "adbwire/pairing.hpp"
#include "cli/commands.hpp"
#include "cli/pair_qr.hpp"
#include "cli/terminal_text.hpp"

namespace adbwire::cli {
namespace {

struct PairArgs {
  std::string address;
  std::string code;
  double timeout = 15;
  bool qr = false;
  double wait = 120;
};

// adb's prompt when no code is given: one line from standard input.
std::string read_code() {
  print("Enter pairing code: ");
  std::string code;
  if (!std::getline(std::cin, code) || code.empty()) {
    throw adbwire::Error(errc::invalid_argument, "no pairing code provided");
  }
  if (code.back() == '\r') code.pop_back();
  return code;
}

}  // namespace

void add_pair_command(CLI::App& app, const GlobalOptions&, Run& run) {
  auto args = std::make_shared<PairArgs>();
  auto* cmd = app.add_subcommand(
      "pair",
      "pair with a phone for Wireless debugging (adb pair): HOST:PORT and the code its "
      "\"Pair device with pairing code\" dialog shows (the code is read from standard input when "
      "not given), or --qr");
  cmd->add_option("HOST:PORT", args->address, "the pairing address the dialog shows");
  cmd->add_option("CODE", args->code, "the pairing code");
  cmd->add_option("-t,--timeout", args->timeout, "give up after this many seconds (default 15)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--qr", args->qr,
                "show a QR code for the phone's \"Pair device with QR code\" instead, find the "
                "phone by mDNS, pair and connect");
  cmd->add_option("--wait", args->wait,
                  "with --qr: seconds to wait for the phone to scan the code (default 120)")
      ->check(CLI::PositiveNumber);
  cmd->callback([args, &run] {
    if (args->qr != args->address.empty()) {
      throw CLI::ValidationError("pair", "give HOST:PORT [CODE], or --qr alone");
    }
    run = [args] {
      PairOptions options;
      options.timeout = std::chrono::milliseconds(static_cast<long long>(args->timeout * 1000));
      if (args->qr) {
        return pair_by_qr(options,
                          std::chrono::milliseconds(static_cast<long long>(args->wait * 1000)));
      }
      const std::string code = args->code.empty() ? read_code() : args->code;
      const PairResult result = pair(args->address, code, options);
      return print("Successfully paired to " + result.address + " [guid=" + result.guid +
                   "]\nNext: adbwire -s HOST:PORT shell, with the address under Wireless "
                   "debugging's \"IP address & Port\" (the connect port, not the pairing port); "
                   "the phone now takes this computer's key with no prompt.\n")
                 ? 0
                 : 1;
    };
  });
}

}  // namespace adbwire::cli
