// The pipeline on every real dump in ../shared/corpus/xml (read in place), plus golden
// outputs for a few screens reviewed by hand. Set ADBWIRE_UPDATE_GOLDEN=1 to rewrite the
// golden files after a deliberate format change (then review the diff).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "adbwire/ui.hpp"

namespace adbwire::ui {
namespace {

namespace fs = std::filesystem;

const fs::path kCorpus = fs::path(ADBWIRE_SOURCE_DIR) / ".." / "shared" / "corpus" / "xml";
const fs::path kGolden = fs::path(ADBWIRE_SOURCE_DIR) / "tests" / "unit" / "ui" / "golden";
constexpr std::size_t kCorpusFiles = 34;

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<fs::path> corpus() {
  std::vector<fs::path> files;
  if (!fs::is_directory(kCorpus)) return files;
  for (const auto& entry : fs::directory_iterator(kCorpus)) {
    if (entry.path().extension() == ".xml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

void count_json_refs(const nlohmann::json& nodes, std::size_t& refs) {
  std::vector<const nlohmann::json*> stack{&nodes};
  while (!stack.empty()) {
    const nlohmann::json* list = stack.back();
    stack.pop_back();
    for (const auto& n : *list) {
      if (n.contains("ref")) ++refs;
      if (n.contains("children")) stack.push_back(&n["children"]);
    }
  }
}

TEST(Corpus, IsThere) {
  ASSERT_EQ(corpus().size(), kCorpusFiles)
      << "expected the real dumps in " << kCorpus << " (the shared corpus next to the repository)";
}

TEST(Corpus, EveryDumpParsesAndEveryInteractiveNodeIsShownWithItsRef) {
  for (const fs::path& file : corpus()) {
    SCOPED_TRACE(file.filename().string());
    const Snapshot s = parse_dump(read(file));
    ASSERT_FALSE(s.nodes().empty());
    const std::string text = s.to_text();
    std::size_t interactive = 0;
    for (const Node& n : s.nodes()) {
      if (!n.clickable && !n.editable && !n.scrollable) {
        EXPECT_EQ(n.ref, 0u);
        continue;
      }
      ++interactive;
      ASSERT_NE(n.ref, 0u) << "clickable/editable/scrollable node without a ref: " << n.class_name;
      EXPECT_NE(text.find(" [ref=" + std::to_string(n.ref) + "]"), std::string::npos)
          << "ref " << n.ref << " missing from the output";
    }
    EXPECT_EQ(s.refs().size(), interactive);
    std::size_t lines_with_ref = 0;
    for (std::size_t p = text.find("[ref="); p != std::string::npos; p = text.find("[ref=", p + 1))
      ++lines_with_ref;
    EXPECT_EQ(lines_with_ref, interactive) << "each ref appears exactly once";
    std::size_t json_refs = 0;
    count_json_refs(nlohmann::json::parse(s.to_json())["nodes"], json_refs);
    EXPECT_EQ(json_refs, interactive);
  }
}

TEST(Corpus, OutputIsDeterministicAndTokensStable) {
  for (const fs::path& file : corpus()) {
    SCOPED_TRACE(file.filename().string());
    const std::string xml = read(file);
    const Snapshot a = parse_dump(xml);
    const Snapshot b = parse_dump(xml);
    EXPECT_EQ(a.to_text(), b.to_text());
    EXPECT_EQ(a.to_json(), b.to_json());
    ASSERT_EQ(a.refs().size(), b.refs().size());
    for (std::size_t i = 0; i < a.refs().size(); ++i) {
      EXPECT_EQ(a.refs()[i].exact_token, b.refs()[i].exact_token);
      EXPECT_EQ(a.refs()[i].identity_token, b.refs()[i].identity_token);
      // Against an identical screen a ref never resolves to another element.
      std::error_code error;
      const NodeIndex hit = resolve(a.refs()[i], b, error);
      if (!error) {
        EXPECT_EQ(hit, a.refs()[i].node);
      }
    }
  }
}

TEST(Corpus, OptionsKeepEveryRefUnlessDepthCutsIt) {
  for (const fs::path& file : corpus()) {
    SCOPED_TRACE(file.filename().string());
    const std::string xml = read(file);
    for (const SnapshotOptions options :
         {SnapshotOptions{true, 0, false}, SnapshotOptions{false, 0, true}}) {
      const Snapshot s = parse_dump(xml, options);
      const std::string text = s.to_text();
      for (const RefInfo& r : s.refs()) {
        EXPECT_NE(text.find(" [ref=" + std::to_string(r.ref) + "]"), std::string::npos) << r.ref;
      }
      const std::string full = parse_dump(xml).to_text();
      EXPECT_LE(std::count(text.begin(), text.end(), '\n'),
                std::count(full.begin(), full.end(), '\n'))
          << "options never add lines";
    }
  }
}

TEST(Corpus, DevTtyTrailerOnARealDump) {
  const std::string xml = read(kCorpus / "pixel-nexuslauncher-1080x2400.xml");
  ASSERT_FALSE(xml.empty());
  EXPECT_EQ(parse_dump(xml + "UI hierchary dumped to: /dev/tty\r\n").to_text(),
            parse_dump(xml).to_text());
}

class Golden : public ::testing::TestWithParam<const char*> {};

TEST_P(Golden, MatchesReviewedOutput) {
  const std::string name = GetParam();
  const std::string text = parse_dump(read(kCorpus / (name + ".xml"))).to_text();
  const fs::path golden = kGolden / (name + ".txt");
  if (const char* update = std::getenv("ADBWIRE_UPDATE_GOLDEN");
      update && std::string(update) == "1") {
    std::ofstream(golden, std::ios::binary) << text;
  }
  ASSERT_TRUE(fs::exists(golden)) << golden;
  EXPECT_EQ(text, read(golden));
}

INSTANTIATE_TEST_SUITE_P(Reviewed, Golden,
                         ::testing::Values("bus-simulator-game-rotation3",
                                           "android-phone-network-settings", "whatsapp-720x1280",
                                           "herald-campus-800x1216-zh",
                                           "appium-automotive-ivi-vehiclecontrol",
                                           "aosp-launcher3-1080x1776"),
                         [](const auto& info) {
                           std::string n = info.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

}  // namespace
}  // namespace adbwire::ui
