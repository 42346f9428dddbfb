// A screen's fingerprint (verbs/screen_fingerprint.hpp), the observation cache's key: the demo
// app's screens and every real dump of ../shared/corpus/xml keep theirs through what changes
// while a screen stays (text, descriptions, a list's length) and lose it when its structure
// changes.
#include "verbs/screen_fingerprint.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

namespace adbwire::verbs {
namespace {

namespace fs = std::filesystem;

const fs::path kDemo = fs::path(ADBWIRE_SOURCE_DIR) / "src" / "vdevice" / "screens" / "demo";
const fs::path kCorpus = fs::path(ADBWIRE_SOURCE_DIR) / ".." / "shared" / "corpus" / "xml";

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string fingerprint_of(std::string xml) {
  return screen_fingerprint(ui::parse_dump(std::move(xml)));
}

// Every letter and digit of each text and content-desc value shifted (ROT13, digits by 5): a
// clock, a counter, a name, what a field holds; nothing empty becomes non-empty or back.
std::string other_words(const std::string& xml) {
  static const std::regex kValue(R"re(( (text|content-desc)=")([^"]*)")re");
  std::string out;
  std::sregex_iterator at(xml.begin(), xml.end(), kValue);
  std::size_t done = 0;
  for (; at != std::sregex_iterator(); ++at) {
    out.append(xml, done, static_cast<std::size_t>(at->position()) - done);
    std::string value = (*at)[3].str();
    for (char& c : value) {
      if (c >= 'a' && c <= 'z')
        c = static_cast<char>('a' + (c - 'a' + 13) % 26);
      else if (c >= 'A' && c <= 'Z')
        c = static_cast<char>('A' + (c - 'A' + 13) % 26);
      else if (c >= '0' && c <= '9')
        c = static_cast<char>('0' + (c - '0' + 5) % 10);
    }
    out += (*at)[1].str() + value + "\"";
    done = static_cast<std::size_t>(at->position() + at->length());
  }
  out.append(xml, done);
  return out;
}

TEST(ScreenFingerprint, IsSixteenHexDigitsAndTheSameForTheSameDump) {
  const std::string list = read(kDemo / "list.xml");
  ASSERT_FALSE(list.empty());
  const std::string fingerprint = fingerprint_of(list);
  EXPECT_TRUE(std::regex_match(fingerprint, std::regex("[0-9a-f]{16}"))) << fingerprint;
  EXPECT_EQ(fingerprint_of(list), fingerprint);
  EXPECT_EQ(screen_fingerprint(ui::Snapshot()), "");
}

TEST(ScreenFingerprint, OtherWordsOnTheSameScreenKeepIt) {
  const std::string list = read(kDemo / "list.xml");
  const std::string renamed = other_words(list);
  ASSERT_NE(renamed, list);
  ASSERT_NE(renamed.find("Nccyrf"), std::string::npos);  // "Apples"
  EXPECT_EQ(fingerprint_of(renamed), fingerprint_of(list));
}

TEST(ScreenFingerprint, AListOfAnotherLengthIsTheSameScreen) {
  const std::string list = read(kDemo / "list.xml");
  // The third row (Coffee beans) gone: a shorter list, or one scrolled.
  const std::size_t row =
      list.find("<node index=\"2\" text=\"\" resource-id=\"com.example.adbwire.demo:id/item_row\"");
  ASSERT_NE(row, std::string::npos);
  const std::size_t end = list.find("</node>", row);
  ASSERT_NE(end, std::string::npos);
  std::string shorter = list;
  shorter.erase(row, end + 7 - row);
  ASSERT_EQ(ui::parse_dump(std::string(shorter)).nodes().size() + 3,
            ui::parse_dump(std::string(list)).nodes().size());
  EXPECT_EQ(fingerprint_of(shorter), fingerprint_of(list));
}

TEST(ScreenFingerprint, AnotherStructureIsAnotherScreen) {
  const std::string list = read(kDemo / "list.xml");
  const std::string base = fingerprint_of(list);
  EXPECT_NE(fingerprint_of(read(kDemo / "add.xml")), base);
  EXPECT_NE(fingerprint_of(read(kDemo / "details.xml")), base);
  EXPECT_NE(fingerprint_of(read(kDemo / "add.xml")), fingerprint_of(read(kDemo / "details.xml")));
  std::string renamed_id = list;
  renamed_id.replace(renamed_id.find("id/add_item"), 11, "id/new_item");
  EXPECT_NE(fingerprint_of(renamed_id), base);
  std::string not_clickable = list;
  const std::size_t button = not_clickable.find("id/add_item");
  const std::size_t flag = not_clickable.find("clickable=\"true\"", button);
  not_clickable.replace(flag, 16, "clickable=\"false\"");
  EXPECT_NE(fingerprint_of(not_clickable), base);
  std::string other_app = list;
  for (std::size_t at = other_app.find("package=\"com.example.adbwire.demo\"");
       at != std::string::npos; at = other_app.find("package=\"com.example.adbwire.demo\"", at))
    other_app.replace(at, 34, "package=\"com.example.other.demo\"");
  EXPECT_NE(fingerprint_of(other_app), base);
}

TEST(ScreenFingerprint, EveryRealDumpKeepsItsFingerprintThroughOtherWords) {
  ASSERT_TRUE(fs::is_directory(kCorpus)) << kCorpus << " is missing (the shared corpus)";
  std::size_t dumps = 0;
  for (const fs::directory_entry& entry : fs::directory_iterator(kCorpus)) {
    if (entry.path().extension() != ".xml") continue;
    ++dumps;
    const std::string xml = read(entry.path());
    const std::string fingerprint = fingerprint_of(xml);
    EXPECT_EQ(fingerprint.size(), 16U) << entry.path();
    EXPECT_EQ(fingerprint_of(other_words(xml)), fingerprint) << entry.path();
  }
  EXPECT_GE(dumps, 20U);
}

TEST(ScreenFingerprint, TheSummaryNamesTheAppAndItsElementsWithinItsBound) {
  const ui::Snapshot list = ui::parse_dump(read(kDemo / "list.xml"));
  const std::string summary = screen_summary(list);
  EXPECT_TRUE(summary.starts_with("com.example.adbwire.demo:")) << summary;
  EXPECT_NE(summary.find("Button \"Add item\""), std::string::npos) << summary;
  const std::string short_one = screen_summary(list, 60);
  EXPECT_LE(short_one.size(), 60U);
  EXPECT_TRUE(short_one.ends_with(", …")) << short_one;
}

}  // namespace
}  // namespace adbwire::verbs
