// tcp:PORT[:HOST]: what `adb forward tcp:X tcp:PORT` opens on a device. The virtual device's
// own network is the host's loopback, so it connects to 127.0.0.1:PORT; like adbd it
// refuses the OPEN when nothing listens there. localabstract:NAME reaches a DevTools socket
// of VirtualDeviceOptions::devtools the same way, through the loopback port serving it.

#include "base/port.hpp"
#include "transport/close_on_exec.hpp"
#include "vdevice/device_context.hpp"
#include "vdevice/forward_bridge.hpp"

namespace adbwire::vdevice {

namespace {

// A bridge to 127.0.0.1:port, or nullptr (the OPEN is refused) when nothing listens there.
std::shared_ptr<Service> bridge_to(unsigned port, ServiceHost& host, std::uint32_t stream) {
  asio::ip::tcp::socket socket(host.executor());
  std::error_code error;
  transport::open_close_on_exec(socket, asio::ip::tcp::v4(), error);
  if (error) return nullptr;
  // A loopback connect answers at once (accepted or refused), so the I/O thread never waits.
  socket.connect({asio::ip::address_v4::loopback(), static_cast<std::uint16_t>(port)}, error);
  if (error) return nullptr;
  socket.set_option(asio::ip::tcp::no_delay(true), error);
  return std::make_shared<ForwardBridge>(host, stream, std::move(socket), false);
}

}  // namespace

std::shared_ptr<Service> make_forward_service(std::string_view destination, ServiceHost& host,
                                              std::uint32_t stream) {
  if (destination.starts_with("localabstract:")) {
    const std::uint16_t port = host.device().devtools_port(destination.substr(14));
    return port == 0 ? nullptr : bridge_to(port, host, stream);
  }
  if (!destination.starts_with("tcp:")) return nullptr;
  std::string_view rest = destination.substr(4);
  const std::size_t colon = rest.find(':');
  const std::string_view port_text = rest.substr(0, colon);
  if (colon != std::string_view::npos) {
    const std::string_view name = rest.substr(colon + 1);
    if (name != "localhost" && name != "127.0.0.1") return nullptr;
  }
  const auto port = detail::parse_port(port_text);
  if (!port) return nullptr;
  return bridge_to(*port, host, stream);
}

}  // namespace adbwire::vdevice
