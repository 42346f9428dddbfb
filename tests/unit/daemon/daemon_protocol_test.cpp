#include "daemon/daemon_protocol.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "adbwire/error.hpp"
#include "daemon/session_spec.hpp"

namespace adbwire::daemon {
namespace {

using Result = FrameReader::Result;

std::string text(const std::vector<std::uint8_t>& bytes) { return {bytes.begin(), bytes.end()}; }

std::span<const std::uint8_t> bytes(std::string_view text) {
  return {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}

struct Seen {
  FrameKind kind;
  std::string payload;
  bool operator==(const Seen&) const = default;
};

// Every frame a reader fed `stream` in pieces of `chunk` bytes yields, payloads copied out
// before the next feed (their views last only until then). prepared: the pieces are received
// into room the reader prepared (more than arrives, as a recv into it would), not fed.
std::vector<Seen> frames_of(const std::vector<std::uint8_t>& stream, std::size_t chunk,
                            Result& last, bool prepared = false) {
  FrameReader reader;
  std::vector<Seen> seen;
  last = Result::need_more;
  for (std::size_t at = 0; at < stream.size(); at += chunk) {
    const auto piece = std::span(stream).subspan(at, std::min(chunk, stream.size() - at));
    if (prepared) {
      const std::span<std::uint8_t> room = reader.prepare(piece.size() + 7);
      std::copy(piece.begin(), piece.end(), room.begin());
      reader.commit(piece.size());
    } else {
      reader.feed(piece);
    }
    FrameReader::Frame frame;
    while ((last = reader.next(frame)) == Result::ready)
      seen.push_back({frame.kind, std::string(frame.text())});
    if (last == Result::failed) break;
  }
  return seen;
}

TEST(DaemonProtocol, DeviceRequestsCarryTheTargetAndTheKeyWait) {
  const std::string request = device_request("tcp:[::1]:5555", std::chrono::milliseconds(60000));
  EXPECT_EQ(request, "host:adbwire-device:60000:tcp:[::1]:5555");
  std::string target;
  std::chrono::milliseconds auth{0};
  ASSERT_TRUE(parse_device_request(request, target, auth));
  EXPECT_EQ(target, "tcp:[::1]:5555");
  EXPECT_EQ(auth, std::chrono::milliseconds(60000));
  for (const std::string_view bad :
       {"host:adbwire-device:", "host:adbwire-device:x:tcp:h", "host:adbwire-device:-1:tcp:h",
        "host:adbwire-device:5000", "host:transport:tcp:h"}) {
    EXPECT_FALSE(parse_device_request(bad, target, auth)) << bad;
  }
}

// adb's server answers with the same words: an adb client that sent one of adbwire's requests
// by mistake still reads a status.
TEST(DaemonProtocol, OkayAndFailAreTheAdbServersWords) {
  std::vector<std::uint8_t> ours;
  append_frame(ours, FrameKind::okay);
  append_frame(ours, FrameKind::fail, "adbwire 3 gone");
  protocol::SmartReplyReader reader;
  reader.feed(ours);
  protocol::SmartStatus status;
  ASSERT_EQ(reader.read_status(status), protocol::SmartReplyReader::Result::ready);
  EXPECT_TRUE(status.okay);
  ASSERT_EQ(reader.read_status(status), protocol::SmartReplyReader::Result::ready);
  EXPECT_FALSE(status.okay);
  EXPECT_EQ(status.message, "adbwire 3 gone");
}

TEST(DaemonProtocol, EachFrameKindIsItsTagAndOnlyPayloadKindsCarryALength) {
  std::vector<std::uint8_t> out;
  append_frame(out, FrameKind::okay);
  append_frame(out, FrameKind::note, "reconnected");
  append_frame(out, FrameKind::data, std::string("a\0b", 3));
  append_frame(out, FrameKind::done);
  append_frame(out, FrameKind::fail, "adbwire 3 gone");
  using namespace std::string_literals;
  EXPECT_EQ(text(out), "OKAYNOTE000breconnectedDATA0003a\0bDONEFAIL000eadbwire 3 gone"s);
}

TEST(DaemonProtocol, LargeDataIsSplitIntoFramesOfAtMostTheBound) {
  const std::vector<std::uint8_t> payload(2 * kMaxPayload + 10, 'z');
  std::vector<std::uint8_t> out;
  append_frame(out, FrameKind::data, payload);
  Result last;
  const std::vector<Seen> seen = frames_of(out, out.size(), last);
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].payload.size(), kMaxPayload);
  EXPECT_EQ(seen[1].payload.size(), kMaxPayload);
  EXPECT_EQ(seen[2].payload.size(), 10u);
  EXPECT_EQ(text(out).substr(0, 8), "DATAffff");
  // A note or failure is one frame, cut at the bound.
  out.clear();
  append_frame(out, FrameKind::note, std::string(kMaxPayload + 5, 'n'));
  EXPECT_EQ(out.size(), 8 + kMaxPayload);
}

// A reply stream cut at every size from 1 byte to all of it reads the same.
TEST(DaemonProtocol, Chainsaw) {
  std::vector<std::uint8_t> stream;
  std::vector<Seen> expected;
  auto add = [&](FrameKind kind, std::string payload) {
    append_frame(stream, kind, payload);
    expected.push_back({kind, payload});
  };
  add(FrameKind::note, "reconnected to tcp:127.0.0.1:5555");
  add(FrameKind::okay, "");
  add(FrameKind::data, std::string("\x01\x03\0\0\0hi\n", 8));
  add(FrameKind::data, std::string(300, '\xff'));
  add(FrameKind::data, "");
  add(FrameKind::done, "");
  for (std::size_t chunk = 1; chunk <= stream.size(); ++chunk) {
    for (const bool prepared : {false, true}) {
      Result last;
      EXPECT_EQ(frames_of(stream, chunk, last, prepared), expected)
          << "chunk size " << chunk << (prepared ? ", received into prepared room" : "");
      EXPECT_EQ(last, Result::need_more) << "chunk size " << chunk;
    }
  }
}

// A relay sends a DATA frame's header beside a payload it does not copy: the same bytes.
TEST(DaemonProtocol, ADataHeaderMadeApartIsAppendFramesOwn) {
  for (const std::size_t size : {std::size_t{1}, std::size_t{300}, kMaxPayload}) {
    const std::vector<std::uint8_t> payload(size, 'q');
    std::vector<std::uint8_t> whole;
    append_frame(whole, FrameKind::data, payload);
    const auto header = data_frame_header(size);
    ASSERT_EQ(whole.size(), header.size() + size);
    EXPECT_TRUE(std::equal(header.begin(), header.end(), whole.begin())) << size;
    EXPECT_TRUE(std::equal(payload.begin(), payload.end(), whole.begin() + 8)) << size;
  }
}

// A reply longer than one frame (a banner past 64 KiB, as a device may send) arrives whole.
TEST(DaemonProtocol, RepliesOfAnyLengthArriveWhole) {
  BannerRecord record{"emulator-5554", {"shell_v2"}, "device::" + std::string(200000, 'p')};
  std::vector<std::uint8_t> stream;
  append_frame(stream, FrameKind::note, "reconnected");
  append_reply(stream, format_banner_record(record));
  Result last;
  const std::vector<Seen> seen = frames_of(stream, 4096, last);
  ASSERT_GE(seen.size(), 5u);
  EXPECT_EQ(seen.front().kind, FrameKind::note);
  EXPECT_EQ(seen[1].kind, FrameKind::okay);
  EXPECT_EQ(seen.back().kind, FrameKind::done);
  std::string text;
  for (std::size_t i = 2; i + 1 < seen.size(); ++i) {
    ASSERT_EQ(seen[i].kind, FrameKind::data);
    text += seen[i].payload;
  }
  BannerRecord back;
  ASSERT_FALSE(parse_banner_record(text, back));
  EXPECT_EQ(back.banner, record.banner);
  EXPECT_EQ(back.banner.size(), 200008u);
}

TEST(DaemonProtocol, UnknownTagsAndBadLengthsFailAndStayFailed) {
  for (const std::string_view bad : {"OKAX", "DATA00g1x", "NOTE-001", "okay"}) {
    FrameReader reader;
    reader.feed(bytes(bad));
    FrameReader::Frame frame;
    EXPECT_EQ(reader.next(frame), Result::failed) << bad;
    EXPECT_FALSE(reader.error_detail().empty()) << bad;
    reader.feed(bytes("OKAY"));
    EXPECT_EQ(reader.next(frame), Result::failed) << bad;
  }
}

TEST(DaemonProtocol, FailuresCarryTheirCodeAndDetail) {
  std::error_code code;
  std::string detail;
  parse_failure(failure_payload(make_error_code(errc::unauthorized), "confirm the key AB:CD"), code,
                detail);
  EXPECT_EQ(code, errc::unauthorized);
  EXPECT_EQ(detail, "confirm the key AB:CD");

  parse_failure(failure_payload(std::error_code(ECONNRESET, std::system_category()), "reset"), code,
                detail);
  EXPECT_EQ(code, std::error_code(ECONNRESET, std::system_category()));
  EXPECT_EQ(detail, "reset");

  parse_failure(failure_payload(make_error_code(errc::timeout), ""), code, detail);
  EXPECT_EQ(code, errc::timeout);
  EXPECT_EQ(detail, "");
}

TEST(DaemonProtocol, MalformedFailuresReadAsProtocolErrors) {
  for (const std::string_view bad :
       {"", "adbwire", "adbwire x gone", "adbwire 0 zero", "adbwire 999 out of range",
        "nosuch 3 category", "adbwire 3x glued", "adbwire -3 negative"}) {
    std::error_code code;
    std::string detail;
    parse_failure(bad, code, detail);
    EXPECT_EQ(code, errc::protocol_error) << bad;
    EXPECT_NE(detail.find("malformed failure"), std::string::npos) << bad;
  }
}

TEST(DaemonProtocol, BannerRecordRoundTrips) {
  const BannerRecord record{"127.0.0.1:5555",
                            {"shell_v2", "cmd", "stat_v2"},
                            "device::ro.product.name=x;features=shell_v2,cmd,stat_v2,abb"};
  BannerRecord back;
  ASSERT_FALSE(parse_banner_record(format_banner_record(record), back));
  EXPECT_EQ(back.serial, record.serial);
  EXPECT_EQ(back.features, record.features);
  EXPECT_EQ(back.banner, record.banner);

  ASSERT_FALSE(parse_banner_record("serial\n\nbanner\nwith a newline", back));
  EXPECT_TRUE(back.features.empty());
  EXPECT_EQ(back.banner, "banner\nwith a newline");
  EXPECT_EQ(parse_banner_record("serial only", back), errc::parse_error);
  EXPECT_EQ(parse_banner_record("serial\nfeatures but no banner line", back), errc::parse_error);
}

TEST(DaemonProtocol, SessionSpecsRoundTripAndBadOnesSayWhy) {
  SessionSpec spec;
  spec.name = "agent-1";
  spec.target = "tcp:127.0.0.1:5555";
  spec.idle = std::chrono::seconds(90);
  spec.auth_timeout = std::chrono::milliseconds(1500);
  spec.page.helper = PageOptions::Helper::automatic;
  spec.page.web = false;
  spec.page.ref_check = RefCheck::never;
  spec.memory_db = "/home/agent/.local/share/adbwire/memory.db";
  spec.observe = true;
  SessionSpec back;
  std::string detail;
  ASSERT_FALSE(parse_session_spec(format_session_spec(spec), back, detail)) << detail;
  EXPECT_EQ(back.memory_db, spec.memory_db);
  EXPECT_TRUE(back.observe);
  EXPECT_EQ(back.name, spec.name);
  EXPECT_EQ(back.target, spec.target);
  EXPECT_EQ(back.idle, spec.idle);
  EXPECT_EQ(back.auth_timeout, spec.auth_timeout);
  EXPECT_EQ(back.page.helper, PageOptions::Helper::automatic);
  EXPECT_FALSE(back.page.web);
  EXPECT_EQ(back.page.ref_check, RefCheck::never);

  for (
      const std::string_view bad :
      {"", "[]", R"({"name":"x"})",
       R"({"name":"a/b","target":"t","idle_s":1,"auth_ms":1,"helper":"off","web":true,"ref_check":"always"})",
       R"({"name":"","target":"t","idle_s":-1,"auth_ms":1,"helper":"off","web":true,"ref_check":"always"})",
       R"({"name":"","target":"t","idle_s":1,"auth_ms":1,"helper":"maybe","web":true,"ref_check":"always"})",
       R"({"name":"","target":"t","idle_s":1,"auth_ms":1,"helper":"off","web":true,"ref_check":"always","memory_db":"rel.db","observe":true})",
       R"({"name":"","target":"t","idle_s":1,"auth_ms":1,"helper":"off","web":true,"ref_check":"always","memory_db":"/a.db"})"}) {
    EXPECT_EQ(parse_session_spec(bad, back, detail), errc::invalid_argument) << bad;
    EXPECT_FALSE(detail.empty()) << bad;
  }
}

TEST(DaemonProtocol, PullIntoRequestsCarryAnyNamesAndBadOnesFail) {
  // A device's name may hold colons, spaces and bytes that are not UTF-8; a local name colons.
  const PullInto sent{"/sdcard/a:b \xff\x01z", "out:/x y", 1ull << 40, 4096, "zstd", 1500};
  PullInto got;
  ASSERT_FALSE(parse_pull_into(format_pull_into(sent), got));
  EXPECT_EQ(got.remote, sent.remote);
  EXPECT_EQ(got.local, sent.local);
  EXPECT_EQ(got.size, sent.size);
  EXPECT_EQ(got.slack, sent.slack);
  EXPECT_EQ(got.compression, sent.compression);
  EXPECT_EQ(got.deadline_ms, 1500);
  ASSERT_FALSE(parse_pull_into(format_pull_into({"/r", "", 0, 0, "none", -1}), got));
  EXPECT_EQ(got.deadline_ms, -1);
  EXPECT_EQ(got.local, "");
  for (const std::string bad :
       {"host:adbwire-pull-into:", "host:adbwire-pull-into:1:2:3:none:9:short",
        "host:adbwire-pull-into:x:2:3:none:0:/r", "host:adbwire-pull-into:1:2:3:none:0:",
        "host:adbwire-pull-into:1::3:none:0:/r", "host:adbwire-device:1:2:3:none:0:/r"}) {
    EXPECT_EQ(parse_pull_into(bad, got), errc::parse_error) << bad;
  }
}

TEST(DaemonProtocol, PushFromRequestsCarryAnyNamesAndBadOnesFail) {
  const PushFrom sent{"/sdcard/a:b \xff\x01z", "in:/x y", 0100644, -5, "lz4", 2500};
  PushFrom got;
  ASSERT_FALSE(parse_push_from(format_push_from(sent), got));
  EXPECT_EQ(got.remote, sent.remote);
  EXPECT_EQ(got.local, sent.local);
  EXPECT_EQ(got.mode, sent.mode);
  EXPECT_EQ(got.mtime, -5);
  EXPECT_EQ(got.compression, "lz4");
  EXPECT_EQ(got.deadline_ms, 2500);
  for (const std::string bad :
       {"host:adbwire-push-from:", "host:adbwire-push-from:420:1:3:none:9:short",
        "host:adbwire-push-from:-1:1:3:none:0:/r", "host:adbwire-push-from:420:1:3:none:0:",
        "host:adbwire-push-from:420::3:none:0:/r", "host:adbwire-pull-into:1:2:3:none:0:/r"}) {
    EXPECT_EQ(parse_push_from(bad, got), errc::parse_error) << bad;
  }
}

TEST(DaemonProtocol, SessionNamesAreWordsWithoutSeparators) {
  for (const std::string_view good : {"", "a", "agent-1", "x_y.z"})
    EXPECT_TRUE(valid_session_name(good));
  for (const std::string_view bad : {"a/b", "a b", "../x", "a:b", "a\nb"}) {
    EXPECT_FALSE(valid_session_name(bad)) << bad;
  }
}

}  // namespace
}  // namespace adbwire::daemon
