// `framebuffer:`: as adbd does, capture the main display and send the header (version 2 from
// API 29 on, else 1) and the pixels, then close the stream. Bytes the host sends (old hosts
// send a "nudge" byte) are read and ignored.
#include "vdevice/screencap_frames.hpp"
#include "vdevice/service.hpp"

namespace adbwire::vdevice {
namespace {

class FramebufferService final : public Service {
 public:
  FramebufferService(ServiceHost& host, std::uint32_t stream) : host_(host), stream_(stream) {}

  void start() override {
    std::string error;
    std::optional<Frame> frame = capture(host_.device(), std::nullopt, error);
    if (!frame) {
      host_.session().close_stream(stream_);
      return;
    }
    pixels_ = framebuffer_stream(std::move(*frame), api_level(host_.device()) >= 29);
    pump();
  }

  void on_data(std::span<const std::uint8_t> data) override {
    host_.session().acknowledge(stream_, data.size());
  }

  void resume() override { pump(); }

 private:
  void pump() {
    while (pixels_ && host_.session().queued(stream_) < kMaxQueued) {
      piece_.clear();
      if (!pixels_->next(piece_)) {
        pixels_.reset();
        host_.session().close_stream(stream_);
        return;
      }
      host_.session().write(stream_, piece_);
    }
  }

  ServiceHost& host_;
  std::uint32_t stream_;
  std::unique_ptr<ByteStream> pixels_;
  std::vector<std::uint8_t> piece_;
};

}  // namespace

std::shared_ptr<Service> make_framebuffer_service(std::string_view destination, ServiceHost& host,
                                                  std::uint32_t stream) {
  if (destination != "framebuffer:") return nullptr;
  return std::make_shared<FramebufferService>(host, stream);
}

}  // namespace adbwire::vdevice
