// adbwire::pair: the host side of Wireless debugging pairing, as AOSP's adb_wifi_pair_device
// and pairing_client.cpp.
#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>

#include "adbwire/pairing.hpp"
#include "auth/key_factory.hpp"
#include "base/port.hpp"
#include "pairing/exchange.hpp"
#include "pairing/known_hosts.hpp"
#include "pairing/pairing_tls.hpp"
#include "transport/tcp_connect.hpp"

namespace adbwire {
namespace {

struct Address {
  std::string host;
  std::uint16_t port = 0;
};

// "HOST:PORT" or "[V6]:PORT".
std::optional<Address> split_address(std::string_view text) {
  Address out;
  std::string_view port;
  if (text.starts_with('[')) {
    const auto close = text.find("]:");
    if (close == std::string_view::npos) return std::nullopt;
    out.host = std::string(text.substr(1, close - 1));
    port = text.substr(close + 2);
  } else {
    const auto colon = text.rfind(':');
    if (colon == std::string_view::npos || text.find(':') != colon) return std::nullopt;
    out.host = std::string(text.substr(0, colon));
    port = text.substr(colon + 1);
  }
  auto number = detail::parse_port(port);
  if (out.host.empty() || !number) return std::nullopt;
  out.port = *number;
  return out;
}

PairResult run(std::string_view address_text, std::string_view code, const PairOptions& options,
               detail::Failure& failure) {
  const std::string shown(address_text);
  auto address = split_address(address_text);
  if (!address) {
    failure.set(errc::invalid_argument,
                "bad pairing address '" + shown +
                    "': give HOST:PORT as the phone's pairing dialog shows it");
    return {};
  }
  if (code.empty() || code.find('\0') != std::string_view::npos) {
    failure.set(errc::invalid_argument, "no pairing code: give the code the phone shows");
    return {};
  }
  std::error_code key_error;
  // front() is adbkey: adb pairs with that key alone.
  std::vector<PrivateKey> keys = load_host_keys(options.keys, key_error);
  if (key_error) {
    failure = detail::reported(key_error);
    return {};
  }
  const Deadline deadline = deadline_after(options.timeout);

  asio::io_context io;
  asio::ip::tcp::socket socket(io);
  const auto connected =
      transport::connect_with_deadline(io, socket, address->host, address->port, deadline);
  using Outcome = transport::TcpConnectResult::Outcome;
  switch (connected.outcome) {
    case Outcome::connected:
      break;
    case Outcome::refused:
      failure.set(errc::connection_refused,
                  "nothing listens at " + shown +
                      ": open Wireless debugging → \"Pair device with pairing code\" on the phone "
                      "and use the address it shows (the port changes each time)");
      return {};
    case Outcome::timed_out:
      failure.set(errc::timeout, "no answer from " + shown + " to connect");
      return {};
    case Outcome::unresolved:
      failure.set(errc::not_found,
                  "cannot resolve " + address->host + ": " + connected.error.message());
      return {};
    case Outcome::failed:
      failure.set(errc::io_error, "cannot connect to " + shown + ": " + connected.error.message());
      return {};
  }
  std::error_code ignored;
  socket.set_option(asio::ip::tcp::no_delay(true), ignored);

  EVP_PKEY* key = auth::KeyFactory::evp_key(keys.front());
  auto channel =
      pairing::open_channel(socket.release(), shown, pairing::TlsSide::client, key, failure);
  if (!channel || !channel->handshake(deadline, failure)) return {};
  auto peer = pairing::exchange(
      *channel, pairing::Spake2::Role::alice, code, protocol::PeerInfoType::rsa_public_key,
      keys.front().public_key_line(default_key_comment()), deadline, failure);
  if (!peer) return {};
  if (peer->type != static_cast<std::uint8_t>(protocol::PeerInfoType::device_guid)) {
    failure.set(errc::protocol_error, shown + " paired but answered PeerInfo type " +
                                          std::to_string(peer->type) + " instead of its GUID");
    return {};
  }
  if (!pairing::is_usable_guid(peer->data)) {
    failure.set(errc::protocol_error, shown +
                                          " paired but sent a GUID that is empty, too long "
                                          "or holds unprintable characters");
    return {};
  }
  PairResult result{peer->data, shown};
  if (options.remember && !pairing::remember_host(options.keys, {result.guid, shown}, failure)) {
    return {};
  }
  return result;
}

}  // namespace

PairResult pair(std::string_view address, std::string_view code, const PairOptions& options) {
  return detail::or_throw(
      [&](detail::Failure& failure) { return run(address, code, options, failure); });
}

PairResult pair(std::string_view address, std::string_view code, const PairOptions& options,
                std::error_code& error) {
  return detail::or_code(
      error, [&](detail::Failure& failure) { return run(address, code, options, failure); });
}

}  // namespace adbwire
