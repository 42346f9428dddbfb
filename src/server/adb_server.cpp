#include "adbwire/adb_server.hpp"

#include <algorithm>
#include <charconv>
#include <memory>
#include <type_traits>
#include <utility>

#include "adbwire/error.hpp"
#include "base/port.hpp"
#include "server/server_socket.hpp"

namespace adbwire {
namespace {

using detail::Failure;
using server::ServerSocket;

// A connection with `request` sent and its first OKAY read.
std::unique_ptr<ServerSocket> ask(const ServerAddress& address, const std::string& request,
                                  Deadline deadline, Failure& failure) {
  auto socket = ServerSocket::connect(address, deadline, failure);
  if (!socket || !socket->request(request, deadline, failure) ||
      !socket->expect_okay("adb server at " + to_string(address) + " (" + request + ")", deadline,
                           failure)) {
    return nullptr;
  }
  return socket;
}

// OKAY + hex4 string.
std::string ask_string(const ServerAddress& address, const std::string& request, Deadline deadline,
                       Failure& failure) {
  std::string text;
  auto socket = ask(address, request, deadline, failure);
  if (socket) socket->read_string(text, deadline, failure);
  return text;
}

std::string host_prefix(std::string_view serial) {
  return serial.empty() ? std::string("host:") : "host-serial:" + std::string(serial) + ":";
}

std::uint16_t parse_port_reply(std::string_view text, std::string_view what, Failure& failure) {
  const auto port = detail::parse_port(text);
  if (!port) {
    failure.set(errc::protocol_error,
                std::string(what) + ": the bound port '" + std::string(text) + "' is not a port");
    return 0;
  }
  return *port;
}

// The second status of forward/reverse, then the bound port when tcp:0 was asked for.
std::uint16_t finish_forward(ServerSocket& socket, bool wants_port, const std::string& what,
                             Deadline deadline, Failure& failure) {
  if (!socket.expect_okay(what, deadline, failure)) return 0;
  if (!wants_port) return 0;
  std::string port;
  if (!socket.read_string(port, deadline, failure)) return 0;
  return parse_port_reply(port, what, failure);
}

// A connection switched to the device, then a reverse: service opened on it.
std::unique_ptr<ServerSocket> open_reverse(const ServerAddress& address, std::string_view serial,
                                           const std::string& service, Deadline deadline,
                                           Failure& failure) {
  const std::string transport =
      serial.empty() ? std::string("host:transport-any") : "host:transport:" + std::string(serial);
  auto socket = ask(address, transport, deadline, failure);
  if (!socket || !socket->request(service, deadline, failure)) return nullptr;
  if (!socket->expect_okay("device refused '" + service + "'", deadline, failure)) {
    if (failure.code == errc::command_failed || failure.code == errc::closed)
      failure.code = make_error_code(errc::not_supported);
    return nullptr;
  }
  return socket;
}

std::string_view transport_word(WaitTransport transport) {
  switch (transport) {
    case WaitTransport::usb:
      return "usb";
    case WaitTransport::local:
      return "local";
    case WaitTransport::any:
      break;
  }
  return "any";
}

std::string_view state_word(WaitState state) {
  switch (state) {
    case WaitState::device:
      return "device";
    case WaitState::recovery:
      return "recovery";
    case WaitState::rescue:
      return "rescue";
    case WaitState::sideload:
      return "sideload";
    case WaitState::bootloader:
      return "bootloader";
    case WaitState::disconnect:
      return "disconnect";
    case WaitState::any:
      break;
  }
  return "any";
}

int version_of(const ServerAddress& address, Deadline deadline, Failure& failure) {
  const std::string text = ask_string(address, "host:version", deadline, failure);
  if (failure) return 0;
  unsigned value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
  if (error != std::errc{} || end != text.data() + text.size() || text.empty()) {
    failure.set(errc::protocol_error, "adb server at " + to_string(address) +
                                          ": host:version answered '" + text + "', not hex");
    return 0;
  }
  return static_cast<int>(value);
}

std::vector<protocol::DeviceEntry> devices_of(const ServerAddress& address, bool long_format,
                                              Deadline deadline, Failure& failure) {
  const std::string text =
      ask_string(address, long_format ? "host:devices-l" : "host:devices", deadline, failure);
  std::vector<protocol::DeviceEntry> entries;
  std::string detail;
  if (!failure && protocol::parse_device_list(text, entries, detail))
    failure.set(errc::protocol_error, "adb server at " + to_string(address) + ": " + detail);
  return entries;
}

std::vector<protocol::MdnsServiceEntry> mdns_services_of(const ServerAddress& address,
                                                         Deadline deadline, Failure& failure) {
  const std::string text = ask_string(address, "host:mdns:services", deadline, failure);
  std::vector<protocol::MdnsServiceEntry> entries;
  std::string detail;
  if (!failure && protocol::parse_mdns_services(text, entries, detail))
    failure.set(errc::protocol_error, "adb server at " + to_string(address) + ": " + detail);
  return entries;
}

// connect_deadline bounds reaching the server; deadline bounds the whole tracking.
void track(const ServerAddress& address, const DeviceTrackHandler& on_update,
           const std::stop_token& stop, Deadline connect_deadline, Deadline deadline,
           Failure& failure) {
  auto socket = ServerSocket::connect(address, std::min(connect_deadline, deadline), failure);
  if (!socket || !socket->request("host:track-devices-l", deadline, failure)) return;
  // Stopping shuts the socket down, which wakes the read below.
  const std::stop_callback on_stop(stop, [&socket] { socket->shutdown(); });
  protocol::DeviceTrackReader reader;
  std::vector<protocol::DeviceListUpdate> updates;
  std::vector<std::uint8_t> buffer(16 * 1024);
  for (;;) {
    const std::size_t n = socket->read_some(buffer, deadline, failure);
    if (stop.stop_requested()) {
      failure = {};
      return;
    }
    if (failure) return;
    if (n == 0) {
      failure.set(errc::device_offline, "the adb server at " + to_string(address) +
                                            " ended host:track-devices (was it killed?)");
      return;
    }
    updates.clear();
    const std::error_code error =
        reader.feed(std::span<const std::uint8_t>(buffer.data(), n), updates);
    // Lists completed before a bad one are still delivered.
    for (const protocol::DeviceListUpdate& update : updates) {
      if (!on_update(update)) return;
    }
    if (error) {
      failure.set(error, "adb server at " + to_string(address) +
                             " (host:track-devices-l): " + reader.error_detail());
      return;
    }
  }
}

std::vector<std::string> features_of(const ServerAddress& address, std::string_view serial,
                                     Deadline deadline, Failure& failure) {
  const std::string text = ask_string(address, host_prefix(serial) + "features", deadline, failure);
  std::vector<std::string> out;
  std::string_view rest = text;
  while (!failure && !rest.empty()) {
    const auto comma = rest.find(',');
    if (comma != 0) out.emplace_back(rest.substr(0, comma));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return out;
}

std::string connect_device(const ServerAddress& address, std::string_view host, std::uint16_t port,
                           Deadline deadline, Failure& failure) {
  const bool ipv6 = host.find(':') != std::string_view::npos;
  const std::string where =
      (ipv6 ? "[" + std::string(host) + "]" : std::string(host)) + ":" + std::to_string(port);
  std::string reply = ask_string(address, "host:connect:" + where, deadline, failure);
  // The server answers OKAY either way; the sentence tells success from failure.
  if (!failure && !reply.starts_with("connected to") && !reply.starts_with("already connected")) {
    const bool refused = reply.find("refused") != std::string::npos;
    failure.set(
        refused ? errc::connection_refused : errc::command_failed,
        "adb server at " + to_string(address) + " could not connect to " + where + ": " + reply);
  }
  return reply;
}

std::uint16_t forward_on(const ServerAddress& address, std::string_view serial,
                         std::string_view local, std::string_view remote, bool no_rebind,
                         Deadline deadline, Failure& failure) {
  const std::string request = host_prefix(serial) + (no_rebind ? "forward:norebind:" : "forward:") +
                              std::string(local) + ";" + std::string(remote);
  auto socket = ask(address, request, deadline, failure);
  if (!socket) return 0;
  return finish_forward(*socket, local == "tcp:0", "forward " + std::string(local), deadline,
                        failure);
}

void kill_forward_on(const ServerAddress& address, std::string_view serial, std::string_view local,
                     Deadline deadline, Failure& failure) {
  const std::string request =
      host_prefix(serial) +
      (local.empty() ? std::string("killforward-all") : "killforward:" + std::string(local));
  auto socket = ask(address, request, deadline, failure);
  if (socket) socket->expect_okay("killforward " + std::string(local), deadline, failure);
}

std::vector<protocol::ForwardEntry> parse_forwards(const ServerAddress& address,
                                                   const std::string& text, Failure& failure) {
  std::vector<protocol::ForwardEntry> entries;
  std::string detail;
  if (!failure && protocol::parse_forward_list(text, entries, detail))
    failure.set(errc::protocol_error, "adb server at " + to_string(address) + ": " + detail);
  return entries;
}

std::uint16_t reverse_on(const ServerAddress& address, std::string_view serial,
                         std::string_view remote, std::string_view local, bool no_rebind,
                         Deadline deadline, Failure& failure) {
  const std::string service =
      std::string(no_rebind ? "reverse:forward:norebind:" : "reverse:forward:") +
      std::string(remote) + ";" + std::string(local);
  auto socket = open_reverse(address, serial, service, deadline, failure);
  if (!socket) return 0;
  return finish_forward(*socket, remote == "tcp:0", "reverse " + std::string(remote), deadline,
                        failure);
}

void kill_reverse_on(const ServerAddress& address, std::string_view serial, std::string_view remote,
                     Deadline deadline, Failure& failure) {
  const std::string service = remote.empty() ? std::string("reverse:killforward-all")
                                             : "reverse:killforward:" + std::string(remote);
  auto socket = open_reverse(address, serial, service, deadline, failure);
  if (socket) socket->expect_okay("reverse killforward " + std::string(remote), deadline, failure);
}

std::vector<protocol::ForwardEntry> list_reverse_on(const ServerAddress& address,
                                                    std::string_view serial, Deadline deadline,
                                                    Failure& failure) {
  std::string text;
  // adbd answers list-forward with the bare hex4-length listing: its handle_forward_request
  // sends an OKAY first only when built as the host (adb.cpp, `#if ADB_HOST`).
  auto socket = open_reverse(address, serial, "reverse:list-forward", deadline, failure);
  if (socket) socket->read_string(text, deadline, failure);
  return parse_forwards(address, text, failure);
}

void wait_on(const ServerAddress& address, std::string_view serial, WaitState state,
             WaitTransport transport, Deadline deadline, Failure& failure) {
  const std::string request = host_prefix(serial) + "wait-for-" +
                              std::string(transport_word(transport)) + "-" +
                              std::string(state_word(state));
  // OKAY once the wait is set up, OKAY again when the state is reached.
  auto socket = ask(address, request, deadline, failure);
  if (socket) socket->expect_okay("adb server at " + to_string(address), deadline, failure);
  if (failure.code == errc::timeout) {
    failure.detail = std::string(serial.empty() ? "no device" : serial) + " did not reach " +
                     std::string(state_word(state)) + " before the deadline (" + request + ")";
  }
}

}  // namespace

AdbServer::AdbServer(const ServerAddress& address, std::chrono::milliseconds timeout)
    : address_(resolve_server_address(address)), timeout_(timeout) {}

AdbServer::AdbServer(const ServerAddress& address, std::chrono::milliseconds timeout,
                     std::error_code& error)
    : address_(resolve_server_address(address, error)), timeout_(timeout) {}

Deadline AdbServer::resolve(Deadline deadline) const noexcept {
  return deadline == kDefaultDeadline ? deadline_after(timeout_) : deadline;
}

int AdbServer::version(Deadline deadline) const {
  return detail::or_throw([&](Failure& f) { return version_of(address_, resolve(deadline), f); });
}
int AdbServer::version(Deadline deadline, std::error_code& error) const {
  return detail::or_code(error,
                         [&](Failure& f) { return version_of(address_, resolve(deadline), f); });
}

std::vector<protocol::DeviceEntry> AdbServer::devices(bool long_format, Deadline deadline) const {
  return detail::or_throw(
      [&](Failure& f) { return devices_of(address_, long_format, resolve(deadline), f); });
}
std::vector<protocol::DeviceEntry> AdbServer::devices(bool long_format, Deadline deadline,
                                                      std::error_code& error) const {
  return detail::or_code(
      error, [&](Failure& f) { return devices_of(address_, long_format, resolve(deadline), f); });
}

void AdbServer::track_devices(const DeviceTrackHandler& on_update, std::stop_token stop,
                              Deadline deadline) const {
  detail::or_throw([&](Failure& f) {
    track(address_, on_update, stop, deadline_after(timeout_), resolve(deadline), f);
  });
}
void AdbServer::track_devices(const DeviceTrackHandler& on_update, std::stop_token stop,
                              Deadline deadline, std::error_code& error) const {
  detail::or_code(error, [&](Failure& f) {
    track(address_, on_update, stop, deadline_after(timeout_), resolve(deadline), f);
  });
}

std::vector<std::string> AdbServer::features(std::string_view serial, Deadline deadline) const {
  return detail::or_throw(
      [&](Failure& f) { return features_of(address_, serial, resolve(deadline), f); });
}
std::vector<std::string> AdbServer::features(std::string_view serial, Deadline deadline,
                                             std::error_code& error) const {
  return detail::or_code(
      error, [&](Failure& f) { return features_of(address_, serial, resolve(deadline), f); });
}

std::string AdbServer::connect(std::string_view host, std::uint16_t port, Deadline deadline) const {
  return detail::or_throw(
      [&](Failure& f) { return connect_device(address_, host, port, resolve(deadline), f); });
}
std::string AdbServer::connect(std::string_view host, std::uint16_t port, Deadline deadline,
                               std::error_code& error) const {
  return detail::or_code(error, [&](Failure& f) {
    return connect_device(address_, host, port, resolve(deadline), f);
  });
}

std::string AdbServer::disconnect(std::string_view address, Deadline deadline) const {
  return detail::or_throw([&](Failure& f) {
    return ask_string(address_, "host:disconnect:" + std::string(address), resolve(deadline), f);
  });
}
std::string AdbServer::disconnect(std::string_view address, Deadline deadline,
                                  std::error_code& error) const {
  return detail::or_code(error, [&](Failure& f) {
    return ask_string(address_, "host:disconnect:" + std::string(address), resolve(deadline), f);
  });
}

std::string AdbServer::mdns_check(Deadline deadline) const {
  return detail::or_throw(
      [&](Failure& f) { return ask_string(address_, "host:mdns:check", resolve(deadline), f); });
}
std::string AdbServer::mdns_check(Deadline deadline, std::error_code& error) const {
  return detail::or_code(error, [&](Failure& f) {
    return ask_string(address_, "host:mdns:check", resolve(deadline), f);
  });
}

std::vector<protocol::MdnsServiceEntry> AdbServer::mdns_services(Deadline deadline) const {
  return detail::or_throw(
      [&](Failure& f) { return mdns_services_of(address_, resolve(deadline), f); });
}
std::vector<protocol::MdnsServiceEntry> AdbServer::mdns_services(Deadline deadline,
                                                                 std::error_code& error) const {
  return detail::or_code(
      error, [&](Failure& f) { return mdns_services_of(address_, resolve(deadline), f); });
}

void AdbServer::kill(Deadline deadline) const {
  detail::or_throw([&](Failure& f) { ask(address_, "host:kill", resolve(deadline), f); });
}
void AdbServer::kill(Deadline deadline, std::error_code& error) const {
  detail::or_code(error, [&](Failure& f) { ask(address_, "host:kill", resolve(deadline), f); });
}

std::uint16_t AdbServer::forward(std::string_view serial, std::string_view local,
                                 std::string_view remote, bool no_rebind, Deadline deadline) const {
  return detail::or_throw([&](Failure& f) {
    return forward_on(address_, serial, local, remote, no_rebind, resolve(deadline), f);
  });
}
std::uint16_t AdbServer::forward(std::string_view serial, std::string_view local,
                                 std::string_view remote, bool no_rebind, Deadline deadline,
                                 std::error_code& error) const {
  return detail::or_code(error, [&](Failure& f) {
    return forward_on(address_, serial, local, remote, no_rebind, resolve(deadline), f);
  });
}

void AdbServer::kill_forward(std::string_view serial, std::string_view local,
                             Deadline deadline) const {
  detail::or_throw(
      [&](Failure& f) { kill_forward_on(address_, serial, local, resolve(deadline), f); });
}
void AdbServer::kill_forward(std::string_view serial, std::string_view local, Deadline deadline,
                             std::error_code& error) const {
  detail::or_code(
      error, [&](Failure& f) { kill_forward_on(address_, serial, local, resolve(deadline), f); });
}

std::vector<protocol::ForwardEntry> AdbServer::list_forward(Deadline deadline) const {
  return detail::or_throw([&](Failure& f) {
    return parse_forwards(address_, ask_string(address_, "host:list-forward", resolve(deadline), f),
                          f);
  });
}
std::vector<protocol::ForwardEntry> AdbServer::list_forward(Deadline deadline,
                                                            std::error_code& error) const {
  return detail::or_code(error, [&](Failure& f) {
    return parse_forwards(address_, ask_string(address_, "host:list-forward", resolve(deadline), f),
                          f);
  });
}

std::uint16_t AdbServer::reverse(std::string_view serial, std::string_view remote,
                                 std::string_view local, bool no_rebind, Deadline deadline) const {
  return detail::or_throw([&](Failure& f) {
    return reverse_on(address_, serial, remote, local, no_rebind, resolve(deadline), f);
  });
}
std::uint16_t AdbServer::reverse(std::string_view serial, std::string_view remote,
                                 std::string_view local, bool no_rebind, Deadline deadline,
                                 std::error_code& error) const {
  return detail::or_code(error, [&](Failure& f) {
    return reverse_on(address_, serial, remote, local, no_rebind, resolve(deadline), f);
  });
}

void AdbServer::kill_reverse(std::string_view serial, std::string_view remote,
                             Deadline deadline) const {
  detail::or_throw(
      [&](Failure& f) { kill_reverse_on(address_, serial, remote, resolve(deadline), f); });
}
void AdbServer::kill_reverse(std::string_view serial, std::string_view remote, Deadline deadline,
                             std::error_code& error) const {
  detail::or_code(
      error, [&](Failure& f) { kill_reverse_on(address_, serial, remote, resolve(deadline), f); });
}

std::vector<protocol::ForwardEntry> AdbServer::list_reverse(std::string_view serial,
                                                            Deadline deadline) const {
  return detail::or_throw(
      [&](Failure& f) { return list_reverse_on(address_, serial, resolve(deadline), f); });
}
std::vector<protocol::ForwardEntry> AdbServer::list_reverse(std::string_view serial,
                                                            Deadline deadline,
                                                            std::error_code& error) const {
  return detail::or_code(
      error, [&](Failure& f) { return list_reverse_on(address_, serial, resolve(deadline), f); });
}

void AdbServer::wait_for(std::string_view serial, WaitState state, WaitTransport transport,
                         Deadline deadline) const {
  detail::or_throw(
      [&](Failure& f) { wait_on(address_, serial, state, transport, resolve(deadline), f); });
}
void AdbServer::wait_for(std::string_view serial, WaitState state, WaitTransport transport,
                         Deadline deadline, std::error_code& error) const {
  detail::or_code(error, [&](Failure& f) {
    wait_on(address_, serial, state, transport, resolve(deadline), f);
  });
}

}  // namespace adbwire
