#include "adbwire/target.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "adbwire/error.hpp"

namespace adbwire {
namespace {

// Sets an environment variable (ANDROID_SERIAL unless named) for one test and restores what was
// there.
class ScopedSerial {
 public:
  explicit ScopedSerial(const char* value, const char* name = "ANDROID_SERIAL") : name_(name) {
    if (const char* old = std::getenv(name_)) old_ = old;
    if (value) {
      ::setenv(name_, value, 1);
    } else {
      ::unsetenv(name_);
    }
  }
  ~ScopedSerial() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  ScopedSerial(const ScopedSerial&) = delete;
  ScopedSerial& operator=(const ScopedSerial&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(Target, TcpWithPort) {
  const Target t = Target::parse("tcp:192.168.1.5:5556");
  EXPECT_EQ(t.kind(), Target::Kind::tcp);
  EXPECT_EQ(t.host(), "192.168.1.5");
  EXPECT_EQ(t.port(), 5556);
  EXPECT_EQ(t.to_string(), "tcp:192.168.1.5:5556");
}

TEST(Target, TcpDefaultsToAdbdPort) {
  const Target t = Target::parse("tcp:phone.local");
  EXPECT_EQ(t.host(), "phone.local");
  EXPECT_EQ(t.port(), 5555);
}

TEST(Target, BareHostPortIsTcp) {
  const Target t = Target::parse("127.0.0.1:40000");
  EXPECT_EQ(t.kind(), Target::Kind::tcp);
  EXPECT_EQ(t.host(), "127.0.0.1");
  EXPECT_EQ(t.port(), 40000);
}

TEST(Target, BracketedIpv6) {
  const Target t = Target::parse("tcp:[::1]:6000");
  EXPECT_EQ(t.kind(), Target::Kind::tcp);
  EXPECT_EQ(t.host(), "::1");
  EXPECT_EQ(t.port(), 6000);
  EXPECT_EQ(t.to_string(), "tcp:[::1]:6000");
  EXPECT_EQ(Target::parse("[fe80::2]:7").host(), "fe80::2");
  EXPECT_EQ(Target::parse("tcp:[::1]").port(), 5555);
}

TEST(Target, Usb) {
  EXPECT_EQ(Target::parse("usb:").kind(), Target::Kind::usb);
  EXPECT_EQ(Target::parse("usb:").serial(), "");
  EXPECT_EQ(Target::parse("usb:R58M12345").serial(), "R58M12345");
}

TEST(Target, ServerDefaultsAndExplicitAddress) {
  const Target local = Target::parse("server:emulator-5554");
  EXPECT_EQ(local.kind(), Target::Kind::server);
  // No address: ConnectOptions::server and the environment decide at connect time.
  EXPECT_EQ(local.host(), "");
  EXPECT_EQ(local.port(), 0);
  EXPECT_EQ(local.serial(), "emulator-5554");
  EXPECT_EQ(local.to_string(), "server:emulator-5554");

  const Target remote = Target::parse("server:rig7:5038/R58M");
  EXPECT_EQ(remote.host(), "rig7");
  EXPECT_EQ(remote.port(), 5038);
  EXPECT_EQ(remote.serial(), "R58M");
  EXPECT_EQ(remote.to_string(), "server:rig7:5038/R58M");
}

TEST(Target, BareSerialGoesThroughTheServerLikeAdb) {
  const Target t = Target::parse("emulator-5554");
  EXPECT_EQ(t.kind(), Target::Kind::server);
  EXPECT_EQ(t.serial(), "emulator-5554");
}

TEST(Target, GuidsAndAdbsWirelessSerialsAreFoundByMdns) {
  for (const char* text : {"mdns:adb-R5CT1234-AbCdEf", "adb-R5CT1234-AbCdEf"}) {
    const Target t = Target::parse(text);
    EXPECT_EQ(t.kind(), Target::Kind::mdns) << text;
    EXPECT_EQ(t.serial(), "adb-R5CT1234-AbCdEf");
    EXPECT_EQ(t.to_string(), "mdns:adb-R5CT1234-AbCdEf");
  }
  // adb's serial of a phone it connected by mDNS, and a QR-named instance given explicitly.
  const Target adbs = Target::parse("adb-R5CT1234-AbCdEf._adb-tls-connect._tcp");
  EXPECT_EQ(adbs.kind(), Target::Kind::mdns);
  EXPECT_EQ(adbs.serial(), "adb-R5CT1234-AbCdEf._adb-tls-connect._tcp");
  EXPECT_EQ(Target::parse("mdns:studio-x:y").serial(), "studio-x:y");
  EXPECT_EQ(Target::parse("R5CT1234").kind(), Target::Kind::server) << "other serials as before";
}

TEST(Target, MalformedTargetsAreInvalidArguments) {
  for (const char* text :
       {"tcp:", "tcp::5555", "tcp:host:0", "tcp:host:65536", "tcp:host:12ab", "host:", "host:port",
        "server:", "server:h:1/", "server:h:x/SER", "tcp:[::1", "tcp:[::1]x", "mdns:"}) {
    std::error_code error;
    Target::parse(text, error);
    EXPECT_EQ(error, errc::invalid_argument) << text;
  }
}

TEST(Target, ThrowingParseNamesTheAcceptedForms) {
  try {
    Target::parse("tcp:host:99999");
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("tcp:HOST[:PORT]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("tcp:host:99999"), std::string::npos) << e.what();
  }
}

TEST(Target, EmptyFallsBackToAndroidSerial) {
  ScopedSerial serial("tcp:10.0.0.2:5557");
  const Target t = Target::parse("");
  EXPECT_EQ(t.kind(), Target::Kind::tcp);
  EXPECT_EQ(t.host(), "10.0.0.2");
  EXPECT_EQ(t.port(), 5557);
}

TEST(Target, EmptyFallsBackToAdbSerialAfterAndroidSerial) {
  ScopedSerial android(nullptr);
  ScopedSerial adb("tcp:10.0.0.3:5558", "ADB_SERIAL");
  EXPECT_EQ(default_serial(), "tcp:10.0.0.3:5558");
  EXPECT_EQ(Target::parse("").to_string(), "tcp:10.0.0.3:5558");
  {
    // ANDROID_SERIAL comes first; an empty one counts as unset, as adb's does.
    ScopedSerial first("tcp:10.0.0.2:5557");
    EXPECT_EQ(Target::parse("").to_string(), "tcp:10.0.0.2:5557");
    ScopedSerial empty("");
    EXPECT_EQ(Target::parse("").to_string(), "tcp:10.0.0.3:5558");
  }
  try {
    ScopedSerial bad("tcp:host:99999", "ADB_SERIAL");
    Target::parse("");
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("(from ADB_SERIAL)"), std::string::npos) << e.what();
  }
}

TEST(Target, EmptyWithoutAndroidSerialSaysHowToChoose) {
  ScopedSerial serial(nullptr);
  ScopedSerial adb(nullptr, "ADB_SERIAL");
  std::error_code error;
  Target::parse("", error);
  EXPECT_EQ(error, errc::invalid_argument);
  try {
    Target::parse("");
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("ANDROID_SERIAL"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("-s"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace adbwire
