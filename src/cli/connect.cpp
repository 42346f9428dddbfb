#include "cli/connect.hpp"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <utility>

#include "adbwire/error.hpp"
#include "adbwire/target.hpp"

namespace adbwire::cli {

ServerAddress server_address(const GlobalOptions& globals) {
  if (globals.port < 0 || globals.port > 65535)
    throw Error(errc::invalid_argument,
                "-P " + std::to_string(globals.port) + " is not a port 1..65535");
  return ServerAddress{globals.host, static_cast<std::uint16_t>(globals.port)};
}

OutputLimits output_limits(const GlobalOptions& globals) {
  OutputLimits limits;
  for (const std::string& given : globals.max_output) {
    const std::size_t equals = given.find('=');
    std::size_t* field =
        equals == std::string::npos ? nullptr : output_limit(limits, given.substr(0, equals));
    const std::string number = equals == std::string::npos ? "" : given.substr(equals + 1);
    std::size_t bytes = 0;
    std::size_t at = 0;
    while (at < number.size() && number[at] >= '0' && number[at] <= '9' &&
           bytes < (std::size_t{1} << 50)) {
      bytes = bytes * 10 + static_cast<std::size_t>(number[at++] - '0');
    }
    const std::string_view suffix = std::string_view(number).substr(at);
    const int shift = suffix.empty()                   ? 0
                      : suffix == "K" || suffix == "k" ? 10
                      : suffix == "M"                  ? 20
                      : suffix == "G"                  ? 30
                                                       : -1;
    if (field == nullptr || at == 0 || shift < 0 || bytes == 0 ||
        bytes > (std::size_t{1} << (50 - shift))) {
      throw Error(errc::invalid_argument,
                  "--max-output " + given + ": write KIND=BYTES with KIND one of " +
                      std::string(output_limit_names()) + " and BYTES a number with K, M or G");
    }
    *field = bytes << shift;
  }
  return limits;
}

ConnectOptions connect_options(const GlobalOptions& globals) {
  ConnectOptions options;
  options.limits = output_limits(globals);
  options.server = server_address(globals);
  options.record = globals.record;
  if (globals.auth_timeout >= 0) {
    options.auth_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::duration<double>(globals.auth_timeout));
  }
  return options;
}

Device connect_device(const GlobalOptions& globals) { return globals.connector(globals); }

std::string named_target(const GlobalOptions& globals) {
  return !globals.serial.empty() ? globals.serial : default_serial();
}

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
