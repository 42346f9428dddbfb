// The on-device dumper as the build embeds it: assembled reproducibly from Dumper.smali, and
// holding the class, methods and platform calls its README names (read back by dexdump, an
// independent dex reader), plus the host's framing of its protocol byte for byte.
#include "agent/helper_dex.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "agent/helper_protocol.hpp"
#include "integration/temp_dir.hpp"

namespace adbwire::agent {
namespace {

namespace fs = std::filesystem;

// The dumper's classes, as src/agent/dumper/CMakeLists.txt assembles them.
const std::string kSmali = [] {
  const fs::path folder = fs::path(ADBWIRE_SOURCE_DIR) / "src/agent/dumper";
  std::string files;
  for (const char* name : {"Dumper.smali", "Gesture.smali", "Labels.smali"})
    files += " " + (folder / name).string();
  return files;
}();

// Runs a command line; its stdout, and its exit status in status.
std::string run(const std::string& command, int& status) {
  std::string output;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) {
    status = -1;
    return output;
  }
  std::array<char, 4096> buffer{};
  while (const std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe))
    output.append(buffer.data(), n);
  const int raw = ::pclose(pipe);
  status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return output;
}

std::vector<std::uint8_t> read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<std::uint8_t> embedded() {
  const auto dex = dumper_dex();
  return {dex.begin(), dex.end()};
}

fs::path write_embedded(const test::TempDir& dir) {
  const fs::path path = dir.path() / "classes.dex";
  const auto dex = embedded();
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(dex.data()), static_cast<std::streamsize>(dex.size()));
  return path;
}

TEST(HelperDex, AssemblingTwiceGivesTheEmbeddedBytes) {
  ASSERT_TRUE(fs::exists(ADBWIRE_JAVA) && fs::exists(ADBWIRE_SMALI_JAR))
      << "java and smali are needed: apt-get install default-jre-headless libsmali-java";
  test::TempDir dir;
  std::vector<std::vector<std::uint8_t>> builds;
  for (const char* name : {"a.dex", "b.dex"}) {
    int status = 0;
    const std::string out = run(std::string(ADBWIRE_JAVA) + " -jar " + ADBWIRE_SMALI_JAR +
                                    " assemble -j 1 -o " + (dir.path() / name).string() + kSmali,
                                status);
    ASSERT_EQ(status, 0) << out;
    builds.push_back(read_bytes(dir.path() / name));
  }
  EXPECT_EQ(builds[0], builds[1]);
  EXPECT_EQ(builds[0], embedded()) << "the library embeds a dex other than Dumper.smali's";
}

TEST(HelperDex, NameCarriesSixteenHexDigitsOfTheHash) {
  const std::string_view hash = dumper_dex_hash();
  ASSERT_EQ(hash.size(), 16U);
  EXPECT_EQ(hash.find_first_not_of("0123456789abcdef"), std::string_view::npos);
  EXPECT_EQ(helper::device_dex_path(hash),
            "/data/local/tmp/adbwire-dumper-" + std::string(hash) + ".dex");
}

TEST(HelperDex, DexdumpFindsTheClassMethodsAndPlatformCalls) {
  int status = 0;
  run("command -v dexdump", status);
  ASSERT_EQ(status, 0) << "dexdump is needed: apt-get install dexdump";
  test::TempDir dir;
  const std::string dump = run("dexdump -d " + write_embedded(dir).string(), status);
  ASSERT_EQ(status, 0) << dump;
  for (const char* name : {"Dumper", "Gesture", "Labels"}) {
    EXPECT_NE(dump.find("Class descriptor  : 'Lcom/adbwire/" + std::string(name) + ";'"),
              std::string::npos)
        << name;
  }
  for (const char* method : {"main", "dump", "reply", "fail", "setClip", "getClip", "clipboardCall",
                             "describe", "readInts", "inject", "failAt", "list", "packageManager"})
    EXPECT_NE(dump.find("name          : '" + std::string(method) + "'"), std::string::npos)
        << method;
  for (const char* call : {
           "Lcom/android/uiautomator/core/UiAutomationShellWrapper;.<init>:()V",
           "Lcom/android/uiautomator/core/UiAutomationShellWrapper;.connect:()V",
           "Lcom/android/uiautomator/core/UiAutomationShellWrapper;.getUiAutomation:()Landroid/app/"
           "UiAutomation;",
           "Landroid/app/UiAutomation;.waitForIdle:(JJ)V",
           "Landroid/app/UiAutomation;.getRootInActiveWindow:()Landroid/view/accessibility/"
           "AccessibilityNodeInfo;",
           "Landroid/hardware/display/DisplayManagerGlobal;.getRealDisplay:(I)Landroid/view/"
           "Display;",
           "Lcom/android/uiautomator/core/AccessibilityNodeInfoDumper;.dumpWindowToFile:"
           "(Landroid/view/accessibility/AccessibilityNodeInfo;Ljava/io/File;III)V",
           "Ljava/io/ByteArrayOutputStream;.toByteArray:()[B",
           "Ljava/lang/Class;.getMethod:",
           "Ljava/io/DataInputStream;.readInt:()I",
           "Landroid/content/ClipData;.newPlainText:(Ljava/lang/CharSequence;Ljava/lang/"
           "CharSequence;)Landroid/"
           "content/ClipData;",
           "Landroid/content/ClipData$Item;.getText:()Ljava/lang/CharSequence;",
           "Ljava/lang/reflect/Method;.getParameterTypes:()[Ljava/lang/Class;",
           "Landroid/view/MotionEvent;.obtain:(JJII[Landroid/view/MotionEvent$PointerProperties;"
           "[Landroid/view/MotionEvent$PointerCoords;IIFFIIII)Landroid/view/MotionEvent;",
           "Landroid/app/UiAutomation;.injectInputEvent:(Landroid/view/InputEvent;Z)Z",
           "Landroid/os/SystemClock;.sleep:(J)V",
           "Landroid/os/Looper;.prepareMainLooper:()V",
           "Landroid/content/Context;.getPackageManager:()Landroid/content/pm/PackageManager;",
           "Landroid/content/pm/PackageManager;.getInstalledApplications:(I)Ljava/util/List;",
           "Landroid/content/pm/PackageItemInfo;.loadLabel:(Landroid/content/pm/PackageManager;)"
           "Ljava/lang/CharSequence;",
       }) {
    EXPECT_NE(dump.find(call), std::string::npos) << "no call to " << call;
  }
  // The reflective call and uiautomator's own failure texts, which the host classifies.
  for (const char* text :
       {"\"setCompressedLayoutHierarchy\"", "\"ERROR: could not get idle state.\"",
        "\"ERROR: null root node returned by UiTestAutomationBridge.\"", "\"adbwire-dumper 3\"",
        "\"android.os.ServiceManager\"", "\"android.content.IClipboard$Stub\"",
        "\"setPrimaryClip\"", "\"getPrimaryClip\"", "\"com.android.shell\"",
        "\"android.app.ActivityThread\"", "\"sCurrentActivityThread\"", "\"getSystemContext\"",
        "\"at event \""}) {
    EXPECT_NE(dump.find(text), std::string::npos) << "no string " << text;
  }
}

TEST(HelperProtocol, RequestsAreOneByteThenBigEndianMilliseconds) {
  EXPECT_EQ(helper::encode_ping(), (std::array<std::uint8_t, 1>{'P'}));
  EXPECT_EQ(helper::encode_dump(0x01020304, 10000),
            (std::array<std::uint8_t, 9>{'D', 1, 2, 3, 4, 0x00, 0x00, 0x27, 0x10}));
}

TEST(HelperProtocol, ReplyHeadersOutsideTheFramingAreRefused) {
  const std::array<std::uint8_t, 5> ok{0, 0, 0, 1, 0};
  const auto header = helper::decode_reply_header(ok);
  ASSERT_TRUE(header);
  EXPECT_EQ(header->status, helper::Status::ok);
  EXPECT_EQ(header->length, 256U);
  const std::array<std::uint8_t, 5> failed{1, 0, 0, 0, 5};
  EXPECT_EQ(helper::decode_reply_header(failed)->status, helper::Status::failed);
  const std::array<std::uint8_t, 5> unknown_status{2, 0, 0, 0, 0};
  EXPECT_FALSE(helper::decode_reply_header(unknown_status));
  const std::array<std::uint8_t, 5> java_trace{'j', 'a', 'v', 'a', '.'};
  EXPECT_FALSE(helper::decode_reply_header(java_trace));
  const std::array<std::uint8_t, 5> too_long{0, 0x04, 0, 0, 1};  // kMaxReply + 1
  EXPECT_FALSE(helper::decode_reply_header(too_long));
  const std::array<std::uint8_t, 5> longest{0, 0x04, 0, 0, 0};
  EXPECT_TRUE(helper::decode_reply_header(longest));
}

TEST(HelperProtocol, StartCommandPutsTheDexBeforeUiautomatorJarAndNamesTheProcess) {
  EXPECT_EQ(helper::start_command("/data/local/tmp/x.dex", "adbwire-dumper-1f"),
            "app_process -Djava.class.path=/data/local/tmp/x.dex:/system/framework/uiautomator.jar "
            "/system/bin --nice-name=adbwire-dumper-1f com.adbwire.Dumper "
            "2>/data/local/tmp/adbwire-dumper.log");
}

TEST(HelperProtocol, KillCommandDoesNotMatchItsOwnShell) {
  const std::string command = helper::kill_command("adbwire-dumper-1f");
  EXPECT_EQ(command, "pkill -9 -f 'adbwire-dumper-1[f]'");
  // The shell running it has the pattern in its command line, but not the name itself.
  EXPECT_EQ(command.find("adbwire-dumper-1f"), std::string::npos);
}

}  // namespace
}  // namespace adbwire::agent
