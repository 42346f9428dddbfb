#include "adbwire/protocol/smart_socket.hpp"

#include <algorithm>
#include <charconv>
#include <unordered_map>
#include <utility>

#include "adbwire/protocol/bytes.hpp"
#include "adbwire/protocol/printable.hpp"

namespace adbwire::protocol {
namespace {

constexpr std::string_view kOkay = "OKAY";
constexpr std::string_view kFail = "FAIL";

int hex_value(std::uint8_t c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Printable form of a few bytes for error messages ("OKAX", "\x00\x01…").
std::string shown(std::span<const std::uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (const std::uint8_t c : bytes) {
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kDigits[c >> 4];
      out += kDigits[c & 15];
    }
  }
  return out;
}

std::string_view trim_spaces(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
    text.remove_suffix(1);
  return text;
}

// Splits on runs of spaces and tabs.
std::vector<std::string_view> words(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t start = text.find_first_not_of(" \t", at);
    if (start == std::string_view::npos) break;
    std::size_t end = text.find_first_of(" \t", start);
    if (end == std::string_view::npos) end = text.size();
    out.push_back(text.substr(start, end - start));
    at = end;
  }
  return out;
}

constexpr std::pair<DeviceState, std::string_view> kStateNames[] = {
    {DeviceState::device, "device"},
    {DeviceState::offline, "offline"},
    {DeviceState::unauthorized, "unauthorized"},
    {DeviceState::authorizing, "authorizing"},
    {DeviceState::connecting, "connecting"},
    {DeviceState::bootloader, "bootloader"},
    {DeviceState::recovery, "recovery"},
    {DeviceState::rescue, "rescue"},
    {DeviceState::sideload, "sideload"},
    {DeviceState::host, "host"},
    {DeviceState::detached, "detached"},
    {DeviceState::no_permissions, "no permissions"},
    {DeviceState::unknown, "unknown"},
};

DeviceState state_from_text(std::string_view text) noexcept {
  if (text.starts_with("no permissions")) return DeviceState::no_permissions;
  for (const auto& [state, name] : kStateNames) {
    if (name == text) return state;
  }
  return DeviceState::unknown;
}

bool is_info_word(std::string_view word) noexcept {
  return word.starts_with("product:") || word.starts_with("model:") ||
         word.starts_with("device:") || word.starts_with("transport_id:") ||
         word.starts_with("usb:");
}

std::string line_error(std::string_view line, std::string_view why) {
  return "bad device list line '" + std::string(line) + "': " + std::string(why);
}

// serial TAB state.
bool parse_short_line(std::string_view line, DeviceEntry& entry) {
  const std::size_t tab = line.find('\t');
  entry.serial = std::string(line.substr(0, tab));
  entry.state_text = std::string(trim_spaces(line.substr(tab + 1)));
  return !entry.serial.empty() && !entry.state_text.empty();
}

// "%-22s %s" serial/state, then optional devpath and key:value words, transport_id last.
std::error_code parse_long_line(std::string_view line, DeviceEntry& entry, std::string& detail) {
  const std::vector<std::string_view> parts = words(line);
  if (parts.size() < 2) {
    detail = line_error(line, "no state after the serial");
    return make_error_code(errc::parse_error);
  }
  entry.serial = std::string(parts[0]);
  std::size_t at = 1;
  if (parts[1] == "no" && parts.size() > 2 && parts[2].starts_with("permissions")) {
    // The no-permissions state is a sentence that may end in "[url]".
    std::string state;
    for (; at < parts.size() && !(at > 2 && is_info_word(parts[at])); ++at) {
      if (!state.empty()) state += ' ';
      state += parts[at];
      if (parts[at].ends_with("]")) {
        ++at;
        break;
      }
    }
    entry.state_text = state;
  } else {
    entry.state_text = std::string(parts[at++]);
  }
  for (; at < parts.size(); ++at) {
    const std::string_view word = parts[at];
    if (word.starts_with("product:")) {
      entry.product = std::string(word.substr(8));
    } else if (word.starts_with("model:")) {
      entry.model = std::string(word.substr(6));
    } else if (word.starts_with("device:")) {
      entry.device = std::string(word.substr(7));
    } else if (word.starts_with("transport_id:")) {
      const std::string_view digits = word.substr(13);
      std::uint64_t id = 0;
      const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), id);
      if (error != std::errc{} || end != digits.data() + digits.size() || digits.empty()) {
        detail = line_error(line, "transport_id is not a number");
        return make_error_code(errc::parse_error);
      }
      entry.transport_id = id;
    } else if (entry.devpath.empty()) {
      entry.devpath = std::string(word);
    }
  }
  return {};
}

}  // namespace

std::optional<std::size_t> parse_hex4(std::span<const std::uint8_t> bytes) noexcept {
  if (bytes.size() < kSmartLengthSize) return std::nullopt;
  std::size_t value = 0;
  for (const std::uint8_t c : bytes.first(kSmartLengthSize)) {
    const int digit = hex_value(c);
    if (digit < 0) return std::nullopt;
    value = value * 16 + static_cast<std::size_t>(digit);
  }
  return value;
}

std::error_code append_smart_request(std::vector<std::uint8_t>& out, std::string_view service) {
  if (service.empty() || service.size() > kMaxSmartString)
    return make_error_code(errc::invalid_argument);
  append_smart_string(out, service);
  return {};
}

void append_smart_okay(std::vector<std::uint8_t>& out) {
  out.insert(out.end(), kOkay.begin(), kOkay.end());
}

void append_smart_fail(std::vector<std::uint8_t>& out, std::string_view message) {
  out.insert(out.end(), kFail.begin(), kFail.end());
  append_smart_string(out, message);
}

void append_smart_string(std::vector<std::uint8_t>& out, std::string_view text) {
  static constexpr char kDigits[] = "0123456789abcdef";
  text = text.substr(0, kMaxSmartString);
  const std::size_t length = text.size();
  for (int shift = 12; shift >= 0; shift -= 4) {
    out.push_back(static_cast<std::uint8_t>(kDigits[(length >> shift) & 15]));
  }
  out.insert(out.end(), text.begin(), text.end());
}

void append_transport_id(std::vector<std::uint8_t>& out, std::uint64_t id) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::uint8_t>(id >> (8 * i)));
}

void SmartRequestReader::feed(std::span<const std::uint8_t> bytes) {
  if (failed_) return;
  if (consumed_ > 0 && consumed_ * 2 >= buffer_.size()) {
    buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(consumed_));
    consumed_ = 0;
  }
  buffer_.insert(buffer_.end(), bytes.begin(), bytes.end());
}

std::span<const std::uint8_t> SmartRequestReader::unread() const noexcept {
  return std::span<const std::uint8_t>(buffer_).subspan(consumed_);
}

void SmartRequestReader::clear_unread() noexcept { consumed_ = buffer_.size(); }

SmartRequestReader::Result SmartRequestReader::fail(std::string detail) {
  failed_ = true;
  error_detail_ = std::move(detail);
  return Result::failed;
}

SmartRequestReader::Result SmartRequestReader::next(std::string& request) {
  if (failed_) return Result::failed;
  const auto bytes = unread();
  if (bytes.size() < kSmartLengthSize) return Result::need_more;
  const auto value = parse_hex4(bytes);
  if (!value) {
    return fail("a request began with '" + shown(bytes.first(kSmartLengthSize)) +
                "' where its 4 hex digits of length belong");
  }
  const std::size_t length = *value;
  if (length == 0) return fail("an empty request (length 0000)");
  if (bytes.size() < kSmartLengthSize + length) return Result::need_more;
  const auto text = bytes.subspan(kSmartLengthSize, length);
  request.assign(text.begin(), text.end());
  consumed_ += kSmartLengthSize + length;
  return Result::ready;
}

void SmartReplyReader::feed(std::span<const std::uint8_t> bytes) {
  if (failed_) return;
  // Compact once the consumed prefix dominates, so a long track-devices stream stays small.
  if (consumed_ > 0 && consumed_ * 2 >= buffer_.size()) {
    buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(consumed_));
    consumed_ = 0;
  }
  buffer_.insert(buffer_.end(), bytes.begin(), bytes.end());
}

std::span<const std::uint8_t> SmartReplyReader::unread() const noexcept {
  return std::span<const std::uint8_t>(buffer_).subspan(consumed_);
}

void SmartReplyReader::consume(std::size_t n) { consumed_ += n; }

SmartReplyReader::Result SmartReplyReader::fail(std::string detail) {
  failed_ = true;
  error_detail_ = std::move(detail);
  return Result::failed;
}

SmartReplyReader::Result SmartReplyReader::read_length(std::size_t offset, std::size_t& length,
                                                       std::string_view what) {
  const auto bytes = unread();
  if (bytes.size() < offset + kSmartLengthSize) return Result::need_more;
  const auto digits = bytes.subspan(offset, kSmartLengthSize);
  const auto value = parse_hex4(digits);
  if (!value) {
    return fail("the adb server sent '" + shown(digits) + "' where the 4 hex digits of a " +
                std::string(what) + " length belong");
  }
  length = *value;
  return Result::ready;
}

SmartReplyReader::Result SmartReplyReader::read_status(SmartStatus& out) {
  if (failed_) return Result::failed;
  const auto bytes = unread();
  if (bytes.size() < 4) return Result::need_more;
  const std::string_view word(reinterpret_cast<const char*>(bytes.data()), 4);
  if (word == kOkay) {
    consume(4);
    out = SmartStatus{true, {}};
    return Result::ready;
  }
  if (word != kFail) {
    return fail("the adb server answered '" + shown(bytes.first(4)) +
                "' instead of OKAY or FAIL (is that port an adb server?)");
  }
  std::size_t length = 0;
  if (const Result result = read_length(4, length, "FAIL message"); result != Result::ready)
    return result;
  const std::size_t header = 4 + kSmartLengthSize;
  if (bytes.size() < header + length) return Result::need_more;
  const auto message = bytes.subspan(header, length);
  out = SmartStatus{false, std::string(message.begin(), message.end())};
  consume(header + length);
  return Result::ready;
}

SmartReplyReader::Result SmartReplyReader::read_string(std::string& out) {
  if (failed_) return Result::failed;
  std::size_t length = 0;
  if (const Result result = read_length(0, length, "reply"); result != Result::ready) return result;
  if (unread().size() < kSmartLengthSize + length) return Result::need_more;
  const auto text = unread().subspan(kSmartLengthSize, length);
  out.assign(text.begin(), text.end());
  consume(kSmartLengthSize + length);
  return Result::ready;
}

SmartReplyReader::Result SmartReplyReader::read_transport_id(std::uint64_t& out) {
  if (failed_) return Result::failed;
  const auto bytes = unread();
  if (bytes.size() < kTransportIdSize) return Result::need_more;
  out = load_le64(bytes.data());
  consume(kTransportIdSize);
  return Result::ready;
}

std::vector<std::uint8_t> SmartReplyReader::take_remaining() {
  std::vector<std::uint8_t> rest(buffer_.begin() + static_cast<std::ptrdiff_t>(consumed_),
                                 buffer_.end());
  buffer_.clear();
  consumed_ = 0;
  return rest;
}

errc classify_failure(std::string_view message) noexcept {
  if (message.starts_with("device '") && message.ends_with("' not found")) return errc::not_found;
  if (message.starts_with("no devices") || message.starts_with("no emulators") ||
      message.starts_with("no such device")) {
    return errc::not_found;
  }
  if (message.starts_with("device offline") || message.starts_with("device still connecting") ||
      message.starts_with("device still authorizing")) {
    return errc::device_offline;
  }
  if (message.starts_with("device unauthorized")) return errc::unauthorized;
  if (message.starts_with("more than one")) return errc::invalid_argument;
  if (message.starts_with("unknown host service") || message.starts_with("unsupported"))
    return errc::not_supported;
  if (message.starts_with("closed")) return errc::closed;
  return errc::command_failed;
}

std::string_view device_state_name(DeviceState state) noexcept {
  for (const auto& [known, name] : kStateNames) {
    if (known == state) return name;
  }
  return "unknown";
}

std::error_code parse_device_list(std::string_view text, std::vector<DeviceEntry>& out,
                                  std::string& detail) {
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = trim_spaces(text.substr(at, end - at));
    at = end + 1;
    if (line.empty()) continue;
    DeviceEntry entry;
    if (line.find('\t') != std::string_view::npos) {
      if (!parse_short_line(line, entry)) {
        detail = line_error(line, "no state after the serial");
        return make_error_code(errc::parse_error);
      }
    } else if (const std::error_code error = parse_long_line(line, entry, detail)) {
      return error;
    }
    entry.state = state_from_text(entry.state_text);
    out.push_back(std::move(entry));
  }
  return {};
}

std::string format_device_list(const std::vector<DeviceEntry>& entries, bool long_format) {
  std::string out;
  for (const DeviceEntry& e : entries) {
    if (!long_format) {
      out += e.serial + '\t' + e.state_text + '\n';
      continue;
    }
    std::string line = e.serial;
    if (line.size() < 22) line.resize(22, ' ');
    line += ' ' + e.state_text;
    if (!e.devpath.empty()) line += ' ' + e.devpath;
    if (!e.product.empty()) line += " product:" + e.product;
    if (!e.model.empty()) line += " model:" + e.model;
    if (!e.device.empty()) line += " device:" + e.device;
    if (e.transport_id) line += " transport_id:" + std::to_string(*e.transport_id);
    out += line + '\n';
  }
  return out;
}

std::vector<DeviceChange> diff_device_lists(const std::vector<DeviceEntry>& before,
                                            const std::vector<DeviceEntry>& after) {
  std::unordered_map<std::string_view, const DeviceEntry*> old_by_serial;
  for (const DeviceEntry& e : before) old_by_serial.emplace(e.serial, &e);
  std::unordered_map<std::string_view, const DeviceEntry*> new_by_serial;
  for (const DeviceEntry& e : after) new_by_serial.emplace(e.serial, &e);

  std::vector<DeviceChange> changes;
  for (const DeviceEntry& e : before) {
    if (!new_by_serial.contains(e.serial))
      changes.push_back({DeviceChange::Kind::removed, e, e.state});
  }
  for (const DeviceEntry& e : after) {
    const auto old = old_by_serial.find(e.serial);
    if (old == old_by_serial.end()) {
      changes.push_back({DeviceChange::Kind::added, e, DeviceState::unknown});
    } else if (old->second->state_text != e.state_text) {
      changes.push_back({DeviceChange::Kind::state_changed, e, old->second->state});
    }
  }
  return changes;
}

std::error_code DeviceTrackReader::feed(std::span<const std::uint8_t> bytes,
                                        std::vector<DeviceListUpdate>& out) {
  if (error_) return error_;
  reader_.feed(bytes);
  const auto fail = [this](errc code, std::string detail) {
    error_ = make_error_code(code);
    error_detail_ = std::move(detail);
    return error_;
  };
  if (!status_seen_) {
    SmartStatus status;
    const auto result = reader_.read_status(status);
    if (result == SmartReplyReader::Result::need_more) return {};
    if (result == SmartReplyReader::Result::failed)
      return fail(errc::protocol_error, reader_.error_detail());
    if (!status.okay) return fail(classify_failure(status.message), status.message);
    status_seen_ = true;
  }
  for (;;) {
    std::string text;
    const auto result = reader_.read_string(text);
    if (result == SmartReplyReader::Result::need_more) return {};
    if (result == SmartReplyReader::Result::failed)
      return fail(errc::protocol_error, reader_.error_detail());
    DeviceListUpdate update;
    std::string detail;
    if (const std::error_code error = parse_device_list(text, update.devices, detail))
      return fail(errc::parse_error, detail);
    update.changes = diff_device_lists(last_, update.devices);
    last_ = update.devices;
    out.push_back(std::move(update));
  }
}

std::error_code parse_forward_list(std::string_view text, std::vector<ForwardEntry>& out,
                                   std::string& detail) {
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = trim_spaces(text.substr(at, end - at));
    at = end + 1;
    if (line.empty()) continue;
    const std::vector<std::string_view> parts = words(line);
    if (parts.size() != 3) {
      detail = "bad forward list line '" + std::string(line) + "': want SERIAL LOCAL REMOTE";
      return make_error_code(errc::parse_error);
    }
    out.push_back({std::string(parts[0]), std::string(parts[1]), std::string(parts[2])});
  }
  return {};
}

std::error_code parse_mdns_services(std::string_view text, std::vector<MdnsServiceEntry>& out,
                                    std::string& detail) {
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    if (line.ends_with('\r')) line.remove_suffix(1);
    if (line.empty()) continue;
    const auto first = line.find('\t');
    const auto second = first == std::string_view::npos ? first : line.find('\t', first + 1);
    const std::string_view address =
        second == std::string_view::npos ? std::string_view{} : line.substr(second + 1);
    const auto colon = address.rfind(':');
    if (second == std::string_view::npos || first == 0 || second == first + 1 ||
        address.find('\t') != std::string_view::npos || colon == std::string_view::npos ||
        colon == 0 || colon + 1 == address.size()) {
      detail = "bad mdns services line '" + printable(line) +
               "': want INSTANCE<tab>SERVICE<tab>ADDRESS:PORT";
      return make_error_code(errc::parse_error);
    }
    out.push_back({std::string(line.substr(0, first)),
                   std::string(line.substr(first + 1, second - first - 1)), std::string(address)});
  }
  return {};
}

}  // namespace adbwire::protocol
