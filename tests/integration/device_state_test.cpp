// get_state, getprop, the clock and adbd's state services against the virtual device; with the
// settings (settings.hpp) and the screen controls (screen_control.hpp) on a Device alone.
#include "adbwire/device_state.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "adbwire/error.hpp"
#include "adbwire/error_detail.hpp"
#include "adbwire/screen_control.hpp"
#include "adbwire/settings.hpp"
#include "adbwire/testing/vdevice.hpp"

namespace adbwire {
namespace {

using namespace std::chrono_literals;

// Waits (bounded) until the device has dropped the connection, as adbd does after restarting.
std::error_code wait_for_drop(Device& device) {
  const auto give_up = Clock::now() + 10s;
  std::error_code error;
  while (Clock::now() < give_up) {
    device.shell("true", deadline_after(2s), error);
    if (error) return error;
    std::this_thread::sleep_for(20ms);
  }
  return error;
}

class DeviceStateTest : public ::testing::Test {
 protected:
  void SetUp() override { vd_.start(); }
  Device connect() { return Device::connect(vd_.target()); }

  VirtualDevice vd_;
};

TEST_F(DeviceStateTest, GetStateIsTheBannerSystemType) {
  Device device = connect();
  EXPECT_EQ(get_state(device), "device");
}

TEST_F(DeviceStateTest, GetpropReadsOneAndAllProperties) {
  Device device = connect();
  EXPECT_EQ(getprop(device, "ro.product.model"), "adbwire_virtual");
  EXPECT_EQ(getprop(device, "ro.build.version.sdk"), "34");
  EXPECT_EQ(getprop(device, "no.such.property"), "");
  const auto all = getprops(device);
  ASSERT_TRUE(all.contains("ro.serialno"));
  EXPECT_EQ(all.at("ro.serialno"), "adbwire-vdevice");
  EXPECT_EQ(all.at("ro.product.model"), "adbwire_virtual");

  std::error_code error;
  getprop(device, "ro.x; reboot", kDefaultDeadline, error);
  EXPECT_EQ(error, errc::invalid_argument);
}

TEST_F(DeviceStateTest, DeviceTimeIsTheDevicesClock) {
  Device device = connect();
  const auto before = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
  const auto clock = device_time(device);
  const auto after = std::chrono::system_clock::now();
  // The virtual device's clock is this host's.
  EXPECT_GE(clock, before);
  EXPECT_LE(clock, after);
}

TEST_F(DeviceStateTest, SettingsAreQuotedAndUnsetKeysAreEmpty) {
  Device device = connect();
  put_setting(device, SettingsNamespace::secure, "it's a key", "a value; with $(symbols)");
  EXPECT_EQ(get_setting(device, SettingsNamespace::secure, "it's a key"),
            "a value; with $(symbols)");
  EXPECT_EQ(get_setting(device, SettingsNamespace::global, "never_set"), "");
  EXPECT_EQ(vd_.events().back(), "settings put secure it's a key a value; with $(symbols)");
  EXPECT_EQ(to_string(SettingsNamespace::global), "global");
}

TEST_F(DeviceStateTest, ScreenControlsSendTheirCommands) {
  Device device = connect();
  lock_rotation(device, Orientation::reverse_landscape);
  EXPECT_EQ(vd_.events().back(), "settings put system user_rotation 3");
  EXPECT_EQ(get_setting(device, SettingsNamespace::system, "accelerometer_rotation"), "0");
  wake_screen(device, KeyguardDismissal::command);
  EXPECT_EQ(vd_.events().back(), "wm dismiss-keyguard");
  wake_screen(device, KeyguardDismissal::menu_key);
  EXPECT_EQ(vd_.events().back(), "input keyevent 82");
  open_notifications(device);
  EXPECT_EQ(vd_.events().back(), "cmd statusbar expand-notifications");

  // The error_code overloads: a success clears the code, a closed Device is closed.
  std::error_code error;
  open_notifications(device, kDefaultDeadline, error);
  EXPECT_FALSE(error);
  device.close();
  wake_screen(device, KeyguardDismissal::command, kDefaultDeadline, error);
  EXPECT_EQ(error, errc::closed);
}

TEST_F(DeviceStateTest, RootAndUnrootChangeIdAndRestartAdbd) {
  Device device = connect();
  EXPECT_NE(device.shell("id").out.find("uid=2000(shell)"), std::string::npos);
  EXPECT_EQ(remount(device), "Not running as root. Try \"adb root\" first.\n");

  EXPECT_EQ(root(device), "restarting adbd as root\n");
  EXPECT_EQ(wait_for_drop(device), errc::device_offline);

  Device rooted = connect();
  EXPECT_NE(rooted.shell("id").out.find("uid=0(root)"), std::string::npos);
  EXPECT_EQ(root(rooted), "adbd is already running as root\n");
  EXPECT_EQ(remount(rooted), "remount succeeded\n");
  EXPECT_EQ(unroot(rooted), "restarting adbd as non root\n");
  EXPECT_EQ(wait_for_drop(rooted), errc::device_offline);

  Device again = connect();
  EXPECT_NE(again.shell("id").out.find("uid=2000(shell)"), std::string::npos);
  EXPECT_EQ(unroot(again), "adbd not running as root\n");
}

TEST_F(DeviceStateTest, RebootDropsTheConnectionAndNamesItsTarget) {
  Device device = connect();
  EXPECT_EQ(reboot(device, RebootTarget::bootloader), "");
  EXPECT_EQ(wait_for_drop(device), errc::device_offline);
  const auto events = vd_.events();
  EXPECT_NE(std::find(events.begin(), events.end(), "reboot bootloader"), events.end());
}

TEST_F(DeviceStateTest, TcpipAndUsbAnswerThenRestart) {
  Device device = connect();
  std::error_code error;
  tcpip(device, 0, kDefaultDeadline, error);
  EXPECT_EQ(error, errc::invalid_argument);
  EXPECT_EQ(tcpip(device, 5555), "restarting in TCP mode port: 5555\n");
  EXPECT_EQ(wait_for_drop(device), errc::device_offline);

  Device again = connect();
  EXPECT_EQ(usb(again), "restarting in USB mode\n");
  EXPECT_EQ(wait_for_drop(again), errc::device_offline);
}

}  // namespace
}  // namespace adbwire
