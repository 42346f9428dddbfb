#include "adbwire/device.hpp"

#include <utility>

#include "adbwire/target.hpp"
#include "connection/connection.hpp"
#include "connection/recorded_link.hpp"
#include "connection/stream_opener.hpp"
#include "connection/target_detail.hpp"
#include "server/server_detail.hpp"
#include "transport/tcp_transport.hpp"
#include "transport/usb_transport.hpp"

namespace adbwire {
namespace {

std::shared_ptr<detail::StreamOpener> connect_opener(std::string_view text,
                                                     const ConnectOptions& options,
                                                     detail::Failure& failure) {
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
                                                 usb->target(), usb->serial(), options, failure);
      }
      return nullptr;
    case Target::Kind::server:
      return server::connect_through_server(target, options, failure);
    case Target::Kind::tcp:
      break;
  }
  const std::string host = target.host();
  const std::uint16_t port = target.port();
  const std::string serial =
      (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + std::to_string(port);
  auto factory = [host, port](asio::io_context& io, Deadline deadline, detail::Failure& why) {
    return transport::connect_tcp(io, host, port, deadline, why);
  };
  return connection::Connection::establish(
      connection::recorded_link(factory, options, connection::tcp_capture_link(host, port)),
      target.to_string(), serial, options, failure);
}

}  // namespace

Device Device::connect(std::string_view target, const ConnectOptions& options) {
  detail::Failure failure;
  auto opener = connect_opener(target, options, failure);
  failure.throw_if_failed();
  return Device(std::move(opener), options.command_timeout);
}

Device Device::connect(std::string_view target, const ConnectOptions& options,
                       std::error_code& error) {
  detail::Failure failure;
  auto opener = connect_opener(target, options, failure);
  error = failure.code;
  return Device(std::move(opener), options.command_timeout);
}

Device::Device(std::shared_ptr<detail::StreamOpener> opener,
               std::chrono::milliseconds command_timeout) noexcept
    : opener_(std::move(opener)), command_timeout_(command_timeout) {}

Device::Device(Device&&) noexcept = default;

Device& Device::operator=(Device&& other) noexcept {
  if (this != &other) {
    close();
    opener_ = std::move(other.opener_);
    command_timeout_ = other.command_timeout_;
  }
  return *this;
}

Device::~Device() { close(); }

Deadline Device::resolve(Deadline deadline) const noexcept {
  return deadline == kDefaultDeadline ? deadline_after(command_timeout_) : deadline;
}

Stream Device::open(std::string_view service, Deadline deadline) {
  detail::Failure failure = opener_ ? detail::Failure{} : detail::moved_from_device();
  auto backend = opener_ ? opener_->open(service, resolve(deadline), failure) : nullptr;
  failure.throw_if_failed();
  return Stream(std::move(backend), command_timeout_);
}

Stream Device::open(std::string_view service, Deadline deadline, std::error_code& error) {
  detail::Failure failure = opener_ ? detail::Failure{} : detail::moved_from_device();
  auto backend = opener_ ? opener_->open(service, resolve(deadline), failure) : nullptr;
  error = failure.code;
  if (error) return Stream();
  return Stream(std::move(backend), command_timeout_);
}

const protocol::Banner& Device::banner() const noexcept {
  static const protocol::Banner kNone;
  return opener_ ? opener_->banner() : kNone;
}

bool Device::has_feature(std::string_view feature) const noexcept {
  return opener_ && opener_->can_use_feature(feature);
}

std::string Device::serial() const { return opener_ ? opener_->serial() : std::string(); }

ConnectionInfo Device::connection_info() const {
  return opener_ ? opener_->info() : ConnectionInfo{};
}

void Device::close() noexcept {
  if (opener_) opener_->close();
}

}  // namespace adbwire
