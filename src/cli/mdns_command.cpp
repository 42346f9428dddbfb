#include <cstdio>
#include <memory>
#include <string>

#include "adbwire/mdns.hpp"
#include "cli/commands.hpp"
#include "cli/connect.hpp"
#include "cli/terminal_text.hpp"

namespace adbwire::cli {
namespace {

struct MdnsArgs {
  double listen = 1;
};

MdnsOptions mdns_options(const GlobalOptions& globals, const MdnsArgs& args) {
  MdnsOptions options;
  options.adb_server = server_address(globals);
  options.listen = std::chrono::milliseconds(static_cast<long long>(args.listen * 1000));
  return options;
}

// adb's first line, then what adbwire's discovery can use here and the adb server's own answer.
int check(const MdnsOptions& options) {
  const MdnsStatus status = mdns_check(options);
  std::string text;
  if (status.problem.empty()) {
    text = "mdns daemon version [adbwire discovery " ADBWIRE_VERSION "]\n";
    text += status.shared_port ? "listening on port 5353 (shared with other mDNS stacks), asking on"
                               : "port 5353 is not shareable here: one-shot queries on";
    for (const std::string& interface : status.interfaces) text += " " + interface + ";";
    text += "\n";
  } else {
    text = "ERROR: mdns discovery unavailable: " + status.problem + "\n";
  }
  if (!status.adb_server.empty()) text += "adb server: " + status.adb_server + "\n";
  print(text);
  return status.problem.empty() || !status.adb_server.empty() ? 0 : 1;
}

// adb's header and one "INSTANCE\tSERVICE\tADDRESS:PORT" line per service.
int services(const MdnsOptions& options) {
  const std::vector<MdnsService> found = mdns_services(options);
  bool written = print("List of discovered mdns services\n");
  for (const MdnsService& service : found)
    written = print_fields({service.instance, service.service, service.address()}) && written;
  return written ? 0 : 1;
}

}  // namespace

void add_mdns_command(CLI::App& app, const GlobalOptions& globals, Run& run) {
  auto args = std::make_shared<MdnsArgs>();
  auto* cmd = app.add_subcommand(
      "mdns", "find phones in Wireless debugging by multicast DNS (adb mdns), with no daemon");
  cmd->require_subcommand(1);
  auto* check_cmd = cmd->add_subcommand("check", "check if mdns discovery is available");
  auto* services_cmd = cmd->add_subcommand(
      "services",
      "list all discovered services: the phones' pairing (_adb-tls-pairing._tcp) and connect "
      "(_adb-tls-connect._tcp) ports, and adb tcpip ones (_adb._tcp); an adb server's are added");
  services_cmd->add_option("--listen", args->listen, "seconds to listen for answers (default 1)")
      ->check(CLI::Range(0.1, 60.0));
  check_cmd->callback([args, &globals, &run] {
    run = [args, &globals] { return check(mdns_options(globals, *args)); };
  });
  services_cmd->callback([args, &globals, &run] {
    run = [args, &globals] { return services(mdns_options(globals, *args)); };
  });
}

}  // namespace adbwire::cli
