// tshark's ADB dissector and adbwire's decoder agree, message for message, on every capture
// in captures/ and on every recording adbwire makes here: the host side of a connection
// (ConnectOptions::record), the device side (VirtualDeviceOptions::record) and a USB link.
#include <gtest/gtest.h>

#include <asio/io_context.hpp>
#include <filesystem>
#include <fstream>

#include "adbwire/capture.hpp"
#include "adbwire/device.hpp"
#include "adbwire/protocol/message.hpp"
#include "adbwire/testing/vdevice.hpp"
#include "integration/temp_dir.hpp"
#include "replay/tshark_check.hpp"
#include "transport/memory_pipe.hpp"
#include "transport/traffic_observer.hpp"

namespace adbwire {
namespace {

namespace fs = std::filesystem;
using replay_test::decode_both;
using replay_test::have_tshark;
using replay_test::kInstallTshark;

std::size_t total(const replay_test::MessageLines& lines) {
  std::size_t n = 0;
  for (const auto& [direction, list] : lines) n += list.size();
  return n;
}

void expect_agreement(const fs::path& file) {
  const replay_test::Views views = decode_both(file);
  ASSERT_EQ(views.problem, "") << file;
  EXPECT_GT(total(views.ours), 0u) << file;
  EXPECT_EQ(views.tshark, views.ours) << file << " (tshark" << views.decode_as << ")";
}

TEST(TsharkAgreement, EveryCaptureInCapturesFolder) {
  ASSERT_TRUE(have_tshark()) << kInstallTshark;
  std::size_t checked = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(ADBWIRE_SOURCE_DIR) / "captures")) {
    const std::string name = entry.path().filename().string();
    if (!name.ends_with(".pcapng") && !name.ends_with(".pcapng.zst") && !name.ends_with(".pcap"))
      continue;
    SCOPED_TRACE(name);
    expect_agreement(entry.path());
    ++checked;
  }
  // shell, exec-out, pull, push, screencap, auth (captures/README.md).
  EXPECT_GE(checked, 6u);
}

TEST(TsharkAgreement, HostAndDeviceRecordingsOfOneSession) {
  ASSERT_TRUE(have_tshark()) << kInstallTshark;
  test::TempDir work;
  VirtualDeviceOptions device_options;
  device_options.record = work.path() / "device.pcapng";
  VirtualDevice device(device_options);
  device.start();
  std::ofstream(device.root() / "sdcard" / "big.bin") << std::string(300000, 'x');
  ConnectOptions options;
  options.keys.android_dir = work.path() / "keys";
  options.record = work.path() / "host.pcapng";
  {
    Device live = Device::connect(device.target(), options);
    EXPECT_EQ(live.shell("echo both sides").out, "both sides\n");
    EXPECT_EQ(live.exec("cat /sdcard/big.bin").size(), 300000u);
  }
  device.stop();
  expect_agreement(options.record);
  expect_agreement(device_options.record);
  // Both ends recorded the same messages.
  EXPECT_EQ(decode_both(options.record).ours, decode_both(device_options.record).ours);
}

TEST(TsharkAgreement, UsbRecording) {
  ASSERT_TRUE(have_tshark()) << kInstallTshark;
  test::TempDir work;
  const fs::path file = work.path() / "usb.pcapng";
  asio::io_context io;
  auto [host_end, device_end] = transport::make_memory_pipe(io, io, "pipe");
  CaptureWriterOptions link;
  link.link = CaptureLink::usb;
  detail::Failure failure;
  auto observer = transport::record_to_file(file, link, failure);
  ASSERT_TRUE(observer) << failure.detail;
  auto host = transport::observe(std::move(host_end), observer);
  observer.reset();

  using namespace protocol;
  auto message = [](std::uint32_t command, std::uint32_t arg0, std::uint32_t arg1,
                    const std::string& payload) {
    std::vector<std::uint8_t> bytes;
    append_message(bytes, command, arg0, arg1,
                   std::span(reinterpret_cast<const std::uint8_t*>(payload.data()), payload.size()),
                   false);
    return bytes;
  };
  std::vector<std::uint8_t> from_host = message(kCommandCnxn, kVersion, kMaxPayload, "host::");
  const auto open = message(kCommandOpen, 7, 0, std::string("exec:cat x") + '\0');
  from_host.insert(from_host.end(), open.begin(), open.end());
  std::vector<std::uint8_t> from_device = message(kCommandCnxn, kVersion, kMaxPayload, "device::");
  for (const auto& piece :
       {message(kCommandOkay, 1, 7, ""), message(kCommandWrte, 1, 7, std::string(70000, 'y')),
        message(kCommandClse, 1, 7, "")}) {
    from_device.insert(from_device.end(), piece.begin(), piece.end());
  }

  bool wrote = false;
  host->async_write(from_host, [&](const std::error_code& error, std::size_t) { wrote = !error; });
  device_end->async_write(from_device, [](const std::error_code&, std::size_t) {});
  std::vector<std::uint8_t> buffer(4096);
  std::size_t received = 0;
  std::function<void(const std::error_code&, std::size_t)> on_read =
      [&](const std::error_code& error, std::size_t n) {
        if (error) return;
        received += n;
        if (received < from_device.size()) host->async_read_some(buffer, on_read);
      };
  host->async_read_some(buffer, on_read);
  while ((!wrote || received < from_device.size()) && io.run_one() > 0) {
  }
  ASSERT_TRUE(wrote);
  ASSERT_EQ(received, from_device.size());
  host.reset();  // ends the recording

  const replay_test::Views views = decode_both(file);
  ASSERT_EQ(views.problem, "");
  EXPECT_EQ(views.ours.at(CaptureDirection::host_to_device).size(), 2u);
  EXPECT_EQ(views.ours.at(CaptureDirection::device_to_host).size(), 4u);
  EXPECT_EQ(views.tshark, views.ours) << "tshark" << views.decode_as;
}

}  // namespace
}  // namespace adbwire
