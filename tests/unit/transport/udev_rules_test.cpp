// udev/: the rules files checked by a parser of our own (Debian 12's udev 252 has no
// `udevadm verify`, which arrived in systemd 253), and udev/install run against a scratch
// directory with stand-ins for udevadm, groupadd, usermod and getent.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "integration/adb_server.hpp"

namespace adbwire {
namespace {

namespace fs = std::filesystem;

const fs::path kUdev = fs::path(ADBWIRE_SOURCE_DIR) / "udev";

struct Pair {
  std::string key;   // "ENV", "ATTR", …
  std::string attr;  // the {…} part
  std::string op;    // == != = += :=
  std::string value;
};

// Problems found in one rules text, "line N: …"; empty when it is well-formed. The rules
// follow udev(7): comma-separated KEY[{attr}]OP"value" pairs.
std::vector<std::string> check_rules(const std::string& text) {
  static const std::set<std::string> kMatchOnly = {"ACTION",  "SUBSYSTEM", "SUBSYSTEMS", "KERNEL",
                                                   "DEVPATH", "DRIVER",    "ATTR",       "ATTRS"};
  static const std::set<std::string> kAssignOnly = {"GOTO",  "LABEL",  "MODE", "GROUP",
                                                    "OWNER", "IMPORT", "RUN",  "SYMLINK"};
  static const std::set<std::string> kBoth = {"ENV", "TAG"};
  static const std::set<std::string> kNeedsAttr = {"ENV", "ATTR", "ATTRS", "IMPORT"};
  std::vector<std::string> problems;
  std::set<std::string> gotos;
  std::set<std::string> labels;
  std::istringstream lines(text);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    const std::string where = "line " + std::to_string(number) + ": ";
    std::size_t i = 0;
    auto skip = [&] {
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == ',')) ++i;
    };
    skip();
    if (i == line.size() || line[i] == '#') continue;
    std::vector<Pair> pairs;
    while (i < line.size()) {
      Pair pair;
      while (i < line.size() &&
             (std::isupper(static_cast<unsigned char>(line[i])) || line[i] == '_'))
        pair.key += line[i++];
      if (i < line.size() && line[i] == '{') {
        const auto close = line.find('}', i);
        if (close == std::string::npos) {
          problems.push_back(where + "unclosed {");
          break;
        }
        pair.attr = line.substr(i + 1, close - i - 1);
        i = close + 1;
      }
      for (const char* op : {"==", "!=", "+=", ":=", "="}) {
        if (line.compare(i, std::char_traits<char>::length(op), op) == 0) {
          pair.op = op;
          i += pair.op.size();
          break;
        }
      }
      if (pair.key.empty() || pair.op.empty() || i >= line.size() || line[i] != '"') {
        problems.push_back(where + "expected KEY OP \"value\" at column " + std::to_string(i + 1));
        break;
      }
      const auto end = line.find('"', i + 1);
      if (end == std::string::npos) {
        problems.push_back(where + "unterminated value");
        break;
      }
      pair.value = line.substr(i + 1, end - i - 1);
      i = end + 1;
      pairs.push_back(pair);
      skip();
    }
    for (const Pair& pair : pairs) {
      const bool match = pair.op == "==" || pair.op == "!=";
      const bool known =
          kMatchOnly.count(pair.key) || kAssignOnly.count(pair.key) || kBoth.count(pair.key);
      if (!known) problems.push_back(where + "unknown key " + pair.key);
      if (match && kAssignOnly.count(pair.key))
        problems.push_back(where + pair.key + " cannot be matched");
      if (!match && kMatchOnly.count(pair.key))
        problems.push_back(where + pair.key + " cannot be assigned");
      if (kNeedsAttr.count(pair.key) && pair.attr.empty())
        problems.push_back(where + pair.key + " needs {…}");
      if (pair.key == "GOTO") gotos.insert(pair.value);
      if (pair.key == "LABEL") {
        labels.insert(pair.value);
        if (pairs.size() != 1) problems.push_back(where + "LABEL must stand alone");
      }
      if (pair.key == "MODE") {
        const bool octal =
            pair.value.size() == 4 && pair.value.find_first_not_of("01234567") == std::string::npos;
        if (!octal) problems.push_back(where + "MODE must be four octal digits");
        if (octal && pair.value.back() != '0')
          problems.push_back(where + "MODE grants others access");
      }
      if (pair.key == "ATTR" && (pair.attr == "idVendor" || pair.attr == "idProduct")) {
        const bool hex = pair.value.size() == 4 &&
                         pair.value.find_first_not_of("0123456789abcdef") == std::string::npos;
        if (!hex) problems.push_back(where + pair.attr + " must be four lowercase hex digits");
      }
    }
  }
  for (const std::string& target : gotos) {
    if (!labels.count(target)) problems.push_back("GOTO \"" + target + "\" has no LABEL");
  }
  return problems;
}

std::string slurp(const fs::path& path) {
  std::ifstream file(path);
  return std::string((std::istreambuf_iterator<char>(file)), {});
}

TEST(UdevRuleChecker, CatchesBrokenRules) {
  EXPECT_TRUE(check_rules("ACTION==\"add\", TAG+=\"uaccess\"\n").empty());
  EXPECT_FALSE(check_rules("ACTION=\"add\"\n").empty());  // assigns a match key
  EXPECT_FALSE(check_rules("MODE==\"0660\"\n").empty());  // matches an assign key
  EXPECT_FALSE(check_rules("SUBSYSTEM==\"usb\", MODE=\"0666\"\n").empty());  // world-writable
  EXPECT_FALSE(check_rules("SUBSYSTEM==\"usb, GROUP=\"x\"\n").empty());      // quote missing
  EXPECT_FALSE(check_rules("SUBSYSTEM==\"usb\", GROUP=\"x\n").empty());      // unterminated
  EXPECT_FALSE(check_rules("GOTO=\"nowhere\"\n").empty());
  EXPECT_FALSE(check_rules("ATTR{idVendor}==\"18D1\"\n").empty());
  EXPECT_FALSE(check_rules("ENV==\"x\"\n").empty());
  EXPECT_FALSE(check_rules("BOGUS==\"x\"\n").empty());
}

TEST(UdevRules, SeatRulesAreWellFormedAndGrantThroughUaccessOnly) {
  const std::string rules = slurp(kUdev / "51-adbwire-android.rules");
  ASSERT_FALSE(rules.empty());
  EXPECT_EQ(check_rules(rules), std::vector<std::string>{});
  EXPECT_NE(rules.find("ENV{ADBWIRE_ANDROID}==\"1\", TAG+=\"uaccess\""), std::string::npos);
  EXPECT_NE(rules.find("ENV{ID_USB_INTERFACES}==\"*:ff4201:*\""), std::string::npos);
  EXPECT_EQ(rules.find("MODE="), std::string::npos);
  EXPECT_EQ(rules.find("GROUP="), std::string::npos);
  for (const char* vendor : {"18d1", "04e8", "2717", "2a70", "22b8", "12d1"}) {
    EXPECT_NE(rules.find("ATTR{idVendor}==\"" + std::string(vendor) + "\""), std::string::npos)
        << vendor;
  }
}

TEST(UdevRules, HeadlessRulesUseAGroupAndMode0660) {
  const std::string rules = slurp(kUdev / "52-adbwire-headless.rules");
  ASSERT_FALSE(rules.empty());
  EXPECT_EQ(check_rules(rules), std::vector<std::string>{});
  EXPECT_NE(rules.find("GROUP=\"adbusers\", MODE=\"0660\""), std::string::npos);
}

// A scratch root with stand-in commands that log their arguments.
struct InstallRig {
  InstallRig() {
    root = fs::temp_directory_path() /
           ("adbwire-udev-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::create_directories(root / "bin");
    fs::create_directories(root / "rules");
    for (const char* tool : {"udevadm", "groupadd", "usermod", "getent"}) {
      const fs::path stub = root / "bin" / tool;
      std::ofstream(stub) << "#!/bin/sh\necho \"" << tool << " $*\" >> '" << (root / "log").string()
                          << "'\n"
                          << (std::string(tool) == "getent" ? "exit 2\n" : "exit 0\n");
      fs::permissions(stub, fs::perms::owner_all);
    }
  }
  ~InstallRig() { fs::remove_all(root); }

  test::ProcessResult install(std::vector<std::string> args) {
    std::vector<std::string> argv = {"/bin/sh", (kUdev / "install").string()};
    argv.insert(argv.end(), args.begin(), args.end());
    const char* path = std::getenv("PATH");
    return test::run_process(
        argv, {"PATH=" + (root / "bin").string() + ":" + (path ? path : "/usr/bin:/bin")}, {});
  }

  static inline int counter = 0;
  fs::path root;
};

TEST(UdevInstall, CopiesTheSeatRulesAndReloadsUdev) {
  InstallRig rig;
  const auto result = rig.install({"--dest", (rig.root / "rules").string()});
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  const fs::path installed = rig.root / "rules" / "51-adbwire-android.rules";
  EXPECT_EQ(slurp(installed), slurp(kUdev / "51-adbwire-android.rules"));
  struct stat info {};
  ASSERT_EQ(::stat(installed.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0644u);
  EXPECT_FALSE(fs::exists(rig.root / "rules" / "52-adbwire-headless.rules"));
  EXPECT_EQ(
      slurp(rig.root / "log"),
      "udevadm control --reload-rules\nudevadm trigger --subsystem-match=usb --action=change\n");
}

TEST(UdevInstall, HeadlessAddsTheGroupItsUsersAndItsRules) {
  InstallRig rig;
  const auto result =
      rig.install({"--dest", (rig.root / "rules").string(), "--headless", "alice", "bob"});
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_EQ(slurp(rig.root / "rules" / "52-adbwire-headless.rules"),
            slurp(kUdev / "52-adbwire-headless.rules"));
  EXPECT_EQ(slurp(rig.root / "log"),
            "getent group adbusers\ngroupadd --system adbusers\nusermod -a -G adbusers alice\n"
            "usermod -a -G adbusers bob\nudevadm control --reload-rules\n"
            "udevadm trigger --subsystem-match=usb --action=change\n");
}

TEST(UdevInstall, RefusesAnUnwritableDestinationWithAHint) {
  InstallRig rig;
  const auto result = rig.install({"--dest", (rig.root / "missing").string()});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("sudo udev/install"), std::string::npos) << result.err;
  EXPECT_FALSE(fs::exists(rig.root / "log"));
}

}  // namespace
}  // namespace adbwire
