// adbwire as a drop-in for adb in scripts: the same command lines run through Debian's adb (as
// host, its own server holding the virtual device) and through adbwire (its daemon), case by
// case, comparing stdout, stderr's first line and the exit code. One virtual device, one adb
// server, one daemon for the whole table, so the suite takes seconds.
//
// Each case is one of:
//   agree  - adbwire must print and exit exactly as adb does;
//   choice - adbwire differs on purpose; the reason is written beside it (the README's "adb
//            compatibility" table says the same to users);
//   wording - as choice for the sentence only: the exit code and where the sentence goes (stdout
//            or stderr) must still be adb's;
//   gap    - adbwire differs and should not: not built yet. Counted as differing in the summary,
//            and failing once it agrees, so it moves to `agree`.
// Compared after normalize() and without_code(): the program's name and the code's name that ends
// each adbwire error are deliberate differences, listed there.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "adbwire/error.hpp"
#include "adbwire/testing/vdevice.hpp"
#include "integration/adb_server.hpp"
#include "integration/temp_dir.hpp"

namespace adbwire {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

enum class Expect { agree, choice, wording, gap };

struct Case {
  Case(std::string name_, std::vector<std::string> args_, Expect expect_ = Expect::agree,
       std::string why_ = {}, std::vector<std::string> env_ = {})
      : name(std::move(name_)),
        args(std::move(args_)),
        expect(expect_),
        why(std::move(why_)),
        env(std::move(env_)) {}
  std::string name;
  // The words after the program's name. {S}: the device's serial; {S2}: a second device's, which
  // only the connect cases connect; {W}: a host folder of this
  // run's own; {R}: a device folder of this run's own (each program gets its own, so one's
  // pushes and pulls never feed the other's).
  std::vector<std::string> args;
  Expect expect;
  std::string why;               // for choice and gap
  std::vector<std::string> env;  // extra NAME=VALUE ({S} replaced)
};

const std::vector<Case>& cases() {
  static const std::vector<Case> kCases = {
      // exec-out quotes every argument after the first as adb 29's escape_arg does; shell joins
      // the words with spaces, so the device's sh splits them again.
      {"exec-out keeps a ;", {"-s", "{S}", "exec-out", "echo", "x;echo y"}},
      {"exec-out keeps two spaces", {"-s", "{S}", "exec-out", "echo", "a  b"}},
      {"exec-out keeps a quote", {"-s", "{S}", "exec-out", "echo", "it's", "$HOME"}},
      {"exec-out one word is the command", {"-s", "{S}", "exec-out", "echo hi;echo there"}},
      {"exec-out with no command", {"-s", "{S}", "exec-out"}},
      {"exec-out --", {"-s", "{S}", "exec-out", "--", "echo", "hi"}},
      {"shell joins words", {"-s", "{S}", "shell", "echo", "a  b"}},
      {"shell runs a ;", {"-s", "{S}", "shell", "echo x;echo y"}},
      {"shell --", {"-s", "{S}", "shell", "--", "echo", "hi"}},
      {"shell -x", {"-s", "{S}", "shell", "-x", "echo", "hi"}},
      {"shell -n -T", {"-s", "{S}", "shell", "-n", "-T", "echo", "hi"}},
      {"shell unknown long flag", {"-s", "{S}", "shell", "--badflag", "echo", "hi"}},
      {"shell unknown short flag", {"-s", "{S}", "shell", "-q", "echo", "hi"}},
      {"shell flag after the command", {"-s", "{S}", "shell", "echo", "-n", "hi"}},
      {"shell -e too long", {"-s", "{S}", "shell", "-e", "ab", "echo", "hi"}},
      {"shell exit code", {"-s", "{S}", "shell", "exit", "3"}},
      {"shell false", {"-s", "{S}", "shell", "false"}},
      {"shell missing tool", {"-s", "{S}", "shell", "no_such_tool"}},
      {"shell stderr", {"-s", "{S}", "shell", "echo oops >&2"}},
      // install and logcat: the device's own error text reaches the user as adb prints it.
      {"install an APK", {"-s", "{S}", "install", "{W}/app-v2.apk"}},
      {"install an older version", {"-s", "{S}", "install", "{W}/app-v1.apk"}},
      {"install a missing APK", {"-s", "{S}", "install", "{W}/missing.apk"}},
      {"install a file not named .apk", {"-s", "{S}", "install", "{W}/file.txt"}},
      {"logcat -d with a bad filter",
       {"-s", "{S}", "logcat", "-d", "Foo:Q"},
       Expect::wording,
       "adbwire reads filterspecs itself (it filters binary records), so the sentence is its own"},
      {"logcat -d, an option the device refuses",
       {"-s", "{S}", "logcat", "-d", "-t", "x"},
       Expect::wording,
       "the device's words come after \"the device's logcat said:\"; exec: carries no exit "
       "status, so adbwire exits 1 where the device's logcat may say another failing code"},
      {"logcat -d -b main -s", {"-s", "{S}", "logcat", "-d", "-b", "main", "-s", "nosuchtag"}},
      // bugreport: bugreportz's report pulled to a folder (the device's name) or a file (.zip
      // added); BugreportWritesTheDevicesZip checks the bytes.
      {"bugreport into a folder", {"-s", "{S}", "bugreport", "{W}"}},
      {"bugreport to a file", {"-s", "{S}", "bugreport", "{W}/report"}},
      {"bugreport into a missing folder", {"-s", "{S}", "bugreport", "{W}/nd/report.zip"}},
      {"bugreport, too many words", {"-s", "{S}", "bugreport", "{W}/a", "{W}/b"}},
      // Device selection.
      {"no selector, one device", {"shell", "echo", "hi"}},
      {"ANDROID_SERIAL", {"shell", "echo", "hi"}, Expect::agree, "", {"ANDROID_SERIAL={S}"}},
      {"-s beats ANDROID_SERIAL",
       {"-s", "{S}", "shell", "echo", "hi"},
       Expect::agree,
       "",
       {"ANDROID_SERIAL=nosuch"}},
      {"-e picks the TCP device", {"-e", "shell", "echo", "hi"}},
      {"-d with no USB device", {"-d", "shell", "echo", "hi"}},
      {"-t of the device", {"-t", "1", "shell", "echo", "hi"}},
      {"-t of no device", {"-t", "99", "shell", "echo", "hi"}},
      {"-s of no device",
       {"-s", "nosuch", "shell", "echo", "hi"},
       Expect::wording,
       "adbwire names the adb server it asked before adb's sentence"},
      {"-s HOST:PORT nobody listens on",
       {"-s", "127.0.0.1:1", "shell", "echo", "hi"},
       Expect::choice,
       "adbwire connects to a HOST:PORT target itself (through its daemon), so it says why the "
       "connection failed; adb only looks the serial up in its server's list"},
      // Listing and state.
      {"devices", {"devices"}},
      {"devices -l", {"devices", "-l"}},
      {"get-state", {"-s", "{S}", "get-state"}},
      {"get-serialno", {"-s", "{S}", "get-serialno"}},
      {"get-serialno, one device", {"get-serialno"}},
      {"get-devpath", {"-s", "{S}", "get-devpath"}},
      {"wait-for-device", {"-s", "{S}", "wait-for-device"}},
      {"wait-for-any-device", {"-s", "{S}", "wait-for-any-device"}},
      {"wait-for-bad-state", {"-s", "{S}", "wait-for-device-now"}},
      {"wait-for-bad-type", {"-s", "{S}", "wait-for-wifi-device"}},
      {"wait-for-device then a command", {"-s", "{S}", "wait-for-device", "shell", "echo", "hi"}},
      {"get-state, one device", {"get-state"}},
      {"exec-out, one device", {"exec-out", "echo", "a  b"}},
      {"shell -t without a terminal", {"-s", "{S}", "shell", "-t", "echo", "hi"}},
      {"-t not a number", {"-t", "x1", "shell", "echo", "hi"}},
      // File sync: summary lines, errors, exit codes.
      {"push a file", {"-s", "{S}", "push", "{W}/file.txt", "{R}/file.txt"}},
      {"push a folder", {"-s", "{S}", "push", "{W}/tree", "{R}/"}},
      {"push skipped the empty folder", {"-s", "{S}", "shell", "ls", "{R}/tree"}},
      {"push a missing file",
       {"-s", "{S}", "push", "{W}/missing", "{R}/"},
       Expect::wording,
       "adbwire's sync errors are its own sentences (the path, the device's reason)"},
      {"pull a file", {"-s", "{S}", "pull", "{R}/file.txt", "{W}/back.txt"}},
      {"pull a folder", {"-s", "{S}", "pull", "{R}/tree", "{W}/pulled"}},
      {"pull a missing file",
       {"-s", "{S}", "pull", "{R}/missing", "{W}/x"},
       Expect::wording,
       "adbwire's sync errors are its own sentences; this one says nothing was written"},
      {"pull into a missing folder", {"-s", "{S}", "pull", "{R}/file.txt", "{W}/nd/sub/x"}},
      {"pull a folder into a missing folder", {"-s", "{S}", "pull", "{R}/tree", "{W}/nd/sub/"}},
      // Commands.
      {"unknown command", {"frobnicate"}},
      {"start-server, running", {"start-server"}},
      {"--version",
       {"--version"},
       Expect::wording,
       "adbwire prints its own version, not the adb it replaces"},
      {"version", {"version"}, Expect::wording, "adbwire prints its own version"},
      {"getprop",
       {"-s", "{S}", "getprop", "ro.product.model"},
       Expect::choice,
       "an adbwire command adb lacks (adb says unknown command)"},
      // connect, disconnect and reconnect: {S2} is a second device nobody holds yet; the block
      // ends with the state it started with (the adb server and the daemon hold {S}).
      {"disconnect what is not connected", {"disconnect", "127.0.0.1:1"}},
      {"connect a second device", {"connect", "{S2}"}},
      {"connect it again", {"connect", "{S2}"}},
      {"no selector, two devices", {"shell", "echo", "hi"}},
      {"-s the second device", {"-s", "{S2}", "shell", "echo", "hi"}},
      {"disconnect the second device", {"disconnect", "{S2}"}},
      {"disconnect it again", {"disconnect", "{S2}"}},
      {"connect a port nobody listens on",
       {"connect", "127.0.0.1:1"},
       Expect::wording,
       "adbwire says why the connection failed in its own words (as for -s HOST:PORT)"},
      {"connect with no address", {"connect"}},
      {"connect two addresses", {"connect", "{S2}", "{S2}"}},
      {"disconnect two addresses", {"disconnect", "{S2}", "{S2}"}},
      {"reconnect of no kind", {"reconnect", "now"}},
      // adb's reconnect drops a TCP device from its server for good (adb 29 does not connect it
      // again), so each one is followed by both dropping everything and connecting {S} anew.
      {"reconnect", {"reconnect"}},
      {"disconnect everything", {"disconnect"}},
      {"reconnect with no device", {"reconnect"}},
      {"connect the device again", {"connect", "{S}"}},
      {"-s reconnect", {"-s", "{S}", "reconnect"}},
      {"disconnect everything again", {"disconnect"}},
      {"connect the device once more", {"connect", "{S}"}},
      {"reconnect device", {"-s", "{S}", "reconnect", "device"}},
      {"reconnect offline", {"reconnect", "offline"}},
      {"get-state after connecting again", {"-s", "{S}", "get-state"}},
      // Streaming listings: jdwp ends when the device closes the list; track-devices runs until
      // stopped (TrackDevices below), so only its usage error is here.
      {"jdwp", {"-s", "{S}", "jdwp"}},
      {"track-devices with a word", {"track-devices", "now"}},
      {"track-devices -l with a word", {"track-devices", "-l", "now"}},
      // sideload: {S3} is a device in recovery's sideload mode, {S4} one that asks for a block
      // past the package's end; each is connected for its cases only.
      {"sideload with no package", {"sideload"}},
      {"sideload a missing package", {"-s", "{S}", "sideload", "{W}/missing.zip"}},
      {"connect the recovery", {"connect", "{S3}"}},
      {"get-state of the recovery", {"-s", "{S3}", "get-state"}},
      {"sideload", {"-s", "{S3}", "sideload", "{W}/package.zip"}},
      {"sideload an empty package", {"-s", "{S3}", "sideload", "{W}/empty.zip"}},
      {"disconnect the recovery", {"disconnect", "{S3}"}},
      {"connect the hostile recovery", {"connect", "{S4}"}},
      {"sideload, block past the end",
       {"-s", "{S4}", "sideload", "{W}/package.zip"},
       Expect::wording,
       "adbwire names the offset and the file's size, and ends with the error's code"},
      {"disconnect the hostile recovery", {"disconnect", "{S4}"}},
      // {S5} asks for a key nobody accepts (a phone whose prompt is up): connect answers at
      // once and keeps it, listed unauthorized, and what is aimed at it fails at once. adb's
      // cases run first, so adbwire's lists show the adb server's row (ConnectCli's
      // AnUnauthorizedDevice… covers the daemon's own, and the promotion once allowed).
      {"connect a device that asks for its key", {"connect", "{S5}"}},
      {"connect it again while unauthorized", {"connect", "{S5}"}},
      {"devices with an unauthorized device", {"devices"}},
      {"a command to the unauthorized device", {"-s", "{S5}", "shell", "echo", "hi"}},
      {"get-state of the unauthorized device", {"-s", "{S5}", "get-state"}},
      {"no selector, a device and an unauthorized one", {"shell", "echo", "hi"}},
      {"disconnect the unauthorized device", {"disconnect", "{S5}"}},
      {"devices once it is gone", {"devices"}},
  };
  return kCases;
}

// What a case printed, made comparable across the two programs and runs.
struct Seen {
  int exit_code = -1;
  std::string out;
  std::string err_line;  // stderr's first line
};

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  if (from.empty()) return text;
  for (std::size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

// The run's own folders by their placeholders, a transfer's rate and time (they vary run to
// run; the byte count stays), and the program's name at the start of a line: adbwire names
// itself before every error ("adbwire: error: …"), where adb does for some ("adb: error: …")
// and not others ("error: …"); "adbwire shell:" reads as "adb shell:".
std::string normalize(std::string text, const std::string& work, const std::string& remote) {
  text = replace_all(std::move(text), work, "{W}");
  text = replace_all(std::move(text), remote, "{R}");
  static const std::regex kRate(R"([0-9.]+ MB/s \(([0-9]+) bytes in [0-9.]+s\))");
  text = std::regex_replace(text, kRate, "R MB/s ($1 bytes in Ts)");
  // sideload pads "Total xfer" by the package path's length, which the folders' names make differ.
  static const std::regex kXfer(R"((Total xfer: [0-9.]+x) +\n)");
  text = std::regex_replace(text, kXfer, "$1 (padded)\n");
  static const std::regex kPrefix("(^|\n)(adb|adbwire): ");
  static const std::regex kProgram("(^|\n)adbwire (\\S+): ");
  return std::regex_replace(std::regex_replace(text, kPrefix, "$1"), kProgram, "$1adb $2: ");
}

// A line without the ": <code's message>" every adbwire::Error appends ("…: not found"), and
// with the program's name, where a sentence names it ("usage: adbwire exec-out"), read as adb.
std::string without_code(std::string line) {
  for (int code = 1; code <= static_cast<int>(errc::limit_exceeded); ++code) {
    const std::string suffix = ": " + make_error_code(static_cast<errc>(code)).message();
    if (line.ends_with(suffix)) {
      line.resize(line.size() - suffix.size());
      break;
    }
  }
  static const std::regex kName(R"(\badbwire\b)");
  return std::regex_replace(line, kName, "adb");
}

// An OTA package of two whole 64 KiB blocks and a short one, each byte telling its offset apart.
std::string package_bytes() {
  std::string bytes(2 * 65536 + 1000, '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = static_cast<char>((i * 7 + i / 251) & 0xff);
  return bytes;
}

VirtualDeviceOptions recovery_options(SideloadMode mode, const fs::path& root) {
  VirtualDeviceOptions options;
  options.sideload = mode;
  options.root = root;
  return options;
}

// A device that asks for a key in keys (none there) and shows the prompt nobody answers.
VirtualDeviceOptions asks_for_key(const fs::path& keys) {
  VirtualDeviceOptions options;
  options.auth_required = true;
  options.keys_file = keys;
  return options;
}

// Both programs' inputs: a file, and a tree holding an empty folder (adb 29 skips it).
void make_work_folder(const fs::path& work) {
  fs::create_directories(work / "tree" / "sub");
  fs::create_directories(work / "tree" / "empty");
  std::ofstream(work / "file.txt") << "hello\n";
  std::ofstream(work / "tree" / "a.txt") << "a\n";
  std::ofstream(work / "tree" / "sub" / "b.txt") << "b\n";
  std::ofstream(work / "app-v2.apk") << "PK\3\4 package=com.example.conformance versionCode=2\n";
  std::ofstream(work / "app-v1.apk") << "PK\3\4 package=com.example.conformance versionCode=1\n";
  std::ofstream(work / "package.zip", std::ios::binary) << package_bytes();
  std::ofstream(work / "empty.zip", std::ios::binary).flush();
}

class Conformance : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(server_.start(), "");
    device_.start();
    second_.start();
    recovery_.start();
    hostile_recovery_.start();
    unauthorized_.start();
    serial_ = "127.0.0.1:" + std::to_string(device_.port());
    second_serial_ = "127.0.0.1:" + std::to_string(second_.port());
    ASSERT_EQ(server_.connect_and_wait(serial_), "");
    fs::create_directories(temp_.path() / "run");
    fs::permissions(temp_.path() / "run", fs::perms::owner_all);
    env_ = server_.env();
    // The adb server's environment carries ctest's runtime folder: this test's replaces it, so
    // the cases' disconnect and kill-server reach no other test's daemon.
    test::set_variable(env_, "ANDROID_ADB_SERVER_PORT=" + std::to_string(server_.port()));
    test::set_variable(env_, "XDG_RUNTIME_DIR=" + (temp_.path() / "run").string());
    // Both servers already run when the cases start, so neither says it started one.
    ASSERT_EQ(run(ADBWIRE_CLI_PATH, {"start-server"}, {}).exit_code, 0);
  }

  void TearDown() override {
    run(ADBWIRE_CLI_PATH, {"kill-server"}, {});
    device_.stop();
    second_.stop();
    recovery_.stop();
    hostile_recovery_.stop();
    unauthorized_.stop();
  }

  // arg with its placeholders ({S}, {S2} … {S5}, {W}, {R}) filled in.
  std::string substitute(const std::string& arg, const fs::path& work, const std::string& remote) {
    std::string out = arg;
    const std::pair<const char*, std::string> kValues[] = {
        {"{S2}", second_serial_},
        {"{S3}", "127.0.0.1:" + std::to_string(recovery_.port())},
        {"{S4}", "127.0.0.1:" + std::to_string(hostile_recovery_.port())},
        {"{S5}", "127.0.0.1:" + std::to_string(unauthorized_.port())},
        {"{S}", serial_},
        {"{W}", work.string()},
        {"{R}", remote}};
    for (const auto& [name, value] : kValues) out = replace_all(std::move(out), name, value);
    return out;
  }

  test::ProcessResult run(const std::string& program, std::vector<std::string> args,
                          const std::vector<std::string>& extra_env) {
    args.insert(args.begin(), program);
    std::vector<std::string> env = env_;
    for (const std::string& entry : extra_env)
      test::set_variable(env, replace_all(entry, "{S}", serial_));
    return test::run_process(std::move(args), std::move(env), {}, 20s);
  }

  Seen run_case(const Case& c, const std::string& program, const std::string& label) {
    const fs::path work = temp_.path() / label;
    const std::string remote = "/data/local/tmp/conformance-" + label;
    if (!fs::exists(work)) make_work_folder(work);
    std::vector<std::string> args;
    for (const std::string& arg : c.args) args.push_back(substitute(arg, work, remote));
    const test::ProcessResult result = run(program, std::move(args), c.env);
    EXPECT_FALSE(result.timed_out) << c.name << " (" << label << ") did not end";
    Seen seen;
    seen.exit_code = result.exit_code;
    seen.out = normalize(replace_all(result.out, serial_, "{S}"), work.string(), remote);
    const std::string err =
        normalize(replace_all(result.err, serial_, "{S}"), work.string(), remote);
    seen.err_line = without_code(err.substr(0, err.find('\n')));
    return seen;
  }

  test::AdbServerProcess server_;
  VirtualDevice device_;
  VirtualDevice second_;
  test::TempDir recovery_root_;
  VirtualDevice recovery_{recovery_options(SideloadMode::on, recovery_root_.path())};
  VirtualDevice hostile_recovery_{recovery_options(SideloadMode::past_end, {})};
  VirtualDevice unauthorized_{asks_for_key(recovery_root_.path() / "adb_keys")};
  std::string serial_;
  std::string second_serial_;
  test::TempDir temp_;
  std::vector<std::string> env_;
};

std::string shown(const Seen& seen) {
  return "exit " + std::to_string(seen.exit_code) + ", stdout [" + seen.out + "], stderr [" +
         seen.err_line + "]";
}

TEST_F(Conformance, SameCommandLinesAsAdb) {
  int agreeing = 0, chosen = 0, differing = 0;
  for (const Case& c : cases()) {
    const Seen adb = run_case(c, server_.adb_path(), "adb");
    const Seen ours = run_case(c, ADBWIRE_CLI_PATH, "adbwire");
    const bool same =
        adb.exit_code == ours.exit_code && adb.out == ours.out && adb.err_line == ours.err_line;
    const std::string both = "\n  adb:     " + shown(adb) + "\n  adbwire: " + shown(ours);
    switch (c.expect) {
      case Expect::agree:
        EXPECT_TRUE(same) << c.name << both;
        (same ? agreeing : differing) += 1;
        break;
      case Expect::wording:
        EXPECT_EQ(adb.exit_code, ours.exit_code) << c.name << both;
        EXPECT_EQ(adb.out.empty(), ours.out.empty())
            << c.name << " prints on another stream" << both;
        ++chosen;
        std::printf("wording: %s (%s)%s\n", c.name.c_str(), c.why.c_str(), both.c_str());
        break;
      case Expect::choice:
        ++chosen;
        std::printf("choice: %s (%s)%s\n", c.name.c_str(), c.why.c_str(), both.c_str());
        break;
      case Expect::gap:
        EXPECT_FALSE(same) << c.name << " now agrees with adb: make it an `agree` case" << both;
        ++differing;
        std::printf("gap: %s (%s)%s\n", c.name.c_str(), c.why.c_str(), both.c_str());
        break;
    }
  }
  std::printf("conformance: %d cases agree with adb, %d differ on purpose, %d differ\n", agreeing,
              chosen, differing);
}

std::string file_bytes(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

// Both programs' bugreport end with the same file: the device's zip under the device's name,
// in the folder given, and nothing else there (no temporary file left).
TEST_F(Conformance, BugreportWritesTheDevicesZip) {
  const fs::path by_adb = temp_.path() / "bugreport-adb";
  const fs::path by_us = temp_.path() / "bugreport-adbwire";
  fs::create_directories(by_adb);
  fs::create_directories(by_us);
  const test::ProcessResult adb = run(server_.adb_path(), {"bugreport", by_adb.string()}, {});
  const test::ProcessResult ours = run(ADBWIRE_CLI_PATH, {"bugreport", by_us.string()}, {});
  ASSERT_EQ(adb.exit_code, 0) << adb.err;
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  const std::string name = "bugreport-vdevice-2026-01-01-00-00-00.zip";
  ASSERT_TRUE(fs::exists(by_adb / name));
  ASSERT_TRUE(fs::exists(by_us / name));
  EXPECT_EQ(std::distance(fs::directory_iterator(by_us), fs::directory_iterator()), 1);
  const std::string zip = file_bytes(by_us / name);
  EXPECT_TRUE(zip.starts_with("PK\x03\x04"));
  EXPECT_EQ(zip, file_bytes(by_adb / name));
}

// The package reached the device whole: recovery's /sideload/package.zip has its bytes.
TEST_F(Conformance, SideloadDeliversThePackage) {
  const fs::path work = temp_.path() / "sideload";
  make_work_folder(work);
  ASSERT_EQ(run(ADBWIRE_CLI_PATH, {"connect", substitute("{S3}", work, "")}, {}).exit_code, 0);
  const test::ProcessResult ours =
      run(ADBWIRE_CLI_PATH,
          {"-s", substitute("{S3}", work, ""), "sideload", (work / "package.zip").string()}, {});
  EXPECT_EQ(ours.exit_code, 0) << ours.err;
  EXPECT_TRUE(ours.out.ends_with(
      "\rTotal xfer: 1.00x" + std::string((work / "package.zip").string().size() + 10, ' ') + "\n"))
      << ours.out;
  EXPECT_EQ(file_bytes(recovery_root_.path() / "sideload" / "package.zip"), package_bytes());
  run(ADBWIRE_CLI_PATH, {"disconnect", substitute("{S3}", work, "")}, {});
}

// A frame of track-devices: four hex digits, then that many bytes of list.
std::string frame(const std::string& list) {
  char length[5];
  std::snprintf(length, sizeof length, "%04zx", list.size());
  return length + list;
}

// track-devices: the first frame as adb's (the list its server holds), a device connected and
// dropped shows in both, and the program ends on Ctrl-C and when its reader goes away.
TEST_F(Conformance, TrackDevices) {
  for (const bool long_format : {false, true}) {
    SCOPED_TRACE(long_format ? "-l" : "short");
    std::vector<std::string> words = {"track-devices"};
    if (long_format) words.emplace_back("-l");
    std::vector<std::string> adb_argv = {server_.adb_path()};
    std::vector<std::string> our_argv = {ADBWIRE_CLI_PATH};
    adb_argv.insert(adb_argv.end(), words.begin(), words.end());
    our_argv.insert(our_argv.end(), words.begin(), words.end());
    test::Background adb(adb_argv, env_);
    test::Background ours(our_argv, env_);
    const std::string first_adb = adb.read_until("\n", 10s);
    const std::string first_ours = ours.read_until("\n", 10s);
    EXPECT_TRUE(first_adb.find(serial_) != std::string::npos) << first_adb;
    EXPECT_EQ(first_ours, first_adb);

    // Connected through the adb server: both see it come (the server's own frames).
    ASSERT_EQ(server_.adb({"connect", second_serial_}).exit_code, 0);
    const std::string line = long_format ? second_serial_ : second_serial_ + "\tdevice\n";
    const std::string came_adb = adb.read_until(line, 10s);
    const std::string came_ours = ours.read_until(line, 10s);
    EXPECT_NE(came_adb.find(line), std::string::npos) << came_adb;
    EXPECT_NE(came_ours.find(line), std::string::npos) << came_ours;
    // Dropped: the next frames end with the list of the device alone, as the first one.
    ASSERT_EQ(server_.adb({"disconnect", second_serial_}).exit_code, 0);
    const std::string back = frame(first_adb.substr(4));
    EXPECT_TRUE(adb.read_until(back, 10s).ends_with(back)) << "adb";
    EXPECT_TRUE(ours.read_until(back, 10s).ends_with(back)) << "adbwire";

    // Held by adbwire's daemon only: adbwire lists it too (adb cannot know it).
    ASSERT_EQ(run(ADBWIRE_CLI_PATH, {"connect", second_serial_}, {}).exit_code, 0);
    const std::string held = ours.read_until(second_serial_, 10s);
    EXPECT_NE(held.find(second_serial_), std::string::npos) << held;
    ASSERT_EQ(run(ADBWIRE_CLI_PATH, {"disconnect", second_serial_}, {}).exit_code, 0);
    EXPECT_TRUE(ours.read_until(back, 10s).ends_with(back));

    // Ctrl-C ends both at once.
    ::kill(adb.pid(), SIGINT);
    ::kill(ours.pid(), SIGINT);
    EXPECT_NE(adb.exit_code(5s), test::Background::kRunning);
    EXPECT_NE(ours.exit_code(5s), test::Background::kRunning);
  }
  // A reader that goes away: the next frame fails to write and adbwire ends, status 0.
  test::Background ours({ADBWIRE_CLI_PATH, "track-devices"}, env_);
  EXPECT_NE(ours.read_until("\n", 10s).find(serial_), std::string::npos);
  ours.close_output();
  ASSERT_EQ(server_.adb({"connect", second_serial_}).exit_code, 0);
  EXPECT_EQ(ours.exit_code(10s), 0);
  server_.adb({"disconnect", second_serial_});
}

}  // namespace
}  // namespace adbwire
