#include "adbwire/protocol/message.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "adbwire/error.hpp"
#include "adbwire/protocol/bytes.hpp"

namespace adbwire::protocol {
namespace {

bool known_command(std::uint32_t command) noexcept { return command_name(command) != "????"; }

std::string hex(std::uint32_t value) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", value);
  return text;
}

// "WRTE" for known commands, else the hex value: error details stay readable either way.
std::string describe_command(std::uint32_t command) {
  return known_command(command) ? std::string(command_name(command)) : hex(command);
}

}  // namespace

std::uint32_t payload_checksum(std::span<const std::uint8_t> payload) noexcept {
  std::uint32_t sum = 0;
  for (const std::uint8_t byte : payload) sum += byte;
  return sum;
}

void encode_header(const Header& header, std::span<std::uint8_t, kHeaderSize> out) noexcept {
  store_le32(out.data(), header.command);
  store_le32(out.data() + 4, header.arg0);
  store_le32(out.data() + 8, header.arg1);
  store_le32(out.data() + 12, header.data_length);
  store_le32(out.data() + 16, header.data_check);
  store_le32(out.data() + 20, header.magic);
}

Header decode_header(std::span<const std::uint8_t, kHeaderSize> in) noexcept {
  Header header;
  header.command = load_le32(in.data());
  header.arg0 = load_le32(in.data() + 4);
  header.arg1 = load_le32(in.data() + 8);
  header.data_length = load_le32(in.data() + 12);
  header.data_check = load_le32(in.data() + 16);
  header.magic = load_le32(in.data() + 20);
  return header;
}

void append_message(std::vector<std::uint8_t>& out, std::uint32_t command, std::uint32_t arg0,
                    std::uint32_t arg1, std::span<const std::uint8_t> payload, bool with_checksum) {
  Header header;
  header.command = command;
  header.arg0 = arg0;
  header.arg1 = arg1;
  header.data_length = static_cast<std::uint32_t>(payload.size());
  header.data_check = with_checksum ? payload_checksum(payload) : 0;
  header.magic = command ^ 0xffffffffu;
  const std::size_t at = out.size();
  out.resize(at + kHeaderSize);
  encode_header(header, std::span<std::uint8_t, kHeaderSize>(out.data() + at, kHeaderSize));
  out.insert(out.end(), payload.begin(), payload.end());
}

std::error_code MessageReader::fail(std::string detail) {
  failed_ = true;
  error_detail_ = std::move(detail);
  return make_error_code(errc::protocol_error);
}

std::error_code MessageReader::check_header() {
  if (!known_command(header_.command)) {
    return fail("unknown command " + hex(header_.command) +
                " in message header (garbage on the link or a desynchronised stream)");
  }
  if (header_.magic != (header_.command ^ 0xffffffffu)) {
    return fail("bad magic " + hex(header_.magic) + " for command " +
                describe_command(header_.command) + " (expected " +
                hex(header_.command ^ 0xffffffffu) + ")");
  }
  if (header_.data_length > max_payload_) {
    return fail("oversize length: " + describe_command(header_.command) + " declares " +
                std::to_string(header_.data_length) + " payload bytes, the limit is " +
                std::to_string(max_payload_));
  }
  return {};
}

std::size_t MessageReader::feed_one(std::span<const std::uint8_t> bytes, std::vector<Message>& out,
                                    std::error_code& error) {
  if (failed_) {
    error = make_error_code(errc::protocol_error);
    return 0;
  }
  error.clear();
  std::size_t used = 0;
  while (used < bytes.size()) {
    if (!have_header_) {
      const std::size_t take = std::min(kHeaderSize - header_filled_, bytes.size() - used);
      std::copy_n(bytes.data() + used, take, header_bytes_ + header_filled_);
      header_filled_ += take;
      used += take;
      // The command word alone already tells garbage apart; failing on it does not wait for
      // 20 more bytes that may never come.
      if (header_filled_ >= 4 && !known_command(load_le32(header_bytes_))) {
        header_.command = load_le32(header_bytes_);
        error = check_header();
        return used;
      }
      if (header_filled_ < kHeaderSize) return used;
      header_ = decode_header(std::span<const std::uint8_t, kHeaderSize>(header_bytes_));
      error = check_header();
      if (error) return used;
      have_header_ = true;
      current_ = Message{header_.command, header_.arg0, header_.arg1, {}};
      current_.payload.reserve(header_.data_length);
    }
    const std::size_t take =
        std::min<std::size_t>(header_.data_length - current_.payload.size(), bytes.size() - used);
    current_.payload.insert(current_.payload.end(), bytes.data() + used,
                            bytes.data() + used + take);
    used += take;
    if (current_.payload.size() == header_.data_length) {
      if (verify_checksum_ && payload_checksum(current_.payload) != header_.data_check) {
        error = fail("checksum mismatch on " + describe_command(header_.command) +
                     ": header says " + hex(header_.data_check) + ", payload sums to " +
                     hex(payload_checksum(current_.payload)));
        return used;
      }
      out.push_back(std::move(current_));
      current_ = Message{};
      have_header_ = false;
      header_filled_ = 0;
      return used;
    }
  }
  return used;
}

std::error_code MessageReader::feed(std::span<const std::uint8_t> bytes,
                                    std::vector<Message>& out) {
  std::error_code error;
  do {
    bytes = bytes.subspan(feed_one(bytes, out, error));
  } while (!error && !bytes.empty());
  return failed_ ? make_error_code(errc::protocol_error) : error;
}

}  // namespace adbwire::protocol
