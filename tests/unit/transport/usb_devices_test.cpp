// Interface selection, the device list with access states, and the hotplug watcher, on a
// simulated bus.
#include "transport/usb_devices.hpp"

#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "adbwire/error.hpp"
#include "unit/transport/simulated_usb.hpp"

namespace adbwire::transport {
namespace {

using namespace std::chrono_literals;
using test::SimulatedBus;

UsbInterfaceDescriptor adb_setting(std::uint8_t number, std::uint8_t alt,
                                   std::vector<UsbEndpointDescriptor> endpoints) {
  return {number, alt, 0xff, 0x42, 0x01, std::move(endpoints)};
}

TEST(FindAdbInterface, PicksThePhonesAdbInterfaceAndEndpoints) {
  const auto choice = find_adb_interface(test::adb_phone_record(1, 2, "1-1"));
  ASSERT_TRUE(choice);
  EXPECT_EQ(choice->configuration, 1);
  EXPECT_EQ(choice->interface_number, 1);
  EXPECT_EQ(choice->alternate_setting, 0);
  EXPECT_EQ(choice->endpoint_in, 0x81);
  EXPECT_EQ(choice->endpoint_out, 0x01);
  EXPECT_EQ(choice->max_packet_size, 512);
}

TEST(FindAdbInterface, SearchesEveryConfigurationActiveFirst) {
  UsbDeviceRecord record;
  record.active_configuration = 2;
  record.configurations.push_back({1, {adb_setting(0, 0, {{0x83, 2, 64}, {0x03, 2, 64}})}});
  record.configurations.push_back({2, {{0, 0, 0x06, 0x01, 0x01, {}}}});
  record.configurations.push_back({3, {adb_setting(4, 0, {{0x85, 2, 512}, {0x05, 2, 512}})}});
  const auto choice = find_adb_interface(record);
  ASSERT_TRUE(choice);
  EXPECT_EQ(choice->configuration, 1);  // the active one has none: the first that has one
  EXPECT_EQ(choice->endpoint_in, 0x83);

  record.active_configuration = 3;
  EXPECT_EQ(find_adb_interface(record)->configuration, 3);
}

TEST(FindAdbInterface, SkipsSettingsWithoutOneBulkPairOfEqualPacketSize) {
  UsbDeviceRecord record;
  record.active_configuration = 1;
  record.configurations.push_back(
      {1,
       {adb_setting(0, 0, {{0x81, 2, 512}, {0x01, 2, 64}}),                   // sizes differ
        adb_setting(0, 1, {{0x81, 2, 512}, {0x82, 2, 512}, {0x01, 2, 512}}),  // two IN
        adb_setting(0, 2, {{0x81, 3, 512}, {0x01, 2, 512}}),                  // interrupt IN
        adb_setting(0, 3, {{0x86, 2, 512}, {0x06, 2, 512}})}});
  const auto choice = find_adb_interface(record);
  ASSERT_TRUE(choice);
  EXPECT_EQ(choice->alternate_setting, 3);
  EXPECT_EQ(choice->endpoint_in, 0x86);
}

TEST(FindAdbInterface, AcceptsUsbDebugClassAndRejectsFastboot) {
  UsbDeviceRecord record;
  record.active_configuration = 1;
  record.configurations.push_back(
      {1, {{0, 0, 0xff, 0x42, 0x03, {{0x81, 2, 512}, {0x01, 2, 512}}}}});  // fastboot
  EXPECT_FALSE(find_adb_interface(record));
  record.configurations.front().interfaces.push_back(
      {1, 0, 0xdc, 0x02, 0x01, {{0x82, 2, 1024}, {0x02, 2, 1024}}});
  const auto choice = find_adb_interface(record);
  ASSERT_TRUE(choice);
  EXPECT_EQ(choice->max_packet_size, 1024);
}

TEST(ListAdbDevices, ReportsAccessOfEachAdbDevice) {
  SimulatedBus bus;
  bus.plug({test::adb_phone_record(1, 5, "1-2"), "OPEN1", UsbStatus::ok, nullptr});
  auto locked = test::adb_phone_record(1, 6, "1-3.1");
  locked.serial_from_sysfs = "SYSFS2";
  bus.plug({locked, "SYSFS2", UsbStatus::access, nullptr});
  bus.plug({test::adb_phone_record(2, 3, "2-1"), "HELD3", UsbStatus::busy, nullptr});
  UsbDeviceRecord keyboard;
  keyboard.bus = 1;
  keyboard.address = 9;
  keyboard.configurations.push_back({1, {{0, 0, 0x03, 0x01, 0x01, {{0x81, 3, 8}}}}});
  bus.plug({keyboard, "", UsbStatus::ok, nullptr});

  detail::Failure failure;
  const auto devices = list_adb_devices(bus, failure);
  ASSERT_FALSE(failure) << failure.detail;
  ASSERT_EQ(devices.size(), 3u);
  EXPECT_EQ(devices[0].serial, "OPEN1");
  EXPECT_EQ(devices[0].access, UsbAccess::ok);
  EXPECT_EQ(devices[0].problem, "");
  EXPECT_EQ(devices[0].target(), "usb:OPEN1");
  EXPECT_EQ(devices[0].describe(), "18d1:4ee7 OPEN1 (bus 1, port 1-2)");

  EXPECT_EQ(devices[1].serial, "SYSFS2");
  EXPECT_EQ(devices[1].access, UsbAccess::permission_denied);
  EXPECT_NE(devices[1].problem.find("18d1:4ee7 (bus 1, port 1-3.1)"), std::string::npos);
  EXPECT_NE(devices[1].problem.find("udev/README.md"), std::string::npos);

  EXPECT_EQ(devices[2].access, UsbAccess::busy);
  EXPECT_NE(devices[2].problem.find("server:HELD3"), std::string::npos) << devices[2].problem;
}

TEST(ListAdbDevices, NoBusIsSaidPlainly) {
  SimulatedBus bus;
  bus.set_enumerate_status(UsbStatus::not_supported);
  detail::Failure failure;
  EXPECT_TRUE(list_adb_devices(bus, failure).empty());
  EXPECT_EQ(failure.code, errc::not_supported);
  EXPECT_EQ(failure.detail,
            "no USB bus visible (container/VM?): USB devices cannot be listed here");
}

TEST(DiffUsbLists, ReplugIsALeaveAndAnArrival) {
  UsbDevice a{"A", 0x18d1, 0x4ee7, 1, 5, "1-2", UsbAccess::ok, ""};
  UsbDevice b{"B", 0x18d1, 0x4ee7, 1, 6, "1-3", UsbAccess::ok, ""};
  UsbDevice a_again = a;
  a_again.address = 7;
  const auto changes = diff_usb_lists({a, b}, {b, a_again});
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0].change, UsbWatcher::Change::left);
  EXPECT_EQ(changes[0].device, a);
  EXPECT_EQ(changes[1].change, UsbWatcher::Change::arrived);
  EXPECT_EQ(changes[1].device, a_again);
  EXPECT_TRUE(diff_usb_lists({a, b}, {a, b}).empty());
}

// Records what a watcher reports; waits (up to 30 s, never as an assertion on speed).
struct Recorder {
  void operator()(UsbWatcher::Change change, const UsbDevice& device) {
    std::lock_guard lock(mutex);
    seen.push_back((change == UsbWatcher::Change::arrived ? "+" : "-") + device.serial);
    changed.notify_all();
  }
  bool wait_for(std::size_t count) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, 30s, [&] { return seen.size() >= count; });
  }
  std::vector<std::string> events() {
    std::lock_guard lock(mutex);
    return seen;
  }
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<std::string> seen;
};

void follow_phones(bool hotplug) {
  auto bus = std::make_shared<SimulatedBus>();
  bus->set_hotplug(hotplug);
  bus->plug({test::adb_phone_record(1, 5, "1-2"), "FIRST", UsbStatus::ok, nullptr});
  auto recorder = std::make_shared<Recorder>();
  detail::Failure failure;
  UsbWatcher::Options options;
  options.poll_interval = hotplug ? 60s : 20ms;  // with events, only they can wake it in time
  UsbWatcher watcher = UsbWatcherFactory::make(
      bus, [recorder](UsbWatcher::Change c, const UsbDevice& d) { (*recorder)(c, d); }, options,
      failure);
  ASSERT_FALSE(failure) << failure.detail;
  EXPECT_EQ(watcher.uses_hotplug_events(), hotplug);
  ASSERT_TRUE(recorder->wait_for(1));
  bus->plug({test::adb_phone_record(1, 6, "1-3"), "SECOND", UsbStatus::ok, nullptr});
  ASSERT_TRUE(recorder->wait_for(2));
  bus->unplug(1, 5);
  ASSERT_TRUE(recorder->wait_for(3));
  EXPECT_EQ(recorder->events(), (std::vector<std::string>{"+FIRST", "+SECOND", "-FIRST"}));
  const auto now = watcher.devices();
  ASSERT_EQ(now.size(), 1u);
  EXPECT_EQ(now[0].serial, "SECOND");
}

TEST(UsbWatcher, FollowsPhonesWithHotplugEvents) { follow_phones(true); }
TEST(UsbWatcher, FollowsPhonesByPollingWhereThereAreNoEvents) { follow_phones(false); }

// Polling must not open and claim phones it already knows as accessible: that is work on
// every reading, and one this process has since connected to would read as busy (and be
// reported as gone and back). A busy phone is probed again, so its release is seen.
TEST(UsbWatcher, PollingLeavesKnownPhonesAloneAndSeesABusyOneFreed) {
  auto bus = std::make_shared<SimulatedBus>();
  bus->set_hotplug(false);
  bus->plug({test::adb_phone_record(1, 5, "1-2"), "MINE", UsbStatus::ok, nullptr});
  bus->plug({test::adb_phone_record(1, 6, "1-3"), "SERVERS", UsbStatus::busy, nullptr});
  auto recorder = std::make_shared<Recorder>();
  detail::Failure failure;
  UsbWatcher::Options options;
  options.poll_interval = 10ms;
  UsbWatcher watcher = UsbWatcherFactory::make(
      bus, [recorder](UsbWatcher::Change c, const UsbDevice& d) { (*recorder)(c, d); }, options,
      failure);
  ASSERT_FALSE(failure) << failure.detail;
  ASSERT_TRUE(recorder->wait_for(2));
  // This process connects to MINE: opening it again would now fail as busy.
  bus->set_open_status(1, 5, UsbStatus::busy);
  // The adb server lets SERVERS go.
  bus->set_open_status(1, 6, UsbStatus::ok);
  ASSERT_TRUE(recorder->wait_for(4));
  // Let about 20 more readings pass: MINE must stay as it was, and is never opened again.
  const std::size_t probes = bus->probes();
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(bus->probes(), probes);
  EXPECT_EQ(recorder->events(),
            (std::vector<std::string>{"+MINE", "+SERVERS", "-SERVERS", "+SERVERS"}));
  for (const UsbDevice& device : watcher.devices())
    EXPECT_EQ(device.access, UsbAccess::ok) << device.describe();
}

TEST(UsbWatcher, NoBusFailsAtStart) {
  auto bus = std::make_shared<SimulatedBus>();
  bus->set_enumerate_status(UsbStatus::not_supported);
  detail::Failure failure;
  UsbWatcher watcher = UsbWatcherFactory::make(
      bus, [](UsbWatcher::Change, const UsbDevice&) {}, {}, failure);
  EXPECT_EQ(failure.code, errc::not_supported);
  EXPECT_TRUE(watcher.devices().empty());
}

// The public API on this machine's real USB stack: where no bus is visible (containers) it
// must say so with not_supported; with a bus it lists (possibly nothing).
TEST(ListUsbDevices, RealStackAnswersPlainly) {
  std::error_code error;
  const auto devices = list_usb_devices(error);
  if (error) {
    EXPECT_EQ(error, errc::not_supported);
    try {
      list_usb_devices();
      FAIL() << "the throwing form did not throw";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("no USB bus visible"), std::string::npos) << e.what();
    }
  } else {
    for (const auto& device : devices) EXPECT_NE(device.vendor_id, 0) << device.describe();
  }
}

}  // namespace
}  // namespace adbwire::transport
