// The real captures in ../shared/corpus/pcap (read in place): decoded without error and
// message for message as tshark's ADB dissector sees them; truncated copies fail with the
// record index and byte offset and keep what came before the cut.
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "adbwire/capture.hpp"
#include "adbwire/error.hpp"
#include "adbwire/protocol/constants.hpp"
#include "unit/capture/capture_test_support.hpp"

namespace adbwire::capture_test {
namespace {

struct CorpusFile {
  const char* name;
  const char* decode_as;  // how tshark is told the traffic is ADB
  std::size_t messages;   // ADB messages (PROVENANCE.md; checked against tshark below)
};

const CorpusFile kCorpus[] = {
    {"adb-tcp5555-cyberedu-investigator-stream.pcapng", "-d tcp.port==5555,adb", 78},
    // 64 units: 59 ADB messages tshark knows, 2 STLS (Wireshark 4.0 has no STLS), 1 SYNC,
    // and 2 adb server requests on port 5037; the TLS bytes after STLS are skipped.
    {"adb-tcp-synthetic-arkime-auth-sync-shellv2.pcap", "-d tcp.port==5555,adb", 62},
    {"adb-usbmon-dlt220-nuttx-adbd-shell-ls.pcapng", "-d usb.device==0x00010023,adb", 6},
};

std::filesystem::path corpus_path(const char* name) {
  return std::filesystem::path("../shared/corpus/pcap") / name;
}

std::vector<CapturedMessage> decode_all(const std::filesystem::path& path, CaptureSummary& summary,
                                        std::error_code& ec) {
  std::vector<CapturedMessage> messages;
  summary = decode_capture_file(
      path, [&](const CapturedMessage& m) { messages.push_back(m); }, ec);
  return messages;
}

std::map<std::string, int> count_commands(const std::vector<CapturedMessage>& messages) {
  std::map<std::string, int> counts;
  for (const auto& m : messages) {
    if (m.kind == CapturedKind::adb)
      ++counts[std::string(protocol::command_name(m.message.command))];
  }
  return counts;
}

TEST(CaptureCorpus, EveryCaptureDecodesWithoutError) {
  for (const CorpusFile& file : kCorpus) {
    CaptureSummary summary;
    std::error_code ec;
    const auto messages = decode_all(corpus_path(file.name), summary, ec);
    EXPECT_FALSE(ec) << file.name << ": " << summary.fault.detail;
    std::size_t adb = 0;
    for (const auto& m : messages) adb += m.kind == CapturedKind::adb;
    EXPECT_EQ(adb, file.messages) << file.name;
    EXPECT_EQ(summary.stats.lost_bytes, 0u) << file.name;
  }
}

TEST(CaptureCorpus, MessagesMatchTsharkOneForOne) {
  ASSERT_TRUE(have_tshark()) << kInstallTshark;
  for (const CorpusFile& file : kCorpus) {
    CaptureSummary summary;
    std::error_code ec;
    const auto messages = decode_all(corpus_path(file.name), summary, ec);
    ASSERT_FALSE(ec) << summary.fault.detail;
    int status = 0;
    const std::string out = run_command(
        std::string("tshark -r '") + corpus_path(file.name).string() + "' " + file.decode_as +
            " -Y adb.magic -T fields -E occurrence=a -E aggregator=, "
            "-e adb.command -e adb.argument.0 -e adb.argument.1 -e adb.data_length "
            "2>/dev/null",
        status);
    ASSERT_EQ(status, 0);
    // tshark lists messages in header order, we list them at completion: compare as multisets
    // of "CMD arg0 arg1 length", without STLS which Wireshark 4.0 does not dissect.
    std::multiset<std::string> theirs;
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
      ASSERT_EQ(columns.size(), 4u) << line;
      for (std::size_t i = 0; i < columns[0].size(); ++i) {
        char text[96];
        std::snprintf(text, sizeof text, "%s %08lx %08lx %s",
                      std::string(protocol::command_name(static_cast<std::uint32_t>(
                                      std::stoul(columns[0][i], nullptr, 16))))
                          .c_str(),
                      std::stoul(columns[1].at(i), nullptr, 16),
                      std::stoul(columns[2].at(i), nullptr, 16), columns[3].at(i).c_str());
        theirs.insert(text);
      }
    }
    std::multiset<std::string> ours;
    for (const std::string& l : adb_lines(messages)) {
      if (!l.starts_with("STLS")) ours.insert(l);
    }
    EXPECT_EQ(ours, theirs) << file.name;
  }
}

TEST(CaptureCorpus, ArkimeSyntheticDetails) {
  CaptureSummary summary;
  std::error_code ec;
  const auto messages = decode_all(corpus_path(kCorpus[1].name), summary, ec);
  ASSERT_FALSE(ec);
  const std::map<std::string, int> expected = {{"CNXN", 12}, {"AUTH", 3}, {"OPEN", 7}, {"OKAY", 18},
                                               {"WRTE", 11}, {"CLSE", 8}, {"SYNC", 1}, {"STLS", 2}};
  EXPECT_EQ(count_commands(messages), expected);
  std::vector<std::string> requests;
  for (const auto& m : messages) {
    if (m.kind == CapturedKind::smart_request) requests.push_back(m.service);
  }
  EXPECT_EQ(requests, (std::vector<std::string>{"host:version", "host:forward:tcp:8080;tcp:80"}));
  EXPECT_EQ(summary.connections.size(), 7u);
  EXPECT_EQ(summary.stats.resyncs, 2u);  // the TLS records after STLS, one per direction
}

TEST(CaptureCorpus, TruncatedCopiesReportRecordAndOffsetAndKeepEarlierMessages) {
  TempDir dir;
  for (const CorpusFile& file : kCorpus) {
    const Bytes whole = read_file(corpus_path(file.name));
    ASSERT_FALSE(whole.empty()) << file.name;
    CaptureSummary full_summary;
    std::error_code ec;
    const auto full = decode_all(corpus_path(file.name), full_summary, ec);
    ASSERT_FALSE(ec);
    for (const std::size_t cut : {std::size_t{10}, whole.size() / 4, whole.size() / 2,
                                  whole.size() * 3 / 4, whole.size() - 3}) {
      const auto path = dir.path() / ("cut-" + std::to_string(cut) + "-" + file.name);
      write_file(path, std::span(whole).first(cut));
      CaptureSummary summary;
      const auto messages = decode_all(path, summary, ec);
      EXPECT_EQ(ec, errc::parse_error) << file.name << " cut at " << cut;
      EXPECT_LE(summary.fault.byte_offset, cut);
      const std::string where = "record " + std::to_string(summary.fault.record_index) +
                                " at byte offset " + std::to_string(summary.fault.byte_offset);
      EXPECT_NE(summary.fault.detail.find(where), std::string::npos) << summary.fault.detail;
      if (cut == 10) {
        EXPECT_EQ(summary.fault.record_index, 0u);  // inside the file header
        continue;
      }
      EXPECT_GT(summary.fault.record_index, 0u);
      EXPECT_EQ(summary.stats.records, summary.fault.record_index - 1);
      // Every message the whole file completes before the bad record is still delivered.
      std::vector<CapturedMessage> before;
      for (const auto& m : full) {
        if (m.record < summary.fault.record_index) before.push_back(m);
      }
      const auto got = adb_lines(messages);
      const auto want = adb_lines(before);
      ASSERT_GE(got.size(), want.size()) << file.name << " cut at " << cut;
      EXPECT_TRUE(std::equal(want.begin(), want.end(), got.begin()))
          << file.name << " cut at " << cut;
      // The throwing form says the same.
      try {
        decode_capture_file(path, [](const CapturedMessage&) {});
        ADD_FAILURE() << "expected a parse_error";
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), errc::parse_error);
        EXPECT_NE(std::string(e.what()).find(where), std::string::npos) << e.what();
      }
    }
  }
}

TEST(CaptureCorpus, MissingFileIsNotFound) {
  std::error_code ec;
  const CaptureSummary summary = decode_capture_file(
      "../shared/corpus/pcap/no-such.pcap", [](const CapturedMessage&) {}, ec);
  EXPECT_EQ(ec, errc::not_found);
  EXPECT_NE(summary.fault.detail.find("no-such.pcap"), std::string::npos);
}

}  // namespace
}  // namespace adbwire::capture_test
