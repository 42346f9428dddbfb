// reverse:forward:[norebind:]LOCAL;REMOTE, reverse:killforward:LOCAL, reverse:killforward-all
// and reverse:list-forward, answered as adbd does: "OKAY", or "FAIL" and a hex4-length
// message; list-forward sends just the hex4-length listing.
#include <cstdio>

#include "base/shell_quote.hpp"
#include "vdevice/device_state_commands.hpp"
#include "vdevice/reverse_rules.hpp"

namespace adbwire::vdevice {
namespace {

std::string hex4(std::size_t n) {
  char text[8];
  std::snprintf(text, sizeof text, "%04zx", n);
  return text;
}

std::string fail(const std::string& message) { return "FAIL" + hex4(message.size()) + message; }

// A forward spec the virtual device can serve: tcp:N, localabstract:NAME, … (non-empty after ':').
bool valid_spec(std::string_view spec) {
  const std::size_t colon = spec.find(':');
  return colon != std::string_view::npos && colon > 0 && colon + 1 < spec.size();
}

std::string answer(std::string_view command, ReverseRules& rules) {
  if (command == "list-forward") {
    std::string listing;
    for (const auto& [local, remote] : rules.list())
      listing += "(reverse) " + local + " " + remote + "\n";
    // adbd sends no OKAY before the listing (only an adb server does, for host:list-forward).
    return hex4(listing.size()) + listing;
  }
  if (command == "killforward-all") {
    rules.remove_all();
    return "OKAY";
  }
  if (command.starts_with("killforward:")) {
    const std::string local(command.substr(12));
    return rules.remove(local) ? "OKAY" : fail("listener '" + local + "' not found");
  }
  if (command.starts_with("forward:")) {
    std::string_view spec = command.substr(8);
    const bool no_rebind = spec.starts_with("norebind:");
    if (no_rebind) spec.remove_prefix(9);
    const std::size_t semicolon = spec.find(';');
    if (semicolon == std::string_view::npos || !valid_spec(spec.substr(0, semicolon)) ||
        !valid_spec(spec.substr(semicolon + 1))) {
      return fail("malformed forward spec '" + std::string(spec) + "'");
    }
    const std::string error = rules.add(std::string(spec.substr(0, semicolon)),
                                        std::string(spec.substr(semicolon + 1)), no_rebind);
    return error.empty() ? "OKAY" : fail(error);
  }
  return fail("unknown reverse command '" + std::string(command) + "'");
}

}  // namespace

std::shared_ptr<Service> make_reverse_service(std::string_view destination, ServiceHost& host,
                                              std::uint32_t stream) {
  if (!destination.starts_with("reverse:")) return nullptr;
  return make_reply_service(host, stream, answer(destination.substr(8), host.reverse_rules()),
                            false);
}

// abb_exec:SERVICE\0ARG\0…: the binder bridge runs `cmd SERVICE ARG…` with raw stdin/stdout,
// so the virtual device runs that command line as exec: would.
std::shared_ptr<Service> make_abb_exec_service(std::string_view destination, ServiceHost& host,
                                               std::uint32_t stream) {
  if (!destination.starts_with("abb_exec:")) return nullptr;
  std::string command = "exec:cmd";
  std::string_view args = destination.substr(9);
  while (!args.empty()) {
    const std::size_t nul = args.find('\0');
    command += " " + detail::shell_quote(args.substr(0, nul));
    args = nul == std::string_view::npos ? std::string_view() : args.substr(nul + 1);
  }
  return make_shell_service(command, host, stream);
}

}  // namespace adbwire::vdevice
