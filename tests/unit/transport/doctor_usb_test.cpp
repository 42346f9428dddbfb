// The USB section of `adbwire doctor` (src/cli/doctor_usb.cpp) for devices listed from a
// simulated bus, so the problems shown are the ones list_adb_devices() really writes: there is
// no USB bus where these tests run, so the process test (doctor_command_test.cpp) only ever
// sees "no USB bus visible".
#include "cli/doctor_usb.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "adbwire/error.hpp"
#include "transport/usb_devices.hpp"
#include "unit/transport/simulated_usb.hpp"

namespace adbwire {
namespace {

using transport::UsbStatus;

std::vector<UsbDevice> list(test::SimulatedBus& bus) {
  detail::Failure failure;
  std::vector<UsbDevice> devices = transport::list_adb_devices(bus, failure);
  EXPECT_FALSE(failure) << failure.detail;
  return devices;
}

// The line of the report that starts with `start` (after the indent), "" when none does.
std::string line_of(const std::string& report, const std::string& start) {
  const std::size_t at = report.find("\n  " + start);
  if (at == std::string::npos) return {};
  return report.substr(at + 3, report.find('\n', at + 1) - at - 3);
}

TEST(DoctorUsb, EachDeviceGetsOneLineWithItsTargetOrWhatToDo) {
  test::SimulatedBus bus;
  bus.plug({test::adb_phone_record(1, 5, "1-2"), "OPEN1", UsbStatus::ok, nullptr});
  auto locked = test::adb_phone_record(1, 6, "1-3");
  locked.serial_from_sysfs = "LOCKED2";
  bus.plug({locked, "LOCKED2", UsbStatus::access, nullptr});
  bus.plug({test::adb_phone_record(2, 3, "2-1"), "HELD3", UsbStatus::busy, nullptr});
  const std::string report = cli::usb_report(list(bus));

  EXPECT_TRUE(report.starts_with("USB devices with an ADB interface:\n")) << report;
  EXPECT_EQ(line_of(report, "18d1:4ee7 OPEN1"),
            "18d1:4ee7 OPEN1 (bus 1, port 1-2): accessible, use -s usb:OPEN1");

  // Permission denied: the fix is the udev rules, and the line says where they are explained.
  const std::string denied = line_of(report, "18d1:4ee7 LOCKED2");
  EXPECT_NE(denied.find("NOT accessible: permission denied"), std::string::npos) << report;
  EXPECT_NE(denied.find("udev/README.md"), std::string::npos) << denied;
  EXPECT_EQ(denied.find("use -s"), std::string::npos) << denied;

  // Busy: an adb server most likely holds it, and the way through it names this serial.
  const std::string busy = line_of(report, "18d1:4ee7 HELD3");
  EXPECT_NE(busy.find("NOT accessible: "), std::string::npos) << report;
  EXPECT_NE(busy.find("adb kill-server"), std::string::npos) << busy;
  EXPECT_NE(busy.find("server:HELD3"), std::string::npos) << busy;

  EXPECT_EQ(std::count(report.begin(), report.end(), '\n'), 4) << report;
}

// A phone that reports no serial must not be offered as "-s usb:": that target means "the
// first ADB device on USB", which is another phone as soon as two are plugged in.
TEST(DoctorUsb, DeviceWithoutASerialIsNotOfferedAnEmptyTarget) {
  test::SimulatedBus bus;
  bus.plug({test::adb_phone_record(1, 7, "1-4"), "", UsbStatus::ok, nullptr});
  const std::vector<UsbDevice> devices = list(bus);
  ASSERT_EQ(devices.size(), 1U);
  ASSERT_EQ(devices[0].serial, "");
  const std::string report = cli::usb_report(devices);
  const std::string line = line_of(report, "18d1:4ee7 (serial unknown)");
  EXPECT_NE(line.find("accessible, but its serial is unknown"), std::string::npos) << report;
  EXPECT_FALSE(line.ends_with("-s usb:")) << line;
}

TEST(DoctorUsb, NoBusNoDevicesAndListingFailuresAreSaidPlainly) {
  EXPECT_EQ(cli::usb_report({}, make_error_code(errc::not_supported)),
            "USB devices with an ADB interface:\n"
            "  no USB bus visible (container/VM?): USB devices cannot be listed here\n");
  EXPECT_NE(cli::usb_report({}).find("  none: plug a phone in"), std::string::npos);
  const std::string failed = cli::usb_report({}, make_error_code(errc::io_error));
  EXPECT_NE(failed.find("  cannot list USB devices: " + make_error_code(errc::io_error).message()),
            std::string::npos)
      << failed;
}

}  // namespace
}  // namespace adbwire
