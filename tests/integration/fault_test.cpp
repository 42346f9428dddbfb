// Fault injection: a virtual device that misbehaves on a real loopback socket, one row per
// fault. Each row names the public call made, the typed error it must return and a fragment of
// the message a person reads. For every row the test also checks that the call ends (a hung call
// fails the bound below instead of hanging the suite), that no thread or file descriptor is
// left behind, that a failed pull leaves no file under its final name, and that connecting
// again afterwards works (the fault hits only the first connection).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <random>
#include <string>
#include <system_error>

#include "adbwire/device.hpp"
#include "adbwire/error.hpp"
#include "adbwire/keys.hpp"
#include "adbwire/sync.hpp"
#include "adbwire/testing/vdevice.hpp"
#include "integration/temp_dir.hpp"

namespace adbwire {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

enum class Call { connect, shell, exec_large, pull_large };

struct FaultCase {
  const char* name;
  ConnectionFaultPlan fault;
  bool auth_required;
  Call call;
  std::error_code expected;                     // {} = the call succeeds despite the fault
  const char* message;                          // fragment of the error text ("" = not checked)
  std::chrono::milliseconds deadline = 1500ms;  // of the call after connecting
};

// gtest prints the row by name instead of its bytes.
void PrintTo(const FaultCase& row, std::ostream* out) { *out << row.name; }

constexpr std::size_t kLargeSize = 4 << 20;

// clang-format off
const FaultCase kFaultCases[] = {
  {"drop_during_handshake", {ConnectionFault::drop, 0}, false, Call::connect,
   errc::device_offline, ""},
  {"drop_mid_exec", {ConnectionFault::drop, 200'000}, false, Call::exec_large,
   errc::device_offline, ""},
  {"drop_mid_pull", {ConnectionFault::drop, 200'000}, false, Call::pull_large,
   errc::device_offline, ""},
  {"stall_during_handshake", {ConnectionFault::stall, 0}, false, Call::connect,
   errc::timeout, ""},
  {"stall_mid_exec", {ConnectionFault::stall, 200'000}, false, Call::exec_large,
   errc::timeout, ""},
  {"stall_mid_pull", {ConnectionFault::stall, 200'000}, false, Call::pull_large,
   errc::timeout, ""},
  {"corrupt_cnxn_header", {ConnectionFault::corrupt_header, 0, 0}, false, Call::connect,
   errc::protocol_error, "magic"},
  {"corrupt_header_mid_exec", {ConnectionFault::corrupt_header, 0, 6}, false, Call::exec_large,
   errc::protocol_error, ""},
  {"slow_answers_past_the_deadline", {ConnectionFault::slow, 0, 0, 300ms}, false, Call::shell,
   errc::timeout, "", 200ms},
  {"slow_answers_within_the_deadline", {ConnectionFault::slow, 0, 0, 50ms}, false, Call::shell,
   {}, ""},
  {"refuse_auth", {ConnectionFault::refuse_auth}, true, Call::connect,
   errc::unauthorized, "fingerprint"},
  {"close_streams_early_shell", {ConnectionFault::close_streams}, false, Call::shell,
   errc::protocol_error, "exit status"},
  {"close_streams_early_pull", {ConnectionFault::close_streams}, false, Call::pull_large,
   errc::closed, ""},
};
// clang-format on

std::size_t count_entries(const char* folder) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(folder)) ++n;
  return n;
}

using test::TempDir;

void write_large_file(const fs::path& path) {
  std::string bytes(kLargeSize, '\0');
  std::mt19937 random(7);
  for (char& c : bytes) c = static_cast<char>(random());
  std::ofstream(path, std::ios::binary) << bytes;
}

class FaultTest : public ::testing::TestWithParam<FaultCase> {};

// What the row's call returned.
struct Outcome {
  std::error_code error;
  std::string message;
};

Outcome run_call(const FaultCase& row, const std::string& target, const ConnectOptions& connect,
                 const fs::path& local) {
  Outcome outcome;
  try {
    Device device = Device::connect(target, connect);
    const Deadline deadline = std::chrono::steady_clock::now() + row.deadline;
    switch (row.call) {
      case Call::connect:
        break;
      case Call::shell:
        device.shell("echo hi", deadline);
        break;
      case Call::exec_large:
        device.exec("cat /sdcard/large.bin", deadline);
        break;
      case Call::pull_large: {
        PullOptions options;
        options.deadline = deadline;
        pull(device, "/sdcard/large.bin", local, options);
        break;
      }
    }
  } catch (const Error& e) {
    outcome.error = e.code();
    outcome.message = e.what();
  }
  return outcome;
}

TEST_P(FaultTest, GivesItsTypedErrorAndLeavesNothingBehind) {
  const FaultCase& row = GetParam();
  TempDir dir;
  const std::size_t fds_before = count_entries("/proc/self/fd");
  const std::size_t threads_before = count_entries("/proc/self/task");
  const fs::path local = dir.path() / "pulled.bin";

  ConnectOptions connect;
  connect.keys.android_dir = dir.path() / "host";
  connect.keys.vendor_keys = {dir.path() / "no-vendor-keys"};
  connect.connect_timeout = 1500ms;
  connect.auth_timeout = 500ms;
  fs::create_directories(connect.keys.android_dir);
  // The host key exists before the clock starts: generating one (as adb does on first use)
  // takes a second on a loaded machine, and these rows time the device, not the key.
  PrivateKey::generate().save(connect.keys.android_dir / "adbkey", "fault@test");
  {
    VirtualDeviceOptions options;
    options.root = dir.path() / "device";
    options.fault = row.fault;
    options.auth_required = row.auth_required;
    options.keys_file = dir.path() / "adb_keys";
    options.accept_new_keys = true;
    fs::create_directories(options.root / "sdcard");
    write_large_file(options.root / "sdcard" / "large.bin");
    VirtualDevice vd(options);
    vd.start();

    const auto started = std::chrono::steady_clock::now();
    const Outcome outcome = run_call(row, vd.target(), connect, local);
    const auto took = std::chrono::steady_clock::now() - started;

    EXPECT_EQ(outcome.error, row.expected) << row.name << ": " << outcome.message;
    EXPECT_NE(outcome.message.find(row.message), std::string::npos)
        << row.name << ": the message should mention \"" << row.message
        << "\": " << outcome.message;
    // Not a speed check: every deadline above is at most 1.5 s (connect and call), so a call
    // still running after 20 s is a hang.
    EXPECT_LT(took, 20s) << row.name << " did not end by its deadline";
    EXPECT_FALSE(fs::exists(local)) << row.name << ": a failed pull left " << local;

    // The fault hit only the first connection: connecting again works.
    Device again = Device::connect(vd.target(), connect);
    EXPECT_EQ(again.shell("echo again").out, "again\n") << row.name;
  }
  EXPECT_EQ(count_entries("/proc/self/fd"), fds_before) << row.name << " leaked a descriptor";
  EXPECT_EQ(count_entries("/proc/self/task"), threads_before) << row.name << " leaked a thread";
}

INSTANTIATE_TEST_SUITE_P(Faults, FaultTest, ::testing::ValuesIn(kFaultCases),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace adbwire
