// Taking a photo with the device's own camera app: the still-image intent
// (MediaStore.INTENT_ACTION_STILL_IMAGE_CAMERA) opens it, the camera key (KEYCODE_CAMERA, then
// volume-down, which most camera apps also take as the shutter) presses the shutter, and the new
// file in the camera folder is pulled to this computer. The device names the file, never where
// it lands here: the caller gives the local path.
//
// Thread safety: as Device; no state is kept between calls.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <system_error>

#include "adbwire/deadline.hpp"
#include "adbwire/device.hpp"
#include "adbwire/screencap.hpp"

namespace adbwire {

struct CameraOptions {
  // Where the camera app saves photos (DCIM/Camera on every phone checked).
  std::string folder = "/sdcard/DCIM/Camera";
  // How long the camera app gets to open before the shutter is pressed.
  std::chrono::milliseconds open_wait{1500};
  // How long a new photo may take to appear (and stop growing) after the shutter.
  std::chrono::milliseconds shot_wait{10000};
  // The largest photo pulled: past it, limit_exceeded and nothing is pulled.
  std::uint64_t max_bytes = 64 * 1024 * 1024;
};

struct Photo {
  std::string remote;  // the photo's path on the device (device text: escape before showing)
  std::uint64_t size = 0;
  std::string mime;  // "image/jpeg" or "image/heic", from the file's extension
};

// Takes a photo and pulls it to local, 0600 and whole or not at all (written beside and renamed;
// the folder must exist). Errors: not_supported when no app answers the still-image intent;
// timeout when no new photo appears in options.folder within options.shot_wait (the camera app
// may want a permission prompt answered, or saves elsewhere); limit_exceeded past max_bytes, as
// listed or as the pull brings it (a device whose stat announces more than its listing); the
// Device and pull errors (SyncClient::pull).
Photo take_photo(Device& device, const std::filesystem::path& local,
                 const CameraOptions& options = {}, Deadline deadline = kDefaultDeadline);
Photo take_photo(Device& device, const std::filesystem::path& local, const CameraOptions& options,
                 Deadline deadline, std::error_code& error);

// A JPEG photo brought within options' max_side and max_bytes (as a screenshot is), to show
// inline. The photo is device data: its header is checked and it is decoded at a reduced scale
// so a huge photo costs at most about 16 megapixels of memory. Errors: parse_error for bytes
// that are not a JPEG, command_failed when it cannot be brought under max_bytes.
EncodedImage photo_preview(std::span<const std::uint8_t> jpeg, const ScreenshotOptions& options);
EncodedImage photo_preview(std::span<const std::uint8_t> jpeg, const ScreenshotOptions& options,
                           std::error_code& error);

}  // namespace adbwire
