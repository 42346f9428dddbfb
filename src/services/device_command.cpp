#include "services/device_command.hpp"

#include "adbwire/protocol/printable.hpp"
#include "connection/collected_output.hpp"

namespace adbwire::detail {

std::string trim(std::string_view text) {
  const std::size_t start = text.find_first_not_of(" \r\n");
  if (start == std::string_view::npos) return {};
  const std::size_t end = text.find_last_not_of(" \r\n");
  return std::string(text.substr(start, end - start + 1));
}

std::string quote_output(std::string_view output) {
  const std::string text = trim(output.substr(output.size() > 300 ? output.size() - 300 : 0));
  // A device's words in a message are shown, never acted on by a terminal.
  return text.empty() ? "no output" : "\"" + protocol::printable(text) + "\"";
}

std::string run_command(Device& device, std::string_view command, Deadline deadline,
                        OutputCheck check, Failure& failure, OutputBound bound) {
  ShellResult result = shell_output(device, command, bound, deadline, failure);
  if (failure) return {};
  const std::string all = result.out + result.err;
  const bool reported_as_text =
      check == OutputCheck::exit_status_and_text &&
      (all.find("Exception") != std::string::npos || all.find("Error:") != std::string::npos);
  if (result.exit_code > 0 || reported_as_text) {
    failure.set(errc::command_failed, "`" + std::string(command.substr(0, 120)) +
                                          (command.size() > 120 ? "…" : "") +
                                          "` failed on the device: " + quote_output(all));
    return {};
  }
  return std::move(result.out);
}

}  // namespace adbwire::detail
