// Error codes of adbwire: one std::error_category, one exception type.
//
// Every public blocking call comes twice, as in asio: `op(args)` throws adbwire::Error,
// `op(args, std::error_code&)` does not. The protocol core never throws; it returns codes.
#pragma once

#include <string>
#include <system_error>
#include <utility>

namespace adbwire {

// What went wrong, in terms a caller can act on. Values are stable (they may be logged).
enum class errc {
  connection_refused = 1,  // nothing listens at the target (or the adb server is not running)
  unauthorized = 2,        // the device did not accept our key: confirm the prompt on the phone
  device_offline = 3,      // the connection to the device was lost (cable, adbd restart)
  protocol_error = 4,      // the peer broke the ADB wire protocol; the connection is unusable
  timeout = 5,             // a deadline passed before the operation completed
  not_found = 6,           // no such device, file, element or service
  permission_denied = 7,   // OS refused access (USB node without udev rule, file mode)
  busy = 8,                // someone else holds the resource (adb server owns the USB device)
  stale_ref = 9,           // a snapshot ref no longer matches the screen: take a new snapshot
  parse_error = 10,        // malformed input (XML, capture, banner, reply)
  not_supported = 11,      // the device or build lacks the feature
  closed = 12,             // the stream or connection was closed (by us or by the peer)
  invalid_argument = 13,   // the caller passed something unusable
  command_failed = 14,     // the device ran the request and reported failure (sync FAIL, …)
  io_error = 15,           // local file or socket I/O failed
  cancelled = 16,          // the caller cancelled the operation
  limit_exceeded = 17,     // a bound on what a peer may make us hold was reached; the detail names
                           // the bound and the option that raises it
};

// The category for adbwire::errc; name() is "adbwire".
const std::error_category& error_category() noexcept;

// Makes a std::error_code in adbwire's category.
std::error_code make_error_code(errc e) noexcept;

// The exception thrown by the throwing half of each API pair: the code plus a detail that
// names what was being done (for example the target or the path). what() is
// "<detail>: <the code's message>", as std::system_error makes it.
class Error : public std::system_error {
 public:
  Error(std::error_code code, std::string detail)
      : std::system_error(code, detail), detail_(std::move(detail)) {}
  Error(errc code, std::string detail) : Error(make_error_code(code), std::move(detail)) {}

  // What was being done and what went wrong, without the ": <message>" what() appends. The
  // error_code overloads leave the same text in last_error_detail() (adbwire/error_detail.hpp).
  const std::string& detail() const noexcept { return detail_; }

 private:
  std::string detail_;
};

// Throws Error(code, detail) when code is set; for implementing the throwing overloads.
inline void throw_if_error(const std::error_code& code, const std::string& detail) {
  if (code) throw Error(code, detail);
}

}  // namespace adbwire

template <>
struct std::is_error_code_enum<adbwire::errc> : std::true_type {};
