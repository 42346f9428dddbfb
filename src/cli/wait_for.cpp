#include "cli/wait_for.hpp"

#include <chrono>
#include <thread>
#include <vector>

#include "adbwire/device.hpp"
#include "adbwire/error.hpp"
#include "cli/connect.hpp"

namespace adbwire::cli {
namespace {

std::vector<std::string> split_dashes(std::string_view word) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t dash; (dash = word.find('-', start)) != std::string_view::npos;
       start = dash + 1) {
    parts.emplace_back(word.substr(start, dash - start));
  }
  parts.emplace_back(word.substr(start));
  return parts;
}

}  // namespace

std::string wait_for_problem(std::string_view word) {
  std::vector<std::string> parts = split_dashes(word);
  if (parts.size() < 3 || parts.size() > 4)
    return "couldn't parse 'wait-for' command: " + std::string(word);
  if (parts.size() == 4 && parts[2] != "any" && parts[2] != "local" && parts[2] != "usb")
    return "unknown type " + parts[2] + "; expected 'any', 'local', or 'usb'";
  const std::string& state = parts.back();
  if (state != "any" && state != "bootloader" && state != "device" && state != "recovery" &&
      state != "rescue" && state != "sideload" && state != "disconnect") {
    return "unknown state " + state +
           "; expected 'any', 'bootloader', 'device', 'recovery', 'rescue', 'sideload', or "
           "'disconnect'";
  }
  return {};
}

void wait_for(GlobalOptions globals, std::string_view word) {
  const std::vector<std::string> parts = split_dashes(word);
  if (parts.size() == 4 && parts[2] == "usb") globals.usb_only = true;
  if (parts.size() == 4 && parts[2] == "local") globals.tcp_only = true;
  const std::string& state = parts.back();
  for (;;) {
    try {
      const Device device = connect_device(globals);
      if (state == "any" || device.banner().system_type == state) return;
    } catch (const Error& e) {
      if (e.code() == errc::invalid_argument) throw;
      if (state == "disconnect") return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
}

}  // namespace adbwire::cli
