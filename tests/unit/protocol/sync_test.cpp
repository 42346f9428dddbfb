#include "adbwire/protocol/sync.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "adbwire/error.hpp"
#include "test_support.hpp"

namespace adbwire::protocol {
namespace {

using test::bytes;
using test::le32;

std::vector<std::uint8_t> concat(std::initializer_list<std::vector<std::uint8_t>> parts) {
  std::vector<std::uint8_t> out;
  for (const auto& part : parts) out.insert(out.end(), part.begin(), part.end());
  return out;
}

std::vector<std::uint8_t> le64(std::uint64_t value) {
  std::vector<std::uint8_t> out;
  append_le64(out, value);
  return out;
}

// A reply as a test sees it: data pieces of one file joined into one item.
struct Item {
  SyncReply::Type type;
  std::string text;  // data, entry name, fail message
  SyncStat stat;
};

// Feeds `stream` in pieces of `cut` bytes; replies in order, adjacent data joined.
std::vector<Item> replies(SyncReplyReader& reader, const std::vector<std::uint8_t>& stream,
                          std::size_t cut, SyncParse* last = nullptr) {
  std::vector<Item> items;
  SyncParse result = SyncParse::need_more;
  for (std::size_t at = 0; at < stream.size() && result != SyncParse::failed; at += cut) {
    std::span<const std::uint8_t> input(stream.data() + at, std::min(cut, stream.size() - at));
    SyncReply reply;
    while ((result = reader.parse(input, reply)) == SyncParse::ready) {
      if (reply.type == SyncReply::Type::data) {
        EXPECT_FALSE(reply.data.empty());
        if (items.empty() || items.back().type != SyncReply::Type::data)
          items.push_back({reply.type, "", {}});
        items.back().text += test::text(reply.data);
      } else {
        items.push_back({reply.type,
                         reply.type == SyncReply::Type::fail ? reply.message : reply.name,
                         reply.stat});
      }
    }
  }
  if (last) *last = result;
  return items;
}

TEST(Sync, IdsAreTheAsciiOfAosp) {
  EXPECT_EQ(static_cast<std::uint32_t>(SyncId::stat), 0x54415453u);
  std::vector<std::uint8_t> out;
  ASSERT_FALSE(append_sync_request(out, SyncId::stat, ""));
  ASSERT_FALSE(append_sync_request(out, SyncId::sta2, ""));
  ASSERT_FALSE(append_sync_request(out, SyncId::lst2, ""));
  ASSERT_FALSE(append_sync_request(out, SyncId::list, ""));
  ASSERT_FALSE(append_sync_request(out, SyncId::lis2, ""));
  ASSERT_FALSE(append_sync_request(out, SyncId::recv, ""));
  ASSERT_FALSE(append_sync_request(out, SyncId::quit, ""));
  EXPECT_EQ(
      test::text(out),
      std::string(
          "STAT\0\0\0\0STA2\0\0\0\0LST2\0\0\0\0LIST\0\0\0\0LIS2\0\0\0\0RECV\0\0\0\0QUIT\0\0\0\0",
          56));
  for (SyncId id : {SyncId::dent, SyncId::dnt2, SyncId::send, SyncId::snd2, SyncId::rcv2,
                    SyncId::done, SyncId::data, SyncId::okay, SyncId::fail}) {
    const auto value = static_cast<std::uint32_t>(id);
    const std::string ascii(reinterpret_cast<const char*>(le32(value).data()), 4);
    EXPECT_EQ(sync_id_name(value), ascii);
  }
  EXPECT_EQ(sync_id_name(0x12345678), "????");
}

TEST(Sync, RequestsEncodeByteForByte) {
  std::vector<std::uint8_t> out;
  ASSERT_FALSE(append_sync_request(out, SyncId::recv, "/sdcard/a.txt"));
  EXPECT_EQ(out, concat({bytes("RECV"), le32(13), bytes("/sdcard/a.txt")}));

  out.clear();
  ASSERT_FALSE(append_sync_send_v1(out, "/x", 0100644));
  EXPECT_EQ(out, concat({bytes("SEND"), le32(8), bytes("/x,33188")}));

  out.clear();
  ASSERT_FALSE(append_sync_send_v2(out, "/x", 0100755, kSyncFlagDryRun));
  EXPECT_EQ(out, concat({bytes("SND2"), le32(2), bytes("/x"), bytes("SND2"), le32(0100755),
                         le32(0x80000000)}));

  out.clear();
  ASSERT_FALSE(append_sync_recv_v2(out, "/y", kSyncFlagZstd));
  EXPECT_EQ(out, concat({bytes("RCV2"), le32(2), bytes("/y"), bytes("RCV2"), le32(4)}));

  out.clear();
  ASSERT_FALSE(append_sync_data(out, bytes("abc")));
  append_sync_done(out, 1700000000);
  EXPECT_EQ(out, concat({bytes("DATA"), le32(3), bytes("abc"), bytes("DONE"), le32(1700000000)}));
}

TEST(Sync, EncodersRefuseOversizePathsAndData) {
  std::vector<std::uint8_t> out;
  EXPECT_FALSE(append_sync_request(out, SyncId::stat, std::string(kSyncPathMax, 'a')));
  out.clear();
  EXPECT_EQ(append_sync_request(out, SyncId::stat, std::string(kSyncPathMax + 1, 'a')),
            errc::invalid_argument);
  EXPECT_TRUE(out.empty());
  // The ",mode" suffix counts toward SEND's limit.
  EXPECT_EQ(append_sync_send_v1(out, std::string(kSyncPathMax - 3, 'a'), 0100644),
            errc::invalid_argument);
  EXPECT_EQ(append_sync_data(out, std::vector<std::uint8_t>(kSyncDataMax + 1)),
            errc::invalid_argument);
  EXPECT_TRUE(out.empty());
  EXPECT_FALSE(append_sync_data(out, std::vector<std::uint8_t>(kSyncDataMax)));
}

TEST(Sync, DeviceRecordsEncodeByteForByte) {
  SyncStat s;
  s.error = 2;
  s.dev = 0x0102030405060708;
  s.ino = 9;
  s.mode = 0100640;
  s.nlink = 1;
  s.uid = 2000;
  s.gid = 1015;
  s.size = 0x100000005;
  s.atime = -1;
  s.mtime = 1700000000;
  s.ctime = 1700000001;
  const auto v2_body =
      concat({le32(2), le64(0x0102030405060708), le64(9), le32(0100640), le32(1), le32(2000),
              le32(1015), le64(0x100000005), le64(~0ull), le64(1700000000), le64(1700000001)});

  std::vector<std::uint8_t> out;
  append_sync_stat_v1(out, s);
  EXPECT_EQ(out,
            concat({bytes("STAT"), le32(0100640), le32(5), le32(1700000000)}));  // size truncated

  out.clear();
  append_sync_stat_v2(out, SyncId::lst2, s);
  EXPECT_EQ(out.size(), kSyncStatV2Size);
  EXPECT_EQ(out, concat({bytes("LST2"), v2_body}));

  out.clear();
  ASSERT_FALSE(append_sync_dent(out, false, "f", s));
  append_sync_list_done(out, false);
  EXPECT_EQ(out, concat({bytes("DENT"), le32(0100640), le32(5), le32(1700000000), le32(1),
                         bytes("f"), bytes("DONE"), std::vector<std::uint8_t>(16, 0)}));

  out.clear();
  ASSERT_FALSE(append_sync_dent(out, true, "ab", s));
  append_sync_list_done(out, true);
  EXPECT_EQ(out, concat({bytes("DNT2"), v2_body, le32(2), bytes("ab"), bytes("DONE"),
                         std::vector<std::uint8_t>(72, 0)}));

  out.clear();
  append_sync_okay(out);
  append_sync_fail(out, "no");
  EXPECT_EQ(out, concat({bytes("OKAY"), le32(0), bytes("FAIL"), le32(2), bytes("no")}));
}

// Replies for one request of every kind, pipelined, fed at every cut size: the same items.
TEST(Sync, ReplyReaderChainsawAgreesAtEveryCut) {
  SyncStat s;
  s.mode = 040755;
  s.size = 4096;
  s.mtime = 1234;
  std::vector<std::uint8_t> stream;
  append_sync_stat_v1(stream, s);
  append_sync_stat_v2(stream, SyncId::sta2, s);
  ASSERT_FALSE(append_sync_dent(stream, false, "one", s));
  ASSERT_FALSE(append_sync_dent(stream, false, "", s));
  append_sync_list_done(stream, false);
  ASSERT_FALSE(append_sync_dent(stream, true, "two", s));
  append_sync_list_done(stream, true);
  std::string content;
  for (int i = 0; i < 3; ++i) {
    std::string chunk(static_cast<std::size_t>(100 + i * 37), static_cast<char>('a' + i));
    content += chunk;
    ASSERT_FALSE(append_sync_data(stream, bytes(chunk)));
  }
  ASSERT_FALSE(append_sync_data(stream, {}));
  append_sync_done(stream, 0);
  append_sync_okay(stream);
  append_sync_fail(stream, "couldn't create file: Permission denied");

  for (std::size_t cut = 1; cut <= stream.size(); ++cut) {
    SyncReplyReader reader;
    for (SyncId id : {SyncId::stat, SyncId::sta2, SyncId::list, SyncId::lis2, SyncId::recv,
                      SyncId::send, SyncId::snd2, SyncId::send}) {
      ASSERT_FALSE(reader.expect(id));
    }
    SyncParse last;
    const auto items = replies(reader, stream, cut, &last);
    ASSERT_EQ(items.size(), 11u) << "cut " << cut;
    EXPECT_EQ(items[0].type, SyncReply::Type::stat);
    EXPECT_EQ(items[0].stat.mode, 040755u);
    EXPECT_EQ(items[1].stat.size, 4096u);
    EXPECT_EQ(items[2].text, "one");
    EXPECT_EQ(items[2].stat.mtime, 1234);
    EXPECT_EQ(items[3].type, SyncReply::Type::entry);
    EXPECT_EQ(items[3].text, "");
    EXPECT_EQ(items[4].type, SyncReply::Type::done);
    EXPECT_EQ(items[5].text, "two");
    EXPECT_EQ(items[6].type, SyncReply::Type::done);
    EXPECT_EQ(items[7].type, SyncReply::Type::data);
    EXPECT_EQ(items[7].text, content);
    EXPECT_EQ(items[8].type, SyncReply::Type::done);
    EXPECT_EQ(items[9].type, SyncReply::Type::okay);
    EXPECT_EQ(items[10].type, SyncReply::Type::fail);
    EXPECT_EQ(items[10].text, "couldn't create file: Permission denied");
    EXPECT_EQ(last, SyncParse::need_more);
    // The FAIL ended the last outstanding push as well.
    EXPECT_EQ(reader.outstanding(), 0u);
    EXPECT_TRUE(reader.at_boundary());
  }
}

TEST(Sync, ReplyReaderRejectsWhatDoesNotFitTheRequest) {
  const auto verdict = [](SyncId request, const std::vector<std::uint8_t>& stream) {
    SyncReplyReader reader;
    EXPECT_FALSE(reader.expect(request));
    SyncParse last;
    replies(reader, stream, stream.size(), &last);
    return last == SyncParse::failed ? reader.error_detail() : std::string("accepted");
  };
  EXPECT_EQ(verdict(SyncId::recv, concat({bytes("OKAY"), le32(0)})),
            "the device answered RECV with OKAY");
  EXPECT_EQ(verdict(SyncId::stat, concat({bytes("XY\1\2"), le32(0)})),
            "the device answered STAT with 0x02015958");
  EXPECT_EQ(verdict(SyncId::recv, concat({bytes("DATA"), le32(kSyncDataMax + 1)})),
            "the device sent a DATA chunk of 65537 bytes, more than the 65536 allowed");
  EXPECT_EQ(verdict(SyncId::send, concat({bytes("FAIL"), le32(kSyncFailMax + 1)})),
            "the device sent a FAIL message of 65537 bytes, more than the 65536 allowed");
  auto dent = concat({bytes("DENT"), le32(0), le32(0), le32(0), le32(kSyncPathMax + 1)});
  EXPECT_EQ(verdict(SyncId::list, dent),
            "the device sent a directory entry name of 1025 bytes, more than the 1024 allowed");
  EXPECT_EQ(verdict(SyncId::sta2, concat({bytes("LST2"), le32(0)})),
            "the device answered STA2 with LST2");

  SyncReplyReader unasked;
  std::vector<std::uint8_t> okay;
  append_sync_okay(okay);
  std::span<const std::uint8_t> input(okay);
  SyncReply reply;
  EXPECT_EQ(unasked.parse(input, reply), SyncParse::failed);
  EXPECT_EQ(unasked.error_detail(),
            "the device sent OKAY in a sync stream with no request outstanding");
  // Failed for good.
  input = okay;
  EXPECT_EQ(unasked.parse(input, reply), SyncParse::failed);
  EXPECT_EQ(unasked.expect(SyncId::quit), errc::invalid_argument);
}

TEST(Sync, ReplyReaderHandsOutDataAsViewsOfTheInput) {
  SyncReplyReader reader;
  ASSERT_FALSE(reader.expect(SyncId::recv));
  std::vector<std::uint8_t> stream;
  ASSERT_FALSE(append_sync_data(stream, bytes("hello")));
  std::span<const std::uint8_t> input(stream);
  SyncReply reply;
  ASSERT_EQ(reader.parse(input, reply), SyncParse::ready);
  EXPECT_EQ(reply.data.data(), stream.data() + kSyncHeaderSize);
  EXPECT_EQ(reply.data.size(), 5u);
  EXPECT_TRUE(input.empty());
  EXPECT_TRUE(reader.at_boundary());
  EXPECT_EQ(reader.outstanding(), 1u);
}

struct Seen {
  SyncRequest::Type type;
  SyncId id;
  std::string text;  // path or data
  std::uint32_t mode = 0;
  std::uint32_t flags = 0;
  std::uint32_t mtime = 0;
};

std::vector<Seen> requests(SyncRequestReader& reader, const std::vector<std::uint8_t>& stream,
                           std::size_t cut, SyncParse* last = nullptr) {
  std::vector<Seen> items;
  SyncParse result = SyncParse::need_more;
  for (std::size_t at = 0; at < stream.size() && result != SyncParse::failed; at += cut) {
    std::span<const std::uint8_t> input(stream.data() + at, std::min(cut, stream.size() - at));
    SyncRequest request;
    while ((result = reader.parse(input, request)) == SyncParse::ready) {
      if (request.type == SyncRequest::Type::data) {
        if (items.empty() || items.back().type != SyncRequest::Type::data) {
          items.push_back({request.type, SyncId::data, ""});
        }
        items.back().text += test::text(request.data);
      } else {
        items.push_back(
            {request.type, request.id, request.path, request.mode, request.flags, request.mtime});
      }
    }
  }
  if (last) *last = result;
  return items;
}

TEST(Sync, RequestReaderChainsawAgreesAtEveryCut) {
  std::vector<std::uint8_t> stream;
  ASSERT_FALSE(append_sync_request(stream, SyncId::lst2, "/sdcard"));
  ASSERT_FALSE(append_sync_send_v1(stream, "/sdcard/a,b", 0100644));
  ASSERT_FALSE(append_sync_data(stream, bytes("first ")));
  ASSERT_FALSE(append_sync_data(stream, {}));
  ASSERT_FALSE(append_sync_data(stream, bytes("second")));
  append_sync_done(stream, 1700000000);
  ASSERT_FALSE(append_sync_send_v2(stream, "/data/local/tmp/x", 0100755, kSyncFlagDryRun));
  append_sync_done(stream, 7);
  ASSERT_FALSE(append_sync_recv_v2(stream, "/r", kSyncFlagNone));
  ASSERT_FALSE(append_sync_request(stream, SyncId::recv, "/v1"));
  ASSERT_FALSE(append_sync_request(stream, SyncId::quit, ""));

  for (std::size_t cut = 1; cut <= stream.size(); ++cut) {
    SyncRequestReader reader;
    SyncParse last;
    const auto items = requests(reader, stream, cut, &last);
    ASSERT_EQ(items.size(), 9u) << "cut " << cut;
    EXPECT_EQ(items[0].id, SyncId::lst2);
    EXPECT_EQ(items[0].text, "/sdcard");
    EXPECT_EQ(items[1].id, SyncId::send);
    EXPECT_EQ(items[1].text, "/sdcard/a,b");  // only the last comma separates the mode
    EXPECT_EQ(items[1].mode, 0100644u);
    EXPECT_EQ(items[2].type, SyncRequest::Type::data);
    EXPECT_EQ(items[2].text, "first second");
    EXPECT_EQ(items[3].type, SyncRequest::Type::done);
    EXPECT_EQ(items[3].mtime, 1700000000u);
    EXPECT_EQ(items[4].id, SyncId::snd2);
    EXPECT_EQ(items[4].mode, 0100755u);
    EXPECT_EQ(items[4].flags, kSyncFlagDryRun);
    EXPECT_EQ(items[5].mtime, 7u);
    EXPECT_EQ(items[6].id, SyncId::rcv2);
    EXPECT_EQ(items[6].text, "/r");
    EXPECT_EQ(items[7].id, SyncId::recv);
    EXPECT_EQ(items[8].id, SyncId::quit);
    EXPECT_EQ(last, SyncParse::need_more);
    EXPECT_TRUE(reader.at_boundary());
  }
}

TEST(Sync, RequestReaderFailsLikeAdbd) {
  const auto verdict = [](const std::vector<std::uint8_t>& stream) {
    SyncRequestReader reader;
    SyncParse last;
    requests(reader, stream, stream.size(), &last);
    return last == SyncParse::failed ? reader.error_detail() : std::string("accepted");
  };
  EXPECT_EQ(verdict(concat({bytes("STAT"), le32(1025)})), "path too long");
  EXPECT_EQ(verdict(concat({bytes("ULNK"), le32(0)})), "unknown command 0x4b4e4c55");
  EXPECT_EQ(verdict(concat({bytes("SEND"), le32(2), bytes("/x")})), "missing , in ID_SEND_V1");
  EXPECT_EQ(verdict(concat({bytes("SEND"), le32(5), bytes("/x,9z")})), "bad mode");
  EXPECT_EQ(verdict(concat({bytes("SEND"), le32(7), bytes("/x,0755"), bytes("STAT"), le32(0)})),
            "invalid data message: expected DATA or DONE, got STAT");
  EXPECT_EQ(verdict(concat(
                {bytes("SEND"), le32(4), bytes("/x,1"), bytes("DATA"), le32(kSyncDataMax + 1)})),
            "oversize data message: 65537 bytes, at most 65536 allowed");
  EXPECT_EQ(verdict(concat({bytes("SND2"), le32(2), bytes("/x"), bytes("RCV2"), le32(0), le32(0)})),
            "invalid SND2 setup packet: got RCV2");
  // adbd's strtoul base 0: octal with a leading 0, hex with 0x.
  SyncRequestReader reader;
  auto octal = concat({bytes("SEND"), le32(7), bytes("/x,0755")});
  std::span<const std::uint8_t> input(octal);
  SyncRequest request;
  ASSERT_EQ(reader.parse(input, request), SyncParse::ready);
  EXPECT_EQ(request.mode, 0755u);
  EXPECT_FALSE(reader.at_boundary());  // a push is under way
}

}  // namespace
}  // namespace adbwire::protocol
