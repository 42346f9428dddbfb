#include <cinttypes>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "adbwire/capture.hpp"
#include "adbwire/error.hpp"
#include "adbwire/protocol/constants.hpp"
#include "adbwire/protocol/printable.hpp"
#include "cli/commands.hpp"
#include "cli/terminal_text.hpp"

namespace adbwire::cli {
namespace {

struct DecodeArgs {
  std::string file;
  bool json = false;
};

const char* kind_label(CapturedKind kind) {
  switch (kind) {
    case CapturedKind::adb:
      return "adb";
    case CapturedKind::smart_request:
      return "REQ";
    case CapturedKind::smart_okay:
      return "OKAY";
    case CapturedKind::smart_fail:
      return "FAIL";
    case CapturedKind::smart_data:
      return "DATA";
    case CapturedKind::raw_data:
      return "RAW";
  }
  return "?";
}

const char* kind_name(CapturedKind kind) {
  switch (kind) {
    case CapturedKind::adb:
      return "adb";
    case CapturedKind::smart_request:
      return "smart_request";
    case CapturedKind::smart_okay:
      return "smart_okay";
    case CapturedKind::smart_fail:
      return "smart_fail";
    case CapturedKind::smart_data:
      return "smart_data";
    case CapturedKind::raw_data:
      return "raw_data";
  }
  return "?";
}

std::string command_label(const CapturedMessage& m) {
  if (m.kind != CapturedKind::adb) return kind_label(m.kind);
  const std::string_view name = protocol::command_name(m.message.command);
  if (name != "????") return std::string(name);
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", m.message.command);
  return text;
}

void print_line(const CapturedMessage& m, double seconds) {
  std::string service = m.service.empty() ? "" : " [" + m.service + "]";
  if (service.size() > 48) service = service.substr(0, 44) + "...]";
  if (m.kind == CapturedKind::adb) {
    print(format("%11.6f #%-6" PRIu64 " c%-2u %s %-4s %08x %08x %7zu%s %s\n", seconds, m.record,
                 m.connection, direction_arrow(m.direction), command_label(m).c_str(),
                 m.message.arg0, m.message.arg1, m.message.payload.size(), service.c_str(),
                 m.summary.c_str()));
  } else {
    print(format("%11.6f #%-6" PRIu64 " c%-2u %s %-4s %17s %7zu%s %s\n", seconds, m.record,
                 m.connection, direction_arrow(m.direction), command_label(m).c_str(), "",
                 m.message.payload.size(),
                 m.kind == CapturedKind::smart_request ? "" : service.c_str(), m.summary.c_str()));
  }
}

void print_json(const CapturedMessage& m, double seconds) {
  nlohmann::json line = {
      {"record", m.record},
      {"time_ns", m.time.time_since_epoch().count()},
      {"time", seconds},
      {"connection", m.connection},
      {"direction",
       m.direction == CaptureDirection::host_to_device ? "host_to_device" : "device_to_host"},
      {"kind", kind_name(m.kind)},
      {"command", command_label(m)},
      {"length", m.message.payload.size()},
      {"service", m.service},
      {"summary", m.summary},
  };
  if (m.kind == CapturedKind::adb) {
    line["arg0"] = m.message.arg0;
    line["arg1"] = m.message.arg1;
  }
  // Payloads may hold any bytes; replace invalid UTF-8 rather than fail on it.
  print(protocol::printable_json(
            line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)) +
        "\n");
}

int run_decode(const DecodeArgs& args) {
  std::optional<std::int64_t> start;
  std::uint64_t count = 0;
  std::error_code ec;
  const CaptureSummary summary = decode_capture_file(
      args.file,
      [&](const CapturedMessage& m) {
        const std::int64_t ns = m.time.time_since_epoch().count();
        if (!start) start = ns;
        const double seconds = static_cast<double>(ns - *start) / 1e9;
        ++count;
        if (args.json) {
          print_json(m, seconds);
        } else {
          print_line(m, seconds);
        }
      },
      ec);
  if (!args.json) {
    for (const auto& c : summary.connections) {
      print(format("# c%u %s%s\n", c.id, c.description.c_str(),
                   c.smart_socket ? " (adb server)" : ""));
    }
    print(format("# %" PRIu64 " messages from %" PRIu64 " records (%" PRIu64 " tcp, %" PRIu64
                 " usb, %" PRIu64 " other); %" PRIu64 " resyncs, %" PRIu64
                 " bytes skipped, %" PRIu64 " bytes lost\n",
                 count, summary.stats.records, summary.stats.tcp_segments,
                 summary.stats.usb_transfers, summary.stats.other_records, summary.stats.resyncs,
                 summary.stats.skipped_bytes, summary.stats.lost_bytes));
  }
  throw_if_error(ec, summary.fault.detail);
  return 0;
}

}  // namespace

void add_capture_command(CLI::App& app, const GlobalOptions&, Run& run) {
  auto* capture =
      app.add_subcommand("capture", "read packet captures (pcap/pcapng) of ADB traffic");
  capture->require_subcommand(1);
  auto args = std::make_shared<DecodeArgs>();
  auto* decode = capture->add_subcommand(
      "decode",
      "print one line per ADB message (TCP 5555-style, adb server 5037, USB usbmon/USBPcap)");
  decode->add_option("FILE", args->file, "capture file (pcap or pcapng)")->required();
  decode->add_flag("--json", args->json, "print one JSON object per message (JSON Lines)");
  decode->callback([&run, args] { run = [args] { return run_decode(*args); }; });
}

}  // namespace adbwire::cli
