#include "cli/holder/holder_protocol.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "adbwire/error.hpp"

namespace adbwire::cli::holder {
namespace {

using Result = Reader::Result;

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
// before the next feed (their views last only until then).
std::vector<Seen> frames_of(const std::vector<std::uint8_t>& stream, std::size_t chunk,
                            Result& last) {
  Reader reader;
  std::vector<Seen> seen;
  last = Result::need_more;
  for (std::size_t at = 0; at < stream.size(); at += chunk) {
    reader.feed(std::span(stream).subspan(at, std::min(chunk, stream.size() - at)));
    Reader::Frame frame;
    while ((last = reader.next_frame(frame)) == Result::ready)
      seen.push_back({frame.kind, std::string(frame.text())});
    if (last == Result::failed) break;
  }
  return seen;
}

TEST(HolderProtocol, RequestsAreSmartSocketRequests) {
  std::vector<std::uint8_t> out;
  ASSERT_FALSE(append_request(out, kBannerRequest));
  ASSERT_FALSE(append_request(out, "open:shell,v2,raw:echo hi"));
  EXPECT_EQ(text(out), "0006banner0019open:shell,v2,raw:echo hi");
  out.clear();
  EXPECT_EQ(append_request(out, ""), errc::invalid_argument);
  EXPECT_EQ(append_request(out, std::string(kMaxPayload + 1, 'x')), errc::invalid_argument);
  EXPECT_TRUE(out.empty());
}

TEST(HolderProtocol, EachFrameKindIsItsTagAndOnlyPayloadKindsCarryALength) {
  std::vector<std::uint8_t> out;
  append_frame(out, FrameKind::okay);
  append_frame(out, FrameKind::note, "reconnected");
  append_frame(out, FrameKind::data, std::string("a\0b", 3));
  append_frame(out, FrameKind::done);
  append_frame(out, FrameKind::fail, "adbwire 3 gone");
  using namespace std::string_literals;
  EXPECT_EQ(text(out), "OKAYNOTE000breconnectedDATA0003a\0bDONEFAIL000eadbwire 3 gone"s);
}

TEST(HolderProtocol, LargeDataIsSplitIntoFramesOfAtMostTheBound) {
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
TEST(HolderProtocol, Chainsaw) {
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
    Result last;
    EXPECT_EQ(frames_of(stream, chunk, last), expected) << "chunk size " << chunk;
    EXPECT_EQ(last, Result::need_more) << "chunk size " << chunk;
  }
}

TEST(HolderProtocol, RequestsReadBackAcrossAnySplit) {
  std::vector<std::uint8_t> stream;
  ASSERT_FALSE(append_request(stream, kBannerRequest));
  ASSERT_FALSE(append_request(stream, "open:exec:cat"));
  stream.push_back('x');  // a stream's first byte, sent right behind its request
  for (std::size_t chunk = 1; chunk <= stream.size(); ++chunk) {
    Reader reader;
    std::vector<std::string> requests;
    for (std::size_t at = 0; at < stream.size(); at += chunk) {
      reader.feed(std::span(stream).subspan(at, std::min(chunk, stream.size() - at)));
      std::string request;
      while (requests.size() < 2 && reader.next_request(request) == Result::ready)
        requests.push_back(request);
    }
    EXPECT_EQ(requests, (std::vector<std::string>{"banner", "open:exec:cat"})) << chunk;
    EXPECT_EQ(std::string(reader.unread().begin(), reader.unread().end()), "x") << chunk;
  }
}

TEST(HolderProtocol, UnknownTagsAndBadLengthsFailAndStayFailed) {
  for (const std::string_view bad : {"OKAX", "DATA00g1x", "NOTE-001", "okay"}) {
    Reader reader;
    reader.feed(bytes(bad));
    Reader::Frame frame;
    EXPECT_EQ(reader.next_frame(frame), Result::failed) << bad;
    EXPECT_FALSE(reader.error_detail().empty()) << bad;
    reader.feed(bytes("OKAY"));
    EXPECT_EQ(reader.next_frame(frame), Result::failed) << bad;
  }
  Reader empty_request;
  empty_request.feed(bytes("0000"));
  std::string request;
  EXPECT_EQ(empty_request.next_request(request), Result::failed);
  Reader bad_length;
  bad_length.feed(bytes("zzzzbanner"));
  EXPECT_EQ(bad_length.next_request(request), Result::failed);
}

TEST(HolderProtocol, FailuresCarryTheirCodeAndDetail) {
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

TEST(HolderProtocol, MalformedFailuresReadAsProtocolErrors) {
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

TEST(HolderProtocol, BannerRecordRoundTrips) {
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

}  // namespace
}  // namespace adbwire::cli::holder
