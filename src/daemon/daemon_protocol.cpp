#include "daemon/daemon_protocol.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "adbwire/error.hpp"
#include "adbwire/protocol/printable.hpp"
#include "adbwire/target.hpp"

namespace adbwire::daemon {
namespace {

constexpr std::size_t kTagSize = 4;
constexpr std::size_t kLengthSize = protocol::kSmartLengthSize;

struct Tag {
  FrameKind kind;
  std::string_view word;
  bool has_payload;
};
constexpr Tag kTags[] = {
    {FrameKind::okay, "OKAY", false}, {FrameKind::fail, "FAIL", true},
    {FrameKind::note, "NOTE", true},  {FrameKind::data, "DATA", true},
    {FrameKind::done, "DONE", false},
};

const Tag& tag_of(FrameKind kind) {
  return *std::find_if(std::begin(kTags), std::end(kTags),
                       [kind](const Tag& tag) { return tag.kind == kind; });
}

void append_text(std::vector<std::uint8_t>& out, std::string_view text) {
  out.insert(out.end(), text.begin(), text.end());
}

std::string_view as_text(std::span<const std::uint8_t> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

const std::error_category* category_named(std::string_view name) {
  if (name == "adbwire") return &error_category();
  if (name == "system") return &std::system_category();
  if (name == "generic") return &std::generic_category();
  return nullptr;
}

}  // namespace

void append_frame(std::vector<std::uint8_t>& out, FrameKind kind,
                  std::span<const std::uint8_t> payload) {
  const Tag& tag = tag_of(kind);
  if (!tag.has_payload) {
    append_text(out, tag.word);
    return;
  }
  do {
    const std::size_t size = std::min(payload.size(), kMaxPayload);
    append_text(out, tag.word);
    protocol::append_smart_string(out, as_text(payload.first(size)));
    payload = payload.subspan(size);
  } while (kind == FrameKind::data && !payload.empty());
}

void append_frame(std::vector<std::uint8_t>& out, FrameKind kind, std::string_view payload) {
  append_frame(out, kind,
               std::span(reinterpret_cast<const std::uint8_t*>(payload.data()), payload.size()));
}

std::array<std::uint8_t, 8> data_frame_header(std::size_t size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::array<std::uint8_t, 8> header{'D', 'A', 'T', 'A'};
  for (int i = 0; i < 4; ++i) {
    header[4 + static_cast<std::size_t>(i)] =
        static_cast<std::uint8_t>(kDigits[(std::min(size, kMaxPayload) >> (12 - 4 * i)) & 15]);
  }
  return header;
}

void append_reply(std::vector<std::uint8_t>& out, std::string_view text) {
  append_frame(out, FrameKind::okay);
  if (!text.empty()) append_frame(out, FrameKind::data, text);
  append_frame(out, FrameKind::done);
}

std::string failure_payload(const std::error_code& code, std::string_view detail) {
  std::string category = code.category().name();
  int value = code.value();
  if (category_named(category) == nullptr) {
    category = error_category().name();
    value = static_cast<int>(errc::io_error);
  }
  return category + " " + std::to_string(value) + " " + std::string(detail);
}

void parse_failure(std::string_view payload, std::error_code& code, std::string& detail) {
  const std::size_t space = payload.find(' ');
  const std::error_category* category =
      space == std::string_view::npos ? nullptr : category_named(payload.substr(0, space));
  int value = 0;
  const char* begin = payload.data() + (space == std::string_view::npos ? 0 : space + 1);
  const char* end = payload.data() + payload.size();
  const auto [after, error] = std::from_chars(begin, end, value);
  const bool adbwire_in_range =
      category != &error_category() || (value >= static_cast<int>(errc::connection_refused) &&
                                        value <= static_cast<int>(errc::limit_exceeded));
  if (category == nullptr || error != std::errc() || value <= 0 || !adbwire_in_range ||
      (after != end && *after != ' ')) {
    code = make_error_code(errc::protocol_error);
    detail = "the adbwire daemon sent a malformed failure: " +
             protocol::printable(payload.substr(0, 80));
    return;
  }
  code = std::error_code(value, *category);
  detail = after == end ? std::string() : std::string(after + 1, end);
}

std::string format_banner_record(const BannerRecord& record) {
  std::string features;
  for (const std::string& feature : record.features) {
    if (!features.empty()) features += ',';
    features += feature;
  }
  return record.serial + "\n" + features + "\n" + record.banner;
}

std::error_code parse_banner_record(std::string_view text, BannerRecord& out) {
  const std::size_t first = text.find('\n');
  const std::size_t second = first == std::string_view::npos ? first : text.find('\n', first + 1);
  if (second == std::string_view::npos) return make_error_code(errc::parse_error);
  out.serial = std::string(text.substr(0, first));
  out.features.clear();
  std::string_view features = text.substr(first + 1, second - first - 1);
  while (!features.empty()) {
    const std::size_t comma = std::min(features.find(','), features.size());
    if (comma > 0) out.features.emplace_back(features.substr(0, comma));
    features.remove_prefix(std::min(comma + 1, features.size()));
  }
  out.banner = std::string(text.substr(second + 1));
  return {};
}

std::string format_pull_into(const PullInto& pull) {
  return std::string(kPullIntoRequest) + std::to_string(pull.size) + ":" +
         std::to_string(pull.slack) + ":" + std::to_string(pull.deadline_ms) + ":" +
         pull.compression + ":" + std::to_string(pull.local.size()) + ":" + pull.local +
         pull.remote;
}

namespace {

// Reads "NUMBER:" off the front of text; false when it is not one.
template <typename Number>
bool number_field(std::string_view& text, Number& value) {
  const std::size_t colon = text.find(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  const auto [end, error] = std::from_chars(text.data(), text.data() + colon, value);
  if (error != std::errc() || end != text.data() + colon) return false;
  text.remove_prefix(colon + 1);
  return true;
}

// "COMPRESSION:LOCAL_LENGTH:LOCAL REMOTE", the tail both file requests share.
bool named_tail(std::string_view text, std::string& compression, std::string& local,
                std::string& remote) {
  const std::size_t colon = text.find(':');
  if (colon == std::string_view::npos) return false;
  compression = std::string(text.substr(0, colon));
  text.remove_prefix(colon + 1);
  std::size_t local_size = 0;
  if (!number_field(text, local_size) || local_size > text.size()) return false;
  local = std::string(text.substr(0, local_size));
  remote = std::string(text.substr(local_size));
  return !remote.empty();
}

}  // namespace

std::error_code parse_pull_into(std::string_view text, PullInto& out) {
  if (!text.starts_with(kPullIntoRequest)) return make_error_code(errc::parse_error);
  text.remove_prefix(kPullIntoRequest.size());
  if (!number_field(text, out.size) || !number_field(text, out.slack) ||
      !number_field(text, out.deadline_ms) ||
      !named_tail(text, out.compression, out.local, out.remote))
    return make_error_code(errc::parse_error);
  return {};
}

std::string format_push_from(const PushFrom& push) {
  return std::string(kPushFromRequest) + std::to_string(push.mode) + ":" +
         std::to_string(push.mtime) + ":" + std::to_string(push.deadline_ms) + ":" +
         push.compression + ":" + std::to_string(push.local.size()) + ":" + push.local +
         push.remote;
}

std::error_code parse_push_from(std::string_view text, PushFrom& out) {
  if (!text.starts_with(kPushFromRequest)) return make_error_code(errc::parse_error);
  text.remove_prefix(kPushFromRequest.size());
  if (!number_field(text, out.mode) || !number_field(text, out.mtime) ||
      !number_field(text, out.deadline_ms) ||
      !named_tail(text, out.compression, out.local, out.remote))
    return make_error_code(errc::parse_error);
  return {};
}

std::string device_request(std::string_view target, std::chrono::milliseconds auth_timeout) {
  return std::string(kDeviceRequest) + std::to_string(auth_timeout.count()) + ":" +
         std::string(target);
}

bool parse_device_request(std::string_view request, std::string& target,
                          std::chrono::milliseconds& auth_timeout) {
  if (!request.starts_with(kDeviceRequest)) return false;
  request.remove_prefix(kDeviceRequest.size());
  const std::size_t colon = request.find(':');
  if (colon == std::string_view::npos) return false;
  std::int64_t ms = 0;
  const auto [end, error] = std::from_chars(request.data(), request.data() + colon, ms);
  if (error != std::errc() || end != request.data() + colon || ms < 0) return false;
  auth_timeout = std::chrono::milliseconds(ms);
  target = std::string(request.substr(colon + 1));
  return true;
}

std::string tcp_serial(std::string_view address) {
  std::error_code error;
  const Target target = Target::parse(
      address.starts_with("tcp:") ? std::string(address) : "tcp:" + std::string(address), error);
  if (error || target.kind() != Target::Kind::tcp) return std::string(address);
  return target.to_string().substr(4);
}

bool valid_session_name(std::string_view name) noexcept {
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
}

void FrameReader::feed(std::span<const std::uint8_t> bytes) {
  const std::span<std::uint8_t> room = prepare(bytes.size());
  std::copy(bytes.begin(), bytes.end(), room.begin());
  commit(bytes.size());
}

std::span<std::uint8_t> FrameReader::prepare(std::size_t n) {
  if (consumed_ == size_) {
    size_ = 0;
    consumed_ = 0;
  } else if (consumed_ > size_ / 2) {
    std::copy(buffer_.begin() + static_cast<std::ptrdiff_t>(consumed_),
              buffer_.begin() + static_cast<std::ptrdiff_t>(size_), buffer_.begin());
    size_ -= consumed_;
    consumed_ = 0;
  }
  if (buffer_.size() < size_ + n) buffer_.resize(size_ + n);
  return {buffer_.data() + size_, n};
}

FrameReader::Result FrameReader::fail(std::string detail) {
  failed_ = true;
  error_detail_ = std::move(detail);
  return Result::failed;
}

FrameReader::Result FrameReader::next(Frame& frame) {
  if (failed_) return Result::failed;
  const std::span<const std::uint8_t> bytes(buffer_.data() + consumed_, size_ - consumed_);
  if (bytes.size() < kTagSize) return Result::need_more;
  const std::string_view word = as_text(bytes.first(kTagSize));
  const Tag* tag = std::find_if(std::begin(kTags), std::end(kTags),
                                [word](const Tag& candidate) { return candidate.word == word; });
  if (tag == std::end(kTags)) {
    return fail("the adbwire daemon's protocol: unknown frame '" + protocol::printable(word) + "'");
  }
  std::size_t length = 0;
  if (tag->has_payload) {
    if (bytes.size() < kTagSize + kLengthSize) return Result::need_more;
    const auto value = protocol::parse_hex4(bytes.subspan(kTagSize));
    if (!value) {
      return fail("the adbwire daemon's protocol: bad length '" +
                  protocol::printable(as_text(bytes.subspan(kTagSize, kLengthSize))) + "'");
    }
    length = *value;
    if (bytes.size() < kTagSize + kLengthSize + length) return Result::need_more;
  }
  const std::size_t header = kTagSize + (tag->has_payload ? kLengthSize : 0);
  frame.kind = tag->kind;
  frame.payload = bytes.subspan(header, length);
  consumed_ += header + length;
  return Result::ready;
}

}  // namespace adbwire::daemon
