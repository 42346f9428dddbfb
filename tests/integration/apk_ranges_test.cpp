// An APK read by ranges from the virtual device (services/apk_ranges.hpp under
// services/apk_label.hpp): a label read from a large APK moves only the ranges it needs, in a
// few `dd` calls; a device whose dd answers wrongly, has none, or serves a crafted archive gets
// a typed error, within the budget of bytes, never a crash or a wait for the deadline.
#include "services/apk_ranges.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "adbwire/device.hpp"
#include "adbwire/sync.hpp"
#include "adbwire/testing/vdevice.hpp"
#include "integration/padded_apk.hpp"
#include "integration/temp_dir.hpp"
#include "services/apk_label.hpp"

namespace adbwire::detail {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

const fs::path kApks = ADBWIRE_TEST_APK_DIR;
constexpr char kRemote[] = "/data/local/tmp/app.apk";
constexpr std::uint64_t kMiB = 1024 * 1024;

struct Read {
  std::string label;
  Failure failure;
  std::uint64_t fetched = 0;
  std::size_t calls = 0;
  bool refused = false;
};

class ApkRanges : public ::testing::Test {
 protected:
  // Serves `apk` at kRemote on a device with `options`, and reads its label by ranges.
  Read read_label(const fs::path& apk, VirtualDeviceOptions options = {},
                  std::uint64_t budget = kMaxApkRangeBytes) {
    device_.emplace(options);
    device_->start();
    fs::create_directories(device_->root() / "data/local/tmp");
    fs::copy_file(apk, device_->root() / "data/local/tmp/app.apk");
    Device device = Device::connect(device_->target());
    const std::uint64_t size = fs::file_size(apk);
    DeviceFileRanges ranges(device, kRemote, size, budget, Clock::now() + std::chrono::seconds(30));
    Read read;
    read.label = apk_label(
        size,
        [&ranges](std::uint64_t offset, std::span<std::uint8_t> into, Failure& f) {
          return ranges.read(offset, into, f);
        },
        read.failure);
    read.fetched = ranges.fetched();
    read.calls = ranges.calls();
    read.refused = ranges.refused();
    return read;
  }
  std::size_t dd_events() const {
    const auto events = device_->events();
    return static_cast<std::size_t>(std::count_if(
        events.begin(), events.end(), [](const std::string& e) { return e.starts_with("dd "); }));
  }

  test::TempDir dir_;
  std::optional<VirtualDevice> device_;
};

TEST_F(ApkRanges, ALargeApkMovesOnlyWhatItsLabelNeeds) {
  const fs::path big = dir_.path() / "big.apk";
  test::pad_apk(kApks / "groceries.apk", big, 32 * kMiB);
  const Read read = read_label(big);
  ASSERT_FALSE(read.failure) << read.failure.detail;
  EXPECT_EQ(read.label, "Demo Groceries");
  // The end of central directory and the directory (one read-ahead from the end), then the
  // manifest and the table near the start: a few 64 KiB blocks of a 32 MiB file.
  EXPECT_LE(read.fetched, 1 * kMiB);
  EXPECT_LE(read.calls, 6u);
  EXPECT_EQ(dd_events(), read.calls);
  std::printf("label of a %ju-byte APK by ranges: %ju bytes in %zu dd calls\n",
              static_cast<std::uintmax_t>(fs::file_size(big)),
              static_cast<std::uintmax_t>(read.fetched), read.calls);
}

TEST_F(ApkRanges, SmallApksReadAsWellAsFromAFile) {
  for (const auto& [apk, label] :
       {std::pair{"groceries.apk", "Demo Groceries"}, std::pair{"fresh.apk", "Fresh Groceries"}}) {
    const Read read = read_label(kApks / apk);
    ASSERT_FALSE(read.failure) << apk << ": " << read.failure.detail;
    EXPECT_EQ(read.label, label);
    EXPECT_LE(read.fetched, fs::file_size(kApks / apk));
  }
}

// Each wrong answer is a parse_error naming the range, at once: a range that never ends is
// stopped at the first byte past it, not read until the deadline.
TEST_F(ApkRanges, WrongAnswersAreTypedErrors) {
  const fs::path big = dir_.path() / "big.apk";
  test::pad_apk(kApks / "groceries.apk", big, 4 * kMiB);
  for (const HostileOutput mode :
       {HostileOutput::short_ranges, HostileOutput::long_ranges, HostileOutput::shifted_ranges}) {
    VirtualDeviceOptions options;
    options.hostile_output = mode;
    const auto start = Clock::now();
    const Read read = read_label(big, options);
    EXPECT_EQ(read.failure.code, make_error_code(errc::parse_error))
        << to_string(mode) << ": " << read.failure.detail;
    EXPECT_NE(read.failure.detail.find("the device answered `dd if="), std::string::npos)
        << read.failure.detail;
    EXPECT_TRUE(read.label.empty());
    EXPECT_FALSE(read.refused);
    EXPECT_LE(read.fetched, 1 * kMiB) << to_string(mode);
    EXPECT_LT(Clock::now() - start, std::chrono::seconds(20)) << to_string(mode);
  }
}

// No dd at all: the first range comes back empty, which says the device reads no ranges (the
// caller then pulls the file whole), not that the APK is broken.
TEST_F(ApkRanges, ADeviceWithoutDdIsSaidToReadNoRanges) {
  VirtualDeviceOptions options;
  options.missing_commands = {"dd"};
  const Read read = read_label(kApks / "groceries.apk", options);
  EXPECT_TRUE(read.refused);
  EXPECT_EQ(read.failure.code, make_error_code(errc::not_supported)) << read.failure.detail;
  EXPECT_EQ(read.calls, 1u);
}

void append16(std::string& out, std::uint16_t v) {
  out += static_cast<char>(v & 0xff);
  out += static_cast<char>(v >> 8);
}
void append32(std::string& out, std::uint32_t v) {
  append16(out, static_cast<std::uint16_t>(v & 0xffff));
  append16(out, static_cast<std::uint16_t>(v >> 16));
}

// An end of central directory record: entries, directory size and offset as given.
std::string eocd(std::uint16_t entries, std::uint32_t size, std::uint32_t offset) {
  std::string out = "PK\x05\x06";
  append32(out, 0);  // disk numbers
  append16(out, entries);
  append16(out, entries);
  append32(out, size);
  append32(out, offset);
  append16(out, 0);  // comment length
  return out;
}

TEST_F(ApkRanges, CraftedArchivesAreTypedErrorsWithinTheBudget) {
  // An end of central directory pointing past the file.
  const fs::path outside = dir_.path() / "outside.apk";
  std::ofstream(outside, std::ios::binary)
      << std::string(1 * kMiB, '\0') << eocd(3, 4096, 0x7ffff000);
  const Read pointing_out = read_label(outside);
  EXPECT_EQ(pointing_out.failure.code, make_error_code(errc::parse_error))
      << pointing_out.failure.detail;
  EXPECT_LE(pointing_out.fetched, 256 * 1024u);

  // A directory of 100000 entries (4.7 MB, its count stored modulo 65536 as InfoZIP does):
  // libzip reads it entry by entry, and the budget stops it.
  std::string directory;
  constexpr std::uint32_t kEntries = 100000;
  for (std::uint32_t i = 0; i < kEntries; ++i) {
    directory += "PK\x01\x02";
    append16(directory, 20);  // made by
    append16(directory, 20);  // needed
    append16(directory, 0);   // flags
    append16(directory, 0);   // stored
    append32(directory, 0);   // time, date
    append32(directory, 0);   // crc
    append32(directory, 0);   // compressed
    append32(directory, 0);   // uncompressed
    append16(directory, 1);   // name length
    append16(directory, 0);   // extra
    append16(directory, 0);   // comment
    append16(directory, 0);   // disk
    append16(directory, 0);   // internal attributes
    append32(directory, 0);   // external attributes
    append32(directory, 0);   // local header offset
    directory += 'a';
  }
  const fs::path huge = dir_.path() / "huge.apk";
  std::ofstream(huge, std::ios::binary) << directory
                                        << eocd(static_cast<std::uint16_t>(kEntries % 65536),
                                                static_cast<std::uint32_t>(directory.size()), 0);
  const Read budgeted = read_label(huge, {}, 1 * kMiB);
  EXPECT_EQ(budgeted.failure.code, make_error_code(errc::limit_exceeded))
      << budgeted.failure.detail;
  EXPECT_LE(budgeted.fetched, 1 * kMiB);
}

// A size no APK has (the device's stat says what it likes) is refused before any range is asked.
TEST_F(ApkRanges, AnUnbelievableSizeIsRefused) {
  device_.emplace();
  device_->start();
  Device device = Device::connect(device_->target());
  DeviceFileRanges ranges(device, kRemote, kMaxRangedFileBytes + 1, kMaxApkRangeBytes,
                          Clock::now() + std::chrono::seconds(30));
  std::uint8_t byte = 0;
  Failure failure;
  EXPECT_FALSE(ranges.read(0, {&byte, 1}, failure));
  EXPECT_EQ(failure.code, make_error_code(errc::limit_exceeded)) << failure.detail;
  EXPECT_EQ(ranges.calls(), 0u);
  EXPECT_EQ(dd_events(), 0u);
}

}  // namespace
}  // namespace adbwire::detail
