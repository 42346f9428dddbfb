#include "vdevice/bugreport_commands.hpp"

#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>

#include "adbwire/protocol/bytes.hpp"
#include "vdevice/device_context.hpp"

namespace adbwire::vdevice {
namespace {

namespace fs = std::filesystem;
using Argv = std::vector<std::string>;

// Where Android's Shell app keeps the reports dumpstate writes for bugreportz.
constexpr std::string_view kReportFolder = "/data/user_de/0/com.android.shell/files/bugreports";
constexpr int kProgressSteps = 4;

std::uint32_t crc32(std::string_view data) {
  std::uint32_t crc = 0xffffffffu;
  for (const char c : data) {
    crc ^= static_cast<std::uint8_t>(c);
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

// A zip holding one stored (uncompressed) file: what dumpstate's zip looks like to a host that
// only copies it.
std::string stored_zip(std::string_view name, std::string_view content) {
  const std::uint32_t crc = crc32(content);
  const auto size = static_cast<std::uint32_t>(content.size());
  const auto name_size = static_cast<std::uint16_t>(name.size());
  std::vector<std::uint8_t> out;
  const auto common = [&] {
    protocol::append_le16(out, 20);      // version needed
    protocol::append_le16(out, 0);       // flags
    protocol::append_le16(out, 0);       // stored
    protocol::append_le16(out, 0);       // time
    protocol::append_le16(out, 0x0021);  // date: 1980-01-01
    protocol::append_le32(out, crc);
    protocol::append_le32(out, size);
    protocol::append_le32(out, size);
    protocol::append_le16(out, name_size);
    protocol::append_le16(out, 0);  // extra
  };
  protocol::append_le32(out, 0x04034b50);
  common();
  out.insert(out.end(), name.begin(), name.end());
  out.insert(out.end(), content.begin(), content.end());
  const auto directory = static_cast<std::uint32_t>(out.size());
  protocol::append_le32(out, 0x02014b50);
  protocol::append_le16(out, 20);  // made by
  common();
  protocol::append_le16(out, 0);  // comment
  protocol::append_le16(out, 0);  // disk
  protocol::append_le16(out, 0);  // internal attributes
  protocol::append_le32(out, 0);  // external attributes
  protocol::append_le32(out, 0);  // local header offset
  out.insert(out.end(), name.begin(), name.end());
  const auto directory_size = static_cast<std::uint32_t>(out.size() - directory);
  protocol::append_le32(out, 0x06054b50);
  protocol::append_le16(out, 0);
  protocol::append_le16(out, 0);
  protocol::append_le16(out, 1);
  protocol::append_le16(out, 1);
  protocol::append_le32(out, directory_size);
  protocol::append_le32(out, directory);
  protocol::append_le16(out, 0);
  return {out.begin(), out.end()};
}

std::string report_text(DeviceContext& device) {
  std::string text = "========================================================\n";
  text += "== dumpstate: adbwire virtual device\n";
  text += "========================================================\n";
  for (const auto& [key, value] : device.properties()) text += "[" + key + "]: [" + value + "]\n";
  return text;
}

// dumpstate's steps, then the zip, as bugreportz reports them.
class BugreportzJob final : public Job {
 public:
  explicit BugreportzJob(bool progress) : progress_(progress) {}

  JobStep step(JobIo& io) override {
    DeviceContext& device = io.device();
    if (step_ == 0 && device.lacks_command("dumpstate")) {
      // bugreportz starts dumpstatez and connects to its socket; with no dumpstate nothing
      // listens there.
      io.out("FAIL:Failed to connect to dumpstatez service: Connection refused\n");
      return JobStep::done(1);
    }
    std::string name = "bugreport-vdevice-2026-01-01-00-00-00";
    if (device.hostile_output() == HostileOutput::escapes) name += kHostileText;
    const std::string path = std::string(kReportFolder) + "/" + name + ".zip";
    if (step_ == 0 && progress_) io.out("BEGIN:" + path + "\n");
    if (step_ < kProgressSteps) {
      ++step_;
      if (progress_) {
        io.out("PROGRESS:" + std::to_string(step_ * 250) + "/" +
               std::to_string(kProgressSteps * 250) + "\n");
      }
      return JobStep::sleep(std::chrono::milliseconds(20));
    }
    std::error_code error;
    const fs::path host = device.resolve(path, error);
    if (!error) fs::create_directories(host.parent_path(), error);
    std::ofstream file;
    if (!error) file.open(host, std::ios::binary | std::ios::trunc);
    file << stored_zip(name + ".txt", report_text(device));
    if (error || !file.flush()) {
      io.out("FAIL:Could not write " + path + "\n");
      return JobStep::done(1);
    }
    io.out("OK:" + path + "\n");
    return JobStep::done(0);
  }

 private:
  bool progress_;
  int step_ = 0;
};

int run_bugreport(const Argv&, JobIo& io) {
  io.out(report_text(io.device()));
  return 0;
}

}  // namespace

std::unique_ptr<Job> make_bugreportz(Argv argv) {
  if (argv.size() == 2 && argv[1] == "-v") return error_job("1.1\n", 0);
  if (argv.size() == 1) return std::make_unique<BugreportzJob>(false);
  if (argv.size() == 2 && argv[1] == "-p") return std::make_unique<BugreportzJob>(true);
  return error_job(
      "usage: bugreportz [-hpsv]\n"
      "  -h: to display this help message\n"
      "  -p: display progress\n"
      "  -s: stream content to standard output\n"
      "  -v: to display the version\n"
      "  or no arguments to generate a zipped bugreport\n",
      1);
}

std::unique_ptr<Job> make_bugreport(Argv argv) { return instant<run_bugreport>(std::move(argv)); }

}  // namespace adbwire::vdevice
