// take_photo, photo_preview (include/adbwire/camera.hpp).
#include "adbwire/camera.hpp"

#include <turbojpeg.h>

#include <map>
#include <memory>
#include <optional>
#include <thread>

#include "adbwire/error.hpp"
#include "adbwire/protocol/printable.hpp"
#include "adbwire/sync.hpp"
#include "base/failure.hpp"
#include "services/device_command.hpp"

namespace adbwire {
namespace {

using namespace std::chrono_literals;

constexpr auto kPoll = 300ms;
// Entries of the camera folder read per listing: a phone that kept every photo for years has
// some tens of thousands.
constexpr std::size_t kMaxListing = 200'000;
// A decoded preview holds at most this many pixels (the JPEG is decoded at 1/2, 1/4 or 1/8
// scale to get there).
constexpr std::uint64_t kMaxPreviewPixels = 16'000'000;
// KEYCODE_CAMERA, then KEYCODE_VOLUME_DOWN for camera apps that ignore the camera key.
constexpr const char* kShutterKeys[] = {"27", "25"};

// The mime type of a photo's name, or "" for a file that is no photo (a video, a temporary
// ".pending" file the app still writes).
std::string photo_mime(std::string_view name) {
  const std::size_t dot = name.rfind('.');
  if (dot == std::string_view::npos) return {};
  std::string ext(name.substr(dot + 1));
  for (char& c : ext) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  if (ext == "jpg" || ext == "jpeg") return "image/jpeg";
  if (ext == "heic" || ext == "heif") return "image/heic";
  return {};
}

// The photos of the folder by name with their sizes; a missing folder has none.
std::optional<std::map<std::string, std::uint64_t>> photos_in(SyncClient& sync,
                                                              const std::string& folder,
                                                              Deadline deadline,
                                                              detail::Failure& failure) {
  SyncLimits limits;
  limits.max_listing_entries = kMaxListing;
  std::error_code error;
  const std::vector<RemoteEntry> entries = sync.list(folder, limits, deadline, error);
  std::map<std::string, std::uint64_t> photos;
  if (error == errc::not_found) return photos;
  if (error) {
    failure = detail::reported(error);
    return std::nullopt;
  }
  for (const RemoteEntry& entry : entries) {
    if (!entry.stat.is_regular() || entry.name.find('/') != std::string::npos) continue;
    if (photo_mime(entry.name).empty()) continue;
    photos.emplace(entry.name, entry.stat.size);
  }
  return photos;
}

void press(Device& device, const char* key, Deadline deadline, detail::Failure& failure) {
  detail::run_command(device, std::string("input keyevent ") + key, deadline,
                      detail::OutputCheck::exit_status_and_text, failure);
}

Photo shoot(Device& device, const std::filesystem::path& local, const CameraOptions& options,
            Deadline deadline, detail::Failure& failure) {
  SyncClient sync(device, deadline);
  const auto before = photos_in(sync, options.folder, deadline, failure);
  if (!before) return {};
  detail::Failure opened;
  detail::run_command(device, "am start -a android.media.action.STILL_IMAGE_CAMERA", deadline,
                      detail::OutputCheck::exit_status_and_text, opened);
  if (opened) {
    if (opened.code == errc::command_failed) {
      failure.set(errc::not_supported,
                  "no camera app opened for the still-image intent (" + opened.detail + ")");
    } else {
      failure = std::move(opened);
    }
    return {};
  }
  std::this_thread::sleep_for(options.open_wait);
  const Deadline end = deadline_after(options.shot_wait);
  const Deadline second_key = deadline_after(options.shot_wait / 3);
  std::size_t pressed = 0;
  std::string newest;
  std::uint64_t last_size = 0;
  bool seen_once = false;
  while (true) {
    if (pressed == 0 || (pressed == 1 && newest.empty() && Clock::now() >= second_key)) {
      press(device, kShutterKeys[pressed++], deadline, failure);
      if (failure) return {};
    }
    std::this_thread::sleep_for(kPoll);
    const auto now = photos_in(sync, options.folder, deadline, failure);
    if (!now) return {};
    for (const auto& [name, size] : *now) {
      if (!before->contains(name) && name > newest) newest = name;
    }
    if (!newest.empty()) {
      // The camera app writes the file in pieces: it is done when two listings agree.
      const std::uint64_t size = now->at(newest);
      if (seen_once && size == last_size && size > 0) break;
      seen_once = true;
      last_size = size;
    }
    if (Clock::now() >= end) {
      failure.set(errc::timeout,
                  newest.empty()
                      ? "no new photo appeared in " + options.folder + " within " +
                            std::to_string(options.shot_wait.count()) +
                            " ms of pressing the shutter (camera and volume keys): the camera "
                            "app may be waiting for a permission prompt, or save elsewhere"
                      : "the new photo " + protocol::printable(newest) +
                            " was still growing after " +
                            std::to_string(options.shot_wait.count()) + " ms");
      return {};
    }
  }
  if (last_size > options.max_bytes) {
    failure.set(errc::limit_exceeded, "the photo is " + std::to_string(last_size) +
                                          " bytes, more than CameraOptions::max_bytes (" +
                                          std::to_string(options.max_bytes) + "); nothing pulled");
    return {};
  }
  Photo photo{options.folder + "/" + newest, last_size, photo_mime(newest)};
  PullOptions pull;
  pull.keep_attributes = false;
  pull.private_files = true;
  pull.deadline = deadline;
  // The listing said the photo fits; the pull stats it again, and may hear more. Plain: a JPEG
  // does not compress.
  pull.compression = SyncCompression::none;
  pull.limits.max_file_bytes = options.max_bytes;
  std::error_code error;
  sync.pull(photo.remote, local, pull, error);
  if (error == make_error_code(errc::limit_exceeded)) {
    failure.set(error, "the photo grew past CameraOptions::max_bytes (" +
                           std::to_string(options.max_bytes) +
                           ") while it was pulled; nothing kept (" + sync.last_error() + ")");
    return {};
  }
  if (error) {
    failure = detail::reported(error);
    return {};
  }
  return photo;
}

RawImage decode_photo(std::span<const std::uint8_t> jpeg, detail::Failure& failure) {
  std::unique_ptr<void, decltype(&tjDestroy)> tj(tjInitDecompress(), tjDestroy);
  if (!tj) {
    failure.set(errc::io_error, "cannot create a JPEG decoder (out of memory)");
    return {};
  }
  int width = 0;
  int height = 0;
  int subsampling = 0;
  int colorspace = 0;
  if (tjDecompressHeader3(tj.get(), jpeg.data(), static_cast<unsigned long>(jpeg.size()), &width,
                          &height, &subsampling, &colorspace) != 0 ||
      width <= 0 || height <= 0) {
    failure.set(errc::parse_error, "the photo is not a JPEG the decoder reads (" +
                                       std::string(tjGetErrorStr2(tj.get())) + ")");
    return {};
  }
  // The largest of 1/1, 1/2, 1/4, 1/8 that keeps the pixels within the bound.
  const auto scaled = [](int side, int denominator) {
    return static_cast<std::uint32_t>((side + denominator - 1) / denominator);
  };
  int denominator = 1;
  while (denominator < 8 &&
         std::uint64_t{scaled(width, denominator)} * scaled(height, denominator) >
             kMaxPreviewPixels)
    denominator *= 2;
  RawImage image;
  image.width = scaled(width, denominator);
  image.height = scaled(height, denominator);
  if (std::uint64_t{image.width} * image.height > kMaxPreviewPixels) {
    failure.set(errc::limit_exceeded, "the photo is " + std::to_string(width) + "x" +
                                          std::to_string(height) +
                                          ", too large to preview even at 1/8 scale");
    return {};
  }
  image.format = PixelFormat::rgb_888;
  image.pixels.resize(std::size_t{image.width} * image.height * 3);
  if (tjDecompress2(tj.get(), jpeg.data(), static_cast<unsigned long>(jpeg.size()),
                    image.pixels.data(), static_cast<int>(image.width), 0,
                    static_cast<int>(image.height), TJPF_RGB, TJFLAG_FASTDCT) != 0 &&
      tjGetErrorCode(tj.get()) == TJERR_FATAL) {
    failure.set(errc::parse_error,
                "the photo's JPEG data is broken (" + std::string(tjGetErrorStr2(tj.get())) + ")");
    return {};
  }
  return image;
}

EncodedImage preview(std::span<const std::uint8_t> jpeg, const ScreenshotOptions& options,
                     detail::Failure& failure) {
  const RawImage image = decode_photo(jpeg, failure);
  if (failure) return {};
  std::error_code error;
  EncodedImage encoded = encode(image, options, error);
  if (error) failure = detail::reported(error);
  return encoded;
}

}  // namespace

Photo take_photo(Device& device, const std::filesystem::path& local, const CameraOptions& options,
                 Deadline deadline) {
  return detail::or_throw(
      [&](detail::Failure& f) { return shoot(device, local, options, deadline, f); });
}
Photo take_photo(Device& device, const std::filesystem::path& local, const CameraOptions& options,
                 Deadline deadline, std::error_code& error) {
  return detail::or_code(
      error, [&](detail::Failure& f) { return shoot(device, local, options, deadline, f); });
}

EncodedImage photo_preview(std::span<const std::uint8_t> jpeg, const ScreenshotOptions& options) {
  return detail::or_throw([&](detail::Failure& f) { return preview(jpeg, options, f); });
}
EncodedImage photo_preview(std::span<const std::uint8_t> jpeg, const ScreenshotOptions& options,
                           std::error_code& error) {
  return detail::or_code(error, [&](detail::Failure& f) { return preview(jpeg, options, f); });
}

}  // namespace adbwire
