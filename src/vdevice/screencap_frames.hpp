// What the virtual device's `screencap`, `screencap -p` and `framebuffer:` show: the main
// display (the screen graph's current screen) and, with VirtualDeviceOptions::displays = 2, a
// secondary display, each captured as a frame of RGBA rows and streamed in bounded memory.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vdevice/device_context.hpp"
#include "vdevice/png.hpp"
#include "vdevice/sample_screen.hpp"
#include "vdevice/shell_job.hpp"

namespace adbwire::vdevice {

class Service;
class ServiceHost;

// SurfaceFlinger's physical display ids (what `screencap -d` takes on Android 10+); the main
// one is the id emulators report for their first display.
inline constexpr std::uint64_t kMainDisplayId = 4619827259835644672ULL;
inline constexpr std::uint64_t kSecondaryDisplayId = 4619827259835644673ULL;
inline constexpr std::uint32_t kSecondaryWidth = 720;
inline constexpr std::uint32_t kSecondaryHeight = 1280;

// What Android 12+ `screencap` prints on stderr when several displays exist and no -d was
// given; through exec: it lands in front of the image, which hosts must tolerate.
inline constexpr std::string_view kMultipleDisplaysWarning =
    "[Warning] Multiple displays were found, but no display id was specified! Defaulting to the "
    "first display found, however this default is not guaranteed to be consistent across "
    "captures. A display id should be specified.\n"
    "See \"dumpsys SurfaceFlinger --display-id\" for valid display IDs.\n";

// One captured frame. rows keeps alive whatever it draws from; copyable, read-only.
struct Frame {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  RowSource rows;
  // The screen graph's own PNG for this screen, served unchanged by `screencap -p`.
  std::optional<std::filesystem::path> png_file;
};

// The frame of display_id (empty: the main display; 0 is accepted for it, as older Android
// numbered displays from 0). nullopt with `error` set to the line screencap prints for an id
// the device does not have, or for a screen PNG that does not decode.
std::optional<Frame> capture(DeviceContext& device, std::optional<std::uint64_t> display_id,
                             std::string& error);

// Raw `screencap` output: width, height, format 1 (RGBA_8888) and, when with_dataspace (API 29
// and later), the colour space 1 (sRGB), each a little-endian u32, then the pixels.
std::unique_ptr<ByteStream> raw_stream(Frame frame, bool with_dataspace);

// `screencap -p`: the screen's own PNG file when it has one, else the frame as a PNG.
std::unique_ptr<ByteStream> png_stream(Frame frame);

// `framebuffer:`: header version 2 (version 1 before API 29) describing RGBA_8888, then the
// pixels (AOSP daemon/framebuffer_service.cpp).
std::unique_ptr<ByteStream> framebuffer_stream(Frame frame, bool version2);

// The device's API level (ro.build.version.sdk; 0 when unreadable).
std::uint32_t api_level(const DeviceContext& device);

// screencap_command.cpp: `screencap [-hp] [-d display-id] [FILENAME]`.
std::unique_ptr<Job> make_screencap(std::vector<std::string> argv);

// screencap_framebuffer_service.cpp: the `framebuffer:` service.
std::shared_ptr<Service> make_framebuffer_service(std::string_view destination, ServiceHost& host,
                                                  std::uint32_t stream);

}  // namespace adbwire::vdevice
