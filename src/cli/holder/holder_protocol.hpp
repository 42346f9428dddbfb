// The connection holder's wire protocol, between a one-shot CLI call (the client) and the
// holder process over a Unix socket (src/cli/README.md tells the whole design). Sans-IO: bytes
// in, requests and frames out; the caller owns every socket.
//
// The client sends requests as an adb server's clients do: four hex digits of length, then the
// request ("banner", or "open:" + an ADB service). The holder answers with frames, each a
// four-letter tag and, for the tags that carry one, four hex digits of length and a payload:
//
//   OKAY                the request succeeded
//   FAIL hex4 payload   it failed: "<category> <value> <detail>" (an error code and its sentence)
//   NOTE hex4 text      something the user should read on stderr (the holder reconnected)
//   DATA hex4 bytes     "banner": the banner record; an open stream: the device's bytes
//   DONE                an open stream: the device ended it
//
// "banner" is answered with OKAY, the BannerRecord in DATA frames (a device's banner may pass
// one frame's 64 KiB), then DONE; the client may then send another request on the same socket.
// "open:SERVICE" is answered with FAIL, or with OKAY (and perhaps a NOTE) after which the socket
// carries that stream: the client's bytes go to the device as they are, the device's come back as
// DATA frames until DONE, or FAIL when the connection failed under the stream (so a dropped device
// is never mistaken for an ended command). Closing the socket closes the stream.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace adbwire::cli::holder {

inline constexpr std::string_view kBannerRequest = "banner";
inline constexpr std::string_view kOpenPrefix = "open:";
// Four hex digits bound every payload; a longer DATA is sent as several frames.
inline constexpr std::size_t kMaxPayload = 0xffff;

enum class FrameKind { okay, fail, note, data, done };

// Appends hex4 + request (as an adb server's smart socket). invalid_argument when the request is
// empty or longer than kMaxPayload; nothing is appended then.
std::error_code append_request(std::vector<std::uint8_t>& out, std::string_view request);

// Appends one frame; a payload is given only with fail, note and data. data longer than
// kMaxPayload becomes several frames; fail and note are cut to kMaxPayload.
void append_frame(std::vector<std::uint8_t>& out, FrameKind kind,
                  std::span<const std::uint8_t> payload = {});
void append_frame(std::vector<std::uint8_t>& out, FrameKind kind, std::string_view payload);

// FAIL's payload for code and detail: "adbwire 3 the device went away". Codes of categories
// other than adbwire's, the system's and the generic one travel as adbwire's io_error.
std::string failure_payload(const std::error_code& code, std::string_view detail);
// The code and detail of a FAIL payload. A malformed payload (an unknown category, a value out
// of range) reads as protocol_error with a detail saying so.
void parse_failure(std::string_view payload, std::error_code& code, std::string& detail);

// What "banner" answers: what a Device needs to know of the held connection.
struct BannerRecord {
  std::string serial;                 // Device::serial() of the held connection ("HOST:PORT")
  std::vector<std::string> features;  // the features both sides can use (Device::has_feature)
  std::string banner;                 // the device's CNXN banner, as it sent it
};
std::string format_banner_record(const BannerRecord& record);
// parse_error when a field is missing.
std::error_code parse_banner_record(std::string_view text, BannerRecord& out);

// Incremental reader of one side's bytes, fed as they arrive, split or merged anywhere.
// A malformed item is a protocol_error (error_detail() says what was wrong); the reader then
// stays failed.
class Reader {
 public:
  enum class Result { ready, need_more, failed };

  void feed(std::span<const std::uint8_t> bytes);

  // The holder's side: the next request, copied out.
  Result next_request(std::string& request);

  // The client's side: the next frame. payload stays valid until the next feed() or next_*.
  struct Frame {
    FrameKind kind = FrameKind::okay;
    std::span<const std::uint8_t> payload;
    std::string_view text() const noexcept {
      return {reinterpret_cast<const char*>(payload.data()), payload.size()};
    }
  };
  Result next_frame(Frame& frame);

  // Unread bytes held (a stream's bytes that arrived with its last request).
  std::span<const std::uint8_t> unread() const noexcept;
  void clear_unread() noexcept;
  const std::string& error_detail() const noexcept { return error_detail_; }

 private:
  Result read_length(std::size_t offset, std::size_t& length);
  Result fail(std::string detail);

  std::vector<std::uint8_t> buffer_;
  std::size_t consumed_ = 0;
  bool failed_ = false;
  std::string error_detail_;
};

}  // namespace adbwire::cli::holder
