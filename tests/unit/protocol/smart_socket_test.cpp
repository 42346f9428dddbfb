#include "adbwire/protocol/smart_socket.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace adbwire::protocol {
namespace {

using test::bytes;
using Result = SmartReplyReader::Result;

TEST(SmartSocket, RequestIsFourLowercaseHexDigitsThenTheService) {
  std::vector<std::uint8_t> out;
  ASSERT_FALSE(append_smart_request(out, "host:version"));
  EXPECT_EQ(test::text(out), "000chost:version");
  out.clear();
  ASSERT_FALSE(append_smart_request(out, std::string(0xabc, 'x')));
  EXPECT_EQ(test::text(out).substr(0, 4), "0abc");
  EXPECT_EQ(out.size(), 4u + 0xabc);
}

TEST(SmartSocket, EmptyOrOversizeRequestsAreRefusedWithoutOutput) {
  std::vector<std::uint8_t> out;
  EXPECT_EQ(append_smart_request(out, ""), errc::invalid_argument);
  EXPECT_EQ(append_smart_request(out, std::string(kMaxSmartString + 1, 'x')),
            errc::invalid_argument);
  EXPECT_TRUE(out.empty());
  EXPECT_FALSE(append_smart_request(out, std::string(kMaxSmartString, 'x')));
  EXPECT_EQ(test::text(out).substr(0, 4), "ffff");
}

// The server's side: what AOSP's server writes (SendOkay, SendFail, SendProtocolString).
TEST(SmartSocket, ServerRepliesAreOkayFailAndHexStrings) {
  std::vector<std::uint8_t> out;
  append_smart_okay(out);
  append_smart_string(out, "0029");
  append_smart_fail(out, "device 'x' not found");
  append_smart_okay(out);
  append_transport_id(out, 0x0100000000000007u);
  EXPECT_EQ(test::text(out), std::string("OKAY00040029FAIL0014device 'x' not foundOKAY") +
                                 std::string("\x07\x00\x00\x00\x00\x00\x00\x01", 8));
  out.clear();
  append_smart_string(out, std::string(kMaxSmartString + 10, 'x'));
  EXPECT_EQ(out.size(), 4u + kMaxSmartString) << "cut to what four hex digits can say";
  EXPECT_EQ(test::text(out).substr(0, 4), "ffff");
}

// What a client sends, read back by a server fed it in every cut (the chainsaw), with the
// stream's first bytes left unread after the request that switched to it.
TEST(SmartSocket, RequestsReadTheSameWhateverTheCuts) {
  std::vector<std::uint8_t> wire;
  ASSERT_FALSE(append_smart_request(wire, "host:tport:serial:127.0.0.1:5555"));
  ASSERT_FALSE(append_smart_request(wire, "shell,v2,raw:echo hi"));
  const std::string stream_bytes("\x00\x01stdin", 7);
  wire.insert(wire.end(), stream_bytes.begin(), stream_bytes.end());
  for (std::size_t chunk = 1; chunk <= wire.size(); ++chunk) {
    SmartRequestReader reader;
    std::vector<std::string> seen;
    for (std::size_t at = 0; at < wire.size(); at += chunk) {
      reader.feed(std::span(wire).subspan(at, std::min(chunk, wire.size() - at)));
      std::string request;
      while (seen.size() < 2 && reader.next(request) == SmartRequestReader::Result::ready)
        seen.push_back(request);
    }
    ASSERT_EQ(seen.size(), 2u) << chunk;
    EXPECT_EQ(seen[0], "host:tport:serial:127.0.0.1:5555");
    EXPECT_EQ(seen[1], "shell,v2,raw:echo hi");
    EXPECT_EQ(test::text(std::vector<std::uint8_t>(reader.unread().begin(), reader.unread().end())),
              stream_bytes)
        << chunk;
    reader.clear_unread();
    EXPECT_TRUE(reader.unread().empty());
  }
}

TEST(SmartSocket, BadRequestLengthsAreProtocolErrorsThatStick) {
  for (const std::string wire :
       {std::string("zz12host:version"), std::string("0000"), std::string("-001x")}) {
    SmartRequestReader reader;
    reader.feed(bytes(wire));
    std::string request;
    EXPECT_EQ(reader.next(request), SmartRequestReader::Result::failed) << wire;
    EXPECT_FALSE(reader.error_detail().empty());
    reader.feed(bytes("000chost:version"));
    EXPECT_EQ(reader.next(request), SmartRequestReader::Result::failed) << "stays failed";
  }
  SmartRequestReader uppercase;
  uppercase.feed(bytes("000Chost:version"));
  std::string request;
  EXPECT_EQ(uppercase.next(request), SmartRequestReader::Result::ready);
  EXPECT_EQ(request, "host:version");
  SmartRequestReader partial;
  partial.feed(bytes("000chost:ver"));
  EXPECT_EQ(partial.next(request), SmartRequestReader::Result::need_more);
  EXPECT_EQ(partial.unread().size(), 12u) << "nothing consumed while incomplete";
}

TEST(SmartSocket, VersionReplyIsOkayThenAHexString) {
  SmartReplyReader reader;
  reader.feed(bytes("OKAY00040029"));
  SmartStatus status;
  ASSERT_EQ(reader.read_status(status), Result::ready);
  EXPECT_TRUE(status.okay);
  std::string text;
  ASSERT_EQ(reader.read_string(text), Result::ready);
  EXPECT_EQ(text, "0029");
  EXPECT_EQ(reader.buffered(), 0u);
}

TEST(SmartSocket, FailCarriesTheServersMessage) {
  SmartReplyReader reader;
  reader.feed(bytes("FAIL0017device 'nope' not found"));
  SmartStatus status{true, {}};
  ASSERT_EQ(reader.read_status(status), Result::ready);
  EXPECT_FALSE(status.okay);
  EXPECT_EQ(status.message, "device 'nope' not found");
  EXPECT_EQ(classify_failure(status.message), errc::not_found);
}

TEST(SmartSocket, UppercaseHexLengthsAreAccepted) {
  SmartReplyReader reader;
  reader.feed(bytes("000A0123456789"));
  std::string text;
  ASSERT_EQ(reader.read_string(text), Result::ready);
  EXPECT_EQ(text, "0123456789");
}

// AOSP's chainsaw habit: the same reply cut at every size must read the same.
TEST(SmartSocket, RepliesSplitAnywhereReadTheSame) {
  const std::string wire = std::string("OKAY") + "OKAY" + "0005" + "40123" +
                           std::string("\x07\x00\x00\x00\x00\x00\x00\x01", 8) + "FAIL0003bad" +
                           "raw bytes";
  for (std::size_t chunk = 1; chunk <= wire.size(); ++chunk) {
    SmartReplyReader reader;
    std::size_t fed = 0;
    auto pull = [&](auto read) {
      for (;;) {
        const Result result = read();
        if (result != Result::need_more) return result;
        if (fed >= wire.size()) return Result::need_more;
        const std::size_t n = std::min(chunk, wire.size() - fed);
        reader.feed(bytes(std::string_view(wire).substr(fed, n)));
        fed += n;
      }
    };
    SmartStatus first, second, third;
    std::string port;
    std::uint64_t id = 0;
    ASSERT_EQ(pull([&] { return reader.read_status(first); }), Result::ready) << chunk;
    ASSERT_EQ(pull([&] { return reader.read_status(second); }), Result::ready) << chunk;
    ASSERT_EQ(pull([&] { return reader.read_string(port); }), Result::ready) << chunk;
    ASSERT_EQ(pull([&] { return reader.read_transport_id(id); }), Result::ready) << chunk;
    ASSERT_EQ(pull([&] { return reader.read_status(third); }), Result::ready) << chunk;
    EXPECT_TRUE(first.okay && second.okay);
    EXPECT_EQ(port, "40123");
    EXPECT_EQ(id, 0x0100000000000007u);
    EXPECT_FALSE(third.okay);
    EXPECT_EQ(third.message, "bad");
    std::string rest = test::text(reader.take_remaining());
    rest += wire.substr(fed);
    EXPECT_EQ(rest, "raw bytes") << chunk;
    EXPECT_EQ(reader.buffered(), 0u);
  }
}

TEST(SmartSocket, IncompleteItemsWaitWithoutConsuming) {
  SmartReplyReader reader;
  reader.feed(bytes("FAIL000"));
  SmartStatus status;
  EXPECT_EQ(reader.read_status(status), Result::need_more);
  reader.feed(bytes("5ab"));
  EXPECT_EQ(reader.read_status(status), Result::need_more);
  EXPECT_EQ(reader.buffered(), 10u);
  reader.feed(bytes("cde"));
  ASSERT_EQ(reader.read_status(status), Result::ready);
  EXPECT_EQ(status.message, "abcde");
}

TEST(SmartSocket, AnythingButOkayOrFailIsAProtocolErrorThatSticks) {
  SmartReplyReader reader;
  reader.feed(bytes("HTTP/1.1 200 OK"));
  SmartStatus status;
  EXPECT_EQ(reader.read_status(status), Result::failed);
  EXPECT_NE(reader.error_detail().find("'HTTP'"), std::string::npos) << reader.error_detail();
  reader.feed(bytes("OKAY"));
  EXPECT_EQ(reader.read_status(status), Result::failed);
}

TEST(SmartSocket, NonHexLengthsAreProtocolErrors) {
  SmartReplyReader strings;
  strings.feed(bytes("00g1x"));
  std::string text;
  EXPECT_EQ(strings.read_string(text), Result::failed);
  EXPECT_NE(strings.error_detail().find("00g1"), std::string::npos);

  SmartReplyReader fails;
  fails.feed(bytes(std::string_view("FAIL\x01\x02zz", 8)));
  SmartStatus status;
  EXPECT_EQ(fails.read_status(status), Result::failed);
  EXPECT_NE(fails.error_detail().find("\\x01\\x02zz"), std::string::npos) << fails.error_detail();
}

TEST(SmartSocket, FailureMessagesMapToErrorCodes) {
  EXPECT_EQ(classify_failure("no devices/emulators found"), errc::not_found);
  EXPECT_EQ(classify_failure("no such device '1.2.3.4:5'"), errc::not_found);
  EXPECT_EQ(classify_failure("device offline"), errc::device_offline);
  EXPECT_EQ(classify_failure("device still connecting"), errc::device_offline);
  EXPECT_EQ(classify_failure("device unauthorized.\nThis adb server's $ADB_VENDOR_KEYS is not set"),
            errc::unauthorized);
  EXPECT_EQ(classify_failure("more than one device/emulator"), errc::invalid_argument);
  EXPECT_EQ(classify_failure("unknown host service"), errc::not_supported);
  EXPECT_EQ(classify_failure("cannot bind listener: Address already in use"), errc::command_failed);
}

TEST(SmartSocket, ShortDeviceListIsSerialTabState) {
  std::vector<DeviceEntry> list;
  std::string detail;
  ASSERT_FALSE(
      parse_device_list("emulator-5554\tdevice\n127.0.0.1:5555\toffline\n"
                        "R58M\tunauthorized\nX\tno permissions (user in plugdev group; "
                        "are your udev rules wrong?); see [http://d.android.com]\n",
                        list, detail))
      << detail;
  ASSERT_EQ(list.size(), 4u);
  EXPECT_EQ(list[0].serial, "emulator-5554");
  EXPECT_EQ(list[0].state, DeviceState::device);
  EXPECT_EQ(list[1].serial, "127.0.0.1:5555");
  EXPECT_EQ(list[1].state, DeviceState::offline);
  EXPECT_EQ(list[2].state, DeviceState::unauthorized);
  EXPECT_EQ(list[3].state, DeviceState::no_permissions);
  EXPECT_EQ(list[3].state_text.substr(0, 16), "no permissions (");
  EXPECT_FALSE(list[0].transport_id);
}

TEST(SmartSocket, LongDeviceListKeepsEveryField) {
  std::vector<DeviceEntry> list;
  std::string detail;
  ASSERT_FALSE(parse_device_list(
      "127.0.0.1:40123        device product:sdk_phone model:Virtual device:vdev transport_id:1\n"
      "R58M12345             device usb:1-1.2 product:a52 model:SM_A525F device:a52q "
      "transport_id:17\n"
      "ZX1                   no permissions (missing udev rules? user is in the plugdev group); "
      "see [http://developer.android.com/tools/device.html] usb:3-1 transport_id:4\n"
      "emulator-5554          recovery transport_id:2\n",
      list, detail))
      << detail;
  ASSERT_EQ(list.size(), 4u);
  EXPECT_EQ(list[0].serial, "127.0.0.1:40123");
  EXPECT_EQ(list[0].state, DeviceState::device);
  EXPECT_EQ(list[0].product, "sdk_phone");
  EXPECT_EQ(list[0].model, "Virtual");
  EXPECT_EQ(list[0].device, "vdev");
  EXPECT_EQ(list[0].transport_id, 1u);
  EXPECT_EQ(list[1].devpath, "usb:1-1.2");
  EXPECT_EQ(list[1].model, "SM_A525F");
  EXPECT_EQ(list[1].transport_id, 17u);
  EXPECT_EQ(list[2].state, DeviceState::no_permissions);
  EXPECT_TRUE(list[2].state_text.ends_with("device.html]")) << list[2].state_text;
  EXPECT_EQ(list[2].devpath, "usb:3-1");
  EXPECT_EQ(list[2].transport_id, 4u);
  EXPECT_EQ(list[3].state, DeviceState::recovery);
  EXPECT_TRUE(list[3].product.empty());
}

TEST(SmartSocket, DeviceListsFormatBackToWhatTheyParsedFrom) {
  const std::string long_list =
      "127.0.0.1:40123        device product:sdk_phone model:Virtual device:vdev transport_id:1\n"
      "R58M12345              sideload usb:1-1 transport_id:17\n";
  std::vector<DeviceEntry> list;
  std::string detail;
  ASSERT_FALSE(parse_device_list(long_list, list, detail));
  EXPECT_EQ(format_device_list(list, true), long_list);
  EXPECT_EQ(format_device_list(list, false), "127.0.0.1:40123\tdevice\nR58M12345\tsideload\n");
}

TEST(SmartSocket, BadDeviceLinesAreParseErrorsNamingTheLine) {
  for (const char* text : {"lonely-serial\n", "S device transport_id:x1\n", "S\t\n"}) {
    std::vector<DeviceEntry> list;
    std::string detail;
    EXPECT_EQ(parse_device_list(text, list, detail), errc::parse_error) << text;
    EXPECT_NE(detail.find("bad device list line"), std::string::npos) << detail;
  }
}

TEST(SmartSocket, StateNamesMatchAosp) {
  EXPECT_EQ(device_state_name(DeviceState::device), "device");
  EXPECT_EQ(device_state_name(DeviceState::unauthorized), "unauthorized");
  EXPECT_EQ(device_state_name(DeviceState::no_permissions), "no permissions");
  std::vector<DeviceEntry> list;
  std::string detail;
  ASSERT_FALSE(parse_device_list("a\tdetached\nb\tweird\n", list, detail));
  EXPECT_EQ(list[0].state, DeviceState::detached);
  EXPECT_EQ(list[1].state, DeviceState::unknown);
  EXPECT_EQ(list[1].state_text, "weird");
}

TEST(SmartSocket, DiffReportsRemovalsAdditionsAndStateChanges) {
  std::vector<DeviceEntry> before, after;
  std::string detail;
  ASSERT_FALSE(parse_device_list("a\tdevice\nb\toffline\nc\tdevice\n", before, detail));
  ASSERT_FALSE(parse_device_list("b\tdevice\nc\tdevice\nd\tunauthorized\n", after, detail));
  const auto changes = diff_device_lists(before, after);
  ASSERT_EQ(changes.size(), 3u);
  EXPECT_EQ(changes[0].kind, DeviceChange::Kind::removed);
  EXPECT_EQ(changes[0].entry.serial, "a");
  EXPECT_EQ(changes[0].previous_state, DeviceState::device);
  EXPECT_EQ(changes[1].kind, DeviceChange::Kind::state_changed);
  EXPECT_EQ(changes[1].entry.serial, "b");
  EXPECT_EQ(changes[1].previous_state, DeviceState::offline);
  EXPECT_EQ(changes[1].entry.state, DeviceState::device);
  EXPECT_EQ(changes[2].kind, DeviceChange::Kind::added);
  EXPECT_EQ(changes[2].entry.serial, "d");
  EXPECT_TRUE(diff_device_lists(after, after).empty());
}

TEST(SmartSocket, TrackStreamYieldsOneUpdatePerListWhateverTheCuts) {
  const std::string wire = std::string("OKAY") + "0000" + "0017127.0.0.1:5555\toffline\n" +
                           "0016127.0.0.1:5555\tdevice\n" + "0000";
  for (std::size_t chunk = 1; chunk <= wire.size(); ++chunk) {
    DeviceTrackReader reader;
    std::vector<DeviceListUpdate> updates;
    for (std::size_t at = 0; at < wire.size(); at += chunk) {
      ASSERT_FALSE(reader.feed(bytes(std::string_view(wire).substr(at, chunk)), updates))
          << reader.error_detail();
    }
    ASSERT_EQ(updates.size(), 4u) << chunk;
    EXPECT_TRUE(updates[0].devices.empty());
    EXPECT_TRUE(updates[0].changes.empty());
    ASSERT_EQ(updates[1].changes.size(), 1u);
    EXPECT_EQ(updates[1].changes[0].kind, DeviceChange::Kind::added);
    EXPECT_EQ(updates[1].changes[0].entry.state, DeviceState::offline);
    ASSERT_EQ(updates[2].changes.size(), 1u);
    EXPECT_EQ(updates[2].changes[0].kind, DeviceChange::Kind::state_changed);
    EXPECT_EQ(updates[2].changes[0].entry.state, DeviceState::device);
    ASSERT_EQ(updates[3].changes.size(), 1u);
    EXPECT_EQ(updates[3].changes[0].kind, DeviceChange::Kind::removed);
    EXPECT_EQ(updates[3].changes[0].entry.serial, "127.0.0.1:5555");
  }
}

TEST(SmartSocket, TrackStreamFailAndGarbageAreErrorsThatStick) {
  DeviceTrackReader refused;
  std::vector<DeviceListUpdate> updates;
  EXPECT_EQ(refused.feed(bytes("FAIL0014unknown host service"), updates), errc::not_supported);
  EXPECT_EQ(refused.error_detail(), "unknown host service");
  EXPECT_EQ(refused.feed(bytes("0000"), updates), errc::not_supported);

  DeviceTrackReader garbage;
  EXPECT_EQ(garbage.feed(bytes("OKAY0000zzzz"), updates), errc::protocol_error);
  EXPECT_EQ(updates.size(), 1u);

  DeviceTrackReader bad_list;
  EXPECT_EQ(bad_list.feed(bytes("OKAY0006alone\n"), updates), errc::parse_error);
}

TEST(SmartSocket, ForwardListIsSerialLocalRemote) {
  std::vector<ForwardEntry> list;
  std::string detail;
  ASSERT_FALSE(
      parse_forward_list("127.0.0.1:5555 tcp:40000 tcp:8080\nR58M tcp:6100 "
                         "localabstract:chrome_devtools_remote\n",
                         list, detail));
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0], (ForwardEntry{"127.0.0.1:5555", "tcp:40000", "tcp:8080"}));
  EXPECT_EQ(list[1].remote, "localabstract:chrome_devtools_remote");
  EXPECT_EQ(parse_forward_list("only two\n", list, detail), errc::parse_error);
  EXPECT_NE(detail.find("only two"), std::string::npos);
}

}  // namespace
}  // namespace adbwire::protocol
