// record_start and record_stop: a screen recording kept by the surface between the two calls
// (verbs/recording.hpp).
#include <filesystem>
#include <system_error>

#include "adbwire/error.hpp"
#include "verbs/handlers.hpp"
#include "verbs/reply_text.hpp"

namespace adbwire::verbs::handlers {
namespace {

// The device a recording is kept under: the one the call names, else the surface's default.
std::string recording_key(Call& call) {
  return call.device().empty() ? call.host().default_device() : call.device();
}

}  // namespace

Reply record_start(Call& call) {
  const std::chrono::seconds limit{call.integer("time_limit_s").value_or(180)};
  const auto mbps = static_cast<std::uint32_t>(call.integer("bit_rate_mbps").value_or(4));
  Device& device = call.page().device();
  call.host().recordings().start(recording_key(call), device, limit, mbps * 1000000U);
  return Reply::text("Recording the screen (at most " + std::to_string(limit.count()) + " s, " +
                     std::to_string(mbps) +
                     " Mbit/s). Act now; record_stop saves the video and gives its path.");
}

Reply record_stop(Call& call) {
  std::unique_ptr<ScreenRecording> recording = call.host().recordings().take(recording_key(call));
  if (!recording) {
    throw Error(errc::invalid_argument,
                "no screen recording is running on this device: record_start "
                "begins one");
  }
  const std::filesystem::path local = call.host().reserve("screenrecord.mp4");
  const std::chrono::milliseconds recorded = recording->stop_and_pull(local);
  std::error_code error;
  const auto size = std::filesystem::file_size(local, error);
  return Reply::text("Saved the screen recording (" +
                     format_number(static_cast<double>(recorded.count()) / 1000.0) + " s, " +
                     std::to_string(error ? 0 : (size + 1023) / 1024) + " KiB, MP4) to " +
                     local.string() + ".");
}

}  // namespace adbwire::verbs::handlers
