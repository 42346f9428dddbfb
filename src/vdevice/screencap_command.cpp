// `screencap [-hp] [-d display-id] [FILENAME]` as Android's tool behaves for a host: raw pixels
// (12-byte header before API 29, 16 bytes from 29 on) or a PNG, on stdout or into a file, and
// the multiple-displays warning on stderr when a device with two displays gets no -d.
#include <fstream>
#include <optional>
#include <string>

#include "base/number.hpp"
#include "vdevice/screencap_frames.hpp"

namespace adbwire::vdevice {
namespace {

class ScreencapJob final : public Job {
 public:
  ScreencapJob(bool png, std::optional<std::uint64_t> display_id, std::string file)
      : png_(png), display_id_(display_id), path_(std::move(file)) {}

  JobStep step(JobIo& io) override {
    if (!stream_) {
      DeviceContext& device = io.device();
      std::string error;
      std::optional<Frame> frame = capture(device, display_id_, error);
      if (!frame) {
        io.err(error);
        return JobStep::done(1);
      }
      if (!display_id_ && device.displays() > 1) io.err(kMultipleDisplaysWarning);
      stream_ = png_ ? png_stream(std::move(*frame))
                     : raw_stream(std::move(*frame), api_level(device) >= 29);
      if (!path_.empty()) {
        std::error_code open_error;
        const std::filesystem::path host = device.resolve(path_, open_error);
        if (!open_error) file_.open(host, std::ios::binary | std::ios::trunc);
        if (open_error || !file_) {
          io.err("Error opening file: " + path_ + " (No such file or directory)\n");
          return JobStep::done(1);
        }
      }
    }
    if (!pending_.empty()) {
      pending_.flush(io);
      return JobStep::more();
    }
    auto& buffer = pending_.buffer();
    if (!stream_->next(buffer)) return JobStep::done(0);
    if (file_.is_open()) {
      file_.write(reinterpret_cast<const char*>(buffer.data()),
                  static_cast<std::streamsize>(buffer.size()));
      buffer.clear();
      return file_ ? JobStep::more() : JobStep::done(1);
    }
    pending_.flush(io);
    return JobStep::more();
  }

 private:
  bool png_;
  std::optional<std::uint64_t> display_id_;
  std::string path_;
  std::unique_ptr<ByteStream> stream_;
  std::ofstream file_;
  PendingOutput pending_;
};

}  // namespace

std::unique_ptr<Job> make_screencap(std::vector<std::string> argv) {
  bool png = false;
  std::optional<std::uint64_t> display_id;
  std::string file;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (arg == "-p") {
      png = true;
    } else if (arg == "-d" && i + 1 < argv.size()) {
      const std::string& text = argv[++i];
      display_id = detail::parse_number<std::uint64_t>(text);
      if (!display_id) return error_job("Invalid display ID: " + text + "\n", 1);
    } else if (arg == "-h") {
      return error_job("usage: screencap [-hp] [-d display-id] [FILENAME]\n", 0);
    } else if (arg.starts_with('-')) {
      return error_job("screencap: unsupported option " + arg + "\n", 1);
    } else {
      file = arg;
    }
  }
  if (file.ends_with(".png")) png = true;
  return std::make_unique<ScreencapJob>(png, display_id, std::move(file));
}

}  // namespace adbwire::vdevice
