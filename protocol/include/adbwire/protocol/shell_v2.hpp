// Shell protocol v2 ("shell,v2,…:cmd"): 1-byte id + 4-byte little-endian length + data,
// carried inside an ADB stream in both directions (AOSP shell_protocol.h).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <system_error>
#include <vector>

namespace adbwire::protocol {

enum class ShellPacketId : std::uint8_t {
  stdin_data = 0,
  stdout_data = 1,
  stderr_data = 2,
  exit_status = 3,  // one byte: the exit code
  close_stdin = 4,  // no data
  window_size = 5,  // "rows x cols, xpixels x ypixels" as "%dx%d,%dx%d"
  invalid = 255,
};

inline constexpr std::size_t kShellHeaderSize = 5;

// A terminal's size as TIOCGWINSZ gives it, which a window_size packet carries to the
// device's PTY (TIOCSWINSZ there).
struct WindowSize {
  std::uint16_t rows = 0;
  std::uint16_t cols = 0;
  std::uint16_t x_pixels = 0;
  std::uint16_t y_pixels = 0;
  friend bool operator==(const WindowSize&, const WindowSize&) = default;
};

// A window_size packet's data as adb writes it: "ROWSxCOLS,XPIXxYPIX" and the NUL adb sends
// after it (adbd reads it with sscanf).
std::vector<std::uint8_t> encode_window_size(const WindowSize& size);
// The inverse, trailing NULs allowed; false for anything else (each number 0..65535).
bool parse_window_size(std::span<const std::uint8_t> data, WindowSize& size);

// Appends one packet.
void append_shell_packet(std::vector<std::uint8_t>& out, ShellPacketId id,
                         std::span<const std::uint8_t> data);

// One piece of a packet. stdout/stderr/stdin data is delivered as it arrives, so one wire
// packet may come as several pieces with the same id (streaming, bounded memory); every
// other id is delivered whole, once.
struct ShellPiece {
  ShellPacketId id = ShellPacketId::invalid;
  std::vector<std::uint8_t> data;
};

// Incremental shell v2 decoder, fed the bytes of one ADB stream.
class ShellReader {
 public:
  // Control packets (exit, window size, …) longer than this are a protocol_error.
  static constexpr std::uint32_t kMaxControlPacket = 4096;

  // Consumes all bytes; appends pieces to out. protocol_error on an unknown id or an
  // oversize control packet (error_detail() says which).
  std::error_code feed(std::span<const std::uint8_t> bytes, std::vector<ShellPiece>& out);
  const std::string& error_detail() const noexcept { return error_detail_; }
  // True when no partial packet is pending (the stream may end here cleanly).
  bool at_boundary() const noexcept;

 private:
  std::uint8_t header_[kShellHeaderSize] = {};
  std::size_t header_filled_ = 0;
  std::uint32_t remaining_ = 0;
  bool in_packet_ = false;
  bool failed_ = false;
  ShellPiece control_;
  std::string error_detail_;
};

}  // namespace adbwire::protocol
