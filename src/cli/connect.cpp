#include "cli/connect.hpp"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <utility>

#include "adbwire/error.hpp"

namespace adbwire::cli {

ServerAddress server_address(const GlobalOptions& globals) {
  if (globals.port < 0 || globals.port > 65535)
    throw Error(errc::invalid_argument,
                "-P " + std::to_string(globals.port) + " is not a port 1..65535");
  return ServerAddress{globals.host, static_cast<std::uint16_t>(globals.port)};
}

ConnectOptions connect_options(const GlobalOptions& globals) {
  ConnectOptions options;
  options.server = server_address(globals);
  options.record = globals.record;
  if (globals.auth_timeout >= 0) {
    options.auth_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::duration<double>(globals.auth_timeout));
  }
  return options;
}

Device connect_device(const GlobalOptions& globals) { return globals.connector(globals); }

std::string join_command(const std::vector<std::string>& words) {
  std::string command;
  for (const std::string& word : words) {
    if (!command.empty()) command += ' ';
    command += word;
  }
  return command;
}

Deadline deadline_in_seconds(double seconds) {
  if (seconds <= 0) return kNoDeadline;
  return deadline_after(std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::duration<double>(seconds)));
}

void add_timeout_option(CLI::App& cmd, TimeoutOption& timeout, const std::string& names,
                        std::string help) {
  if (help.empty()) {
    help = timeout.fallback == kNoDeadline
               ? "give up after this many seconds (default: wait)"
               : "give up after this many seconds (default: the command timeout)";
  }
  cmd.add_option(names, timeout.seconds, std::move(help));
}

OutputHandler write_to(std::FILE* file) {
  return [file](std::span<const std::uint8_t> data) {
    if (std::fwrite(data.data(), 1, data.size(), file) == data.size() && std::fflush(file) == 0)
      return;
    const int error = errno;
    if (error == EPIPE) throw OutputClosed{};
    throw Error(errc::io_error,
                std::string("cannot write the device's output: ") + std::strerror(error));
  };
}

}  // namespace adbwire::cli
