// The CLI's pull and push through the daemon: each file's descriptor passed to it (SCM_RIGHTS),
// the daemon receiving into it or sending from it on the connection it holds, so the file's bytes
// never cross the daemon's socket; what the daemon refuses to read or write.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include "integration/daemon_fixture.hpp"

namespace adbwire {
namespace {

using namespace test;  // the fixture and its helpers

// A file of size bytes under root at device_path, every byte from its offset (so a shifted or
// torn copy differs), and what it holds.
std::string put_device_file(const fs::path& root, const std::string& device_path,
                            std::size_t size) {
  std::string bytes(size, '\0');
  for (std::size_t i = 0; i < size; ++i) bytes[i] = static_cast<char>((i * 2654435761u) >> 13);
  const fs::path path = root / device_path.substr(1);
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(size));
  return bytes;
}

std::string file_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The daemon's host:adbwire-status counts.
nlohmann::json status_of(const fs::path& socket) {
  const int fd = connect_unix(socket);
  daemon::FrameReader reader;
  std::string text;
  detail::Failure failure;
  const Deadline deadline = deadline_after(kWait);
  if (fd < 0 || !daemon::send_request(fd, daemon::kStatusRequest, deadline, failure) ||
      !daemon::read_answer(fd, reader, deadline, {}, &text, failure)) {
    ADD_FAILURE() << "no status: " << failure.detail;
  }
  if (fd >= 0) ::close(fd);
  return nlohmann::json::parse(text, nullptr, false);
}

// Through the daemon a pulled file's bytes go from the daemon's connection into the temporary
// file the CLI made (its descriptor passed over the socket), never through the CLI's socket: the
// daemon counts them as pulled into a descriptor, and relays only the stats and listings.
TEST_F(Daemon, APulledFileGoesIntoTheClientsFileNotThroughItsSocket) {
  VirtualDevice vd;
  vd.start();
  const std::string big = put_device_file(vd.root(), "/sdcard/big.bin", 8 << 20);
  const std::string small = put_device_file(vd.root(), "/sdcard/tree/a/small", 3000);
  put_device_file(vd.root(), "/sdcard/tree/empty", 0);
  const fs::path out = dir_.path() / "out";
  fs::create_directories(out);
  const test::ProcessResult pulled =
      adbwire({"-s", vd.target(), "pull", "/sdcard/big.bin", (out / "big.bin").string()});
  ASSERT_EQ(pulled.exit_code, 0) << pulled.err;
  EXPECT_TRUE(file_text(out / "big.bin") == big);
  nlohmann::json status = status_of(only_socket());
  EXPECT_EQ(status.value("pulled_into_files", 0u), 1u) << status.dump();
  EXPECT_EQ(status.value("pulled_into_bytes", 0u), big.size()) << status.dump();
  EXPECT_LT(status.value("relayed_bytes", ~0u), 64u * 1024) << status.dump();

  const test::ProcessResult tree =
      adbwire({"-s", vd.target(), "pull", "-q", "/sdcard/tree", out.string()});
  ASSERT_EQ(tree.exit_code, 0) << tree.err;
  EXPECT_TRUE(file_text(out / "tree/a/small") == small);
  EXPECT_EQ(fs::file_size(out / "tree/empty"), 0u);
  status = status_of(only_socket());
  EXPECT_EQ(status.value("pulled_into_files", 0u), 3u) << status.dump();
  EXPECT_EQ(vd.connections_accepted(), 1u);
}

// A pull the device cuts off, or that the disk refuses (a file-size limit on the daemon, which
// writes), fails with the library's sentence and leaves neither the file nor a temporary file;
// the daemon lives on.
TEST_F(Daemon, APullCutOffOrRefusedLeavesNoFile) {
  VirtualDeviceOptions options;
  options.drop_after_bytes = 3 << 20;
  VirtualDevice vd(options);
  vd.start();
  put_device_file(vd.root(), "/sdcard/big.bin", 16 << 20);
  const fs::path out = dir_.path() / "out";
  fs::create_directories(out);
  const test::ProcessResult cut =
      adbwire({"-s", vd.target(), "pull", "-q", "/sdcard/big.bin", (out / "big.bin").string()});
  EXPECT_EQ(cut.exit_code, 1);
  // As adb, a sync error is printed where the summary would be, on stdout.
  EXPECT_NE(cut.out.find("nothing was written to"), std::string::npos) << cut.out << cut.err;
  EXPECT_TRUE(fs::is_empty(out)) << "a file or a temporary file was left behind";

  VirtualDevice plain;
  plain.start();
  put_device_file(plain.root(), "/sdcard/big.bin", 4 << 20);
  const pid_t daemon = listener_pid(only_socket());
  ASSERT_GT(daemon, 0);
  const rlimit limit{1 << 20, 1 << 20};
  ASSERT_EQ(::prlimit(daemon, RLIMIT_FSIZE, &limit, nullptr), 0);
  const test::ProcessResult refused =
      adbwire({"-s", plain.target(), "pull", "-q", "/sdcard/big.bin", (out / "big.bin").string()});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.out.find("File too large"), std::string::npos) << refused.out << refused.err;
  EXPECT_TRUE(fs::is_empty(out)) << "a file or a temporary file was left behind";
  EXPECT_EQ(listener_pid(only_socket()), daemon) << "the daemon ended";
  EXPECT_EQ(adbwire({"-s", plain.target(), "shell", "echo", "alive"}).out, "alive\n");
}

// The daemon's answer to a file request (pull into, push from) sent with passed beside it (-1:
// none), after the device request for target (or with none): the failure's sentence.
std::string file_request_failure(const fs::path& socket, const std::string& target,
                                 const std::string& file_request, int passed, bool device_first) {
  const int fd = connect_unix(socket);
  daemon::FrameReader reader;
  std::string text;
  detail::Failure failure;
  const Deadline deadline = deadline_after(kWait);
  std::vector<std::uint8_t> request;
  protocol::append_smart_request(request, file_request);
  if ((!device_first ||
       (daemon::send_request(fd, daemon::device_request(target, 0ms), deadline, failure) &&
        daemon::read_answer(fd, reader, deadline, {}, &text, failure))) &&
      (passed < 0 ? daemon::send_all(fd, request, deadline, failure)
                  : daemon::send_with_descriptor(fd, request, passed, deadline, failure))) {
    text.clear();
    daemon::read_answer(fd, reader, deadline, {}, &text, failure);
  }
  ::close(fd);
  return failure.detail;
}

// The daemon writes only into a regular file the client opened for writing, and only one it was
// given: a read-only descriptor, none at all, or a request before the device's are refused.
TEST_F(Daemon, APullIntoTakesOnlyAWritableFileItWasGiven) {
  VirtualDevice vd;
  vd.start();
  put_device_file(vd.root(), "/sdcard/f", 100);
  ASSERT_EQ(adbwire({"-s", vd.target(), "shell", "true"}).exit_code, 0);
  const fs::path file = dir_.path() / "given";
  std::ofstream(file) << "kept";
  const std::string pull = daemon::format_pull_into({"/sdcard/f", "given", 100, 0, "none", -1});
  const auto answer = [&](int passed, bool device_first) {
    return file_request_failure(only_socket(), vd.target(), pull, passed, device_first);
  };
  const int read_only = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  EXPECT_NE(answer(read_only, true).find("opened for writing"), std::string::npos);
  EXPECT_NE(answer(-1, true).find("came without the file"), std::string::npos);
  EXPECT_NE(answer(read_only, false).find("needs the device request first"), std::string::npos);
  ::close(read_only);
  EXPECT_EQ(file_text(file), "kept");
  EXPECT_EQ(status_of(only_socket()).value("pulled_into_files", 0u), 0u);
}

// Through the daemon a pushed file's bytes go from the file the CLI opened (its descriptor passed
// over the socket) onto the daemon's connection, never through the CLI's socket; a tree's links
// and empty folders still arrive, on the CLI's own stream.
TEST_F(Daemon, APushedFileComesFromTheClientsFileNotThroughItsSocket) {
  VirtualDevice vd;
  vd.start();
  const fs::path in = dir_.path() / "in";
  const std::string big = put_device_file(in, "/big.bin", 8 << 20);
  const std::string small = put_device_file(in, "/tree/a/small", 3000);
  fs::create_directories(in / "tree/empty");
  fs::create_symlink("a/small", in / "tree/link");
  const test::ProcessResult pushed =
      adbwire({"-s", vd.target(), "push", (in / "big.bin").string(), "/sdcard/up.bin"});
  ASSERT_EQ(pushed.exit_code, 0) << pushed.out << pushed.err;
  EXPECT_TRUE(file_text(vd.root() / "sdcard/up.bin") == big);
  EXPECT_NE(pushed.out.find("1 file pushed"), std::string::npos) << pushed.out;
  nlohmann::json status = status_of(only_socket());
  EXPECT_EQ(status.value("pushed_from_files", 0u), 1u) << status.dump();
  EXPECT_EQ(status.value("pushed_from_bytes", 0u), big.size()) << status.dump();
  EXPECT_LT(status.value("relayed_bytes", ~0u), 64u * 1024) << status.dump();

  const test::ProcessResult tree =
      adbwire({"-s", vd.target(), "push", "-q", (in / "tree").string(), "/sdcard/"});
  ASSERT_EQ(tree.exit_code, 0) << tree.out << tree.err;
  EXPECT_TRUE(file_text(vd.root() / "sdcard/tree/a/small") == small);
  EXPECT_TRUE(fs::is_symlink(vd.root() / "sdcard/tree/link"));
  EXPECT_TRUE(fs::is_directory(vd.root() / "sdcard/tree/empty"));
  status = status_of(only_socket());
  EXPECT_EQ(status.value("pushed_from_files", 0u), 2u) << status.dump();
  EXPECT_EQ(vd.connections_accepted(), 1u);
}

// The daemon sends only a regular file the client opened for reading, under a regular file's
// mode (a link's would have it read a path of the client's), and only one it was given.
TEST_F(Daemon, APushFromTakesOnlyAReadableRegularFileItWasGiven) {
  VirtualDevice vd;
  vd.start();
  ASSERT_EQ(adbwire({"-s", vd.target(), "shell", "true"}).exit_code, 0);
  const fs::path file = dir_.path() / "given";
  std::ofstream(file) << "kept";
  const auto answer = [&](std::uint32_t mode, int passed) {
    return file_request_failure(
        only_socket(), vd.target(),
        daemon::format_push_from({"/sdcard/f", "given", mode, 0, "none", -1}), passed, true);
  };
  const int write_only = ::open(file.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  const int read_only = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  EXPECT_NE(answer(0100644, write_only).find("opened for reading"), std::string::npos);
  EXPECT_NE(answer(0120777, read_only).find("only a regular file"), std::string::npos);
  EXPECT_NE(answer(0100644, -1).find("came without the file"), std::string::npos);
  ::close(write_only);
  ::close(read_only);
  EXPECT_FALSE(fs::exists(vd.root() / "sdcard/f"));
  EXPECT_EQ(status_of(only_socket()).value("pushed_from_files", 0u), 0u);
}

// The lean front pushes and pulls on a named device itself, through the daemon: the full program
// never starts, so no codec or TLS library is loaded (the dynamic loader's log of every program the
// call ran, LD_DEBUG=libs, says so), and the call prints what the full program prints. Without the
// daemon the full program pushes, and loads them.
TEST_F(Daemon, TheFrontPushesAndPullsWithoutTheFullProgram) {
  VirtualDevice vd;
  vd.start();
  ASSERT_EQ(adbwire({"-s", vd.target(), "shell", "true"}).exit_code, 0);  // the daemon runs
  const fs::path in = dir_.path() / "in";
  const std::string bytes = put_device_file(in, "/small.bin", 5000);
  const fs::path logs = dir_.path() / "ld";
  fs::create_directories(logs);
  const std::vector<std::string> traced{"LD_DEBUG=libs",
                                        "LD_DEBUG_OUTPUT=" + (logs / "libs").string()};
  // What the loader logged since the last call (one file per process), then forgets it.
  const auto loaded = [&] {
    std::string text;
    for (const auto& entry : fs::directory_iterator(logs)) text += file_text(entry.path());
    fs::remove_all(logs);
    fs::create_directories(logs);
    return text;
  };
  const std::string local = (in / "small.bin").string();

  const test::ProcessResult pushed =
      adbwire({"-s", vd.target(), "push", local, "/sdcard/small.bin"}, traced);
  ASSERT_EQ(pushed.exit_code, 0) << pushed.out << pushed.err;
  EXPECT_NE(pushed.out.find(local + ": 1 file pushed"), std::string::npos) << pushed.out;
  EXPECT_TRUE(file_text(vd.root() / "sdcard/small.bin") == bytes);
  std::string libraries = loaded();
  ASSERT_NE(libraries.find("libc.so"), std::string::npos)
      << "the dynamic loader logged nothing (LD_DEBUG_OUTPUT): " << libraries;
  for (const char* heavy : {"libssl", "libcrypto", "libusb", "zstd", "lz4", "brotli"})
    EXPECT_EQ(libraries.find(heavy), std::string::npos) << heavy << " in\n" << libraries;
  EXPECT_EQ(status_of(only_socket()).value("pushed_from_files", 0u), 1u);

  const test::ProcessResult pulled =
      adbwire({"-s", vd.target(), "pull", "/sdcard/small.bin", (dir_.path() / "back.bin").string()},
              traced);
  ASSERT_EQ(pulled.exit_code, 0) << pulled.out << pulled.err;
  EXPECT_TRUE(file_text(dir_.path() / "back.bin") == bytes);
  libraries = loaded();
  EXPECT_EQ(libraries.find("libssl"), std::string::npos) << libraries;

  const test::ProcessResult direct =
      adbwire({"--no-daemon", "-s", vd.target(), "push", local, "/sdcard/direct.bin"}, traced);
  ASSERT_EQ(direct.exit_code, 0) << direct.out << direct.err;
  EXPECT_TRUE(file_text(vd.root() / "sdcard/direct.bin") == bytes);
  libraries = loaded();
  EXPECT_NE(libraries.find("libssl"), std::string::npos) << libraries;
  EXPECT_NE(libraries.find("zstd"), std::string::npos) << libraries;
}

}  // namespace
}  // namespace adbwire
