// The whole host stack over USB without hardware: Device → connection runtime →
// UsbTransport → simulated bulk pipe → an adbd-like device that enforces adbd's USB framing.
#include "transport/usb_transport.hpp"

#include <gtest/gtest.h>

#include <future>
#include <string>
#include <vector>

#include "adbwire/device.hpp"
#include "adbwire/error.hpp"
#include "connection/connection.hpp"
#include "unit/transport/simulated_usb.hpp"

namespace adbwire::transport {
namespace {

using namespace std::chrono_literals;
using test::SimulatedAdbd;
using test::SimulatedBus;
using test::SimulatedDevice;
using test::SimulatedWire;

ConnectOptions options() {
  ConnectOptions options;
  options.connect_timeout = 20s;
  options.command_timeout = 60s;
  return options;
}

struct UsbRig {
  explicit UsbRig(std::uint16_t packet = 512)
      : bus(std::make_shared<SimulatedBus>()), wire(std::make_shared<SimulatedWire>(packet)) {
    bus->plug({test::adb_phone_record(1, 5, "1-2", packet), "PHONE1", UsbStatus::ok, wire});
  }

  Device connect(std::error_code& error) {
    detail::Failure failure;
    std::shared_ptr<connection::Connection> connection;
    if (auto usb = UsbConnector::find(bus, "PHONE1", failure)) {
      connection =
          connection::Connection::establish(*usb, usb->target(), usb->serial(), options(), failure);
    }
    error = failure.code;
    detail_ = failure.detail;
    return Device(std::move(connection), options().command_timeout);
  }

  Device connect() {
    std::error_code error;
    Device device = connect(error);
    if (error) throw Error(error, detail_);
    return device;
  }

  std::shared_ptr<SimulatedBus> bus;
  std::shared_ptr<SimulatedWire> wire;
  SimulatedAdbd adbd{wire};
  std::string detail_;
};

bool has_zlp_after(const std::vector<std::size_t>& transfers, std::size_t size) {
  for (std::size_t i = 0; i + 1 < transfers.size(); ++i) {
    if (transfers[i] == size && transfers[i + 1] == 0) return true;
  }
  return false;
}

TEST(UsbTransport, HandshakeAndExecOverTheSimulatedPipe) {
  UsbRig rig;
  Device device = rig.connect();
  EXPECT_EQ(device.serial(), "PHONE1");
  EXPECT_EQ(device.connection_info().target, "usb:PHONE1");
  EXPECT_EQ(device.banner().property("ro.product.model"), "SimulatedUsb");
  EXPECT_EQ(device.exec("echo hello over usb"), "hello over usb");
  EXPECT_EQ(rig.adbd.framing_error(), "");
}

TEST(UsbTransport, HostPayloadOfWholePacketsReachesAdbdThanksToTheZlp) {
  UsbRig rig;
  Device device = rig.connect();
  const std::string text(501, 'z');  // OPEN payload "exec:echo " + 501 + NUL = 512 bytes
  EXPECT_EQ(device.exec("echo " + text), text);
  EXPECT_TRUE(has_zlp_after(rig.wire->out_transfers(), 512));
  EXPECT_EQ(rig.adbd.framing_error(), "");
}

TEST(UsbTransport, LargeOutputOfWholePacketsStreamsInOrder) {
  UsbRig rig;
  Device device = rig.connect();
  constexpr std::size_t kSize = 3 * 64 * 1024;
  const std::string out = device.exec("source " + std::to_string(kSize));
  ASSERT_EQ(out.size(), kSize);
  for (std::size_t i = 0; i < kSize; ++i) {
    ASSERT_EQ(static_cast<std::uint8_t>(out[i]), test::source_byte(i)) << i;
  }
}

TEST(UsbTransport, FullSpeedDeviceWith64BytePackets) {
  UsbRig rig(64);
  Device device = rig.connect();
  EXPECT_EQ(device.exec("echo " + std::string(117, 'q')), std::string(117, 'q'));  // 128 payload
  EXPECT_TRUE(has_zlp_after(rig.wire->out_transfers(), 128));
  EXPECT_EQ(rig.adbd.framing_error(), "");
}

TEST(UsbTransport, VanishedDeviceFailsEveryWaitingCallAtOnce) {
  UsbRig rig;
  Device device = rig.connect();
  const Deadline far = deadline_after(120s);
  auto exec = std::async(std::launch::async, [&] {
    std::error_code error;
    device.exec("wait", far, error);
    return error;
  });
  Stream stream = device.open("exec:wait", far);
  auto read = std::async(std::launch::async, [&] {
    std::error_code error;
    std::uint8_t byte = 0;
    stream.read_some(std::span(&byte, 1), far, error);
    return error;
  });
  ASSERT_TRUE(rig.adbd.wait_waiting_streams(2));
  rig.wire->vanish();
  EXPECT_EQ(exec.get(), errc::device_offline);
  EXPECT_EQ(read.get(), errc::device_offline);
  std::error_code later;
  device.exec("echo again", far, later);
  EXPECT_EQ(later, errc::device_offline);
}

TEST(UsbTransport, VanishedDeviceMessageSaysWhatHappened) {
  UsbRig rig;
  Device device = rig.connect();
  rig.wire->vanish();
  try {
    device.exec("echo x", deadline_after(60s));
    FAIL() << "exec succeeded on a vanished device";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), errc::device_offline);
    EXPECT_NE(std::string(error.what()).find("disappeared"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("usb:PHONE1"), std::string::npos) << error.what();
  }
}

TEST(UsbTransport, StallAtTheFirstTransferIsRecoveredTransparently) {
  UsbRig rig;
  rig.wire->stall_out(0, 1);
  Device device = rig.connect();
  EXPECT_EQ(device.exec("echo after a halt"), "after a halt");
  EXPECT_EQ(rig.wire->clear_halts(), 1);
  EXPECT_EQ(rig.wire->resets(), 0);
}

TEST(UsbTransport, UnrecoverableStallFailsTheCallClearly) {
  UsbRig rig;
  Device device = rig.connect();
  rig.wire->stall_out(2, 1);  // the OPEN header and one payload packet pass, then a halt
  std::error_code error;
  device.exec("echo " + std::string(2000, 'x'), deadline_after(60s), error);
  EXPECT_EQ(error, errc::device_offline);
  EXPECT_EQ(rig.wire->resets(), 1);
}

TEST(UsbTransport, SeveralPhonesInOneProcessEachWithItsOwnConnection) {
  auto bus = std::make_shared<SimulatedBus>();
  auto wire_a = std::make_shared<SimulatedWire>(512);
  auto wire_b = std::make_shared<SimulatedWire>(64);
  bus->plug({test::adb_phone_record(1, 5, "1-1"), "RIG-A", UsbStatus::ok, wire_a});
  bus->plug({test::adb_phone_record(1, 6, "1-2", 64), "RIG-B", UsbStatus::ok, wire_b});
  SimulatedAdbd adbd_a(wire_a);
  SimulatedAdbd adbd_b(wire_b);
  auto connect = [&](const std::string& serial) {
    detail::Failure failure;
    auto usb = UsbConnector::find(bus, serial, failure);
    EXPECT_TRUE(usb) << failure.detail;
    auto connection =
        connection::Connection::establish(*usb, usb->target(), usb->serial(), options(), failure);
    failure.throw_if_failed();
    return Device(std::move(connection), options().command_timeout);
  };
  Device a = connect("RIG-A");
  Device b = connect("RIG-B");
  auto on_a = std::async(std::launch::async, [&] { return a.exec("echo from a"); });
  auto on_b = std::async(std::launch::async, [&] { return b.exec("echo from b"); });
  EXPECT_EQ(on_a.get(), "from a");
  EXPECT_EQ(on_b.get(), "from b");
  wire_a->vanish();
  std::error_code error;
  a.exec("echo gone", deadline_after(60s), error);
  EXPECT_EQ(error, errc::device_offline);
  EXPECT_EQ(b.exec("echo still here"), "still here");  // one phone's loss is its own
}

TEST(UsbConnector, ClaimFailuresNameTheDeviceAndTheWayOut) {
  auto bus = std::make_shared<SimulatedBus>();
  bus->plug({test::adb_phone_record(3, 9, "3-1.4"), "HELD", UsbStatus::busy, nullptr});
  detail::Failure failure;
  auto usb = UsbConnector::find(bus, "", failure);
  ASSERT_TRUE(usb) << failure.detail;
  asio::io_context io;
  EXPECT_EQ((*usb)(io, deadline_after(1s), failure), nullptr);
  EXPECT_EQ(failure.code, errc::busy);
  EXPECT_NE(failure.detail.find("adb server"), std::string::npos) << failure.detail;
  EXPECT_NE(failure.detail.find("server:HELD"), std::string::npos) << failure.detail;
  EXPECT_NE(failure.detail.find("18d1:4ee7 (bus 3, port 3-1.4)"), std::string::npos);
}

TEST(UsbConnector, PermissionDeniedPointsToTheUdevReadme) {
  auto bus = std::make_shared<SimulatedBus>();
  auto record = test::adb_phone_record(1, 7, "1-3");
  record.serial_from_sysfs = "LOCKED";
  bus->plug({record, "LOCKED", UsbStatus::access, nullptr});
  detail::Failure failure;
  auto usb = UsbConnector::find(bus, "LOCKED", failure);
  ASSERT_TRUE(usb) << failure.detail;  // sysfs gave the serial without opening the node
  asio::io_context io;
  EXPECT_EQ((*usb)(io, deadline_after(1s), failure), nullptr);
  EXPECT_EQ(failure.code, errc::permission_denied);
  EXPECT_NE(failure.detail.find("udev/README.md"), std::string::npos) << failure.detail;
  EXPECT_NE(failure.detail.find("18d1:4ee7 (bus 1, port 1-3)"), std::string::npos);
}

TEST(UsbConnector, UnreadableSerialBehindPermissionsIsReportedAsSuch) {
  auto bus = std::make_shared<SimulatedBus>();
  bus->plug({test::adb_phone_record(1, 7, "1-3"), "HIDDEN", UsbStatus::access, nullptr});
  detail::Failure failure;
  EXPECT_FALSE(UsbConnector::find(bus, "HIDDEN", failure));
  EXPECT_EQ(failure.code, errc::permission_denied);
  EXPECT_NE(failure.detail.find("udev/README.md"), std::string::npos) << failure.detail;
}

TEST(UsbConnector, ChoosesBySerialAndExplainsWhatItSaw) {
  auto bus = std::make_shared<SimulatedBus>();
  bus->plug({test::adb_phone_record(1, 5, "1-2"), "AAA", UsbStatus::ok, nullptr});
  bus->plug({test::adb_phone_record(1, 6, "1-3"), "BBB", UsbStatus::ok, nullptr});
  detail::Failure failure;
  auto usb = UsbConnector::find(bus, "BBB", failure);
  ASSERT_TRUE(usb);
  EXPECT_EQ(usb->target(), "usb:BBB");

  detail::Failure ambiguous;
  EXPECT_FALSE(UsbConnector::find(bus, "", ambiguous));
  EXPECT_EQ(ambiguous.code, errc::invalid_argument);
  EXPECT_NE(ambiguous.detail.find("AAA, BBB"), std::string::npos) << ambiguous.detail;

  detail::Failure missing;
  EXPECT_FALSE(UsbConnector::find(bus, "CCC", missing));
  EXPECT_EQ(missing.code, errc::not_found);
  EXPECT_NE(missing.detail.find("seen: AAA, BBB"), std::string::npos) << missing.detail;
}

TEST(UsbConnector, EmptyBusAndNoBus) {
  auto bus = std::make_shared<SimulatedBus>();
  detail::Failure none;
  EXPECT_FALSE(UsbConnector::find(bus, "", none));
  EXPECT_EQ(none.code, errc::not_found);
  EXPECT_NE(none.detail.find("USB debugging"), std::string::npos) << none.detail;

  bus->set_enumerate_status(UsbStatus::not_supported);
  detail::Failure no_bus;
  EXPECT_FALSE(UsbConnector::find(bus, "", no_bus));
  EXPECT_EQ(no_bus.code, errc::not_supported);
  EXPECT_NE(no_bus.detail.find("no USB bus visible"), std::string::npos) << no_bus.detail;
}

// Device::connect("usb:…") goes through the real libusb backend. Here (a container without a
// USB bus) that must fail plainly, never hang or crash; on a machine with a bus but no phone
// it is not_found. Either way the message says what to do.
TEST(UsbTarget, DeviceConnectAnswersPlainlyWithoutAPhone) {
  std::error_code error;
  Device::connect("usb:NO-SUCH-SERIAL-adbwire", options(), error);
  EXPECT_TRUE(error == errc::not_supported || error == errc::not_found) << error.message();
  try {
    Device::connect("usb:NO-SUCH-SERIAL-adbwire", options());
    FAIL() << "connected to a device that does not exist";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_TRUE(what.find("no USB bus visible") != std::string::npos ||
                what.find("NO-SUCH-SERIAL-adbwire") != std::string::npos)
        << what;
  }
}

}  // namespace
}  // namespace adbwire::transport
