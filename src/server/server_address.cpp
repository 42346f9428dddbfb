#include "adbwire/server_address.hpp"

#include <cstdlib>
#include <optional>
#include <string_view>

#include "adbwire/error.hpp"
#include "adbwire/protocol/constants.hpp"
#include "base/port.hpp"
#include "server/server_address_detail.hpp"

namespace adbwire {
namespace {

constexpr const char* kDefaultHost = "127.0.0.1";

std::string_view environment(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string_view() : std::string_view(value);
}

// "tcp:PORT", "tcp:HOST:PORT", "tcp:[V6]:PORT".
std::optional<ServerAddress> parse_server_socket(std::string_view text) {
  if (!text.starts_with("tcp:")) return std::nullopt;
  text.remove_prefix(4);
  const auto colon = text.rfind(':');
  ServerAddress address;
  std::string_view port_text = text;
  if (colon != std::string_view::npos) {
    std::string_view host = text.substr(0, colon);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
      host = host.substr(1, host.size() - 2);
    if (host.empty()) return std::nullopt;
    address.host = std::string(host);
    port_text = text.substr(colon + 1);
  }
  const auto port = detail::parse_port(port_text);
  if (!port) return std::nullopt;
  address.port = *port;
  return address;
}

}  // namespace

ServerAddress server::resolve_address(const ServerAddress& given, detail::Failure& failure) {
  ServerAddress address = given;
  if (address.host.empty() && address.port == 0) {
    if (const std::string_view socket = environment("ADB_SERVER_SOCKET"); !socket.empty()) {
      const auto parsed = parse_server_socket(socket);
      if (!parsed) {
        failure.set(errc::invalid_argument,
                    "ADB_SERVER_SOCKET='" + std::string(socket) +
                        "' is not tcp:HOST:PORT or tcp:PORT; fix or unset it");
        return {};
      }
      address = *parsed;
    }
  }
  if (address.port == 0) {
    if (const std::string_view port = environment("ANDROID_ADB_SERVER_PORT"); !port.empty()) {
      const auto parsed = detail::parse_port(port);
      if (!parsed) {
        failure.set(errc::invalid_argument, "ANDROID_ADB_SERVER_PORT='" + std::string(port) +
                                                "' is not a port 1..65535; fix or unset it");
        return {};
      }
      address.port = *parsed;
    } else {
      address.port = protocol::kDefaultServerPort;
    }
  }
  if (address.host.empty()) address.host = kDefaultHost;
  return address;
}

ServerAddress resolve_server_address(const ServerAddress& given) {
  detail::Failure failure;
  ServerAddress address = server::resolve_address(given, failure);
  failure.throw_if_failed();
  return address;
}

ServerAddress resolve_server_address(const ServerAddress& given, std::error_code& error) {
  detail::Failure failure;
  ServerAddress address = server::resolve_address(given, failure);
  detail::report(std::move(failure), error);
  return address;
}

std::string to_string(const ServerAddress& address) {
  const bool ipv6 = address.host.find(':') != std::string::npos;
  return (ipv6 ? "[" + address.host + "]" : address.host) + ":" + std::to_string(address.port);
}

}  // namespace adbwire
