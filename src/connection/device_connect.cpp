// Device::connect: a target (tcp:, usb:, server:, mdns:, a serial, $ANDROID_SERIAL) turned into a
// connected Device: the connection runtime over TCP or USB (to a phone found by mDNS too), or an
// adb server's sockets.
#include "connection/device_connect.hpp"

#include <utility>

#include "adbwire/device.hpp"
#include "adbwire/mdns.hpp"
#include "adbwire/protocol/printable.hpp"
#include "adbwire/target.hpp"
#include "connection/connection.hpp"
#include "connection/recorded_link.hpp"
#include "connection/server_opener.hpp"
#include "connection/stream_opener.hpp"
#include "connection/target_detail.hpp"
#include "transport/tcp_transport.hpp"
#include "transport/usb_transport.hpp"

namespace adbwire {
namespace {

std::shared_ptr<StreamOpener> connect_opener(std::string_view text, const ConnectOptions& options,
                                             detail::Failure& failure,
                                             const connection::KeyOffered& on_key_offered = {}) {
  std::error_code error;
  const Target target = Target::parse(text, error);
  if (error) {
    failure.set(error, detail::target_error_detail(text));
    return nullptr;
  }
  switch (target.kind()) {
    case Target::Kind::usb:
      if (auto usb = transport::UsbConnector::find(target.serial(), failure)) {
        CaptureWriterOptions link;
        link.link = CaptureLink::usb;
        return connection::Connection::establish(connection::recorded_link(*usb, options, link),
                                                 usb->target(), usb->serial(), options, failure,
                                                 on_key_offered);
      }
      return nullptr;
    case Target::Kind::server:
      return connection::connect_through_server(target, options, failure);
    case Target::Kind::tcp:
    case Target::Kind::mdns:
      break;
  }
  std::string host = target.host();
  std::uint16_t port = target.port();
  std::string service_name;
  if (target.kind() == Target::Kind::mdns) {
    // The phone's Wireless debugging port; its STLS then makes the connection TLS.
    MdnsOptions mdns;
    mdns.adb_server = options.server;
    std::error_code error;
    const MdnsService found =
        resolve_mdns_service(kAdbTlsConnectService, target.serial(),
                             deadline_after(options.connect_timeout), mdns, error);
    if (error) {
      failure = detail::reported(error);
      return nullptr;
    }
    host = found.host;
    port = found.port;
    service_name = protocol::printable(found.instance) + "." + std::string(kAdbTlsConnectService);
  }
  // adb lists a phone it found by mDNS by its service name, and scripts pass that back to -s.
  const std::string serial = target.kind() == Target::Kind::mdns
                                 ? service_name
                                 : (host.find(':') != std::string::npos ? "[" + host + "]" : host) +
                                       ":" + std::to_string(port);
  auto factory = [host, port](asio::io_context& io, Deadline deadline, detail::Failure& why) {
    return transport::connect_tcp(io, host, port, deadline, why);
  };
  return connection::Connection::establish(
      connection::recorded_link(factory, options, connection::tcp_capture_link(host, port)),
      target.to_string(), serial, options, failure, on_key_offered);
}

}  // namespace

Device Device::connect(std::string_view target, const ConnectOptions& options) {
  detail::Failure failure;
  auto opener = connect_opener(target, options, failure);
  failure.throw_if_failed();
  return Device(std::move(opener), options.command_timeout, options.limits);
}

Device Device::connect(std::string_view target, const ConnectOptions& options,
                       std::error_code& error) {
  detail::Failure failure;
  auto opener = connect_opener(target, options, failure);
  detail::report(std::move(failure), error);
  return Device(std::move(opener), options.command_timeout, options.limits);
}

namespace connection {

Device connect_watching_key(std::string_view target, const ConnectOptions& options,
                            const KeyOffered& on_key_offered, std::error_code& error) {
  detail::Failure failure;
  auto opener = connect_opener(target, options, failure, on_key_offered);
  detail::report(std::move(failure), error);
  return Device(std::move(opener), options.command_timeout, options.limits);
}

}  // namespace connection
}  // namespace adbwire
