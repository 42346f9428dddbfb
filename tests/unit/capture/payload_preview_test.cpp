// Payload previews (sync headers, shell v2, text) and the resynchronising ADB framer.
#include "capture/payload_preview.hpp"

#include <gtest/gtest.h>

#include "adbwire/protocol/constants.hpp"
#include "capture/adb_framer.hpp"
#include "unit/capture/capture_test_support.hpp"

namespace adbwire::capture_test {
namespace {

using capture_detail::AdbFramer;
using capture_detail::preview_bytes;
using capture_detail::StreamPreview;
using capture_detail::SyncPreview;
constexpr auto H = CaptureDirection::host_to_device;
constexpr auto D = CaptureDirection::device_to_host;

Bytes packet(const char* id, std::initializer_list<std::uint32_t> words,
             std::string_view tail = {}) {
  Bytes out(id, id + 4);
  for (const std::uint32_t w : words) {
    for (int s = 0; s < 32; s += 8) out.push_back(static_cast<std::uint8_t>(w >> s));
  }
  out.insert(out.end(), tail.begin(), tail.end());
  return out;
}

Bytes join(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const Bytes& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

TEST(PreviewBytes, TextIsQuotedAndEscapedBinaryIsHex) {
  EXPECT_EQ(preview_bytes(bytes_of("a\"b\n")), "\"a\\\"b\\n\"");
  EXPECT_EQ(preview_bytes(Bytes{0x1f, 0x8b, 0x08, 0x00, 0x01}), "hex 1f8b080001");
  EXPECT_EQ(preview_bytes(bytes_of(std::string(100, 'z')), 10), "\"zzzzzz\"...");
  EXPECT_EQ(preview_bytes({}), "");
}

TEST(SyncPreview, ListReplyWithDentEntriesAndDone) {
  SyncPreview sync;
  EXPECT_EQ(sync.feed(H, packet("LIST", {4}, "/sdc")), "sync LIST \"/sdc\"");
  const Bytes reply =
      join({packet("DENT", {040755, 0, 7, 3}, "abc"), packet("DENT", {0100644, 9, 7, 2}, "de"),
            packet("DONE", {0, 0, 0, 0})});
  EXPECT_EQ(sync.feed(D, reply), "sync DENT \"abc\", DENT \"de\", DONE");
}

TEST(SyncPreview, SameItemsWhicheverWayTheReplyIsSplit) {
  const Bytes request = join({packet("SND2", {4}, "/x/y"), packet("SND2", {0644, 4}),
                              packet("DATA", {3}, "abc"), packet("DONE", {1234})});
  const Bytes reply = packet("OKAY", {0});
  for (std::size_t cut = 1; cut < request.size(); ++cut) {
    SyncPreview sync;
    const std::string first = sync.feed(H, std::span(request).first(cut));
    const std::string second = sync.feed(H, std::span(request).subspan(cut));
    const std::string both = first + " | " + second;
    EXPECT_NE(both.find("SND2 \"/x/y\""), std::string::npos) << cut << ": " << both;
    EXPECT_NE(both.find("SND2 mode=0644 flags=zstd"), std::string::npos) << cut << ": " << both;
    EXPECT_NE(both.find("DONE mtime=1234"), std::string::npos) << cut << ": " << both;
    EXPECT_EQ(sync.feed(D, reply), "sync OKAY");
  }
}

TEST(SyncPreview, StatV2AndRecvFailure) {
  SyncPreview sync;
  sync.feed(H, join({packet("STA2", {2}, "/a"), packet("RECV", {2}, "/b")}));
  Bytes stat2 = packet("STA2", {0});
  stat2.resize(72, 0);
  stat2[24] = 0xa4;  // mode 0644 at offset 24
  stat2[25] = 0x81;
  stat2[40] = 5;  // size at offset 40
  EXPECT_EQ(sync.feed(D, join({stat2, packet("FAIL", {4}, "nope")})),
            "sync STA2 error=0 mode=0100644 size=5, FAIL \"nope\"");
}

TEST(SyncPreview, DataContinuingFromAnEarlierWrite) {
  SyncPreview sync;
  sync.feed(H, packet("RECV", {2}, "/f"));
  EXPECT_EQ(sync.feed(D, packet("DATA", {10}, "01234")), "sync DATA 10");
  EXPECT_EQ(sync.feed(D, join({bytes_of("56789"), packet("DONE", {0})})),
            "sync +5 data bytes, DONE");
}

TEST(StreamPreview, ChosenByService) {
  StreamPreview shell("shell,v2,TERM=xterm,raw:ls");
  Bytes exit = {3, 1, 0, 0, 0, 7};
  EXPECT_EQ(shell.feed(D, exit), "shell v2 exit 7");
  StreamPreview plain("shell,raw:ls");
  EXPECT_EQ(plain.feed(D, exit), "hex 030100000007");
  EXPECT_TRUE(capture_detail::is_shell_v2_service("shell,v2:"));
  EXPECT_FALSE(capture_detail::is_shell_v2_service("shell:v2"));
}

TEST(AdbFramer, SkipsGarbageAndRejectedHeadersAndResyncsAfterGaps) {
  using namespace adbwire::protocol;
  const Bytes okay = adb_message(kCommandOkay, 1, 2, "");
  const Bytes write = adb_message(kCommandWrte, 1, 2, "payload");
  // A header with a valid magic but an unknown command is garbage too.
  Bytes bogus = adb_message(0x4b4b4b4b, 0, 0, "");
  const Bytes stream = join({bytes_of("garbage"), okay, bogus, write});
  for (std::size_t chunk = 1; chunk <= stream.size(); ++chunk) {
    AdbFramer framer;
    std::vector<Message> out;
    for (std::size_t pos = 0; pos < stream.size(); pos += chunk) {
      framer.feed(std::span(stream).subspan(pos, std::min(chunk, stream.size() - pos)), out);
    }
    ASSERT_EQ(out.size(), 2u) << chunk;
    EXPECT_EQ(out[0].command, kCommandOkay);
    EXPECT_EQ(out[1].payload, bytes_of("payload"));
    EXPECT_EQ(framer.skipped_bytes(), 7u + bogus.size());
  }
  AdbFramer framer;
  std::vector<Message> out;
  framer.feed(std::span(write).first(30), out);
  framer.gap();
  framer.feed(join({bytes_of("ad\n"), okay}), out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].command, kCommandOkay);
  EXPECT_EQ(framer.resyncs(), 1u);
}

}  // namespace
}  // namespace adbwire::capture_test
