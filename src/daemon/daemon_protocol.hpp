// adbwire's own requests to its daemon, beside the adb server's (docs/daemon.md tells the
// whole design). Sans-IO: requests and frames out, frames in; the caller owns every socket.
//
// The daemon is an adb server: a client sends smart-socket requests (hex4 + request) and the
// host services answer as AOSP's server does. adbwire's clients (the CLI) also send requests of
// their own, all "host:adbwire-…", which an adb server refuses as unknown. Their answers are
// frames, each a four-letter tag and, for the tags that carry one, hex4 + a payload:
//
//   OKAY                the request succeeded
//   FAIL hex4 payload   it failed: "<category> <value> <detail>" (an error code and its sentence)
//   NOTE hex4 text      something the user should read on stderr (the daemon reconnected)
//   DATA hex4 bytes     a reply's bytes, or an open stream's: as many frames as it takes
//   DONE                the reply, or the stream, ended
//
// OKAY and FAIL are the adb server's own words, so an adb client reading one of these answers
// still sees a status; NOTE, DATA and DONE are adbwire's.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "adbwire/protocol/smart_socket.hpp"

namespace adbwire::daemon {

// "host:adbwire-device:AUTH_MS:TARGET": the device at TARGET (adbwire's target forms), connected
// now when the daemon does not hold it yet, its connect waiting up to AUTH_MS for a person to
// accept the key. Answered NOTE* OKAY DATA* DONE (a BannerRecord) or FAIL; then the connection
// is switched to the device as host:transport does, and the device service sent next is
// answered NOTE* OKAY or FAIL, after which the stream's bytes come as DATA frames ending in DONE,
// or in FAIL when the connection failed under the stream (so a dropped device is never mistaken
// for an ended command). The client's bytes go to the device as they are.
inline constexpr std::string_view kDeviceRequest = "host:adbwire-device:";
// "host:adbwire-session:NAME" (NAME empty: the default session, else the only named one):
// answered OKAY or FAIL; then the connection carries the session's JSON-RPC (one message a line,
// the MCP server of src/mcp) until the client shuts its side.
inline constexpr std::string_view kSessionRequest = "host:adbwire-session:";
// "host:adbwire-open:JSON" (session_spec.hpp): OKAY DATA* DONE (the target it connected) or FAIL.
inline constexpr std::string_view kOpenRequest = "host:adbwire-open:";
// "host:adbwire-close:NAME": OKAY or FAIL (no such session).
inline constexpr std::string_view kCloseRequest = "host:adbwire-close:";
// "host:adbwire-sessions": OKAY DATA* DONE, the open sessions as a JSON array of
// {"name", "target", "pid"}.
inline constexpr std::string_view kSessionsRequest = "host:adbwire-sessions";
// "host:adbwire-pull-into:SIZE:SLACK:DEADLINE_MS:COMPRESSION:LOCAL_LENGTH:LOCAL REMOTE" (a
// PullInto; the names as bytes, a device's name may be any), sent after the device request with the
// descriptor of a regular file the client opened for writing beside its first byte (SCM_RIGHTS):
// the daemon receives the device's file into that descriptor on the connection it holds, and
// answers NOTE* OKAY DATA* DONE ("BYTES WIRE_BYTES") or FAIL. It writes only into the descriptor it
// was given, never opens a path of the client's; the client keeps the temporary file, its final
// name and its cleanup. Several may follow one another on one connection.
inline constexpr std::string_view kPullIntoRequest = "host:adbwire-pull-into:";
// "host:adbwire-push-from:MODE:MTIME:DEADLINE_MS:COMPRESSION:LOCAL_LENGTH:LOCAL REMOTE" (a
// PushFrom), sent after the device request with the descriptor of a regular file the client opened
// for reading beside its first byte: the daemon sends the file from that descriptor's offset to its
// end to REMOTE on the connection it holds (SEND, DATA…, DONE, then the device's answer), and
// answers NOTE* OKAY DATA* DONE ("BYTES WIRE_BYTES") or FAIL. It reads only the descriptor it was
// given, never opens a path of the client's; the client plans the tree. Several may follow one
// another on one connection, and pulls into files beside them.
inline constexpr std::string_view kPushFromRequest = "host:adbwire-push-from:";
// "host:adbwire-status": OKAY DATA* DONE, a JSON object of counts since the daemon started:
// relayed_bytes (device bytes relayed to clients' sockets), pulled_into_files and
// pulled_into_bytes (files received straight into clients' descriptors), pushed_from_files and
// pushed_from_bytes (files sent straight from clients' descriptors).
inline constexpr std::string_view kStatusRequest = "host:adbwire-status";

// What host:version answers: AOSP's ADB_SERVER_VERSION (41), which adb's own client checks
// before anything else (a server of another version is killed and replaced).
inline constexpr std::string_view kServerVersion = "0029";

// A frame payload's largest size: four hex digits; a longer DATA is sent as several frames.
inline constexpr std::size_t kMaxPayload = protocol::kMaxSmartString;

enum class FrameKind { okay, fail, note, data, done };

// Appends one frame; a payload is given only with fail, note and data. data longer than
// kMaxPayload becomes several frames; fail and note are cut to kMaxPayload.
void append_frame(std::vector<std::uint8_t>& out, FrameKind kind,
                  std::span<const std::uint8_t> payload = {});
void append_frame(std::vector<std::uint8_t>& out, FrameKind kind, std::string_view payload);
// The header ("DATA" + hex4) of one DATA frame of size bytes (at most kMaxPayload): a relay
// sends it with the payload where it lies (scatter-gather) instead of copying it into a frame.
std::array<std::uint8_t, 8> data_frame_header(std::size_t size);
// A whole reply: OKAY, then text as DATA frames, then DONE.
void append_reply(std::vector<std::uint8_t>& out, std::string_view text);

// FAIL's payload for code and detail: "adbwire 3 the device went away". Codes of categories
// other than adbwire's, the system's and the generic one travel as adbwire's io_error.
std::string failure_payload(const std::error_code& code, std::string_view detail);
// The code and detail of a FAIL payload. A malformed payload (an unknown category, a value out
// of range) reads as protocol_error with a detail saying so.
void parse_failure(std::string_view payload, std::error_code& code, std::string& detail);

// What the device request answers: what a client's Device needs to know of the held connection.
struct BannerRecord {
  std::string serial;                 // Device::serial() of the held connection ("HOST:PORT")
  std::vector<std::string> features;  // the features both sides can use (Device::has_feature)
  std::string banner;                 // the device's CNXN banner, as it sent it (any length)
};
std::string format_banner_record(const BannerRecord& record);
// parse_error when a field is missing.
std::error_code parse_banner_record(std::string_view text, BannerRecord& out);

// "host:adbwire-device:AUTH_MS:TARGET" for target and an auth_timeout, and back. parse: false
// when request is not one (or its AUTH_MS is not a number).
std::string device_request(std::string_view target, std::chrono::milliseconds auth_timeout);
bool parse_device_request(std::string_view request, std::string& target,
                          std::chrono::milliseconds& auth_timeout);

// One file of a pull the daemon receives into the client's descriptor.
struct PullInto {
  std::string remote;             // the device's path
  std::string local;              // where it goes, for the daemon's error sentences only
  std::uint64_t size = 0;         // what the device announced (the client's plan)
  std::uint64_t slack = 0;        // SyncLimits::file_slack
  std::string compression;        // to_string(SyncCompression)
  std::int64_t deadline_ms = -1;  // left of the pull's deadline; -1: the default (per stall)
};
// The whole request (kPullIntoRequest and the fields), and back: parse_error when it is not one
// or a field is malformed.
std::string format_pull_into(const PullInto& pull);
std::error_code parse_pull_into(std::string_view text, PullInto& out);

// One file of a push the daemon sends from the client's descriptor.
struct PushFrom {
  std::string remote;             // the device's path
  std::string local;              // where it comes from, for the daemon's error sentences only
  std::uint32_t mode = 0;         // the file's mode as SEND carries it (type and permissions)
  std::int64_t mtime = 0;         // DONE's mtime
  std::string compression;        // to_string(SyncCompression)
  std::int64_t deadline_ms = -1;  // left of the push's deadline; -1: the default (per stall)
};
// The whole request (kPushFromRequest and the fields), and back: parse_error when it is not one or
// a field is malformed.
std::string format_push_from(const PushFrom& push);
std::error_code parse_push_from(std::string_view text, PushFrom& out);

// The serial adb's server names a TCP address by (host:connect, host:disconnect): HOST:PORT, port
// 5555 when none was given; address as it is when it is no TCP address.
std::string tcp_serial(std::string_view address);

// Whether name may name a session: letters, digits, '-', '_' and '.' (it is part of requests and
// messages); "" is the default session.
bool valid_session_name(std::string_view name) noexcept;

// Incremental reader of the frames of one answer, fed as they arrive, split or merged anywhere.
// A malformed frame is a protocol_error (error_detail() says what was wrong); the reader then
// stays failed.
class FrameReader {
 public:
  enum class Result { ready, need_more, failed };
  struct Frame {
    FrameKind kind = FrameKind::okay;
    std::span<const std::uint8_t> payload;  // valid until the next feed() or next()
    std::string_view text() const noexcept {
      return {reinterpret_cast<const char*>(payload.data()), payload.size()};
    }
  };

  void feed(std::span<const std::uint8_t> bytes);
  // Room for up to n more bytes, to receive into directly (no copy from a buffer of the
  // caller's); commit() then says how many arrived. Invalidates what next() and unread() gave.
  std::span<std::uint8_t> prepare(std::size_t n);
  void commit(std::size_t n) noexcept { size_ += std::min(n, buffer_.size() - size_); }
  Result next(Frame& frame);
  // Bytes fed but not read as frames: what followed an answer on the same connection. Valid
  // until the next feed(), prepare() or next().
  std::string_view unread() const noexcept {
    return {reinterpret_cast<const char*>(buffer_.data()) + consumed_, size_ - consumed_};
  }
  const std::string& error_detail() const noexcept { return error_detail_; }

 private:
  Result fail(std::string detail);

  // Grown, never shrunk or cleared (a clear would zero it again on the next resize): bytes
  // [consumed_, size_) are fed and not read yet.
  std::vector<std::uint8_t> buffer_;
  std::size_t size_ = 0;
  std::size_t consumed_ = 0;
  bool failed_ = false;
  std::string error_detail_;
};

}  // namespace adbwire::daemon
