// adbwire sideload FILE: adb's sideload-host protocol (client/commandline.cpp adb_sideload_host),
// served to a device in recovery's sideload mode. The device asks for blocks of the package by
// number (eight decimal digits), we answer with the block's bytes (the last one short), and
// "DONEDONE" (or "FAILFAIL", recovery's refusal) ends it. What adb prints, where it prints it:
// the serving line with its rough percentage on stdout, redrawn with "\r", then "Total xfer".
// The device is untrusted: a block number that is not eight digits or lies past the end of the
// file ends the transfer with a typed error, and every read of a request has a deadline.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "adbwire/error.hpp"
#include "adbwire/protocol/printable.hpp"
#include "adbwire/stream.hpp"
#include "cli/commands.hpp"
#include "cli/connect.hpp"
#include "cli/terminal_text.hpp"

namespace adbwire::cli {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// adb's SIDELOAD_HOST_BLOCK_SIZE.
constexpr std::uint64_t kBlockSize = 64 * 1024;
// How long recovery may think between two requests: verifying a signature or writing a large
// partition reads nothing for a while, a device that hung must still end the command.
constexpr auto kRequestWait = 300s;

// Reads exactly size bytes, or throws: device_offline when the device ends the stream first.
std::string read_exactly(Stream& stream, std::size_t size) {
  std::string out(size, '\0');
  std::size_t have = 0;
  while (have < size) {
    const std::size_t n =
        stream.read_some(std::span(reinterpret_cast<std::uint8_t*>(out.data()) + have, size - have),
                         deadline_after(kRequestWait));
    if (n == 0) {
      throw Error(errc::device_offline,
                  "sideload: the device ended the transfer before asking for the next block");
    }
    have += n;
  }
  return out;
}

int sideload(const GlobalOptions& globals, const std::string& path) {
  std::error_code error;
  const std::uint64_t size = fs::file_size(path, error);
  if (error) {
    print_error("adbwire: failed to stat file " + path + ": " + error.message());
    return 1;
  }
  std::ifstream package(path, std::ios::binary);
  if (!package) {
    print_error("adbwire: failed to open file " + path);
    return 1;
  }
  Device device = connect_device(globals);
  Stream stream =
      device.open("sideload-host:" + std::to_string(size) + ":" + std::to_string(kBlockSize));
  const OutputHandler out = write_to(stdout);
  const auto say = [&out](const std::string& text) {
    out(std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
  };
  const std::string name = protocol::printable(path);
  std::vector<char> block(kBlockSize);
  std::uint64_t sent = 0;
  int last_percent = -1;
  for (;;) {
    const std::string request = read_exactly(stream, 8);
    if (request == "DONEDONE" || request == "FAILFAIL") {
      say(format("\rTotal xfer: %.2fx%*s\n",
                 static_cast<double>(sent) / static_cast<double>(size ? size : 1),
                 static_cast<int>(name.size() + 10), ""));
      return request == "DONEDONE" ? 0 : 1;
    }
    if (request.find_first_not_of("0123456789") != std::string::npos) {
      throw Error(errc::protocol_error, "sideload: the device asked for block '" +
                                            protocol::printable(request) + "', not a block number");
    }
    const std::uint64_t number = std::stoull(request);
    const std::uint64_t offset = number * kBlockSize;
    if (offset >= size) {
      throw Error(errc::protocol_error,
                  format("sideload: the device asked for block %" PRIu64 " at offset %" PRIu64
                         ", past the end of %s (%" PRIu64 " bytes)",
                         number, offset, name.c_str(), size));
    }
    const std::size_t length = static_cast<std::size_t>(std::min(kBlockSize, size - offset));
    package.seekg(static_cast<std::streamoff>(offset));
    if (!package.read(block.data(), static_cast<std::streamsize>(length))) {
      throw Error(errc::io_error, "sideload: failed to read block " + std::to_string(number) +
                                      " of " + name + " (did it shrink?)");
    }
    stream.write(std::span(reinterpret_cast<const std::uint8_t*>(block.data()), length),
                 deadline_after(kRequestWait));
    sent += length;
    // adb's estimate: a package is read about twice (verification, then installation), so
    // 100% comes at ~2.13 times its size.
    const int percent = static_cast<int>(sent * 47 / (size ? size : 1));
    if (percent != last_percent) {
      say(format("\rserving: '%s'  (~%d%%)    ", name.c_str(), percent));
      last_percent = percent;
    }
  }
}

}  // namespace

void add_sideload_command(CLI::App& app, const GlobalOptions& globals, Run& run) {
  auto paths = std::make_shared<std::vector<std::string>>();
  auto* cmd = app.add_subcommand(
      "sideload",
      "send a full OTA package to a device in recovery's sideload mode, as adb sideload: "
      "sideload OTAPACKAGE");
  cmd->add_option("package", *paths, "the OTA package (.zip)");
  cmd->callback([paths, &globals, &run] {
    run = [paths, &globals] {
      if (paths->size() != 1) {
        print_error("adbwire: sideload requires an argument");
        return 1;
      }
      return sideload(globals, paths->front());
    };
  });
}

}  // namespace adbwire::cli
