// The smart-socket protocol of a running adb server (port 5037): hex4-length requests,
// OKAY / FAIL replies, hex4-length reply strings, device lists and the track-devices stream.
// AOSP packages/modules/adb docs/dev/services.md, adb_io.cpp, transport.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "adbwire/error.hpp"

namespace adbwire::protocol {

// Four hex digits say how long a request or a reply string is.
inline constexpr std::size_t kSmartLengthSize = 4;
inline constexpr std::size_t kMaxSmartString = 0xffff;
// host:tport:… answers OKAY then the transport id, 8 bytes little-endian.
inline constexpr std::size_t kTransportIdSize = 8;

// The value of the kSmartLengthSize hex digits (either case) at the start of bytes; nullopt when
// there are fewer or one is not a hex digit.
std::optional<std::size_t> parse_hex4(std::span<const std::uint8_t> bytes) noexcept;

// Appends "%04x" + service. invalid_argument when service is empty or longer than
// kMaxSmartString (nothing is appended then).
std::error_code append_smart_request(std::vector<std::uint8_t>& out, std::string_view service);

// The server's side of a reply: OKAY; FAIL + hex4 + message; hex4 + a string (after OKAY:
// host:version, host:devices, …); the 8-byte little-endian transport id (after host:tport's
// OKAY). A message or string longer than kMaxSmartString is cut to it.
void append_smart_okay(std::vector<std::uint8_t>& out);
void append_smart_fail(std::vector<std::uint8_t>& out, std::string_view message);
void append_smart_string(std::vector<std::uint8_t>& out, std::string_view text);
void append_transport_id(std::vector<std::uint8_t>& out, std::uint64_t id);

// Incremental reader of a client's side of one smart-socket connection, as a server reads it:
// requests (hex4 + service), fed as they arrive, split or merged anywhere. After a request that
// switches the connection to a stream, unread() holds the stream's first bytes. A bad length or
// an empty request is a protocol_error; afterwards the reader stays failed.
class SmartRequestReader {
 public:
  enum class Result { ready, need_more, failed };

  void feed(std::span<const std::uint8_t> bytes);
  // The next whole request, copied out.
  Result next(std::string& request);
  // Bytes fed but not consumed by next(); valid until the next feed() or clear_unread().
  std::span<const std::uint8_t> unread() const noexcept;
  void clear_unread() noexcept;
  const std::string& error_detail() const noexcept { return error_detail_; }

 private:
  Result fail(std::string detail);

  std::vector<std::uint8_t> buffer_;
  std::size_t consumed_ = 0;
  bool failed_ = false;
  std::string error_detail_;
};

// The status word that opens every reply.
struct SmartStatus {
  bool okay = false;
  std::string message;  // FAIL's explanation, as the server wrote it; empty for OKAY
};

// Incremental reader of the server's side of one smart-socket connection. Bytes are fed as
// they arrive, split or merged anywhere; the caller then asks for the item it expects next
// (the conversation decides what comes: a status, a string, a transport id, raw bytes).
// A malformed item is a protocol_error; afterwards the reader stays failed.
class SmartReplyReader {
 public:
  enum class Result { ready, need_more, failed };

  // Keeps a copy of bytes until a read consumes them.
  void feed(std::span<const std::uint8_t> bytes);

  // "OKAY", or "FAIL" + hex4 + message. failed on any other word or a bad length.
  Result read_status(SmartStatus& out);
  // hex4 + that many bytes (host:version, host:devices, connect, …).
  Result read_string(std::string& out);
  // 8 bytes, little-endian (after host:tport:'s OKAY).
  Result read_transport_id(std::uint64_t& out);

  // Hands over every unconsumed byte (device data that came with the last status) and
  // empties the reader.
  std::vector<std::uint8_t> take_remaining();
  std::size_t buffered() const noexcept { return buffer_.size() - consumed_; }

  const std::string& error_detail() const noexcept { return error_detail_; }

 private:
  std::span<const std::uint8_t> unread() const noexcept;
  Result read_length(std::size_t offset, std::size_t& length, std::string_view what);
  Result fail(std::string detail);
  void consume(std::size_t n);

  std::vector<std::uint8_t> buffer_;
  std::size_t consumed_ = 0;
  bool failed_ = false;
  std::string error_detail_;
};

// What a FAIL message means, from the texts AOSP's server writes ("device 'X' not found",
// "device offline", "device unauthorized.…", "more than one device…", "unknown host
// service"). command_failed for anything else.
errc classify_failure(std::string_view message) noexcept;

// Connection states the server lists (AOSP ConnectionStateToString).
enum class DeviceState {
  device,
  offline,
  unauthorized,
  authorizing,
  connecting,
  bootloader,
  recovery,
  rescue,
  sideload,
  host,
  detached,
  no_permissions,  // "no permissions (…); see […]": the USB node is not accessible
  unknown,         // a word this build does not know; DeviceEntry::state_text has it
};

// The AOSP word for a state ("no permissions" for no_permissions, "unknown" for unknown).
std::string_view device_state_name(DeviceState state) noexcept;

// One line of host:devices (serial TAB state) or host:devices-l (serial, state, then
// optional devpath, product:, model:, device:, transport_id:).
struct DeviceEntry {
  std::string serial;
  DeviceState state = DeviceState::unknown;
  std::string state_text;                     // as written, including a no-permissions explanation
  std::string devpath;                        // usb:1-1 and the like; -l only
  std::string product;                        // -l only
  std::string model;                          // -l only
  std::string device;                         // -l only
  std::optional<std::uint64_t> transport_id;  // -l only

  bool operator==(const DeviceEntry&) const = default;
};

// Parses a whole device list (either format; empty text is an empty list). parse_error,
// with detail naming the line, when a line has no state or a bad transport_id.
std::error_code parse_device_list(std::string_view text, std::vector<DeviceEntry>& out,
                                  std::string& detail);

// Formats entries as the server does for host:devices (long = false) or host:devices-l.
std::string format_device_list(const std::vector<DeviceEntry>& entries, bool long_format);

// How one device differs between two consecutive lists of track-devices.
struct DeviceChange {
  enum class Kind { added, removed, state_changed };
  Kind kind = Kind::added;
  DeviceEntry entry;                                  // the new entry (the old one for removed)
  DeviceState previous_state = DeviceState::unknown;  // state_changed and removed only
};

// Changes from before to after, matched by serial: removals first, then additions and state
// changes in the order of `after`.
std::vector<DeviceChange> diff_device_lists(const std::vector<DeviceEntry>& before,
                                            const std::vector<DeviceEntry>& after);

// One list pushed by host:track-devices[-l]: the full list and what changed since the last.
struct DeviceListUpdate {
  std::vector<DeviceEntry> devices;
  std::vector<DeviceChange> changes;  // the first update lists every device as added
};

// Decoder of the server's side of host:track-devices[-l]: the status, then an endless
// sequence of hex4 + full list. Errors: command_failed / not_supported etc. (the server
// answered FAIL: error_detail() is its message), protocol_error (bad framing), parse_error
// (a bad list); after any error it stays failed.
class DeviceTrackReader {
 public:
  // Consumes all bytes; appends an update per complete list.
  std::error_code feed(std::span<const std::uint8_t> bytes, std::vector<DeviceListUpdate>& out);
  const std::string& error_detail() const noexcept { return error_detail_; }

 private:
  SmartReplyReader reader_;
  bool status_seen_ = false;
  std::error_code error_;
  std::string error_detail_;
  std::vector<DeviceEntry> last_;
};

// One line of host:list-forward or reverse:list-forward: "<serial> <local> <remote>".
struct ForwardEntry {
  std::string serial;
  std::string local;
  std::string remote;

  bool operator==(const ForwardEntry&) const = default;
};

// Parses a forward list. parse_error (detail names the line) for a line without 3 fields.
std::error_code parse_forward_list(std::string_view text, std::vector<ForwardEntry>& out,
                                   std::string& detail);

// One line of host:mdns:services, as AOSP's transport_mdns.cpp writes it:
// "<instance>\t<service type>\t<IPv4>:<port>" ("adb-R5CT1234-AbCdEf\t_adb-tls-connect._tcp\t
// 192.168.1.20:37099"). An instance name may hold spaces ("adb-…-AbCdEf (2)"), never a tab.
struct MdnsServiceEntry {
  std::string instance;
  std::string service;
  std::string address;  // "IPv4:PORT" as given

  bool operator==(const MdnsServiceEntry&) const = default;
};

// Parses an mDNS service list. parse_error (detail names the line) for a line that is not three
// tab-separated fields, or whose address has no ":PORT".
std::error_code parse_mdns_services(std::string_view text, std::vector<MdnsServiceEntry>& out,
                                    std::string& detail);

}  // namespace adbwire::protocol
