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
  if (status.problem.empty()) {
    std::printf("mdns daemon version [adbwire discovery %s]\n", ADBWIRE_VERSION);
    std::printf("%s on", status.shared_port
                             ? "listening on port 5353 (shared with other mDNS stacks), asking"
                             : "port 5353 is not shareable here: one-shot queries");
    for (const std::string& interface : status.interfaces) std::printf(" %s;", interface.c_str());
    std::printf("\n");
  } else {
    std::printf("ERROR: mdns discovery unavailable: %s\n", status.problem.c_str());
  }
  if (!status.adb_server.empty()) std::printf("adb server: %s\n", shown(status.adb_server).c_str());
  return status.problem.empty() || !status.adb_server.empty() ? 0 : 1;
}

// adb's header and one "INSTANCE\tSERVICE\tADDRESS:PORT" line per service.
int services(const MdnsOptions& options) {
  const std::vector<MdnsService> found = mdns_services(options);
  std::printf("List of discovered mdns services\n");
  for (const MdnsService& service : found) {
    std::printf("%s\t%s\t%s\n", shown(service.instance).c_str(), shown(service.service).c_str(),
                shown(service.address()).c_str());
  }
  return 0;
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
