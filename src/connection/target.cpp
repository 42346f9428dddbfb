#include "adbwire/target.hpp"

#include <cstdlib>
#include <optional>

#include "adbwire/error.hpp"
#include "adbwire/protocol/constants.hpp"
#include "base/port.hpp"
#include "connection/target_detail.hpp"

namespace adbwire {
namespace {

constexpr const char* kForms =
    "use tcp:HOST[:PORT], HOST:PORT, usb:[SERIAL], server:[HOST:PORT/]SERIAL, mdns:NAME or a "
    "bare serial";

struct HostPort {
  std::string host;
  std::optional<std::uint16_t> port;  // nullopt when absent
  bool port_invalid = false;
};

// "HOST", "HOST:PORT", "[V6]", "[V6]:PORT". A bare IPv6 address without brackets is all host.
std::optional<HostPort> split_host_port(std::string_view text) {
  HostPort result;
  std::string_view port_text;
  bool has_port = false;
  if (!text.empty() && text.front() == '[') {
    const auto close = text.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    result.host = std::string(text.substr(1, close - 1));
    const std::string_view rest = text.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return std::nullopt;
      port_text = rest.substr(1);
      has_port = true;
    }
  } else {
    const auto colon = text.rfind(':');
    if (colon != std::string_view::npos && text.find(':') == colon) {
      result.host = std::string(text.substr(0, colon));
      port_text = text.substr(colon + 1);
      has_port = true;
    } else {
      result.host = std::string(text);
    }
  }
  if (result.host.empty()) return std::nullopt;
  if (has_port) {
    result.port = detail::parse_port(port_text);
    result.port_invalid = !result.port;
  }
  return result;
}

}  // namespace

std::string default_serial() {
  for (const char* name : {"ANDROID_SERIAL", "ADB_SERIAL"}) {
    const char* serial = std::getenv(name);
    if (serial != nullptr && *serial != '\0') return serial;
  }
  return {};
}

std::string detail::target_error_detail(std::string_view text) {
  const std::string serial = default_serial();
  if (text.empty() && serial.empty()) {
    return std::string("no device given: pass -s TARGET or set ANDROID_SERIAL (") + kForms + ")";
  }
  const char* android_serial = std::getenv("ANDROID_SERIAL");
  const char* from = android_serial != nullptr && *android_serial != '\0' ? " (from ANDROID_SERIAL)"
                                                                          : " (from ADB_SERIAL)";
  const std::string shown =
      text.empty() ? "'" + serial + "'" + from : "'" + std::string(text) + "'";
  return "bad target " + shown + ": " + kForms + "; ports are 1..65535";
}

Target Target::parse(std::string_view text) {
  std::error_code error;
  Target target = parse(text, error);
  if (error) throw Error(error, detail::target_error_detail(text));
  return target;
}

Target Target::parse(std::string_view text, std::error_code& error) {
  error.clear();
  std::string from_environment;
  if (text.empty()) {
    from_environment = default_serial();
    if (from_environment.empty()) {
      error = make_error_code(errc::invalid_argument);
      return {};
    }
    text = from_environment;
  }

  Target target;
  auto fail = [&] {
    error = make_error_code(errc::invalid_argument);
    return Target{};
  };

  if (text.starts_with("tcp:")) {
    const auto host_port = split_host_port(text.substr(4));
    if (!host_port || host_port->port_invalid) return fail();
    target.kind_ = Kind::tcp;
    target.host_ = host_port->host;
    target.port_ = host_port->port.value_or(protocol::kDefaultDevicePort);
    return target;
  }
  if (text.starts_with("usb:")) {
    target.kind_ = Kind::usb;
    target.serial_ = std::string(text.substr(4));
    return target;
  }
  if (text.starts_with("server:")) {
    std::string_view rest = text.substr(7);
    // Without HOST:PORT/ the address stays empty: ConnectOptions::server and the
    // environment decide when connecting (server/server_opener.cpp).
    target.kind_ = Kind::server;
    if (const auto slash = rest.find('/'); slash != std::string_view::npos) {
      const auto host_port = split_host_port(rest.substr(0, slash));
      if (!host_port || host_port->port_invalid) return fail();
      target.host_ = host_port->host;
      target.port_ = host_port->port.value_or(protocol::kDefaultServerPort);
      rest = rest.substr(slash + 1);
    }
    if (rest.empty()) return fail();
    target.serial_ = std::string(rest);
    return target;
  }
  if (text.starts_with("mdns:") || text.starts_with("adb-") ||
      text.find("._adb-tls-connect._tcp") != std::string_view::npos) {
    if (text.starts_with("mdns:")) text.remove_prefix(5);
    if (text.empty()) return fail();
    target.kind_ = Kind::mdns;
    target.serial_ = std::string(text);
    return target;
  }
  if (text.find(':') != std::string_view::npos) {
    const auto host_port = split_host_port(text);
    if (!host_port || !host_port->port) return fail();
    target.kind_ = Kind::tcp;
    target.host_ = host_port->host;
    target.port_ = *host_port->port;
    return target;
  }
  target.kind_ = Kind::server;
  target.serial_ = std::string(text);
  return target;
}

std::string Target::to_string() const {
  const std::string host = host_.find(':') != std::string::npos ? "[" + host_ + "]" : host_;
  switch (kind_) {
    case Kind::tcp:
      return "tcp:" + host + ":" + std::to_string(port_);
    case Kind::usb:
      return "usb:" + serial_;
    case Kind::server:
      if (host_.empty()) return "server:" + serial_;
      return "server:" + host + ":" + std::to_string(port_) + "/" + serial_;
    case Kind::mdns:
      return "mdns:" + serial_;
  }
  return {};
}

}  // namespace adbwire
