#include "adbwire/protocol/shell_v2.hpp"

#include <algorithm>
#include <charconv>
#include <string>
#include <string_view>
#include <utility>

#include "adbwire/error.hpp"
#include "adbwire/protocol/bytes.hpp"

namespace adbwire::protocol {

namespace {

// One unsigned decimal up to 65535; advances text past it.
bool take_number(std::string_view& text, std::uint16_t& value) {
  unsigned parsed = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), parsed);
  if (ec != std::errc() || parsed > 0xffff) return false;
  value = static_cast<std::uint16_t>(parsed);
  text.remove_prefix(static_cast<std::size_t>(end - text.data()));
  return true;
}

bool take_char(std::string_view& text, char c) {
  if (text.empty() || text.front() != c) return false;
  text.remove_prefix(1);
  return true;
}

}  // namespace

std::vector<std::uint8_t> encode_window_size(const WindowSize& size) {
  const std::string text = std::to_string(size.rows) + "x" + std::to_string(size.cols) + "," +
                           std::to_string(size.x_pixels) + "x" + std::to_string(size.y_pixels);
  std::vector<std::uint8_t> data(text.begin(), text.end());
  data.push_back(0);
  return data;
}

bool parse_window_size(std::span<const std::uint8_t> data, WindowSize& size) {
  std::string_view rest(reinterpret_cast<const char*>(data.data()), data.size());
  while (!rest.empty() && rest.back() == '\0') rest.remove_suffix(1);
  WindowSize parsed;
  if (!take_number(rest, parsed.rows) || !take_char(rest, 'x') || !take_number(rest, parsed.cols) ||
      !take_char(rest, ',') || !take_number(rest, parsed.x_pixels) || !take_char(rest, 'x') ||
      !take_number(rest, parsed.y_pixels) || !rest.empty()) {
    return false;
  }
  size = parsed;
  return true;
}
namespace {

bool known_id(std::uint8_t id) noexcept { return id <= 5 || id == 255; }

// stdin/stdout/stderr carry a byte stream and are handed on piece by piece.
bool is_data(ShellPacketId id) noexcept {
  return id == ShellPacketId::stdin_data || id == ShellPacketId::stdout_data ||
         id == ShellPacketId::stderr_data;
}

}  // namespace

void append_shell_packet(std::vector<std::uint8_t>& out, ShellPacketId id,
                         std::span<const std::uint8_t> data) {
  const auto length = static_cast<std::uint32_t>(data.size());
  out.push_back(static_cast<std::uint8_t>(id));
  append_le32(out, length);
  out.insert(out.end(), data.begin(), data.end());
}

bool ShellReader::at_boundary() const noexcept { return !in_packet_ && header_filled_ == 0; }

std::error_code ShellReader::feed(std::span<const std::uint8_t> bytes,
                                  std::vector<ShellPiece>& out) {
  const auto fail = [this](std::string detail) {
    failed_ = true;
    error_detail_ = std::move(detail);
    return make_error_code(errc::protocol_error);
  };
  if (failed_) return make_error_code(errc::protocol_error);

  std::size_t used = 0;
  while (used < bytes.size()) {
    if (!in_packet_) {
      const std::size_t take = std::min(kShellHeaderSize - header_filled_, bytes.size() - used);
      std::copy_n(bytes.data() + used, take, header_ + header_filled_);
      header_filled_ += take;
      used += take;
      if (header_filled_ < kShellHeaderSize) break;
      header_filled_ = 0;
      if (!known_id(header_[0])) {
        return fail("unknown shell protocol packet id " + std::to_string(header_[0]) +
                    " (the stream is not shell v2 or is corrupt)");
      }
      control_.id = static_cast<ShellPacketId>(header_[0]);
      remaining_ = load_le32(header_ + 1);
      if (!is_data(control_.id) && remaining_ > kMaxControlPacket) {
        return fail("shell control packet id " + std::to_string(header_[0]) + " declares " +
                    std::to_string(remaining_) + " bytes, more than the " +
                    std::to_string(kMaxControlPacket) + " allowed");
      }
      if (control_.id == ShellPacketId::exit_status && remaining_ != 1) {
        return fail("shell exit packet carries " + std::to_string(remaining_) +
                    " bytes; it must carry exactly the 1-byte exit status");
      }
      control_.data.clear();
      in_packet_ = true;
    }
    const std::size_t take = std::min<std::size_t>(remaining_, bytes.size() - used);
    if (is_data(control_.id)) {
      if (take > 0) {
        out.push_back(
            ShellPiece{control_.id,
                       std::vector<std::uint8_t>(bytes.data() + used, bytes.data() + used + take)});
      }
    } else {
      control_.data.insert(control_.data.end(), bytes.data() + used, bytes.data() + used + take);
    }
    used += take;
    remaining_ -= static_cast<std::uint32_t>(take);
    if (remaining_ == 0) {
      if (!is_data(control_.id)) out.push_back(std::move(control_));
      control_ = ShellPiece{};
      in_packet_ = false;
    }
  }
  return {};
}

}  // namespace adbwire::protocol
