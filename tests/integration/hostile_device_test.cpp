// A hostile device answering sync with crafted listings (VirtualDeviceOptions::hostile_sync):
// whatever it names, a pull writes nothing outside its destination, touches no host folder it did
// not create, never makes setuid or world-writable files, holds bounded memory, and prints the
// device's names escaped. Each case checks the whole sandbox around the destination, before and
// after, so a write anywhere else is seen.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <pty.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "adbwire/device.hpp"
#include "adbwire/error.hpp"
#include "adbwire/protocol/printable.hpp"
#include "adbwire/sync.hpp"
#include "adbwire/testing/vdevice.hpp"
#include "integration/adb_server.hpp"
#include "integration/sanitizer.hpp"
#include "integration/temp_dir.hpp"

namespace adbwire {
namespace {

namespace fs = std::filesystem;
using test::read_file;
using test::TempDir;
using namespace std::chrono_literals;

constexpr std::string_view kPwned = "pwned by a hostile device\n";

void write_file(const fs::path& path, std::string_view content) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary)
      .write(content.data(), static_cast<std::streamsize>(content.size()));
}

struct Facts {
  mode_t mode = 0;
  std::time_t mtime = 0;
  std::string link;  // the target, for a symbolic link
  bool operator==(const Facts&) const = default;
};

// Every path under root (links not followed), with its mode, mtime and link target.
std::map<std::string, Facts> walk(const fs::path& root) {
  std::map<std::string, Facts> facts;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator();
       ++it) {
    struct stat st {};
    EXPECT_EQ(::lstat(it->path().c_str(), &st), 0);
    Facts f{st.st_mode, st.st_mtime, {}};
    if (S_ISLNK(st.st_mode)) f.link = fs::read_symlink(it->path()).string();
    facts[it->path().lexically_relative(root).string()] = f;
  }
  return facts;
}

// What changed between two walks outside `inside` (a path relative to the sandbox).
std::vector<std::string> changed_outside(const std::map<std::string, Facts>& before,
                                         const std::map<std::string, Facts>& after,
                                         const std::string& inside) {
  std::vector<std::string> changed;
  const auto outside = [&](const std::string& path) {
    return path != inside && !path.starts_with(inside + "/");
  };
  for (const auto& [path, facts] : after) {
    if (!outside(path)) continue;
    const auto it = before.find(path);
    if (it == before.end()) {
      changed.push_back("new: " + path);
    } else if (!(it->second == facts)) {
      changed.push_back("changed: " + path);
    }
  }
  for (const auto& [path, facts] : before) {
    if (outside(path) && !after.contains(path)) changed.push_back("gone: " + path);
  }
  return changed;
}

std::vector<std::string> v1_features() { return {"shell_v2", "cmd"}; }

class HostileDevice : public ::testing::Test {
 protected:
  // The device has /sdcard/dir/file.txt and /sdcard/dir/sub/inner.txt; the sandbox holds the
  // destination sandbox/x/out, a host folder sandbox/x/somedir (0700) and sandbox/keep.txt.
  void start(HostileSync mode, std::vector<std::string> features = {}) {
    write_file(device_root_.path() / "sdcard/dir/file.txt", "real file\n");
    write_file(device_root_.path() / "sdcard/dir/sub/inner.txt", "inner\n");
    fs::create_directories(out());
    fs::create_directories(sandbox() / "x/somedir");
    ::chmod((sandbox() / "x/somedir").c_str(), 0700);
    write_file(sandbox() / "keep.txt", "mine\n");
    const timespec old_times[2] = {{1500000000, 0}, {1500000000, 0}};
    ::utimensat(AT_FDCWD, (sandbox() / "x/somedir").c_str(), old_times, 0);
    VirtualDeviceOptions options;
    options.root = device_root_.path();
    options.hostile_sync = mode;
    options.features = std::move(features);
    vd_.emplace(std::move(options));
    vd_->start();
    device_.emplace(Device::connect(vd_->target()));
    before_ = walk(sandbox());
  }

  const fs::path& sandbox() const { return sandbox_.path(); }
  fs::path out() const { return sandbox() / "x/out"; }
  std::vector<std::string> changed_outside_out() const {
    return changed_outside(before_, walk(sandbox()), "x/out");
  }
  std::vector<std::string> cli(std::vector<std::string> args) const {
    args.insert(args.begin(), {ADBWIRE_CLI_PATH, "-s", vd_->target()});
    return args;
  }

  void expect_traversal_refused(bool v1);

  TempDir device_root_;
  TempDir sandbox_;
  std::optional<VirtualDevice> vd_;
  std::optional<Device> device_;
  std::map<std::string, Facts> before_;
};

void HostileDevice::expect_traversal_refused(bool v1) {
  ::unlink("/tmp/adbwire-absolute.txt");
  start(HostileSync::traversal_names, v1 ? v1_features() : std::vector<std::string>{});
  std::error_code error;
  SyncClient sync(*device_);
  sync.pull("/sdcard/dir", out(), PullOptions{}, error);
  EXPECT_EQ(error, errc::protocol_error);
  EXPECT_NE(sync.last_error().find("\"../escape.txt\""), std::string::npos) << sync.last_error();
  EXPECT_NE(sync.last_error().find("nothing was written"), std::string::npos) << sync.last_error();
  EXPECT_EQ(changed_outside_out(), std::vector<std::string>{});
  EXPECT_TRUE(fs::is_empty(out())) << "the plan failed, so nothing is created";
  EXPECT_FALSE(fs::exists("/tmp/adbwire-absolute.txt"));

  // A plain listing refuses them too.
  sync.list("/sdcard/dir", kDefaultDeadline, error);
  EXPECT_EQ(error, errc::protocol_error);

  // So does the CLI, with exit status 1.
  const auto pulled = test::run_process(cli({"pull", "/sdcard/dir", out().string()}), {}, {});
  EXPECT_EQ(pulled.exit_code, 1) << pulled.out << pulled.err;
  EXPECT_NE(pulled.out.find("../escape.txt"), std::string::npos) << pulled.out;
  EXPECT_EQ(changed_outside_out(), std::vector<std::string>{});
}

TEST_F(HostileDevice, TraversalAndAbsoluteNamesFailThePullAndWriteNothing) {
  expect_traversal_refused(false);
}

TEST_F(HostileDevice, TraversalNamesOverSyncV1FailToo) { expect_traversal_refused(true); }

TEST_F(HostileDevice, AFolderThatClimbsOutLeavesHostFoldersUntouched) {
  start(HostileSync::climbing_folder);
  const auto pulled = test::run_process(cli({"pull", "-a", "/sdcard/dir", out().string()}), {}, {});
  EXPECT_EQ(pulled.exit_code, 1);
  EXPECT_NE(pulled.out.find("../../somedir"), std::string::npos) << pulled.out;
  struct stat st {};
  ASSERT_EQ(::stat((sandbox() / "x/somedir").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u);
  EXPECT_EQ(st.st_mtime, 1500000000);
  EXPECT_TRUE(fs::is_empty(sandbox() / "x/somedir"));
  EXPECT_EQ(changed_outside_out(), std::vector<std::string>{});
}

// umask is per process: set for the pull, restored after.
class ScopedUmask {
 public:
  explicit ScopedUmask(mode_t mask) : old_(::umask(mask)) {}
  ~ScopedUmask() { ::umask(old_); }

 private:
  mode_t old_;
};

TEST_F(HostileDevice, SetuidSetgidStickyAndWorldWritableModesAreMaskedAsAdbDoes) {
  start(HostileSync::special_modes);
  {
    const ScopedUmask mask(027);
    PullOptions options;
    options.keep_attributes = true;
    pull(*device_, "/sdcard/dir", out(), options);
  }
  struct stat st {};
  ASSERT_EQ(::stat((out() / "dir/file.txt").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0750u) << std::oct << (st.st_mode & 07777);  // 06777 & 0777 & ~027
  ASSERT_EQ(::stat((out() / "dir/sub").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0750u) << std::oct << (st.st_mode & 07777);  // 01777 & 0777 & ~027
  ASSERT_EQ(::stat((out() / "dir/sub/inner.txt").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0750u);
  EXPECT_EQ(read_file(out() / "dir/sub/inner.txt"), "inner\n");

  // Without -a: 0644 and 0777, masked.
  {
    const ScopedUmask mask(077);
    PullOptions options;
    options.keep_attributes = false;
    pull(*device_, "/sdcard/dir", out() / "plain", options);
  }
  ASSERT_EQ(::stat((out() / "plain/file.txt").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  ASSERT_EQ(::stat((out() / "plain/sub").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u);
  EXPECT_EQ(changed_outside_out(), std::vector<std::string>{});
}

TEST_F(HostileDevice, AnEndlessListingStopsAtItsBoundWithBoundedMemory) {
  start(HostileSync::endless_listing);
  PullOptions options;
  options.limits.max_listing_entries = 5000;
  SyncClient sync(*device_);
  std::error_code error;
  sync.pull("/sdcard/dir", out(), options, error);
  EXPECT_EQ(error, errc::limit_exceeded);
  EXPECT_NE(sync.last_error().find("SyncLimits::max_listing_entries"), std::string::npos)
      << sync.last_error();
  EXPECT_TRUE(fs::is_empty(out()));

  // The same connection still works after the broken listing.
  EXPECT_EQ(sync.stat("/sdcard/dir/file.txt").size, 10u);

  // The CLI with its defaults (a million entries): an error, and the memory that took.
  const auto pulled = test::run_process(cli({"pull", "/sdcard/dir", out().string()}), {}, {},
                                        std::chrono::seconds(120));
  EXPECT_FALSE(pulled.timed_out);
  EXPECT_EQ(pulled.exit_code, 1) << pulled.out;
  EXPECT_NE(pulled.out.find("more than 1000000 "), std::string::npos) << pulled.out;
  // About 64 bytes an entry plus the vector's growth; 4.6 GB before the bound existed. Under
  // AddressSanitizer (quarantine, shadow, red zones) the same run peaks near 370 MB.
  const std::size_t bound_kib = (test::kAddressSanitizer ? 1024 : 256) * 1024;
  EXPECT_LT(pulled.max_rss_kib, bound_kib) << "peak RSS " << pulled.max_rss_kib << " KiB";
  const auto smaller = test::run_process(
      cli({"pull", "--max-listing", "1000", "/sdcard/dir", out().string()}), {}, {});
  EXPECT_EQ(smaller.exit_code, 1);
  EXPECT_NE(smaller.out.find("more than 1000 entries"), std::string::npos) << smaller.out;
  EXPECT_LT(smaller.max_rss_kib, pulled.max_rss_kib);
  RecordProperty("endless_listing_peak_rss_kib", std::to_string(pulled.max_rss_kib));
  EXPECT_EQ(changed_outside_out(), std::vector<std::string>{});
}

TEST_F(HostileDevice, AnEndlessTreeStopsAtTheDepthBound) {
  start(HostileSync::endless_tree);
  SyncClient sync(*device_);
  std::error_code error;
  PullOptions options;
  sync.pull("/sdcard/dir", out(), options, error);
  EXPECT_EQ(error, errc::limit_exceeded);
  EXPECT_NE(sync.last_error().find("deeper than 128 folders"), std::string::npos)
      << sync.last_error();
  options.limits.max_depth = 1000;
  options.limits.max_tree_entries = 300;
  sync.pull("/sdcard/dir", out(), options, error);
  EXPECT_EQ(error, errc::limit_exceeded);
  EXPECT_NE(sync.last_error().find("SyncLimits::max_tree_entries"), std::string::npos)
      << sync.last_error();
  EXPECT_TRUE(fs::is_empty(out()));
  EXPECT_EQ(changed_outside_out(), std::vector<std::string>{});
}

TEST_F(HostileDevice, ANameWithTerminalEscapesIsPulledAndShownEscaped) {
  start(HostileSync::escape_names);
  const std::string name = "\x1b]0;pwned\x07\x1b[2J\x1b[31mevil.txt";
  // Run the CLI with a terminal on stderr, so it draws its progress line.
  std::vector<std::string> argv = cli({"pull", "/sdcard/dir", out().string()});
  auto args = test::c_strings(argv);
  int master = -1;
  const pid_t pid = ::forkpty(&master, nullptr, nullptr, nullptr);
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  std::string shown;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(master, buffer, sizeof buffer);
    if (n <= 0) break;
    shown.append(buffer, static_cast<std::size_t>(n));
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ::close(master);
  EXPECT_EQ(WEXITSTATUS(status), 0) << shown;
  EXPECT_EQ(read_file(out() / "dir" / name), kPwned);  // one legal path component
  // The only escape sequences on the terminal are the progress line's own "erase line".
  for (std::size_t at = shown.find('\x1b'); at != std::string::npos;
       at = shown.find('\x1b', at + 1))
    EXPECT_EQ(shown.substr(at, 3), "\x1b[K") << "raw escape in: " << protocol::printable(shown);
  EXPECT_EQ(shown.find('\x07'), std::string::npos);
  EXPECT_NE(shown.find("\\x1b]0;pwned\\x07"), std::string::npos) << shown;
  EXPECT_EQ(changed_outside_out(), std::vector<std::string>{});
}

// Not only file names: properties, log lines and errors from a device are printed escaped too.
TEST(HostileDeviceText, PropertiesLogLinesAndErrorsArePrintedEscaped) {
  VirtualDeviceOptions options;
  options.serial = "serial\x1b]0;pwned\x07";
  VirtualDevice vd(options);
  vd.start();
  vd.log('I', "tag\x1b[2J", "line one\x1b[31m\nline two\x9b");
  const auto prop =
      test::run_process({ADBWIRE_CLI_PATH, "-s", vd.target(), "getprop", "ro.serialno"}, {}, {});
  EXPECT_EQ(prop.exit_code, 0) << prop.err;
  EXPECT_EQ(prop.out, "serial\\x1b]0;pwned\\x07\n");
  const auto log = test::run_process({ADBWIRE_CLI_PATH, "-s", vd.target(), "logcat", "-d"}, {}, {});
  EXPECT_EQ(log.exit_code, 0) << log.err;
  EXPECT_EQ(log.out.find('\x1b'), std::string::npos) << protocol::printable(log.out);
  EXPECT_NE(log.out.find("tag\\x1b[2J"), std::string::npos) << log.out;
  EXPECT_NE(log.out.find("line one\\x1b[31m\n"), std::string::npos) << log.out;
  EXPECT_NE(log.out.find("line two\\x9b"), std::string::npos) << log.out;
  // An error quoting the device's words (here a sync FAIL naming the path) is escaped as well.
  const auto failed = test::run_process(
      {ADBWIRE_CLI_PATH, "-s", vd.target(), "pull", "/sdcard/no\x1b[2Jsuch", "/tmp"}, {}, {});
  EXPECT_EQ(failed.exit_code, 1);
  EXPECT_EQ(failed.out.find('\x1b'), std::string::npos) << protocol::printable(failed.out);
  EXPECT_NE(failed.out.find("no\\x1b[2Jsuch"), std::string::npos) << failed.out;
}

TEST_F(HostileDevice, NoWriteGoesThroughALinkInsideTheDestination) {
  start(HostileSync::none);
  // Left by an earlier pull or planted by another user: a folder link and a file link.
  fs::create_directories(sandbox() / "outside");
  write_file(sandbox() / "outside/target.txt", "original\n");
  fs::create_directories(out() / "dir");
  fs::create_directory_symlink(sandbox() / "outside", out() / "dir/sub");
  fs::create_symlink(sandbox() / "outside/target.txt", out() / "dir/file.txt");
  before_ = walk(sandbox());

  SyncClient sync(*device_);
  std::error_code error;
  sync.pull("/sdcard/dir", out(), PullOptions{}, error);
  EXPECT_EQ(error, errc::io_error);
  EXPECT_NE(sync.last_error().find("is a symbolic link"), std::string::npos) << sync.last_error();
  EXPECT_EQ(read_file(sandbox() / "outside/target.txt"), "original\n");
  EXPECT_FALSE(fs::exists(sandbox() / "outside/inner.txt"));
  EXPECT_EQ(changed_outside_out(), std::vector<std::string>{});

  // Without the folder link, the file link is replaced by the file, never written through.
  fs::remove(out() / "dir/sub");
  pull(*device_, "/sdcard/dir", out(), PullOptions{});
  EXPECT_FALSE(fs::is_symlink(out() / "dir/file.txt"));
  EXPECT_EQ(read_file(out() / "dir/file.txt"), "real file\n");
  EXPECT_EQ(read_file(sandbox() / "outside/target.txt"), "original\n");
  EXPECT_EQ(changed_outside_out(), std::vector<std::string>{});
}

TEST_F(HostileDevice, AFolderThePullDidNotCreateKeepsItsModeAndTime) {
  start(HostileSync::none);
  fs::create_directories(out() / "dir");
  ::chmod((out() / "dir").c_str(), 0700);
  const timespec old_times[2] = {{1400000000, 0}, {1400000000, 0}};
  ::utimensat(AT_FDCWD, (out() / "dir").c_str(), old_times, 0);
  const timespec device_times[2] = {{1300000000, 0}, {1300000000, 0}};
  ::utimensat(AT_FDCWD, (device_root_.path() / "sdcard/dir").c_str(), device_times, 0);
  ::utimensat(AT_FDCWD, (device_root_.path() / "sdcard/dir/sub").c_str(), device_times, 0);
  PullOptions options;
  options.keep_attributes = true;
  pull(*device_, "/sdcard/dir", out(), options);
  EXPECT_EQ(read_file(out() / "dir/sub/inner.txt"), "inner\n");
  struct stat st {};
  ASSERT_EQ(::stat((out() / "dir").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u);
  EXPECT_NE(st.st_mtime, 1300000000) << "re-dated to the device's time";
  // The folder it did create gets the device's time.
  ASSERT_EQ(::stat((out() / "dir/sub").c_str(), &st), 0);
  EXPECT_EQ(st.st_mtime, 1300000000);
}

// Sync v2 bombs: the listing says 10 bytes, a few KB of zstd, lz4 or brotli (or plain zeros)
// expand to 4 GiB. The pull stops once the file passes its announced size plus
// SyncLimits::file_slack (1 MiB), compressed or not, and leaves nothing under the final name.
TEST_F(HostileDevice, ACompressionBombStopsAtTheAnnouncedSizeAndLeavesNothing) {
  start(HostileSync::bomb);
  for (const std::vector<std::string>& how :
       {std::vector<std::string>{"-z", "zstd"}, {"-z", "lz4"}, {"-z", "brotli"}, {"-Z"}}) {
    std::vector<std::string> args = {"pull"};
    args.insert(args.end(), how.begin(), how.end());
    args.insert(args.end(), {"/sdcard/dir/file.txt", (out() / "file.txt").string()});
    const auto start_time = std::chrono::steady_clock::now();
    const auto pulled = test::run_process(cli(args), {}, {}, std::chrono::seconds(60));
    const auto took = std::chrono::steady_clock::now() - start_time;
    EXPECT_EQ(pulled.exit_code, 1) << how.back() << ": " << pulled.out;
    EXPECT_NE(pulled.out.find("announced 10 bytes and sent more than 1048586"), std::string::npos)
        << pulled.out;
    EXPECT_NE(pulled.out.find("SyncLimits::file_slack"), std::string::npos) << pulled.out;
    EXPECT_TRUE(fs::is_empty(out())) << how.back() << ": a file or temporary file was left";
    EXPECT_LT(took, std::chrono::seconds(20)) << how.back();
  }
  // -t with a bomb: the bound ends it long before the overall deadline would. (lz4, whose
  // device side sends its first chunk at once: zstd and brotli compress about 2 GB of zeros
  // into their first 64 KiB chunk, which on a loaded machine can take longer than -t allows.)
  const auto timed = test::run_process(
      cli({"pull", "-z", "lz4", "-t", "2", "/sdcard/dir/file.txt", (out() / "file.txt").string()}),
      {}, {});
  EXPECT_EQ(timed.exit_code, 1) << timed.out;
  EXPECT_NE(timed.out.find("SyncLimits::file_slack"), std::string::npos) << timed.out;
  EXPECT_TRUE(fs::is_empty(out()));
  EXPECT_EQ(changed_outside_out(), std::vector<std::string>{});
}

// The overall deadline holds while data keeps coming: a host slower than the device (here a
// progress handler that takes 5 ms a chunk) always finds data waiting, and still stops in time.
TEST_F(HostileDevice, TheOverallDeadlineHoldsWhileDataFlows) {
  start(HostileSync::bomb);
  PullOptions options;
  options.compression = SyncCompression::none;
  options.limits.file_slack = std::uint64_t{1} << 40;
  options.progress = [](const SyncProgress&) { std::this_thread::sleep_for(5ms); };
  options.deadline = deadline_after(1s);
  const auto start_time = std::chrono::steady_clock::now();
  SyncClient sync(*device_);
  std::error_code error;
  sync.pull("/sdcard/dir/file.txt", out() / "file.txt", options, error);
  EXPECT_EQ(error, errc::timeout) << sync.last_error();
  EXPECT_LT(std::chrono::steady_clock::now() - start_time, 10s);
  EXPECT_TRUE(fs::is_empty(out()));
  EXPECT_EQ(sync.stat("/sdcard/dir/file.txt").size, 10u) << "the connection stays usable";
}

// SyncLimits::max_file_bytes bounds a file whatever its stat says: a file announced larger is
// refused before a byte is written, one that grows past it (a slack as large as the bomb wants)
// stops as it arrives, and nothing is left either way.
TEST_F(HostileDevice, MaxFileBytesBoundsAPullWhateverTheDeviceAnnounces) {
  start(HostileSync::bomb);
  SyncClient sync(*device_);
  PullOptions options;
  options.compression = SyncCompression::none;
  options.limits.file_slack = std::uint64_t{1} << 40;
  options.limits.max_file_bytes = 9;
  std::error_code error;
  sync.pull("/sdcard/dir/file.txt", out() / "file.txt", options, error);
  EXPECT_EQ(error, errc::limit_exceeded);
  EXPECT_NE(sync.last_error().find("announced 10 bytes, past SyncLimits::max_file_bytes (9)"),
            std::string::npos)
      << sync.last_error();
  EXPECT_TRUE(fs::is_empty(out()));

  options.limits.max_file_bytes = 64 * 1024;
  error.clear();
  sync.pull("/sdcard/dir/file.txt", out() / "file.txt", options, error);
  EXPECT_EQ(error, errc::limit_exceeded);
  EXPECT_NE(sync.last_error().find("sent more than 65536 bytes, past SyncLimits::max_file_bytes"),
            std::string::npos)
      << sync.last_error();
  EXPECT_TRUE(fs::is_empty(out()));
  EXPECT_EQ(sync.stat("/sdcard/dir/file.txt").size, 10u) << "the connection stays usable";
}

// A listing of 255-byte names: the plan's memory is bounded in bytes (SyncLimits::max_memory),
// not only in entries, so long names cannot multiply it (300 to 350 MB before).
TEST_F(HostileDevice, AnEndlessListingOfLongNamesStopsAtItsMemoryBound) {
  start(HostileSync::endless_long_names);
  const auto pulled = test::run_process(cli({"pull", "/sdcard/dir", out().string()}), {}, {},
                                        std::chrono::seconds(120));
  EXPECT_EQ(pulled.exit_code, 1) << pulled.out;
  EXPECT_NE(pulled.out.find("SyncLimits::max_memory"), std::string::npos) << pulled.out;
  const std::size_t bound_kib = (test::kAddressSanitizer ? 1024 : 256) * 1024;
  EXPECT_LT(pulled.max_rss_kib, bound_kib) << "peak RSS " << pulled.max_rss_kib << " KiB";
  RecordProperty("long_names_peak_rss_kib", std::to_string(pulled.max_rss_kib));
  const auto smaller = test::run_process(
      cli({"pull", "--max-memory", "8000000", "/sdcard/dir", out().string()}), {}, {});
  EXPECT_EQ(smaller.exit_code, 1);
  EXPECT_NE(smaller.out.find("more than 8000000 bytes"), std::string::npos) << smaller.out;
  EXPECT_LT(smaller.max_rss_kib, pulled.max_rss_kib);
  SyncClient sync(*device_);
  SyncLimits limits;
  limits.max_memory = 1 << 20;
  std::error_code error;
  sync.list("/sdcard/dir", limits, kDefaultDeadline, error);
  EXPECT_EQ(error, errc::limit_exceeded);
  EXPECT_NE(sync.last_error().find("SyncLimits::max_memory"), std::string::npos);
  EXPECT_TRUE(fs::is_empty(out()));
}

// A pull ended by a signal (Ctrl-C, a kill) leaves no hidden temporary file, and the process still
// ends by that signal.
TEST_F(HostileDevice, APullEndedByASignalLeavesNoTemporaryFile) {
  start(HostileSync::bomb);  // an endless file: the pull is always mid-file when the signal comes
  for (const int signal : {SIGINT, SIGTERM, SIGHUP}) {
    std::vector<std::string> argv = cli({"pull", "-Z", "--file-slack", "99999999999",
                                         "/sdcard/dir/file.txt", (out() / "file.txt").string()});
    auto args = test::c_strings(argv);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      const int null = ::open("/dev/null", O_RDWR);
      ::dup2(null, 1);
      ::dup2(null, 2);
      ::execv(args[0], args.data());
      ::_exit(127);
    }
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    bool writing = false;
    while (!writing && std::chrono::steady_clock::now() < deadline) {
      for (const auto& entry : fs::directory_iterator(out()))
        writing = writing || (entry.path().filename().string().starts_with(".file.txt.adbwire-") &&
                              fs::file_size(entry.path()) > 0);
      if (!writing) std::this_thread::sleep_for(10ms);
    }
    EXPECT_TRUE(writing) << "the pull never began writing";
    ::kill(pid, signal);
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == signal) << "status " << status;
    EXPECT_TRUE(fs::is_empty(out()))
        << "left behind after signal " << signal << ": " << fs::directory_iterator(out())->path();
  }
  EXPECT_EQ(changed_outside_out(), std::vector<std::string>{});
}

}  // namespace
}  // namespace adbwire
