// `jdwp`: as adbd's jdwp_service.cpp (create_jdwp_service_socket) does, send the pids of the
// processes hosting a JDWP transport, each followed by "\n", in one write with no length
// prefix, then close the stream once the host has acknowledged it. Bytes the host sends end the
// stream (adbd: "you can't write to this asocket").
#include <span>
#include <string>

#include "vdevice/service.hpp"

namespace adbwire::vdevice {
namespace {

class JdwpService final : public Service {
 public:
  JdwpService(ServiceHost& host, std::uint32_t stream) : host_(host), stream_(stream) {}

  void start() override {
    std::string list;
    for (std::uint32_t pid : host_.device().jdwp_pids()) list += std::to_string(pid) + "\n";
    if (list.empty()) {
      host_.session().close_stream(stream_);
      return;
    }
    host_.session().write(
        stream_, std::span(reinterpret_cast<const std::uint8_t*>(list.data()), list.size()));
  }

  void on_data(std::span<const std::uint8_t> data) override {
    host_.session().acknowledge(stream_, data.size());
    host_.session().close_stream(stream_);
  }

  // The host acknowledged the list: adbd's second "ready" closes.
  void resume() override { host_.session().close_stream(stream_); }

 private:
  ServiceHost& host_;
  std::uint32_t stream_;
};

}  // namespace

std::shared_ptr<Service> make_jdwp_service(std::string_view destination, ServiceHost& host,
                                           std::uint32_t stream) {
  if (destination != "jdwp") return nullptr;
  return std::make_shared<JdwpService>(host, stream);
}

}  // namespace adbwire::vdevice
