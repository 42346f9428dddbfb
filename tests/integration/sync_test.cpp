// SyncClient (pull/push/stat/list) against the virtual device over loopback TCP, v2 and v1;
// interrupted transfers; and the real AOSP adb pulling and pushing on the same device, so
// the virtual device's sync side is checked by AOSP's own host code.
#include "adbwire/sync.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "adbwire/error.hpp"
#include "adbwire/testing/vdevice.hpp"
#include "integration/adb_server.hpp"
#include "integration/temp_dir.hpp"

namespace adbwire {
namespace {

namespace fs = std::filesystem;
using test::read_file;

using test::TempDir;

void write_random_file(const fs::path& path, std::size_t size, std::uint64_t seed, mode_t mode,
                       std::time_t mtime) {
  std::mt19937_64 random(seed);
  std::string bytes(size, '\0');
  for (std::size_t i = 0; i + 8 <= size; i += 8) {
    const std::uint64_t word = random();
    std::memcpy(bytes.data() + i, &word, 8);
  }
  for (std::size_t i = size - size % 8; i < size; ++i) bytes[i] = static_cast<char>(random());
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_EQ(::chmod(path.c_str(), mode), 0);
  const timespec times[2] = {{mtime, 0}, {mtime, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
}

struct FileFacts {
  std::string content;
  mode_t mode = 0;
  std::time_t mtime = 0;
  bool operator==(const FileFacts&) const = default;
};

// Every regular file under root, by relative path: content, permission bits, mtime.
std::map<std::string, FileFacts> tree_facts(const fs::path& root) {
  std::map<std::string, FileFacts> facts;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    struct stat st {};
    EXPECT_EQ(::stat(entry.path().c_str(), &st), 0);
    facts[entry.path().lexically_relative(root).string()] = {read_file(entry.path()),
                                                             st.st_mode & 07777, st.st_mtime};
  }
  return facts;
}

// A tree of `count` small files in nested folders with varied modes and mtimes.
void make_tree(const fs::path& root, int count) {
  for (int i = 0; i < count; ++i) {
    const fs::path path = root / ("d" + std::to_string(i % 7)) / ("e" + std::to_string(i % 3)) /
                          ("file" + std::to_string(i) + ".bin");
    const mode_t mode = i % 3 == 0 ? 0644 : i % 3 == 1 ? 0755 : 0600;
    write_random_file(path, static_cast<std::size_t>(i * 37 % 3000), static_cast<std::uint64_t>(i),
                      mode, 1600000000 + i * 1000);
  }
}

std::vector<std::string> v1_features() { return {"shell_v2", "cmd"}; }

class SyncTest : public ::testing::Test {
 protected:
  void start(VirtualDeviceOptions options = {}) {
    options.root = device_root_.path();
    vd_.emplace(std::move(options));
    vd_->start();
    device_.emplace(Device::connect(vd_->target()));
  }

  TempDir device_root_;
  TempDir local_;
  std::optional<VirtualDevice> vd_;
  std::optional<Device> device_;
};

void round_trip_large_file(const fs::path& device_root, const fs::path& local, Device& device,
                           std::size_t size) {
  write_random_file(local / "big.bin", size, 42, 0640, 1650000000);
  SyncClient sync(device);
  const TransferStats pushed = sync.push(local / "big.bin", "/data/local/tmp/big.bin");
  EXPECT_EQ(pushed.files, 1u);
  EXPECT_EQ(pushed.bytes, size);
  EXPECT_EQ(tree_facts(device_root / "data/local/tmp").at("big.bin"),
            tree_facts(local).at("big.bin"));

  const TransferStats pulled = sync.pull("/data/local/tmp/big.bin", local / "back.bin");
  EXPECT_EQ(pulled.files, 1u);
  EXPECT_EQ(pulled.bytes, size);
  const auto facts = tree_facts(local);
  EXPECT_TRUE(facts.at("back.bin") == facts.at("big.bin")) << "pulled bytes, mode or mtime differ";
}

TEST_F(SyncTest, LargeFileRoundTripsByteForByteWithModeAndMtime) {
  start();
  ASSERT_TRUE(device_->has_feature("sendrecv_v2"));
  round_trip_large_file(device_root_.path(), local_.path(), *device_, 64 * 1024 * 1024 + 3);
}

TEST_F(SyncTest, LargeFileRoundTripsOverSyncV1) {
  VirtualDeviceOptions options;
  options.features = v1_features();
  start(options);
  ASSERT_FALSE(device_->has_feature("stat_v2"));
  round_trip_large_file(device_root_.path(), local_.path(), *device_, 9 * 1024 * 1024 + 5);
}

// A device with 4 KiB payloads sends a file in thousands of small pieces, which the pull
// gathers into larger writes: every byte still lands in order, the last piece included.
TEST_F(SyncTest, LargeFileRoundTripsOverFourKibPayloads) {
  VirtualDeviceOptions options;
  apply_profile(options, "payload-4k");
  start(options);
  ASSERT_EQ(device_->connection_info().max_payload, 4096u);
  round_trip_large_file(device_root_.path(), local_.path(), *device_, 3 * 1024 * 1024 + 7);
}

void round_trip_tree(const fs::path& device_root, const fs::path& local, Device& device,
                     int count) {
  make_tree(local / "tree", count);
  SyncClient sync(device);
  const TransferStats pushed = sync.push(local / "tree", "/sdcard/tree");
  EXPECT_EQ(pushed.files, static_cast<std::size_t>(count));
  const auto original = tree_facts(local / "tree");
  ASSERT_EQ(original.size(), static_cast<std::size_t>(count));
  EXPECT_TRUE(tree_facts(device_root / "sdcard/tree") == original) << "pushed tree differs";

  // Into an existing folder: the copy is named after the remote folder.
  fs::create_directories(local / "back");
  const TransferStats pulled = sync.pull("/sdcard/tree", local / "back");
  EXPECT_EQ(pulled.files, static_cast<std::size_t>(count));
  EXPECT_TRUE(tree_facts(local / "back/tree") == original) << "pulled tree differs";
}

TEST_F(SyncTest, TreeOf500FilesRoundTripsWithModesAndMtimes) {
  start();
  round_trip_tree(device_root_.path(), local_.path(), *device_, 500);
}

TEST_F(SyncTest, TreeRoundTripsOverSyncV1) {
  VirtualDeviceOptions options;
  options.features = v1_features();
  start(options);
  round_trip_tree(device_root_.path(), local_.path(), *device_, 60);
}

TEST_F(SyncTest, StatLstatAndList) {
  start();
  write_random_file(device_root_.path() / "sdcard/a.txt", 10, 1, 0604, 1500000000);
  fs::create_symlink("a.txt", device_root_.path() / "sdcard/link");
  fs::create_directories(device_root_.path() / "sdcard/sub");
  SyncClient sync(*device_);

  const RemoteStat a = sync.stat("/sdcard/a.txt");
  EXPECT_TRUE(a.is_regular());
  EXPECT_EQ(a.mode & 07777, 0604u);
  EXPECT_EQ(a.size, 10u);
  EXPECT_EQ(a.mtime, 1500000000);
  EXPECT_NE(a.ino, 0u);  // a v2 field
  EXPECT_TRUE(sync.stat("/sdcard/link").is_regular());
  EXPECT_TRUE(sync.lstat("/sdcard/link").is_symlink());

  auto entries = sync.list("/sdcard");
  std::vector<std::string> names;
  for (const auto& entry : entries) names.push_back(entry.name);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"a.txt", "link", "sub"}));

  std::error_code error;
  sync.stat("/sdcard/missing", kDefaultDeadline, error);
  EXPECT_EQ(error, errc::not_found);
  EXPECT_NE(sync.last_error().find("/sdcard/missing"), std::string::npos);
  EXPECT_THROW(sync.stat("/sdcard/missing"), Error);
  EXPECT_TRUE(sync.list("/sdcard/missing").empty());
}

TEST_F(SyncTest, DeviceFailMessageReachesTheCallerWordForWord) {
  start();
  write_random_file(device_root_.path() / "sdcard/plain", 4, 1, 0644, 1500000000);
  write_random_file(local_.path() / "x", 100, 2, 0644, 1500000000);
  SyncClient sync(*device_);
  try {
    sync.push(local_.path() / "x", "/sdcard/plain/child");
    ADD_FAILURE() << "pushing below a file succeeded";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::command_failed);
    EXPECT_NE(std::string(e.what()).find("couldn't create file: Not a directory"),
              std::string::npos)
        << e.what();
  }
  // The device ended that stream; the client opens a new one.
  EXPECT_EQ(sync.push(local_.path() / "x", "/sdcard/ok").files, 1u);
  std::error_code error;
  sync.push(local_.path() / "x", "/sdcard/plain/child", {}, error);
  EXPECT_EQ(error, errc::command_failed);
  EXPECT_NE(sync.last_error().find("couldn't create file: Not a directory"), std::string::npos);
}

TEST_F(SyncTest, InterruptedPullLeavesNoFileUnderTheFinalName) {
  VirtualDeviceOptions options;
  options.drop_after_bytes = 3 * 1024 * 1024;
  start(options);
  write_random_file(device_root_.path() / "sdcard/big.bin", 16 * 1024 * 1024, 7, 0644, 1500000000);
  std::error_code error;
  const TransferStats stats =
      pull(*device_, "/sdcard/big.bin", local_.path() / "big.bin", {}, error);
  EXPECT_EQ(error, errc::device_offline);
  EXPECT_EQ(stats.files, 0u);
  EXPECT_FALSE(fs::exists(local_.path() / "big.bin"));
  EXPECT_TRUE(fs::is_empty(local_.path())) << "a temporary file was left behind";
}

TEST_F(SyncTest, InterruptedPushLeavesNoFileOnTheDevice) {
  VirtualDeviceOptions options;
  options.drop_after_bytes = 2 * 1024 * 1024;
  start(options);
  write_random_file(local_.path() / "big.bin", 16 * 1024 * 1024, 8, 0644, 1500000000);
  try {
    push(*device_, local_.path() / "big.bin", "/sdcard/big.bin");
    ADD_FAILURE() << "the push survived a dropped connection";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::device_offline) << e.what();
  }
  EXPECT_FALSE(fs::exists(device_root_.path() / "sdcard/big.bin"));
}

TEST_F(SyncTest, ProgressCountsUpToTheTotal) {
  start();
  make_tree(device_root_.path() / "sdcard/t", 20);
  write_random_file(device_root_.path() / "sdcard/t/big", 1024 * 1024, 3, 0644, 1500000000);
  std::vector<SyncProgress> seen;
  PullOptions options;
  options.progress = [&](const SyncProgress& p) { seen.push_back(p); };
  const TransferStats stats = SyncClient(*device_).pull("/sdcard/t", local_.path() / "t", options);
  ASSERT_FALSE(seen.empty());
  for (std::size_t i = 1; i < seen.size(); ++i)
    EXPECT_GE(seen[i].total_bytes, seen[i - 1].total_bytes);
  EXPECT_EQ(seen.back().total_bytes, stats.bytes);
  EXPECT_EQ(seen.back().total_size, stats.bytes);
  EXPECT_EQ(seen.back().files_done, 21u);
  EXPECT_EQ(seen.back().files_total, 21u);
}

TEST_F(SyncTest, ManyRemotesIntoOneFolderAndBadDestinations) {
  start();
  write_random_file(device_root_.path() / "sdcard/a", 5, 1, 0644, 1500000000);
  write_random_file(device_root_.path() / "sdcard/b", 6, 2, 0644, 1500000000);
  SyncClient sync(*device_);
  EXPECT_EQ(sync.pull(std::vector<std::string>{"/sdcard/a", "/sdcard/b"}, local_.path()).files, 2u);
  EXPECT_EQ(read_file(local_.path() / "b"), read_file(device_root_.path() / "sdcard/b"));

  std::error_code error;
  sync.pull(std::vector<std::string>{"/sdcard/a", "/sdcard/b"}, local_.path() / "nofolder", {},
            error);
  EXPECT_EQ(error, errc::invalid_argument);
  sync.pull("/sdcard/none", local_.path() / "none", {}, error);
  EXPECT_EQ(error, errc::not_found);
  sync.push(local_.path() / "none", "/sdcard/none", {}, error);
  EXPECT_EQ(error, errc::not_found);
}

TEST_F(SyncTest, CliPullAndPushPrintAdbsSummary) {
  start();
  write_random_file(local_.path() / "f.bin", 1000, 5, 0644, 1500000000);
  const std::string target = vd_->target();
  auto pushed = test::run_process(
      {ADBWIRE_CLI_PATH, "-s", target, "push", (local_.path() / "f.bin").string(), "/sdcard/"}, {},
      {});
  EXPECT_EQ(pushed.exit_code, 0) << pushed.err;
  EXPECT_EQ(read_file(device_root_.path() / "sdcard/f.bin"), read_file(local_.path() / "f.bin"));
  EXPECT_TRUE(
      pushed.out.starts_with((local_.path() / "f.bin").string() + ": 1 file pushed, 0 skipped. "))
      << pushed.out;
  EXPECT_NE(pushed.out.find("(1000 bytes in "), std::string::npos) << pushed.out;
  EXPECT_EQ(pushed.err, "");  // no progress bar when stderr is not a terminal

  auto pulled = test::run_process({ADBWIRE_CLI_PATH, "-s", target, "pull", "-a", "/sdcard/f.bin",
                                   (local_.path() / "g.bin").string()},
                                  {}, {});
  EXPECT_EQ(pulled.exit_code, 0) << pulled.err;
  EXPECT_TRUE(pulled.out.starts_with("/sdcard/f.bin: 1 file pulled, 0 skipped. ")) << pulled.out;
  EXPECT_TRUE(tree_facts(local_.path()).at("g.bin") == tree_facts(local_.path()).at("f.bin"));

  auto failed = test::run_process(
      {ADBWIRE_CLI_PATH, "-s", target, "pull", "/sdcard/nothing", local_.path().string()}, {}, {});
  EXPECT_NE(failed.exit_code, 0);
  EXPECT_NE(failed.out.find("/sdcard/nothing"), std::string::npos) << failed.out;
}

// ---- compressed transfers (SND2/RCV2 with brotli / lz4 / zstd)

// Text-like content (log lines) that compresses several times over.
void write_text_file(const fs::path& path, std::size_t size, std::uint64_t seed, mode_t mode,
                     std::time_t mtime) {
  std::mt19937_64 random(seed);
  std::string text;
  while (text.size() < size) {
    text += "12-24 10:0" + std::to_string(random() % 10) + " I/ActivityManager(" +
            std::to_string(random() % 4000) + "): Displayed com.example/.Main: +" +
            std::to_string(random() % 900) + "ms\n";
  }
  text.resize(size);
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary)
      .write(text.data(), static_cast<std::streamsize>(text.size()));
  ASSERT_EQ(::chmod(path.c_str(), mode), 0);
  const timespec times[2] = {{mtime, 0}, {mtime, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
}

std::vector<std::string> features_without(const std::string& left_out) {
  std::vector<std::string> features = {"shell_v2",        "cmd",
                                       "stat_v2",         "ls_v2",
                                       "sendrecv_v2",     "sendrecv_v2_brotli",
                                       "sendrecv_v2_lz4", "sendrecv_v2_zstd"};
  std::erase(features, left_out);
  return features;
}

TEST_F(SyncTest, EachCompressionMovesFilesAndTreesByteForByte) {
  start();
  ASSERT_TRUE(device_->has_feature("sendrecv_v2_zstd"));
  ASSERT_TRUE(device_->has_feature("sendrecv_v2_lz4"));
  ASSERT_TRUE(device_->has_feature("sendrecv_v2_brotli"));
  write_text_file(local_.path() / "text.log", 3 * 1024 * 1024, 21, 0640, 1650000000);
  write_random_file(local_.path() / "noise.bin", 3 * 1024 * 1024 + 1, 22, 0600, 1650000100);
  make_tree(local_.path() / "tree", 500);
  const auto original = tree_facts(local_.path());
  for (SyncCompression algorithm :
       {SyncCompression::brotli, SyncCompression::lz4, SyncCompression::zstd}) {
    const std::string name(to_string(algorithm));
    SCOPED_TRACE(name);
    SyncClient sync(*device_);
    PushOptions push_options;
    push_options.compression = algorithm;
    PullOptions pull_options;
    pull_options.compression = algorithm;

    const TransferStats pushed =
        sync.push(local_.path() / "text.log", "/sdcard/" + name + "/text.log", push_options);
    EXPECT_EQ(pushed.compression, algorithm);
    EXPECT_EQ(pushed.bytes, 3u * 1024 * 1024);
    EXPECT_LT(pushed.wire_bytes, pushed.bytes / 3) << "text did not shrink on the wire";
    sync.push(local_.path() / "noise.bin", "/sdcard/" + name + "/noise.bin", push_options);
    sync.push(local_.path() / "tree", "/sdcard/" + name + "/tree", push_options);
    EXPECT_TRUE(tree_facts(device_root_.path() / "sdcard" / name) == original)
        << "pushed files differ";

    const fs::path back = local_.path() / ("back_" + name);
    const TransferStats pulled = sync.pull("/sdcard/" + name, back, pull_options);
    EXPECT_EQ(pulled.compression, algorithm);
    EXPECT_EQ(pulled.files, 502u);
    EXPECT_LT(pulled.wire_bytes, pulled.bytes);
    EXPECT_TRUE(tree_facts(back) == original) << "pulled files differ";
  }
}

// The name always holds one whole file: the old one is swapped out, not written into, so a
// second link to it keeps the old bytes (as rename would), and nothing else is left in the
// folder. A folder under the name is refused and left alone.
TEST_F(SyncTest, APullReplacesAnExistingFileWholeAndRefusesAFolder) {
  start();
  write_random_file(device_root_.path() / "sdcard/new.bin", 300000, 5, 0644, 1650000000);
  write_random_file(local_.path() / "out/kept.bin", 1000, 6, 0644, 1650000000);
  fs::create_hard_link(local_.path() / "out/kept.bin", local_.path() / "out/other-link.bin");
  const std::string old_bytes = read_file(local_.path() / "out/kept.bin");
  pull(*device_, "/sdcard/new.bin", local_.path() / "out/kept.bin");
  EXPECT_EQ(read_file(local_.path() / "out/kept.bin"),
            read_file(device_root_.path() / "sdcard/new.bin"));
  EXPECT_EQ(read_file(local_.path() / "out/other-link.bin"), old_bytes);
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(local_.path() / "out"))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"kept.bin", "other-link.bin"}));

  fs::create_directories(local_.path() / "dest/new.bin/child");
  SyncClient sync(*device_);
  std::error_code error;
  sync.pull("/sdcard/new.bin", local_.path() / "dest", PullOptions{}, error);
  EXPECT_EQ(error, errc::io_error) << sync.last_error();
  EXPECT_TRUE(fs::is_directory(local_.path() / "dest/new.bin/child"));
  EXPECT_EQ(std::distance(fs::directory_iterator(local_.path() / "dest"), fs::directory_iterator()),
            1);
}

TEST_F(SyncTest, AnyPicksZstdAndNoneIsPlain) {
  start();
  write_text_file(device_root_.path() / "sdcard/text.log", 1024 * 1024, 23, 0644, 1650000000);
  SyncClient sync(*device_);
  const TransferStats best = sync.pull("/sdcard/text.log", local_.path() / "a.log");
  EXPECT_EQ(best.compression, SyncCompression::zstd);
  EXPECT_LT(best.wire_bytes, best.bytes / 3);
  PullOptions plain;
  plain.compression = SyncCompression::none;
  const TransferStats none = sync.pull("/sdcard/text.log", local_.path() / "b.log", plain);
  EXPECT_EQ(none.compression, SyncCompression::none);
  EXPECT_EQ(none.wire_bytes, none.bytes);
  EXPECT_EQ(read_file(local_.path() / "a.log"), read_file(device_root_.path() / "sdcard/text.log"));
  EXPECT_EQ(read_file(local_.path() / "b.log"), read_file(device_root_.path() / "sdcard/text.log"));
}

// The virtual device FAILs a flag whose feature it does not list, so success here shows the
// client did not send it.
TEST_F(SyncTest, AnAlgorithmTheDeviceDoesNotOfferFallsBackToPlain) {
  VirtualDeviceOptions options;
  options.features = features_without("sendrecv_v2_zstd");
  start(options);
  write_text_file(local_.path() / "text.log", 1024 * 1024 + 3, 24, 0644, 1650000000);
  SyncClient sync(*device_);
  PushOptions zstd_push;
  zstd_push.compression = SyncCompression::zstd;
  const TransferStats pushed = sync.push(local_.path() / "text.log", "/sdcard/text.log", zstd_push);
  EXPECT_EQ(pushed.compression, SyncCompression::none);
  EXPECT_EQ(pushed.wire_bytes, pushed.bytes);
  PullOptions zstd_pull;
  zstd_pull.compression = SyncCompression::zstd;
  const TransferStats pulled = sync.pull("/sdcard/text.log", local_.path() / "back.log", zstd_pull);
  EXPECT_EQ(pulled.compression, SyncCompression::none);
  EXPECT_EQ(read_file(local_.path() / "back.log"), read_file(local_.path() / "text.log"));
  // "any" takes the next best the device has.
  EXPECT_EQ(sync.pull("/sdcard/text.log", local_.path() / "any.log").compression,
            SyncCompression::lz4);

  // Without sendrecv_v2 there is no compression at all (sync v1).
  device_.reset();
  vd_.reset();
  VirtualDeviceOptions v1;
  v1.features = {"shell_v2", "cmd", "sendrecv_v2_zstd"};
  start(v1);
  const TransferStats old = SyncClient(*device_).pull("/sdcard/text.log", local_.path() / "v1.log");
  EXPECT_EQ(old.compression, SyncCompression::none);
  EXPECT_EQ(read_file(local_.path() / "v1.log"), read_file(local_.path() / "text.log"));
}

TEST_F(SyncTest, CorruptCompressedDataIsAProtocolErrorAndLeavesNoFile) {
  VirtualDeviceOptions options;
  options.corrupt_compressed_sync = true;
  start(options);
  write_text_file(device_root_.path() / "sdcard/text.log", 3 * 1024 * 1024, 25, 0644, 1650000000);
  for (SyncCompression algorithm :
       {SyncCompression::brotli, SyncCompression::lz4, SyncCompression::zstd}) {
    const std::string name(to_string(algorithm));
    SCOPED_TRACE(name);
    PullOptions pull_options;
    pull_options.compression = algorithm;
    try {
      pull(*device_, "/sdcard/text.log", local_.path() / "text.log", pull_options);
      ADD_FAILURE() << "a corrupt stream was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), errc::protocol_error) << e.what();
      EXPECT_NE(std::string(e.what()).find("corrupt " + name + "-compressed data"),
                std::string::npos)
          << e.what();
    }
    EXPECT_TRUE(fs::is_empty(local_.path())) << "a file or temporary file was left behind";
  }
  // Plain transfers on the same device are fine.
  PullOptions plain;
  plain.compression = SyncCompression::none;
  EXPECT_EQ(pull(*device_, "/sdcard/text.log", local_.path() / "text.log", plain).files, 1u);
}

TEST_F(SyncTest, CliTakesAdbsCompressionFlags) {
  start();
  write_text_file(local_.path() / "f.log", 200000, 26, 0644, 1500000000);
  const std::string target = vd_->target();
  for (std::vector<std::string> flags :
       {std::vector<std::string>{"-z", "brotli"}, {"-z", "lz4"}, {"-Z"}, {"-z", "any"}}) {
    std::vector<std::string> push_args = {ADBWIRE_CLI_PATH, "-s", target, "push"};
    push_args.insert(push_args.end(), flags.begin(), flags.end());
    push_args.insert(push_args.end(), {(local_.path() / "f.log").string(), "/sdcard/f.log"});
    auto pushed = test::run_process(push_args, {}, {});
    EXPECT_EQ(pushed.exit_code, 0) << pushed.err;
    EXPECT_EQ(read_file(device_root_.path() / "sdcard/f.log"), read_file(local_.path() / "f.log"));

    std::vector<std::string> pull_args = {ADBWIRE_CLI_PATH, "-s", target, "pull"};
    pull_args.insert(pull_args.end(), flags.begin(), flags.end());
    pull_args.insert(pull_args.end(), {"/sdcard/f.log", (local_.path() / "g.log").string()});
    auto pulled = test::run_process(pull_args, {}, {});
    EXPECT_EQ(pulled.exit_code, 0) << pulled.err;
    EXPECT_TRUE(pulled.out.starts_with("/sdcard/f.log: 1 file pulled, 0 skipped. ")) << pulled.out;
    EXPECT_EQ(read_file(local_.path() / "g.log"), read_file(local_.path() / "f.log"));
  }
  auto bad = test::run_process({ADBWIRE_CLI_PATH, "-s", target, "pull", "-z", "gzip",
                                "/sdcard/f.log", (local_.path() / "h.log").string()},
                               {}, {});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("gzip"), std::string::npos) << bad.err;
}

// ADB_COMPRESSION as adb reads it: under -z and -Z, over the default, 1 and 0 for any and none.
// What went over the wire tells: the recorded connection of a 2 MB text file is a fraction of
// the file compressed, more than the file plain.
TEST_F(SyncTest, CliTakesAdbCompressionFromTheEnvironment) {
  start();
  constexpr std::uintmax_t kSize = 2 * 1024 * 1024;
  write_text_file(device_root_.path() / "sdcard/f.log", kSize, 27, 0644, 1500000000);
  write_text_file(local_.path() / "up.log", kSize, 28, 0644, 1500000000);
  const fs::path capture = local_.path() / "wire.pcapng";
  // The bytes the command moved over the wire (--record keeps the call off the daemon).
  const auto wire_bytes = [&](const std::string& variable, std::vector<std::string> args) {
    fs::remove(capture);
    args.insert(args.begin(),
                {ADBWIRE_CLI_PATH, "--record", capture.string(), "-s", vd_->target()});
    const auto run = test::run_process(
        args, variable.empty() ? std::vector<std::string>{} : std::vector<std::string>{variable},
        {});
    EXPECT_EQ(run.exit_code, 0) << variable << ": " << run.out << run.err;
    std::error_code error;
    return fs::file_size(capture, error);
  };
  const std::vector<std::string> pull = {"pull", "/sdcard/f.log",
                                         (local_.path() / "f.log").string()};
  EXPECT_GT(wire_bytes("", pull), kSize) << "pull is plain by default";
  EXPECT_LT(wire_bytes("ADB_COMPRESSION=lz4", pull), kSize / 2);
  EXPECT_LT(wire_bytes("ADB_COMPRESSION=1", pull), kSize / 2);
  EXPECT_EQ(read_file(local_.path() / "f.log"), read_file(device_root_.path() / "sdcard/f.log"));
  std::vector<std::string> pull_plain = {"pull", "-Z", "/sdcard/f.log",
                                         (local_.path() / "f.log").string()};
  EXPECT_GT(wire_bytes("ADB_COMPRESSION=zstd", pull_plain), kSize) << "-Z wins";
  std::vector<std::string> pull_brotli = {"pull", "-z", "brotli", "/sdcard/f.log",
                                          (local_.path() / "f.log").string()};
  EXPECT_LT(wire_bytes("ADB_COMPRESSION=0", pull_brotli), kSize / 2) << "-z wins";

  const std::vector<std::string> push = {"push", (local_.path() / "up.log").string(),
                                         "/sdcard/up.log"};
  EXPECT_LT(wire_bytes("", push), kSize / 2) << "push compresses by default";
  EXPECT_GT(wire_bytes("ADB_COMPRESSION=0", push), kSize);
  EXPECT_GT(wire_bytes("ADB_COMPRESSION=none", push), kSize);
  EXPECT_EQ(read_file(device_root_.path() / "sdcard/up.log"), read_file(local_.path() / "up.log"));

  const auto bad = test::run_process({ADBWIRE_CLI_PATH, "-s", vd_->target(), "pull",
                                      "/sdcard/f.log", (local_.path() / "g.log").string()},
                                     {"ADB_COMPRESSION=gzip"}, {});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("unexpected compression type 'gzip' in ADB_COMPRESSION"),
            std::string::npos)
      << bad.err;
  EXPECT_FALSE(fs::exists(local_.path() / "g.log"));
}

// ---- the real AOSP adb on the same virtual device

class SyncRealAdbTest : public SyncTest {
 protected:
  void SetUp() override { ASSERT_EQ(server_.start(), ""); }

  void start_both() {
    start();
    serial_ = "127.0.0.1:" + std::to_string(vd_->port());
    ASSERT_EQ(server_.connect_and_wait(serial_), "");
  }

  test::ProcessResult adb_s(std::vector<std::string> args) {
    args.insert(args.begin(), {"-s", serial_});
    return server_.adb(std::move(args));
  }

  test::AdbServerProcess server_;
  std::string serial_;
};

TEST_F(SyncRealAdbTest, AdbAndAdbwireMoveTheSameBytes) {
  start_both();
  write_random_file(local_.path() / "in/big.bin", 8 * 1024 * 1024 + 17, 11, 0644, 1500000000);
  make_tree(local_.path() / "in/tree", 40);

  // adb pushes, adbwire pulls.
  auto pushed = adb_s({"push", (local_.path() / "in/big.bin").string(), "/sdcard/by_adb.bin"});
  ASSERT_EQ(pushed.exit_code, 0) << pushed.out << pushed.err;
  SyncClient sync(*device_);
  sync.pull("/sdcard/by_adb.bin", local_.path() / "by_adbwire.bin");
  EXPECT_TRUE(read_file(local_.path() / "by_adbwire.bin") ==
              read_file(local_.path() / "in/big.bin"));

  // adbwire pushes, adb pulls.
  sync.push(local_.path() / "in/big.bin", "/sdcard/by_adbwire.bin");
  auto pulled = adb_s({"pull", "/sdcard/by_adbwire.bin", (local_.path() / "by_adb.bin").string()});
  ASSERT_EQ(pulled.exit_code, 0) << pulled.out << pulled.err;
  EXPECT_TRUE(read_file(local_.path() / "by_adb.bin") == read_file(local_.path() / "in/big.bin"));

  // Trees: adb push + adbwire pull, adbwire push + adb pull -a (modes and mtimes too).
  ASSERT_EQ(adb_s({"push", (local_.path() / "in/tree").string(), "/sdcard/t1"}).exit_code, 0);
  sync.pull("/sdcard/t1", local_.path() / "t1");
  EXPECT_TRUE(tree_facts(local_.path() / "t1") == tree_facts(local_.path() / "in/tree"));
  sync.push(local_.path() / "in/tree", "/sdcard/t2");
  ASSERT_EQ(adb_s({"pull", "-a", "/sdcard/t2", (local_.path() / "t2").string()}).exit_code, 0);
  EXPECT_TRUE(tree_facts(local_.path() / "t2") == tree_facts(local_.path() / "in/tree"));

  // adb stat/ls see what adbwire pushed.
  auto listing = adb_s({"ls", "/sdcard"});
  EXPECT_NE(listing.out.find(" by_adbwire.bin\n"), std::string::npos) << listing.out;
}

}  // namespace
}  // namespace adbwire
