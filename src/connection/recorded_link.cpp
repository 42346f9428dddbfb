#include "connection/recorded_link.hpp"

#include <asio/ip/address.hpp>
#include <utility>

#include "transport/traffic_observer.hpp"

namespace adbwire::connection {

TransportFactory recorded_link(TransportFactory factory, const ConnectOptions& options,
                               CaptureWriterOptions link) {
  if (options.record.empty()) return factory;
  return [factory = std::move(factory), path = options.record, link](
             asio::io_context& io, Deadline deadline,
             detail::Failure& failure) -> std::unique_ptr<transport::Transport> {
    auto inner = factory(io, deadline, failure);
    if (!inner) return nullptr;
    auto observer = transport::record_to_file(path, link, failure);
    if (!observer) return nullptr;
    return transport::observe(std::move(inner), std::move(observer));
  };
}

CaptureWriterOptions tcp_capture_link(const std::string& host, std::uint16_t port) {
  CaptureWriterOptions link;
  link.link = CaptureLink::tcp;
  link.device_port = port;
  std::error_code error;
  const auto address = asio::ip::make_address(host, error);
  if (!error && address.is_v4()) link.device_address = address.to_v4().to_bytes();
  return link;
}

}  // namespace adbwire::connection
