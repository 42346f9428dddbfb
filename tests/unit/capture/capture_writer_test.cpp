// CaptureWriter / CaptureEncoder: recordings read back by adbwire's decoder and, message for
// message, by tshark's own ADB dissector (an independent implementation).
#include "adbwire/capture_writer.hpp"

#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "adbwire/error.hpp"
#include "adbwire/protocol/constants.hpp"
#include "unit/capture/capture_test_support.hpp"

namespace adbwire::capture_test {
namespace {

using namespace adbwire::protocol;

struct Chunk {
  CaptureDirection direction;
  Bytes bytes;
};

Bytes sync_packet(const char* id, std::uint32_t length, std::string_view data = {}) {
  Bytes out(id, id + 4);
  for (int s = 0; s < 32; s += 8) out.push_back(static_cast<std::uint8_t>(length >> s));
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

// A session as a connection runtime would record it: some messages merged into one chunk,
// one split into header and payload, one large enough to need several TCP segments.
std::vector<Chunk> session() {
  const auto H = CaptureDirection::host_to_device;
  const auto D = CaptureDirection::device_to_host;
  std::vector<Chunk> chunks;
  chunks.push_back(
      {H, adb_message(kCommandCnxn, kVersion, kMaxPayloadV2, "host::features=shell_v2,stat_v2")});
  chunks.push_back({D, adb_message(kCommandAuth, kAuthToken, 0, std::string(20, 'T'))});
  chunks.push_back({H, adb_message(kCommandAuth, kAuthSignature, 0, std::string(256, 'S'))});
  chunks.push_back(
      {D, adb_message(kCommandCnxn, kVersion, kMaxPayloadV2, "device::ro.product.name=v")});
  Bytes merged = adb_message(kCommandOpen, 1, 0, std::string("shell,v2,raw:ls") + '\0');
  const Bytes open2 = adb_message(kCommandOpen, 2, 0, std::string("sync:") + '\0');
  merged.insert(merged.end(), open2.begin(), open2.end());
  chunks.push_back({H, merged});
  chunks.push_back({D, adb_message(kCommandOkay, 101, 1, "")});
  chunks.push_back({D, adb_message(kCommandOkay, 102, 2, "")});
  const Bytes shell = {1, 3, 0, 0, 0, 'a', '\n', 'b'};  // shell v2 stdout "a\nb"
  const Bytes write = adb_message(kCommandWrte, 101, 1, std::string(shell.begin(), shell.end()));
  chunks.push_back({D, Bytes(write.begin(), write.begin() + 24)});  // header alone
  chunks.push_back({D, Bytes(write.begin() + 24, write.end())});    // then its payload
  Bytes stat = sync_packet("STAT", 4, "/abc");
  const Bytes recv = sync_packet("RECV", 4, "/big");
  stat.insert(stat.end(), recv.begin(), recv.end());
  chunks.push_back({H, adb_message(kCommandWrte, 2, 102, std::string(stat.begin(), stat.end()))});
  Bytes big = sync_packet("STAT", 0100644);
  big.resize(16, 0);
  for (int i = 0; i < 3; ++i) {
    const Bytes data = sync_packet("DATA", 65536, std::string(65536, static_cast<char>('x' + i)));
    big.insert(big.end(), data.begin(), data.end());
  }
  const Bytes done = sync_packet("DONE", 0);
  big.insert(big.end(), done.begin(), done.end());
  chunks.push_back({D, adb_message(kCommandWrte, 102, 2, std::string(big.begin(), big.end()))});
  chunks.push_back({H, adb_message(kCommandOkay, 2, 102, "")});
  chunks.push_back({H, adb_message(kCommandClse, 1, 101, "")});
  chunks.push_back({D, adb_message(kCommandClse, 101, 1, "")});
  return chunks;
}

// Every message of the session, per direction, as "CMD arg0 arg1 length".
std::map<CaptureDirection, std::vector<std::string>> expected_per_direction() {
  std::map<CaptureDirection, Bytes> streams;
  for (const Chunk& c : session())
    streams[c.direction].insert(streams[c.direction].end(), c.bytes.begin(), c.bytes.end());
  std::map<CaptureDirection, std::vector<std::string>> out;
  for (auto& [direction, stream] : streams) {
    MessageReader reader;
    std::vector<Message> messages;
    EXPECT_FALSE(reader.feed(stream, messages));
    std::vector<CapturedMessage> wrapped;
    for (auto& m : messages)
      wrapped.push_back({0, {}, 0, direction, CapturedKind::adb, std::move(m), {}, {}});
    out[direction] = adb_lines(wrapped);
  }
  return out;
}

std::map<CaptureDirection, std::vector<std::string>> per_direction(
    const std::vector<CapturedMessage>& messages) {
  std::map<CaptureDirection, std::vector<std::string>> out;
  for (const auto& m : messages) out[m.direction].push_back(adb_lines({m}).at(0));
  return out;
}

CaptureTime at(int millis) {
  return CaptureTime(std::chrono::milliseconds(1'700'000'000'000LL + millis));
}

std::filesystem::path record_session(const TempDir& dir, CaptureLink link, const char* name) {
  const auto path = dir.path() / name;
  CaptureWriterOptions options;
  options.link = link;
  options.host_address = {192, 168, 1, 10};
  options.device_address = {192, 168, 1, 20};
  CaptureWriter writer;
  writer.open(path, options);
  int t = 0;
  for (const Chunk& c : session()) writer.record(c.direction, c.bytes, at(t += 5));
  writer.close();
  return path;
}

// tshark's view: one line per ADB message header, per direction.
std::map<CaptureDirection, std::vector<std::string>> tshark_messages(
    const std::filesystem::path& file, CaptureLink link) {
  const std::string decode_as =
      link == CaptureLink::tcp ? "-d tcp.port==5555,adb -e tcp.srcport"
                               : "-d usb.device==0x00010002,adb -e usb.endpoint_address.direction";
  int status = 0;
  const std::string out = run_command(
      "tshark -r '" + file.string() + "' " + decode_as +
          " -Y adb.magic -T fields -E occurrence=a -E aggregator=, "
          "-e adb.command -e adb.argument.0 -e adb.argument.1 -e adb.data_length 2>/dev/null",
      status);
  EXPECT_EQ(status, 0) << out;
  std::map<CaptureDirection, std::vector<std::string>> result;
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    std::vector<std::vector<std::string>> columns;
    std::istringstream fields(line);
    std::string field;
    while (std::getline(fields, field, '\t')) {
      std::vector<std::string> values;
      std::istringstream items(field);
      std::string item;
      while (std::getline(items, item, ',')) values.push_back(item);
      columns.push_back(values);
    }
    if (columns.size() != 5) {
      ADD_FAILURE() << "unexpected tshark line: " << line;
      continue;
    }
    const bool from_device =
        link == CaptureLink::tcp ? columns[0].at(0) == "5555" : columns[0].at(0) == "1";
    for (std::size_t i = 0; i < columns[1].size(); ++i) {
      char text[96];
      std::snprintf(text, sizeof text, "%s %08lx %08lx %s",
                    std::string(command_name(static_cast<std::uint32_t>(
                                    std::stoul(columns[1][i], nullptr, 16))))
                        .c_str(),
                    std::stoul(columns[2].at(i), nullptr, 16),
                    std::stoul(columns[3].at(i), nullptr, 16), columns[4].at(i).c_str());
      result[from_device ? CaptureDirection::device_to_host : CaptureDirection::host_to_device]
          .push_back(text);
    }
  }
  return result;
}

TEST(CaptureWriter, TcpRecordingDecodesBackToEveryMessage) {
  TempDir dir;
  const auto path = record_session(dir, CaptureLink::tcp, "tcp.pcapng");
  std::vector<CapturedMessage> messages;
  const CaptureSummary summary =
      decode_capture_file(path, [&](const CapturedMessage& m) { messages.push_back(m); });
  EXPECT_EQ(per_direction(messages), expected_per_direction());
  EXPECT_EQ(summary.stats.resyncs, 0u);
  EXPECT_EQ(summary.stats.lost_bytes, 0u);
  ASSERT_EQ(summary.connections.size(), 1u);
  EXPECT_EQ(summary.connections[0].description, "tcp 192.168.1.10:50000 > 192.168.1.20:5555");
  // Previews: shell v2 and sync payloads decoded, services attached.
  bool saw_shell = false;
  bool saw_sync = false;
  for (const auto& m : messages) {
    if (m.summary == "shell v2 stdout \"a\\nb\"") saw_shell = m.service == "shell,v2,raw:ls";
    if (m.summary ==
        "sync STAT mode=0100644 size=0 mtime=0, DATA 65536, DATA 65536, DATA 65536, +1 more") {
      saw_sync = m.service == "sync:";
    }
  }
  EXPECT_TRUE(saw_shell);
  EXPECT_TRUE(saw_sync);
}

TEST(CaptureWriter, UsbRecordingDecodesBackToEveryMessage) {
  TempDir dir;
  const auto path = record_session(dir, CaptureLink::usb, "usb.pcapng");
  std::vector<CapturedMessage> messages;
  decode_capture_file(path, [&](const CapturedMessage& m) { messages.push_back(m); });
  EXPECT_EQ(per_direction(messages), expected_per_direction());
}

TEST(CaptureWriter, TsharkAgreesMessageForMessageOverTcp) {
  ASSERT_TRUE(have_tshark()) << kInstallTshark;
  TempDir dir;
  const auto path = record_session(dir, CaptureLink::tcp, "tcp.pcapng");
  std::vector<CapturedMessage> messages;
  decode_capture_file(path, [&](const CapturedMessage& m) { messages.push_back(m); });
  const auto ours = per_direction(messages);
  EXPECT_EQ(tshark_messages(path, CaptureLink::tcp), ours);
  EXPECT_EQ(ours.at(CaptureDirection::host_to_device).size() +
                ours.at(CaptureDirection::device_to_host).size(),
            14u);
}

TEST(CaptureWriter, TsharkAgreesMessageForMessageOverUsb) {
  ASSERT_TRUE(have_tshark()) << kInstallTshark;
  TempDir dir;
  const auto path = record_session(dir, CaptureLink::usb, "usb.pcapng");
  std::vector<CapturedMessage> messages;
  decode_capture_file(path, [&](const CapturedMessage& m) { messages.push_back(m); });
  EXPECT_EQ(tshark_messages(path, CaptureLink::usb), per_direction(messages));
}

TEST(CaptureWriter, TsharkFindsValidChecksumsAndAHandshake) {
  ASSERT_TRUE(have_tshark()) << kInstallTshark;
  TempDir dir;
  const auto path = record_session(dir, CaptureLink::tcp, "tcp.pcapng");
  int status = 0;
  const std::string bad =
      run_command("tshark -r '" + path.string() +
                      "' -o ip.check_checksum:TRUE -o tcp.check_checksum:TRUE "
                      "-Y 'ip.checksum.status!=1 || tcp.checksum.status!=1 || _ws.malformed "
                      "|| tcp.analysis.flags' -T fields -e frame.number 2>/dev/null",
                  status);
  EXPECT_EQ(status, 0);
  EXPECT_EQ(bad, "") << "frames with bad checksums or TCP analysis warnings";
  const std::string first =
      run_command("tshark -r '" + path.string() +
                      "' -c 3 -T fields -e tcp.flags.syn -e tcp.flags.ack 2>/dev/null",
                  status);
  EXPECT_EQ(first, "1\t0\n1\t1\n0\t1\n");
}

TEST(CaptureWriter, EachRecordIsOnDiskBeforeTheNextOne) {
  TempDir dir;
  const auto path = dir.path() / "live.pcapng";
  CaptureWriter writer;
  writer.open(path);
  const auto chunks = session();
  std::size_t expected = 0;
  for (std::size_t i = 0; i < 6; ++i) {
    writer.record(chunks[i].direction, chunks[i].bytes, at(static_cast<int>(i)));
    expected += (i == 4) ? 2 : 1;  // chunk 4 holds two OPENs
    // Read the file as a crash would leave it: complete and decodable up to this record.
    const Decoded d = decode(read_file(path));
    ASSERT_FALSE(d.ec) << d.fault.detail;
    EXPECT_EQ(d.messages.size(), expected);
  }
}

TEST(CaptureWriter, ErrorsAreReportedBothWays) {
  CaptureWriter writer;
  std::error_code ec;
  writer.record(CaptureDirection::host_to_device, bytes_of("x"), at(0), ec);
  EXPECT_EQ(ec, errc::closed);
  EXPECT_THROW(writer.record(CaptureDirection::host_to_device, bytes_of("x")), Error);
  writer.open("/nonexistent-dir/for/sure.pcapng", {}, ec);
  EXPECT_EQ(ec, errc::io_error);
  EXPECT_FALSE(writer.is_open());
  try {
    writer.open("/nonexistent-dir/for/sure.pcapng");
    ADD_FAILURE() << "open should throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/for/sure.pcapng"), std::string::npos);
  }
}

TEST(CaptureEncoder, LargeWritesAreSplitIntoSegmentsWithConsistentSequenceNumbers) {
  CaptureEncoder encoder;
  Bytes file;
  encoder.begin(at(0), file);
  const Bytes payload(3 * CaptureEncoder::kMaxSegment + 17, 0x41);
  const Bytes message =
      adb_message(kCommandWrte, 1, 2, std::string(payload.begin(), payload.end()));
  encoder.record(CaptureDirection::host_to_device, message, at(1), file);
  encoder.end(at(2), file);
  const Decoded d = decode(file);
  ASSERT_FALSE(d.ec);
  ASSERT_EQ(d.messages.size(), 1u);
  EXPECT_EQ(d.messages[0].message.payload, payload);
  EXPECT_EQ(d.stats.records, 3u + 4u + 3u);  // handshake, 4 segments, FIN/FIN/ACK
}

}  // namespace
}  // namespace adbwire::capture_test
