// The parsers of `dumpsys battery` and `dumpsys sensorservice` (services/device_readings_parser),
// on the forms phones print. The samples are written here in the layout of AOSP's
// BatteryService.dumpInternal and SensorList/SensorService dump code of each era (Android 4.4 to
// 6: "version=N"; 7 and later: "0xHANDLE) … | ver: N | type: STRING(N)"), with names and vendors
// as phones' published dumps show them; a handle of 0 printed "0000000000)" as printf's %#010x
// writes it.
#include "services/device_readings_parser.hpp"

#include <gtest/gtest.h>

#include <string>

namespace adbwire::detail {
namespace {

TEST(DeviceReadingsParser, BatteryOfAnAndroid14Phone) {
  const auto state = parse_battery(
      "Current Battery Service state:\n"
      "  AC powered: false\n  USB powered: true\n  Wireless powered: false\n"
      "  Dock powered: false\n  Max charging current: 1500000\n  Charge counter: 3754000\n"
      "  status: 2\n  health: 2\n  present: true\n  level: 87\n  scale: 100\n"
      "  voltage: 4312\n  temperature: 301\n  technology: Li-ion\n  Charging state: 1\n");
  ASSERT_TRUE(state);
  EXPECT_EQ(state->level, 87);
  EXPECT_EQ(state->status, BatteryStatus::charging);
  ASSERT_TRUE(state->temperature_c);
  EXPECT_DOUBLE_EQ(*state->temperature_c, 30.1);
  EXPECT_EQ(state->voltage_mv, 4312);
  EXPECT_EQ(state->plugged, "USB");
  EXPECT_EQ(state->technology, "Li-ion");
}

TEST(DeviceReadingsParser, BatteryWithAnOddScaleUpdatesStoppedAndNegativeTemperature) {
  // `dumpsys battery set` stops updates and says so first; a scale other than 100 is divided
  // out; Android 4.x has no Dock line.
  const auto state = parse_battery(
      "Current Battery Service state:\n  (UPDATES STOPPED -- use 'reset' to restart)\n"
      "  AC powered: true\n  USB powered: false\n  Wireless powered: false\n  status: 5\n"
      "  health: 2\n  present: true\n  level: 50\n  scale: 50\n  voltage: 4350\n"
      "  temperature: -52\n  technology: Li-poly\n");
  ASSERT_TRUE(state);
  EXPECT_EQ(state->level, 100);
  EXPECT_EQ(state->status, BatteryStatus::full);
  EXPECT_DOUBLE_EQ(*state->temperature_c, -5.2);
  EXPECT_EQ(state->plugged, "AC");
}

TEST(DeviceReadingsParser, BatteryDumpWithoutLevelOrStatusIsNone) {
  EXPECT_FALSE(parse_battery("Can't find service: battery\n"));
  EXPECT_FALSE(parse_battery(""));
  EXPECT_FALSE(parse_battery("  level: many\n  status: x\n"));
}

TEST(DeviceReadingsParser, SensorsOfAndroid7AndLaterWithHandleZero) {
  const auto list = parse_sensors(
      "Captured at: 16:45:16.929\nSensor Device:\n"
      "0x00000002) active-count = 1; sampling_period(ms) = {10.0}, selected = 10.00 ms\n"
      "Total 3 h/w sensors, 3 running 0 disabled clients:\n"
      "Sensor List:\n"
      "0000000000) Accelerometer sensor      | The Android Open Source Project | ver: 1 | type: "
      "android.sensor.accelerometer(1) | perm: n/a | flags: 0x00000000\n"
      "        continuous | minRate=5.00Hz | maxRate=142.86Hz | no batching | non-wakeUp | \n"
      "0x00000002) mmc5603 mag               | memsic          | ver: 1 | type: "
      "android.sensor.magnetic_field(2) | perm: n/a | flags: 0x00000000\n"
      "\tcontinuous | minRate=5.00Hz | maxRate=50.00Hz | FIFO (max,reserved) = (4500, 600) "
      "events | non-wakeUp |\n"
      "0x0100000b) lsm6dsv Accelerometer Non-wakeup | STMicro | ver: 18176 | type: "
      "com.google.sensor.gyro_temperature(65536) | perm: n/a | flags: 0x00000980\n"
      "\t\tFusion States:\n\t\t9-axis fusion disabled (0 clients)\n"
      "Recent Sensor events:\nACCELEROMETER: last 10 events | a | b\n");
  ASSERT_TRUE(list);
  ASSERT_EQ(list->sensors.size(), 3u);
  EXPECT_EQ(list->sensors[0].name, "Accelerometer sensor");
  EXPECT_EQ(list->sensors[0].vendor, "The Android Open Source Project");
  EXPECT_EQ(list->sensors[0].type, "android.sensor.accelerometer");
  EXPECT_EQ(list->sensors[0].type_id, 1);
  EXPECT_EQ(list->sensors[0].version, 1);
  EXPECT_EQ(list->sensors[1].name, "mmc5603 mag");
  EXPECT_EQ(list->sensors[1].type_id, 2);
  EXPECT_EQ(list->sensors[2].type, "com.google.sensor.gyro_temperature");
  EXPECT_EQ(list->sensors[2].type_id, 65536);
  EXPECT_EQ(list->left_out, 0u);
}

TEST(DeviceReadingsParser, SensorsOfAndroid5And6) {
  const auto list = parse_sensors(
      "Sensor List:\n"
      "BMI160 accelerometer      | Bosch           | version=1 |android.sensor.accelerometer| "
      "0x0000000b | \"\" | type=1 | continuous-mode | minRate=12.50Hz | maxRate=200.00Hz |\n"
      "AK09915 magnetometer      | AKM             | version=1 |android.sensor.magnetic_field| "
      "0x0000000c | \"\" | type=2 | continuous-mode |\n"
      "Fusion States:\n");
  ASSERT_TRUE(list);
  ASSERT_EQ(list->sensors.size(), 2u);
  EXPECT_EQ(list->sensors[0].name, "BMI160 accelerometer");
  EXPECT_EQ(list->sensors[0].type, "android.sensor.accelerometer");
  EXPECT_EQ(list->sensors[0].type_id, 1);
  EXPECT_EQ(list->sensors[1].vendor, "AKM");
}

TEST(DeviceReadingsParser, AHostileSensorListIsBoundedAndCut) {
  std::string dump = "Sensor List:\n";
  const std::string long_name(5000, 'n');
  for (std::size_t i = 0; i < kMaxSensors + 10; ++i)
    dump += "0x00000001) " + long_name + " | \x1b[2Jvendor | ver: 1 | type: t(1)\n";
  const auto list = parse_sensors(dump);
  ASSERT_TRUE(list);
  EXPECT_EQ(list->sensors.size(), kMaxSensors);
  EXPECT_EQ(list->left_out, 10u);
  EXPECT_EQ(list->sensors[0].name.size(), kMaxNameBytes);
  EXPECT_FALSE(parse_sensors("Sensor Device:\nno list here\n"));
}

}  // namespace
}  // namespace adbwire::detail
