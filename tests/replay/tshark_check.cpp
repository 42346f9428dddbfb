#include "replay/tshark_check.hpp"

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <regex>
#include <set>
#include <sstream>

namespace adbwire::replay_test {
namespace {

std::string run(const std::string& command, int& status) {
  std::string output;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    status = -1;
    return output;
  }
  std::array<char, 4096> buffer;
  std::size_t got = 0;
  while ((got = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    output.append(buffer.data(), got);
  const int raw = pclose(pipe);
  status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return output;
}

std::string line_of(std::uint32_t command, std::uint32_t arg0, std::uint32_t arg1,
                    std::size_t length) {
  char text[64];
  std::snprintf(text, sizeof text, "0x%08x 0x%08x 0x%08x %zu", command, arg0, arg1, length);
  return text;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::istringstream in(text);
  std::string part;
  while (std::getline(in, part, separator)) parts.push_back(part);
  return parts;
}

}  // namespace

bool have_tshark() {
  int status = 0;
  run("command -v tshark >/dev/null 2>&1", status);
  return status == 0;
}

Views decode_both(const std::filesystem::path& capture) {
  Views views;
  std::error_code error;
  const CaptureSummary summary = decode_capture_file(
      capture,
      [&](const CapturedMessage& m) {
        if (m.kind == CapturedKind::adb) {
          views.ours[m.direction].push_back(
              line_of(m.message.command, m.message.arg0, m.message.arg1, m.message.payload.size()));
        }
      },
      error);
  if (error) {
    views.problem = "adbwire cannot decode " + capture.string() + ": " + summary.fault.detail;
    return views;
  }

  // Which ports are device ports, or which USB devices: from our decoder's connection list.
  std::set<std::string> device_ports;
  std::set<std::string> usb_devices;
  const std::regex tcp_pattern(R"(tcp \S+:(\d+) > \S+:(\d+))");
  const std::regex usb_pattern(R"(usb bus (\d+) device (\d+))");
  for (const CaptureConnection& connection : summary.connections) {
    std::smatch match;
    if (std::regex_search(connection.description, match, tcp_pattern)) {
      device_ports.insert(match[2]);
    } else if (std::regex_search(connection.description, match, usb_pattern)) {
      char id[16];
      std::snprintf(id, sizeof id, "0x%04x%04x", std::stoi(match[1]), std::stoi(match[2]));
      usb_devices.insert(id);
    }
  }
  if (device_ports.empty() == usb_devices.empty()) {
    views.problem = capture.string() + ": expected TCP or USB connections only, found " +
                    std::to_string(summary.connections.size()) + " connection(s)";
    return views;
  }
  const bool tcp = !device_ports.empty();
  for (const std::string& port : device_ports) views.decode_as += " -d tcp.port==" + port + ",adb";
  for (const std::string& device : usb_devices)
    views.decode_as += " -d usb.device==" + device + ",adb";

  std::filesystem::path file = capture;
  std::filesystem::path plain;
  if (capture.extension() == ".zst") {
    std::random_device random;
    plain = std::filesystem::temp_directory_path() /
            ("adbwire-replay-" + std::to_string(random()) + ".pcapng");
    int status = 0;
    run("zstd -q -d -c '" + capture.string() + "' > '" + plain.string() + "'", status);
    if (status != 0) {
      views.problem =
          "cannot decompress " + capture.string() + ": install zstd (`apt-get install zstd`)";
      std::filesystem::remove(plain, error);
      return views;
    }
    file = plain;
  }
  int status = 0;
  const std::string out =
      run("tshark -r '" + file.string() + "'" + views.decode_as +
              " -Y adb.magic -T fields -E occurrence=a -E aggregator=, " +
              (tcp ? "-e tcp.dstport" : "-e usb.endpoint_address.direction") +
              " -e adb.command -e adb.argument.0 -e adb.argument.1 -e adb.data_length 2>&1",
          status);
  if (!plain.empty()) std::filesystem::remove(plain, error);
  if (status != 0) {
    views.problem = "tshark failed on " + capture.string() + ": " + out;
    return views;
  }
  for (const std::string& line : split(out, '\n')) {
    if (line.starts_with("Running as user")) continue;  // tshark's warning when run as root
    const std::vector<std::string> columns = split(line, '\t');
    if (columns.size() != 5) {
      views.problem = "unexpected tshark line: " + line;
      return views;
    }
    const bool to_device = tcp ? device_ports.contains(columns[0]) : columns[0] == "0";
    const auto commands = split(columns[1], ',');
    const auto arg0 = split(columns[2], ',');
    const auto arg1 = split(columns[3], ',');
    const auto lengths = split(columns[4], ',');
    for (std::size_t i = 0; i < commands.size(); ++i) {
      views.tshark[to_device ? CaptureDirection::host_to_device : CaptureDirection::device_to_host]
          .push_back(line_of(static_cast<std::uint32_t>(std::stoul(commands[i], nullptr, 16)),
                             static_cast<std::uint32_t>(std::stoul(arg0.at(i), nullptr, 16)),
                             static_cast<std::uint32_t>(std::stoul(arg1.at(i), nullptr, 16)),
                             std::stoul(lengths.at(i))));
    }
  }
  return views;
}

}  // namespace adbwire::replay_test
