// The label read from an APK (services/apk_label.hpp) on APKs built by Debian's aapt
// (tests/data/apk): a label through a reference to a reference, a literal label, and every
// malformed form of their manifest, table and archive a device could send: a typed error or the
// right label, never a crash (ASan checks the reads), never text on stderr.
#include "services/apk_label.hpp"

#include <gtest/gtest.h>
#include <zip.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "integration/temp_dir.hpp"

namespace adbwire::detail {
namespace {

namespace fs = std::filesystem;

const fs::path kApks = ADBWIRE_TEST_APK_DIR;

std::string entry(const fs::path& apk, const char* name) {
  int code = 0;
  zip_t* archive = zip_open(apk.c_str(), ZIP_RDONLY, &code);
  EXPECT_NE(archive, nullptr) << apk;
  zip_stat_t stat;
  EXPECT_EQ(zip_stat(archive, name, 0, &stat), 0) << name;
  std::string bytes(stat.size, '\0');
  zip_file_t* file = zip_fopen(archive, name, 0);
  EXPECT_EQ(zip_fread(file, bytes.data(), stat.size), static_cast<zip_int64_t>(stat.size));
  zip_fclose(file);
  zip_discard(archive);
  return bytes;
}

// A ZIP holding the given entries, stored uncompressed.
void write_zip(const fs::path& path,
               const std::vector<std::pair<std::string, std::string>>& files) {
  int code = 0;
  zip_t* archive = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &code);
  ASSERT_NE(archive, nullptr);
  for (const auto& [name, bytes] : files) {
    zip_source_t* source = zip_source_buffer(archive, bytes.data(), bytes.size(), 0);
    ASSERT_GE(zip_file_add(archive, name.c_str(), source, ZIP_FL_OVERWRITE), 0);
  }
  ASSERT_EQ(zip_close(archive), 0);
}

TEST(ApkLabel, AReferenceIsResolvedToTheDefaultString) {
  Failure failure;
  EXPECT_EQ(apk_label(kApks / "groceries.apk", failure), "Demo Groceries");
  EXPECT_FALSE(failure) << failure.detail;
}

TEST(ApkLabel, ALiteralLabelNeedsNoTable) {
  Failure failure;
  EXPECT_EQ(apk_label(kApks / "fresh.apk", failure), "Fresh Groceries");
  EXPECT_FALSE(failure) << failure.detail;
  const std::string manifest = entry(kApks / "fresh.apk", "AndroidManifest.xml");
  EXPECT_EQ(label_from_resources(manifest, "", failure), "Fresh Groceries");
  EXPECT_FALSE(failure) << failure.detail;
}

TEST(ApkLabel, AReferenceWithoutATableIsNotFound) {
  Failure failure;
  label_from_resources(entry(kApks / "groceries.apk", "AndroidManifest.xml"), "", failure);
  EXPECT_EQ(failure.code, make_error_code(errc::not_found));
}

TEST(ApkLabel, ATableWithoutTheResourceIsNotFound) {
  // The framework's table has package 0x01 only, not the app's 0x7f.
  Failure failure;
  label_from_resources(entry(kApks / "groceries.apk", "AndroidManifest.xml"),
                       entry(kApks / "framework.apk", "resources.arsc"), failure);
  EXPECT_EQ(failure.code, make_error_code(errc::not_found)) << failure.detail;
}

TEST(ApkLabel, EveryTruncationIsATypedErrorOrTheLabel) {
  const std::string manifest = entry(kApks / "groceries.apk", "AndroidManifest.xml");
  const std::string arsc = entry(kApks / "groceries.apk", "resources.arsc");
  testing::internal::CaptureStderr();
  for (std::size_t size = 0; size < manifest.size(); ++size) {
    Failure failure;
    const std::string label = label_from_resources(manifest.substr(0, size), arsc, failure);
    EXPECT_TRUE(failure.code == make_error_code(errc::parse_error) ||
                failure.code == make_error_code(errc::not_found) || label == "Demo Groceries")
        << "manifest cut at " << size << ": " << failure.detail;
  }
  for (std::size_t size = 0; size < arsc.size(); ++size) {
    Failure failure;
    const std::string label = label_from_resources(manifest, arsc.substr(0, size), failure);
    EXPECT_TRUE(failure.code == make_error_code(errc::parse_error) ||
                failure.code == make_error_code(errc::not_found))
        << "table cut at " << size << ": " << label;
  }
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "") << "libandroidfw's log reached stderr";
}

TEST(ApkLabel, EveryFlippedByteIsATypedErrorOrALabel) {
  const std::string manifest = entry(kApks / "groceries.apk", "AndroidManifest.xml");
  const std::string arsc = entry(kApks / "groceries.apk", "resources.arsc");
  for (std::size_t at = 0; at < manifest.size() + arsc.size(); ++at) {
    std::string m = manifest;
    std::string a = arsc;
    char& byte = at < m.size() ? m[at] : a[at - m.size()];
    byte = static_cast<char>(byte ^ 0xff);
    Failure failure;
    const std::string label = label_from_resources(m, a, failure);
    EXPECT_LE(label.size(), kMaxLabelBytes);
    if (failure) {
      EXPECT_TRUE(failure.code == make_error_code(errc::parse_error) ||
                  failure.code == make_error_code(errc::not_found))
          << at << ": " << failure.detail;
    }
  }
}

TEST(ApkLabel, MalformedArchivesAreTypedErrors) {
  test::TempDir folder;
  const fs::path apk = folder.path() / "x.apk";
  std::ofstream(apk) << "PK\x03\x04 not a zip";
  Failure not_zip;
  apk_label(apk, not_zip);
  EXPECT_EQ(not_zip.code, make_error_code(errc::parse_error));
  EXPECT_NE(not_zip.detail.find("not a ZIP"), std::string::npos) << not_zip.detail;

  write_zip(apk, {{"classes.dex", "dex\n"}});
  Failure no_manifest;
  apk_label(apk, no_manifest);
  EXPECT_EQ(no_manifest.code, make_error_code(errc::parse_error));
  EXPECT_NE(no_manifest.detail.find("no AndroidManifest.xml"), std::string::npos);

  write_zip(apk, {{"AndroidManifest.xml", std::string(kMaxManifestBytes + 1, '\0')}});
  Failure too_big;
  apk_label(apk, too_big);
  EXPECT_EQ(too_big.code, make_error_code(errc::limit_exceeded)) << too_big.detail;

  write_zip(apk, {{"AndroidManifest.xml", entry(kApks / "groceries.apk", "AndroidManifest.xml")},
                  {"resources.arsc", "not a table"}});
  Failure bad_table;
  apk_label(apk, bad_table);
  EXPECT_EQ(bad_table.code, make_error_code(errc::parse_error));
  EXPECT_NE(bad_table.detail.find("resources.arsc is malformed"), std::string::npos)
      << bad_table.detail;
}

std::string file_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// apk_label over a range source whose bytes are `apk`, counting the bytes asked for.
std::string label_by_ranges(const std::string& apk, Failure& failure,
                            std::uint64_t* asked = nullptr) {
  return apk_label(
      apk.size(),
      [&](std::uint64_t offset, std::span<std::uint8_t> into, Failure&) {
        EXPECT_LE(offset + into.size(), apk.size());
        std::memcpy(into.data(), apk.data() + offset, into.size());
        if (asked != nullptr) *asked += into.size();
        return true;
      },
      failure);
}

// The range source gives what the file gives, and every cut of the archive (a device whose file
// ends early) is a typed error or the label; the reader's own failure is the one reported.
TEST(ApkLabel, ByRangesAsFromAFile) {
  const std::string groceries = file_bytes(kApks / "groceries.apk");
  Failure failure;
  EXPECT_EQ(label_by_ranges(groceries, failure), "Demo Groceries");
  EXPECT_FALSE(failure) << failure.detail;
  EXPECT_EQ(label_by_ranges(file_bytes(kApks / "fresh.apk"), failure), "Fresh Groceries");
  EXPECT_FALSE(failure) << failure.detail;
  for (std::size_t size = 0; size < groceries.size(); size += 7) {
    Failure cut;
    const std::string label = label_by_ranges(groceries.substr(0, size), cut);
    EXPECT_TRUE(cut.code == make_error_code(errc::parse_error) ||
                cut.code == make_error_code(errc::not_found) || label == "Demo Groceries")
        << "cut at " << size << ": " << cut.detail;
  }
  Failure refused;
  const std::string label = apk_label(
      groceries.size(),
      [](std::uint64_t, std::span<std::uint8_t>, Failure& f) {
        f.set(errc::limit_exceeded, "budget spent");
        return false;
      },
      refused);
  EXPECT_TRUE(label.empty());
  EXPECT_EQ(refused.code, make_error_code(errc::limit_exceeded));
  EXPECT_EQ(refused.detail, "budget spent");
}

void put_little_endian(std::string& out, std::uint64_t value, std::size_t width) {
  for (std::size_t i = 0; i < width; ++i) out += static_cast<char>(value >> (8 * i) & 0xff);
}

// `apk` with a ZIP64 end of central directory and its locator before its end record, which
// then points to them (0xffff counts, 0xffffffff size and offset), as a ZIP64 writer lays it
// out; the ZIP64 record announces `entries` in `directory_bytes`. `placed_at` is where `apk`'s
// first byte lies in the file.
std::string with_zip64_end(const std::string& apk, std::uint64_t entries,
                           std::uint64_t directory_bytes, std::uint64_t placed_at = 0) {
  const std::size_t end = apk.rfind("PK\x05\x06");
  const auto field = [&](std::size_t at, std::size_t width) {
    std::uint64_t value = 0;
    for (std::size_t i = width; i-- > 0;)
      value = value << 8 | static_cast<unsigned char>(apk[end + at + i]);
    return value;
  };
  std::string out = apk.substr(0, end);
  const std::uint64_t end64 = out.size();
  out += "PK\x06\x06";
  put_little_endian(out, 44, 8);
  put_little_endian(out, 45, 2);
  put_little_endian(out, 45, 2);
  put_little_endian(out, 0, 8);  // this disk, the directory's disk
  put_little_endian(out, entries, 8);
  put_little_endian(out, entries, 8);
  put_little_endian(out, directory_bytes, 8);
  put_little_endian(out, field(16, 4), 8);
  out += "PK\x06\x07";
  put_little_endian(out, 0, 4);
  put_little_endian(out, placed_at + end64, 8);
  put_little_endian(out, 1, 4);
  out += "PK\x05\x06";
  put_little_endian(out, 0, 4);
  put_little_endian(out, 0xffff, 2);
  put_little_endian(out, 0xffff, 2);
  put_little_endian(out, 0xffffffff, 4);
  put_little_endian(out, 0xffffffff, 4);
  put_little_endian(out, 0, 2);
  return out;
}

// libzip allocates and fills a record for every entry a ZIP64 end record announces before it
// reads one (200 million cost 6 GB with libzip 1.7.3), so a device's announcement is refused
// past kMaxDirectoryEntries before libzip sees it; a true ZIP64 end record still gives the label.
TEST(ApkLabel, AZip64DirectoryAnnouncingTooManyEntriesIsRefusedBeforeLibzipAllocates) {
  const std::string groceries = file_bytes(kApks / "groceries.apk");
  const std::size_t end = groceries.rfind("PK\x05\x06");
  ASSERT_NE(end, std::string::npos);
  const std::uint64_t entries =
      static_cast<unsigned char>(groceries[end + 10]) |
      static_cast<std::uint64_t>(static_cast<unsigned char>(groceries[end + 11])) << 8;
  std::uint64_t directory_bytes = 0;
  for (std::size_t i = 4; i-- > 0;)
    directory_bytes = directory_bytes << 8 | static_cast<unsigned char>(groceries[end + 12 + i]);

  Failure honest;
  EXPECT_EQ(label_by_ranges(with_zip64_end(groceries, entries, directory_bytes), honest),
            "Demo Groceries");
  EXPECT_FALSE(honest) << honest.detail;

  test::TempDir folder;
  const fs::path apk = folder.path() / "zip64.apk";
  std::ofstream(apk, std::ios::binary) << with_zip64_end(groceries, 200'000'000, directory_bytes);
  Failure from_file;
  apk_label(apk, from_file);
  EXPECT_EQ(from_file.code, make_error_code(errc::limit_exceeded)) << from_file.detail;
  EXPECT_NE(from_file.detail.find("200000000 entries"), std::string::npos) << from_file.detail;

  // By ranges, the device can announce a file as large as such a directory: its bytes before
  // the end records are never asked for.
  const std::uint64_t huge = 200'000'000ull * 46;
  const std::string tail =
      with_zip64_end("PK\x05\x06" + std::string(18, '\0'), 200'000'000, huge, huge);
  const std::uint64_t size = huge + tail.size();
  std::uint64_t asked = 0;
  Failure by_ranges;
  const std::string label = apk_label(
      size,
      [&](std::uint64_t offset, std::span<std::uint8_t> into, Failure&) {
        asked += into.size();
        for (std::size_t i = 0; i < into.size(); ++i)
          into[i] = offset + i < huge ? 0 : static_cast<std::uint8_t>(tail[offset + i - huge]);
        return true;
      },
      by_ranges);
  EXPECT_TRUE(label.empty());
  EXPECT_EQ(by_ranges.code, make_error_code(errc::limit_exceeded)) << by_ranges.detail;
  EXPECT_LE(asked, 128u * 1024);
}

}  // namespace
}  // namespace adbwire::detail
