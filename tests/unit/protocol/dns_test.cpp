// The DNS codec mDNS discovery uses, byte for byte against RFC 1035 §4 and RFC 6762: a phone's
// announcement with compressed names, every way a datagram can be malformed, and what the
// encoder refuses. python-zeroconf's messages are read in tests/integration/mdns_test.cpp.
#include "adbwire/protocol/dns.hpp"

#include <gtest/gtest.h>

#include "adbwire/error.hpp"
#include "adbwire/protocol/smart_socket.hpp"

namespace adbwire::protocol {
namespace {

using Bytes = std::vector<std::uint8_t>;

void put_label(Bytes& out, std::string_view label) {
  out.push_back(static_cast<std::uint8_t>(label.size()));
  out.insert(out.end(), label.begin(), label.end());
}

// A phone's answer to "PTR _adb-tls-connect._tcp.local?", written as mDNSResponder writes it:
// each name after the first points back into the ones before.
Bytes phone_announcement() {
  Bytes b = {0x00, 0x00, 0x84, 0x00, 0, 0, 0, 4, 0, 0, 0, 0};
  // PTR _adb-tls-connect._tcp.local (at 12) → adb-R5CT-AbCdEf.<12>, 4500 s
  put_label(b, "_adb-tls-connect");
  put_label(b, "_tcp");
  const auto local = static_cast<std::uint8_t>(b.size());
  put_label(b, "local");
  b.push_back(0);
  b.insert(b.end(), {0, 12, 0, 1, 0, 0, 0x11, 0x94, 0, 18});
  const auto instance = static_cast<std::uint8_t>(b.size());
  put_label(b, "adb-R5CT-AbCdEf");
  b.insert(b.end(), {0xC0, 12});
  // SRV <instance>, cache-flush, 120 s: 0 0 37099 Android.<local>
  b.insert(b.end(), {0xC0, instance, 0, 33, 0x80, 1, 0, 0, 0, 120, 0, 16, 0, 0, 0, 0, 0x90, 0xEB});
  const auto host = static_cast<std::uint8_t>(b.size());
  put_label(b, "Android");
  b.insert(b.end(), {0xC0, local});
  // TXT <instance>: "v=1" "name=Pixel 8"
  b.insert(b.end(), {0xC0, instance, 0, 16, 0x80, 1, 0, 0, 0, 120, 0, 17});
  put_label(b, "v=1");
  put_label(b, "name=Pixel 8");
  // A <host> (a name inside the SRV's data) 192.168.1.20
  b.insert(b.end(), {0xC0, host, 0, 1, 0x80, 1, 0, 0, 0, 120, 0, 4, 192, 168, 1, 20});
  return b;
}

TEST(Dns, ReadsAPhonesAnnouncementWithCompressedNames) {
  const Bytes bytes = phone_announcement();
  DnsMessage message;
  std::string why;
  ASSERT_FALSE(parse_dns_message(bytes, message, why)) << why;
  EXPECT_TRUE(message.is_response());
  ASSERT_EQ(message.answers.size(), 4u);
  const DnsRecord& ptr = message.answers[0];
  EXPECT_EQ(ptr.type, kDnsTypePtr);
  EXPECT_EQ(to_text(ptr.name), "_adb-tls-connect._tcp.local");
  EXPECT_EQ(to_text(ptr.target), "adb-R5CT-AbCdEf._adb-tls-connect._tcp.local");
  EXPECT_EQ(ptr.ttl, 4500u);
  EXPECT_FALSE(ptr.cache_flush);
  const DnsRecord& srv = message.answers[1];
  EXPECT_EQ(srv.type, kDnsTypeSrv);
  EXPECT_TRUE(srv.cache_flush);
  EXPECT_EQ(srv.rrclass, kDnsClassIn);
  EXPECT_EQ(srv.port, 37099);
  EXPECT_EQ(to_text(srv.target), "Android.local");
  EXPECT_TRUE(same_name(srv.name, ptr.target));
  const DnsRecord& txt = message.answers[2];
  EXPECT_EQ(txt.txt, (std::vector<std::string>{"v=1", "name=Pixel 8"}));
  EXPECT_FALSE(txt.malformed);
  const DnsRecord& a = message.answers[3];
  EXPECT_EQ(a.type, kDnsTypeA);
  EXPECT_EQ(to_text(a.name), "Android.local");
  EXPECT_EQ(a.address[0], 192);
  EXPECT_EQ(a.address[3], 20);
}

TEST(Dns, EveryTruncationFailsCleanly) {
  const Bytes bytes = phone_announcement();
  for (std::size_t size = 0; size < bytes.size(); ++size) {
    DnsMessage message;
    std::string why;
    EXPECT_EQ(parse_dns_message(std::span(bytes).first(size), message, why),
              make_error_code(errc::protocol_error))
        << size;
    EXPECT_FALSE(why.empty());
  }
}

TEST(Dns, NamesThatLoopOrPointForwardAreRefused) {
  struct Case {
    Bytes name;
    const char* said;
  };
  const Case cases[] = {
      {{0xC0, 12}, "backwards"},           // points at itself
      {{0xC0, 20, 0}, "backwards"},        // points forward
      {{1, 'a', 0xC0, 12}, "backwards"},   // a label, then back to its own start
      {{0x40, 'a', 0}, "reserved label"},  // 01 label type
      {{0x80, 'a', 0}, "reserved label"},  // 10 label type
      {{63, 'a', 'b'}, "truncated label"},
  };
  for (const Case& c : cases) {
    Bytes bytes = {0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0};
    bytes.insert(bytes.end(), c.name.begin(), c.name.end());
    bytes.insert(bytes.end(), {0, 12, 0, 1});
    DnsMessage message;
    std::string why;
    EXPECT_EQ(parse_dns_message(bytes, message, why), make_error_code(errc::protocol_error));
    EXPECT_NE(why.find(c.said), std::string::npos) << why;
  }
  Bytes cut = {0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 'a', 0xC0};
  DnsMessage cut_message;
  std::string cut_why;
  EXPECT_EQ(parse_dns_message(cut, cut_message, cut_why), make_error_code(errc::protocol_error));
  EXPECT_NE(cut_why.find("truncated pointer"), std::string::npos) << cut_why;
  // A chain of pointers each going further back is fine, and still bounded by 255 bytes.
  Bytes chain = {0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0};
  for (int i = 0; i < 130; ++i) put_label(chain, "a");
  chain.push_back(0);
  chain.insert(chain.end(), {0, 12, 0, 1});
  DnsMessage message;
  std::string why;
  EXPECT_EQ(parse_dns_message(chain, message, why), make_error_code(errc::protocol_error));
  EXPECT_NE(why.find("over 255"), std::string::npos) << why;
}

TEST(Dns, ABrokenTxtOrAddressMarksTheRecordAndKeepsTheMessage) {
  Bytes bytes = {0, 0, 0x84, 0, 0, 0, 0, 3, 0, 0, 0, 0};
  put_label(bytes, "x");
  bytes.push_back(0);
  // TXT "v=1" written without its length byte, as the byte 'v' (118) announces 118 bytes.
  bytes.insert(bytes.end(), {0, 16, 0, 1, 0, 0, 0, 120, 0, 3, 'v', '=', '1'});
  bytes.insert(bytes.end(), {0xC0, 12, 0, 1, 0, 1, 0, 0, 0, 120, 0, 3, 10, 0, 0});  // A of 3 bytes
  // SRV whose target runs past its data.
  bytes.insert(bytes.end(), {0xC0, 12, 0, 33, 0, 1, 0, 0, 0, 120, 0, 8, 0, 0, 0, 0, 0x13, 0x88});
  bytes.insert(bytes.end(), {5, 'h'});
  DnsMessage message;
  std::string why;
  ASSERT_FALSE(parse_dns_message(bytes, message, why)) << why;
  ASSERT_EQ(message.answers.size(), 3u);
  EXPECT_TRUE(message.answers[0].malformed);
  EXPECT_TRUE(message.answers[0].txt.empty());
  EXPECT_TRUE(message.answers[1].malformed);
  EXPECT_TRUE(message.answers[2].malformed);
  EXPECT_TRUE(message.answers[2].target.empty());
}

TEST(Dns, EncodesWhatItParsesAndHonoursTheTopBits) {
  DnsMessage query;
  query.id = 0x1234;
  query.questions.push_back(
      {dns_name("_adb-tls-pairing._tcp.local"), kDnsTypePtr, kDnsClassIn, true});
  Bytes bytes;
  ASSERT_FALSE(encode_dns_message(query, bytes));
  Bytes expected = {0x12, 0x34, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0};
  put_label(expected, "_adb-tls-pairing");
  put_label(expected, "_tcp");
  put_label(expected, "local");
  expected.insert(expected.end(), {0, 0, 12, 0x80, 1});
  EXPECT_EQ(bytes, expected);

  DnsMessage response;
  response.flags = kDnsFlagResponse | kDnsFlagAuthoritative;
  DnsRecord srv;
  srv.name = {"studio-a.b\\c", "_adb-tls-pairing", "_tcp", "local"};
  srv.type = kDnsTypeSrv;
  srv.cache_flush = true;
  srv.ttl = 120;
  srv.port = 40555;
  srv.target = dns_name("vdevice.local");
  DnsRecord txt;
  txt.name = srv.name;
  txt.type = kDnsTypeTxt;
  DnsRecord aaaa;
  aaaa.name = srv.target;
  aaaa.type = kDnsTypeAaaa;
  aaaa.address[15] = 1;
  response.answers = {srv, txt};
  response.additionals = {aaaa};
  ASSERT_FALSE(encode_dns_message(response, bytes));
  DnsMessage back;
  std::string why;
  ASSERT_FALSE(parse_dns_message(bytes, back, why)) << why;
  ASSERT_EQ(back.answers.size(), 2u);
  EXPECT_EQ(back.answers[0].name, srv.name);
  EXPECT_EQ(to_text(back.answers[0].name), "studio-a\\.b\\\\c._adb-tls-pairing._tcp.local");
  EXPECT_TRUE(back.answers[0].cache_flush);
  EXPECT_EQ(back.answers[0].port, 40555);
  EXPECT_EQ(back.answers[1].txt, std::vector<std::string>{""})
      << "an empty TXT is one empty string";
  ASSERT_EQ(back.additionals.size(), 1u);
  EXPECT_EQ(back.additionals[0].address, aaaa.address);
  EXPECT_TRUE(same_name(dns_name("ANDROID.Local"), dns_name("android.local")));
  EXPECT_FALSE(same_name(dns_name("android.local"), dns_name("android.local.x")));
}

TEST(Dns, TheEncoderRefusesWhatDnsCannotCarry) {
  Bytes out = {42};
  DnsMessage message;
  message.questions.push_back({{std::string(64, 'a')}, kDnsTypePtr, kDnsClassIn, false});
  EXPECT_EQ(encode_dns_message(message, out), make_error_code(errc::invalid_argument));
  message.questions[0].name = {""};
  EXPECT_EQ(encode_dns_message(message, out), make_error_code(errc::invalid_argument));
  message.questions[0].name = DnsName(5, std::string(60, 'a'));
  EXPECT_EQ(encode_dns_message(message, out), make_error_code(errc::invalid_argument));
  message.questions.clear();
  DnsRecord txt;
  txt.name = {"x"};
  txt.type = kDnsTypeTxt;
  txt.txt = {std::string(256, 't')};
  message.answers = {txt};
  EXPECT_EQ(encode_dns_message(message, out), make_error_code(errc::invalid_argument));
  txt.txt = {std::string(255, 't')};
  message.answers = std::vector<DnsRecord>(40, txt);
  EXPECT_EQ(encode_dns_message(message, out), make_error_code(errc::invalid_argument))
      << "over 9000 bytes";
  EXPECT_EQ(out, Bytes{42}) << "nothing written on error";
  const Bytes big(kMaxDnsMessage + 1, 0);
  std::string why;
  EXPECT_EQ(parse_dns_message(big, message, why), make_error_code(errc::protocol_error));
}

TEST(MdnsServiceList, ParsesAdbServersLinesWithSpacesInNames) {
  std::vector<MdnsServiceEntry> entries;
  std::string detail;
  ASSERT_FALSE(
      parse_mdns_services("adb-R5CT-AbCdEf\t_adb-tls-connect._tcp\t192.168.1.20:37099\n"
                          "adb-R5CT-AbCdEf (2)\t_adb-tls-pairing._tcp\t192.168.1.20:41235\r\n\n",
                          entries, detail))
      << detail;
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0],
            (MdnsServiceEntry{"adb-R5CT-AbCdEf", "_adb-tls-connect._tcp", "192.168.1.20:37099"}));
  EXPECT_EQ(entries[1].instance, "adb-R5CT-AbCdEf (2)");
  for (const char* bad : {"adb-x _adb._tcp 1.2.3.4:5555", "adb-x\t_adb._tcp\t1.2.3.4",
                          "\t_adb._tcp\t1.2.3.4:5", "a\tb\tc\td:1", "adb\x1b[2J\t_adb._tcp"}) {
    entries.clear();
    EXPECT_EQ(parse_mdns_services(bad, entries, detail), make_error_code(errc::parse_error)) << bad;
    EXPECT_EQ(detail.find('\x1b'), std::string::npos) << "the line is shown escaped";
  }
}

}  // namespace
}  // namespace adbwire::protocol
