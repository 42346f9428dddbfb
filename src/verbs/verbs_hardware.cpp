// Verbs about the device's hardware: battery, sensors, wifi, data, airplane, camera.
#include <fstream>
#include <iterator>

#include "adbwire/camera.hpp"
#include "adbwire/device_readings.hpp"
#include "adbwire/protocol/printable.hpp"
#include "verbs/handlers.hpp"
#include "verbs/reply_text.hpp"

namespace adbwire::verbs::handlers {
namespace {

// Sensors a reply lists; the rest are counted.
constexpr std::size_t kMaxSensorsShown = 200;

// The device's words, escaped and cut for a reply line.
std::string shown(std::string_view text) { return protocol::printable(text, 128); }

Reply radio(Call& call, Radio radio) {
  Device& device = call.page().device();
  const std::optional<std::string> state = call.string("state");
  const std::string name(to_string(radio));
  if (!state) {
    return Reply::text(name + " is " + (radio_on(device, radio) ? "on" : "off") +
                       " (the global setting the system keeps for it).");
  }
  const bool on = *state == "on";
  const bool was = radio_on(device, radio);
  if (was == on) return Reply::text(name + " is already " + *state + "; nothing was sent.");
  const auto wait = std::chrono::milliseconds(call.integer("timeout_ms").value_or(5000));
  set_radio(device, radio, on, deadline_after(wait));
  return action_done(call,
                     "Turned " + name + " " + *state + "; the device reads back " + *state + ".");
}

}  // namespace

Reply battery(Call& call) {
  const BatteryState state = adbwire::battery(call.page().device());
  std::string text = "Battery: ";
  text += state.level ? std::to_string(*state.level) + "%" : std::string("level unknown");
  text += ", " + std::string(to_string(state.status));
  if (!state.plugged.empty()) text += " (" + shown(state.plugged) + " powered)";
  if (state.temperature_c) text += ", " + format_number(*state.temperature_c) + " °C";
  if (state.voltage_mv) text += ", " + std::to_string(*state.voltage_mv) + " mV";
  if (!state.technology.empty()) text += ", " + shown(state.technology);
  return Reply::text(text + ".");
}

Reply sensors(Call& call) {
  const SensorList list = adbwire::sensors(call.page().device());
  const std::string filter = call.string("filter").value_or("");
  std::string lines;
  std::size_t matched = 0;
  for (const Sensor& sensor : list.sensors) {
    if (!filter.empty() && sensor.name.find(filter) == std::string::npos &&
        sensor.vendor.find(filter) == std::string::npos &&
        sensor.type.find(filter) == std::string::npos)
      continue;
    if (++matched > kMaxSensorsShown) continue;
    lines += "- " + shown(sensor.name) + " (" + shown(sensor.vendor) +
             "): " + (sensor.type.empty() ? std::string("type unknown") : shown(sensor.type)) +
             (sensor.type_id ? " [" + std::to_string(*sensor.type_id) + "]" : std::string()) + "\n";
  }
  std::string text = std::to_string(matched) + " sensor" + (matched == 1 ? "" : "s") +
                     (filter.empty() ? "" : " matching " + in_quotes(filter)) + ":\n" + lines;
  if (matched > kMaxSensorsShown)
    text += "(" + std::to_string(matched - kMaxSensorsShown) + " more not shown)\n";
  if (list.left_out > 0)
    text += "(the device listed " + std::to_string(list.left_out) + " more, past the bound)\n";
  return Reply::text(std::move(text));
}

Reply wifi(Call& call) { return radio(call, Radio::wifi); }
Reply data(Call& call) { return radio(call, Radio::mobile_data); }
Reply airplane(Call& call) { return radio(call, Radio::airplane_mode); }

Reply camera(Call& call) {
  Device& device = call.page().device();
  const std::filesystem::path local = call.host().reserve("photo.jpg");
  CameraOptions options;
  if (const std::optional<std::int64_t> wait = call.integer("timeout_ms"))
    options.shot_wait = std::chrono::milliseconds(*wait);
  const Photo photo = take_photo(device, local, options);
  std::string text = "Took a photo: " + shown(photo.remote) + " on the device (" +
                     std::to_string((photo.size + 1023) / 1024) + " KiB)";
  Reply reply;
  // A surface that takes images whole (the CLI saves them as its own files, Python hands over
  // bytes) gets the photo itself, as the camera wrote it: its copy in the private folder goes.
  const bool whole = call.options().max_image_bytes == 0 && call.options().max_image_side == 0;
  if (whole && photo.mime == "image/jpeg") {
    std::ifstream file(local, std::ios::binary);
    std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(file), {}};
    file.close();
    std::error_code ignored;
    std::filesystem::remove(local, ignored);
    reply.blocks.push_back({Block::Kind::image, "photo", std::move(bytes), "image/jpeg"});
    reply.blocks.push_back({Block::Kind::text, text + ".", {}, {}});
    return reply;
  }
  text += ", saved to " + local.string() + ".";
  if (photo.mime == "image/jpeg") {
    std::ifstream file(local, std::ios::binary);
    const std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(file), {}};
    ScreenshotOptions fit;
    fit.format = ImageFormat::jpeg;
    fit.max_side = call.options().max_image_side;
    fit.max_bytes = call.options().max_image_bytes;
    std::error_code error;
    EncodedImage preview = photo_preview(bytes, fit, error);
    if (!error) {
      text +=
          " Shown " + std::to_string(preview.width) + "x" + std::to_string(preview.height) + ".";
      reply.blocks.push_back({Block::Kind::image, "photo", std::move(preview.bytes), "image/jpeg"});
    } else {
      text += " Not shown: " + shown(error.message()) + ".";
    }
  } else {
    text += " Not shown: a " + photo.mime + " photo (only JPEG is shown inline).";
  }
  reply.blocks.push_back({Block::Kind::text, std::move(text), {}, {}});
  return reply;
}

}  // namespace adbwire::verbs::handlers
