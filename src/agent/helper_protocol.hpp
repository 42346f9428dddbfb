// The wire format between Page and the on-device dumper (src/agent/dumper/README.md):
// one-byte requests, replies framed as status byte + big-endian u32 length + payload, so the
// host reads a reply without scanning it. No I/O here.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "adbwire/protocol/bytes.hpp"

namespace adbwire::agent::helper {

inline constexpr std::uint8_t kPing = 'P';
inline constexpr std::uint8_t kDump = 'D';
inline constexpr std::uint8_t kSetClip = 'C';  // u32 length, UTF-8 text
inline constexpr std::uint8_t kGetClip = 'G';
inline constexpr std::uint8_t kLabels = 'L';
inline constexpr std::uint8_t kGesture = 'M';  // u32 count, then that many big-endian i32
// The ping reply's payload; the number changes with the protocol.
inline constexpr std::string_view kHello = "adbwire-dumper 3";
// Longest clipboard text sent (the binder transaction limit is about 1 MB).
inline constexpr std::size_t kMaxClip = 256 * 1024;
// Largest reply accepted: far above any real hierarchy, low enough that a garbage length
// cannot make the host allocate gigabytes.
inline constexpr std::uint32_t kMaxReply = 64U * 1024U * 1024U;
inline constexpr std::size_t kHeaderSize = 5;
inline constexpr std::string_view kMainClass = "com.adbwire.Dumper";

enum class Status : std::uint8_t { ok = 0, failed = 1 };

struct ReplyHeader {
  Status status = Status::ok;
  std::uint32_t length = 0;
};

inline std::array<std::uint8_t, 1> encode_ping() noexcept { return {kPing}; }

// quiet and max are UiAutomation.waitForIdle's idle window and total wait, in milliseconds.
inline std::array<std::uint8_t, 9> encode_dump(std::uint32_t quiet_ms,
                                               std::uint32_t max_ms) noexcept {
  std::array<std::uint8_t, 9> request{kDump};
  protocol::store_be32(request.data() + 1, quiet_ms);
  protocol::store_be32(request.data() + 5, max_ms);
  return request;
}

// 'C', big-endian u32 length, then the text (at most kMaxClip bytes: the caller checks).
inline std::string encode_set_clip(std::string_view text) {
  std::string out(1 + 4, static_cast<char>(kSetClip));
  protocol::store_be32(reinterpret_cast<std::uint8_t*>(out.data() + 1),
                       static_cast<std::uint32_t>(text.size()));
  out += text;
  return out;
}

// 'M', big-endian u32 count, then the ints (agent/gesture.hpp's gesture_ints).
inline std::string encode_gesture(std::span<const std::int32_t> ints) {
  std::string out(1 + 4 + 4 * ints.size(), '\0');
  auto* bytes = reinterpret_cast<std::uint8_t*>(out.data());
  bytes[0] = kGesture;
  protocol::store_be32(bytes + 1, static_cast<std::uint32_t>(ints.size()));
  for (std::size_t i = 0; i < ints.size(); ++i)
    protocol::store_be32(bytes + 5 + 4 * i, static_cast<std::uint32_t>(ints[i]));
  return out;
}

// Most apps a labels reply may list: phones have hundreds; a device listing millions of tiny
// lines could otherwise make the map take gigabytes out of a reply under kMaxReply.
inline constexpr std::size_t kMaxLabels = 65536;

// The 'L' reply, lines "package<TAB>label", as a map. A line without a tab or with an empty
// package is skipped (the dumper never writes one); a repeated package keeps its first label.
// Stops at kMaxLabels entries with too_many set.
inline std::map<std::string, std::string> decode_labels(std::string_view reply, bool& too_many) {
  std::map<std::string, std::string> labels;
  too_many = false;
  while (!reply.empty()) {
    if (labels.size() == kMaxLabels) {
      too_many = true;
      break;
    }
    const std::size_t end = std::min(reply.find('\n'), reply.size());
    const std::string_view line = reply.substr(0, end);
    reply.remove_prefix(std::min(end + 1, reply.size()));
    const std::size_t tab = line.find('\t');
    if (tab == std::string_view::npos || tab == 0) continue;
    labels.emplace(std::string(line.substr(0, tab)), std::string(line.substr(tab + 1)));
  }
  return labels;
}

// nullopt when the bytes are no reply header (unknown status or a length over kMaxReply).
inline std::optional<ReplyHeader> decode_reply_header(
    std::span<const std::uint8_t, kHeaderSize> bytes) noexcept {
  if (bytes[0] > static_cast<std::uint8_t>(Status::failed)) return std::nullopt;
  const std::uint32_t length = protocol::load_be32(bytes.data() + 1);
  if (length > kMaxReply) return std::nullopt;
  return ReplyHeader{static_cast<Status>(bytes[0]), length};
}

// Where the dex lives on the device: its hash in the name, so a changed dumper is a new file.
inline std::string device_dex_path(std::string_view hash) {
  return "/data/local/tmp/adbwire-dumper-" + std::string(hash) + ".dex";
}

// Where the dumper's stderr goes: exec: merges stderr into the stream, where a warning or a
// stack trace would break the reply framing; the file keeps it for error messages instead.
inline constexpr std::string_view kLogPath = "/data/local/tmp/adbwire-dumper.log";

// The exec command that starts the dumper as process `name` (app_process --nice-name, so that
// kill_command finds exactly this one). uiautomator.jar supplies UiAutomationShellWrapper and
// AccessibilityNodeInfoDumper (as /system/bin/uiautomator's CLASSPATH does); the class path
// is a VM option rather than a CLASSPATH= prefix so no shell variable syntax is needed.
// app_process takes VM options, then the parent folder, then --nice-name, then the class
// (AOSP frameworks/base/cmds/app_process/app_main.cpp).
inline std::string start_command(std::string_view dex_path, std::string_view name) {
  return "app_process -Djava.class.path=" + std::string(dex_path) +
         ":/system/framework/uiautomator.jar /system/bin --nice-name=" + std::string(name) + " " +
         std::string(kMainClass) + " 2>" + std::string(kLogPath);
}

// Ends the dumper named `name` however stuck it is (a dumper hung in a binder call keeps the
// device's only UiAutomation connection, so `uiautomator dump` would fail until it goes). The
// last character is written as a class ("abc[d]") so the pattern does not match the shell
// that runs pkill, whose own command line contains it.
inline std::string kill_command(std::string_view name) {
  if (name.empty()) return {};
  std::string pattern(name.substr(0, name.size() - 1));
  pattern += '[';
  pattern += name.back();
  pattern += ']';
  return "pkill -9 -f '" + pattern + "'";
}

}  // namespace adbwire::agent::helper
