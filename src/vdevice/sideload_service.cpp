// `sideload-host:SIZE:BLOCKSIZE`: recovery's side of `adb sideload` (minadbd's fuse_adb_provider):
// the device asks for each block of the package by its number as eight decimal digits, the host
// answers with the block's bytes (the last one short), and "DONEDONE" ends the transfer. The
// package lands in /sideload/package.zip, where recovery's FUSE mount shows it. Served only in
// sideload mode (VirtualDeviceOptions::sideload); a booted device refuses the OPEN as adbd does.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "vdevice/service.hpp"

namespace adbwire::vdevice {
namespace {

namespace fs = std::filesystem;

// Larger blocks than adb's 64 KiB are refused rather than buffered: the host decides the size.
constexpr std::uint64_t kMaxBlockSize = 1024 * 1024;

std::uint64_t number(std::string_view text, bool& ok) {
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  ok = ok && !text.empty() && error == std::errc() && end == text.data() + text.size();
  return value;
}

class SideloadService final : public Service {
 public:
  SideloadService(ServiceHost& host, std::uint32_t stream, std::uint64_t size,
                  std::uint64_t block_size)
      : host_(host),
        stream_(stream),
        size_(size),
        block_size_(block_size),
        blocks_((size + block_size - 1) / block_size) {}

  void start() override {
    std::error_code error;
    const fs::path folder = host_.device().resolve("/sideload", error);
    if (!error) fs::create_directories(folder, error);
    if (!error) package_.open(folder / "package.zip", std::ios::binary | std::ios::trunc);
    if (error || !package_) {
      host_.session().close_stream(stream_);
      return;
    }
    if (host_.device().sideload() == SideloadMode::past_end) {
      request(blocks_);
      return;
    }
    next();
  }

  void on_data(std::span<const std::uint8_t> data) override {
    host_.session().acknowledge(stream_, data.size());
    if (done_) return;
    pending_.append(reinterpret_cast<const char*>(data.data()), data.size());
    if (pending_.size() > expected()) {
      fail();  // more than the block asked for: not a host speaking this protocol
      return;
    }
    if (pending_.size() < expected()) return;
    package_.write(pending_.data(), static_cast<std::streamsize>(pending_.size()));
    pending_.clear();
    ++block_;
    next();
  }

  void resume() override {}

 private:
  // The bytes the block asked for holds: a whole block, or what is left of the package.
  std::uint64_t expected() const {
    const std::uint64_t offset = block_ * block_size_;
    return offset >= size_ ? 0 : std::min(block_size_, size_ - offset);
  }

  void next() {
    if (block_ < blocks_) {
      request(block_);
      return;
    }
    package_.close();
    send(package_ ? "DONEDONE" : "FAILFAIL");
    done_ = true;
    host_.session().close_stream(stream_);
  }

  void request(std::uint64_t block) {
    char text[24];
    std::snprintf(text, sizeof text, "%08llu", static_cast<unsigned long long>(block));
    send(text);
  }

  void send(std::string_view text) {
    host_.session().write(
        stream_, std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
  }

  void fail() {
    done_ = true;
    host_.session().close_stream(stream_);
  }

  ServiceHost& host_;
  std::uint32_t stream_;
  std::uint64_t size_;
  std::uint64_t block_size_;
  std::uint64_t blocks_;
  std::uint64_t block_ = 0;
  std::string pending_;
  std::ofstream package_;
  bool done_ = false;
};

}  // namespace

std::shared_ptr<Service> make_sideload_service(std::string_view destination, ServiceHost& host,
                                               std::uint32_t stream) {
  constexpr std::string_view kPrefix = "sideload-host:";
  if (!destination.starts_with(kPrefix) || host.device().sideload() == SideloadMode::off)
    return nullptr;
  destination.remove_prefix(kPrefix.size());
  // SIZE:BLOCKSIZE, and from Android 11 on more fields the host may add (":validate:wipe").
  const std::size_t colon = destination.find(':');
  if (colon == std::string_view::npos) return nullptr;
  bool ok = true;
  const std::uint64_t size = number(destination.substr(0, colon), ok);
  std::string_view rest = destination.substr(colon + 1);
  const std::uint64_t block_size = number(rest.substr(0, rest.find(':')), ok);
  if (!ok || block_size == 0 || block_size > kMaxBlockSize) return nullptr;
  return std::make_shared<SideloadService>(host, stream, size, block_size);
}

}  // namespace adbwire::vdevice
