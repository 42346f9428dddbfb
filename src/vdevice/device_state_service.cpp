// reboot:[TARGET], root:, unroot:, remount:, tcpip:PORT and usb: as adbd answers them: one
// line of text, then (for the ones that restart adbd or the device) the connection drops.
// Also `id`, whose answer follows root:/unroot:.
#include <asio/steady_timer.hpp>
#include <chrono>

#include "base/port.hpp"
#include "vdevice/device_state_commands.hpp"
#include "vdevice/service.hpp"

namespace adbwire::vdevice {
namespace {

using namespace std::chrono_literals;

// adbd restarts after its answer is on the wire; the virtual device waits this long for its
// (one-line) answer to be written before it drops the connection.
constexpr auto kRestartDelay = 100ms;

class StateService final : public Service {
 public:
  StateService(ServiceHost& host, std::uint32_t stream, std::string reply, bool restart)
      : host_(host), stream_(stream), reply_(std::move(reply)), restart_(restart) {}

  void start() override {
    if (!reply_.empty()) {
      host_.session().write(stream_,
                            {reinterpret_cast<const std::uint8_t*>(reply_.data()), reply_.size()});
    }
    host_.session().close_stream(stream_);
    if (!restart_) return;
    // The service is gone once its stream closes, so the timer keeps only the connection.
    auto timer = std::make_shared<asio::steady_timer>(host_.executor(), kRestartDelay);
    timer->async_wait([timer, weak = host_.weak_host()](const std::error_code& error) {
      if (auto host = weak.lock(); host && !error) host->disconnect();
    });
  }

  void on_data(std::span<const std::uint8_t> data) override {
    host_.session().acknowledge(stream_, data.size());
  }
  void resume() override {}

 private:
  ServiceHost& host_;
  std::uint32_t stream_;
  std::string reply_;
  bool restart_;
};

std::shared_ptr<Service> reply(ServiceHost& host, std::uint32_t stream, std::string text,
                               bool restart) {
  return make_reply_service(host, stream, std::move(text), restart);
}

}  // namespace

std::shared_ptr<Service> make_reply_service(ServiceHost& host, std::uint32_t stream,
                                            std::string reply, bool restart) {
  return std::make_shared<StateService>(host, stream, std::move(reply), restart);
}

std::shared_ptr<Service> make_device_state_service(std::string_view destination, ServiceHost& host,
                                                   std::uint32_t stream) {
  DeviceStateStore& state = host.device().state();
  if (destination == "reboot:" || destination.starts_with("reboot:")) {
    host.device().log_event("reboot " + std::string(destination.substr(7)));
    return reply(host, stream, "", true);
  }
  if (destination == "root:") {
    if (state.root()) return reply(host, stream, "adbd is already running as root\n", false);
    state.set_root(true);
    return reply(host, stream, "restarting adbd as root\n", true);
  }
  if (destination == "unroot:") {
    if (!state.root()) return reply(host, stream, "adbd not running as root\n", false);
    state.set_root(false);
    return reply(host, stream, "restarting adbd as non root\n", true);
  }
  if (destination == "remount:" || destination.starts_with("remount:")) {
    if (!state.root())
      return reply(host, stream, "Not running as root. Try \"adb root\" first.\n", false);
    return reply(host, stream, "remount succeeded\n", false);
  }
  if (destination.starts_with("tcpip:")) {
    const std::string_view text = destination.substr(6);
    const auto port = detail::parse_port(text);
    if (!port) return reply(host, stream, "invalid port " + std::string(text) + "\n", false);
    return reply(host, stream, "restarting in TCP mode port: " + std::to_string(*port) + "\n",
                 true);
  }
  if (destination == "usb:") return reply(host, stream, "restarting in USB mode\n", true);
  return nullptr;
}

std::unique_ptr<Job> make_id(std::vector<std::string> argv) {
  (void)argv;
  class Id final : public Job {
    JobStep step(JobIo& io) override {
      io.out(io.device().state().root()
                 ? "uid=0(root) gid=0(root) groups=0(root) context=u:r:su:s0\n"
                 : "uid=2000(shell) gid=2000(shell) "
                   "groups=2000(shell),1004(input),1007(log),1011(adb),"
                   "1015(sdcard_rw),1028(sdcard_r),3003(inet) context=u:r:shell:s0\n");
      return JobStep::done(0);
    }
  };
  return std::make_unique<Id>();
}

}  // namespace adbwire::vdevice
