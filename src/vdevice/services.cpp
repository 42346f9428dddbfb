#include "vdevice/screencap_frames.hpp"
#include "vdevice/service.hpp"

namespace adbwire::vdevice {
namespace {

// Every service the virtual device offers.
constexpr ServiceFactory kServices[] = {
    make_shell_service,         // shell:, shell,v2,…:, exec:
    make_sync_service,          // sync:
    make_device_state_service,  // reboot:, root:, unroot:, remount:, tcpip:, usb:
    make_forward_service,       // tcp:PORT
    make_reverse_service,       // reverse:forward:…, reverse:list-forward, reverse:killforward…
    make_abb_exec_service,      // abb_exec:package\0install\0…
    make_framebuffer_service,   // framebuffer:
    make_jdwp_service,          // jdwp
    make_sideload_service,      // sideload-host:SIZE:BLOCKSIZE (recovery's sideload mode)
};

}  // namespace

std::shared_ptr<Service> open_service(std::string_view destination, ServiceHost& host,
                                      std::uint32_t stream) {
  for (ServiceFactory factory : kServices) {
    if (auto service = factory(destination, host, stream)) return service;
  }
  return nullptr;
}

}  // namespace adbwire::vdevice
