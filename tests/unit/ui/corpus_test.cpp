// The pipeline on every real dump in ../shared/corpus/xml (read in place): refs, YAML read back
// with libyaml, the size budget, and golden outputs for screens reviewed by hand. Set
// ADBWIRE_UPDATE_GOLDEN=1 to rewrite the golden files after a deliberate format change (then
// review the diff).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "adbwire/ui.hpp"
#include "unit/ui/yaml_tree.hpp"

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

bool attribute_is(const Snapshot& s, NodeIndex i, std::string_view name, std::string_view value) {
  for (const Attribute& a : s.extra_attributes(i)) {
    if (a.name == name && a.value == value) return true;
  }
  return false;
}

// The rule of ui.hpp ("Refs"), computed from the attributes directly.
std::vector<bool> should_have_refs(const Snapshot& s) {
  const auto nodes = s.nodes();
  std::vector<bool> visible(nodes.size()), in_clickable(nodes.size()), want(nodes.size());
  for (NodeIndex i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    visible[i] = !attribute_is(s, i, "visible-to-user", "false") &&
                 !attribute_is(s, i, "displayed", "false") && !(n.has_bounds && n.bounds.empty());
    in_clickable[i] = n.parent != kNoNode &&
                      (in_clickable[n.parent] || (nodes[n.parent].clickable && visible[n.parent]));
    want[i] = visible[i] && (n.clickable || n.long_clickable || n.editable || n.scrollable ||
                             (n.checkable && !in_clickable[i]));
  }
  // Controls the app did not mark clickable: images and buttons with a desc or a focusable id,
  // focusable groups with a desc; small, in an app window, nothing clickable around or over.
  for (const Window& window : s.windows()) {
    if (window.kind != WindowKind::app) continue;
    const std::int64_t screen = std::int64_t{window.bounds.width()} * window.bounds.height();
    for (NodeIndex i = window.root; i < nodes[window.root].subtree_end; ++i) {
      const Node& n = nodes[i];
      if (want[i] || !visible[i] || in_clickable[i] || !n.enabled || !n.has_bounds ||
          n.class_name.starts_with("web."))
        continue;
      const bool control = n.role == "Image" || n.role == "ImageButton" || n.role == "Button";
      if (!(control ? !n.content_desc.empty() || (n.focusable && !n.resource_id.empty())
                    : n.first_child != kNoNode && n.focusable && !n.content_desc.empty()))
        continue;
      if (2 * std::int64_t{n.bounds.width()} * n.bounds.height() > screen) continue;
      bool covered = false;
      for (NodeIndex j = i + 1; j < nodes[window.root].subtree_end && !covered; ++j)
        covered = (nodes[j].clickable || nodes[j].long_clickable) && visible[j] &&
                  nodes[j].bounds.contains(n.bounds.center());
      want[i] = !covered;
    }
  }
  return want;
}

std::size_t count_json_refs(const nlohmann::json& json) {
  std::size_t refs = 0;
  count_json_refs(json["nodes"], refs);
  if (json.contains("windows")) {
    for (const auto& w : json["windows"]) count_json_refs(w["nodes"], refs);
  }
  return refs;
}

TEST(Corpus, EveryDumpParsesAndEveryNodeThatShouldHaveARefIsShownWithIt) {
  for (const fs::path& file : corpus()) {
    SCOPED_TRACE(file.filename().string());
    const Snapshot s = parse_dump(read(file));
    ASSERT_FALSE(s.nodes().empty());
    const std::string text = s.to_text();
    const std::vector<bool> want = should_have_refs(s);
    std::size_t expected = 0;
    for (NodeIndex i = 0; i < s.nodes().size(); ++i) {
      const Node& n = s.node(i);
      if (!want[i]) {
        EXPECT_EQ(n.ref, 0u) << n.class_name << " " << n.text;
        continue;
      }
      ++expected;
      ASSERT_NE(n.ref, 0u) << "node without its ref: " << n.class_name;
      EXPECT_NE(text.find(" [ref=" + std::to_string(n.ref) + "]"), std::string::npos)
          << "ref " << n.ref << " missing from the output";
    }
    EXPECT_EQ(s.refs().size(), expected);
    std::size_t lines_with_ref = 0;
    for (std::size_t p = text.find("[ref="); p != std::string::npos; p = text.find("[ref=", p + 1))
      ++lines_with_ref;
    EXPECT_EQ(lines_with_ref, expected) << "each ref appears exactly once";
    EXPECT_EQ(count_json_refs(nlohmann::json::parse(s.to_json())), expected);
  }
}

TEST(Corpus, RefsAreNumberedInTheOrderShownAppFirst) {
  for (const fs::path& file : corpus()) {
    SCOPED_TRACE(file.filename().string());
    const Snapshot s = parse_dump(read(file));
    const std::string text = s.to_text();
    std::uint32_t next = 1;
    for (std::size_t p = text.find("[ref="); p != std::string::npos;
         p = text.find("[ref=", p + 1)) {
      EXPECT_EQ(std::stoul(text.substr(p + 5)), next) << "at byte " << p;
      ++next;
    }
    bool other_seen = false;
    for (const Window& w : s.windows()) {
      EXPECT_FALSE(other_seen && w.kind == WindowKind::app) << "an app window after another one";
      other_seen = other_seen || w.kind != WindowKind::app;
    }
  }
}

TEST(Corpus, OutputIsValidYamlWhoseTreeIsTheLines) {
  std::vector<SnapshotOptions> variants(4);
  variants[1].interactive_only = true;
  variants[2].compact = true;
  variants[2].show_ids = true;
  variants[3].max_depth = 3;
  for (const fs::path& file : corpus()) {
    SCOPED_TRACE(file.filename().string());
    const std::string xml = read(file);
    for (const SnapshotOptions& options : variants) {
      const std::string text = parse_dump(xml, options).to_text();
      ASSERT_FALSE(text.empty());
      EXPECT_EQ(test::misshapen_line(text), "");
      std::vector<test::YamlItem> items;
      std::string error;
      ASSERT_TRUE(test::read_yaml_tree(text, items, error)) << error << "\n" << text;
      EXPECT_EQ(items, test::line_tree(text));
    }
  }
}

// Bytes of today's snapshot of each corpus dump before issue 20 (commit e34acc8, recorded
// with `adbwire snapshot --xml FILE`); the new format may grow the total by at most 10 %.
constexpr std::pair<std::string_view, std::size_t> kBaseline[] = {
    {"android-phone-network-settings", 394},
    {"aosp-launcher3-1080x1776", 988},
    {"appium-automotive-ivi-vehiclecontrol", 1564},
    {"brella-events-webview-display-id", 1351},
    {"bus-simulator-game-rotation3", 29},
    {"chatgpt-app-1200x2670-drawing-order", 1195},
    {"deepeye-music-home-webview", 2961},
    {"douban-frodo-zh", 1385},
    {"ecovacs-home-webview-display-id", 2243},
    {"futu-trader-zh", 1937},
    {"gimytv-landscape-1920x1080", 2430},
    {"google-tasks-tablet-1600-display-id", 3831},
    {"herald-campus-800x1216-zh", 588},
    {"homee-smarthome-systemui-display-id", 604},
    {"indrive-u2-allwindows-display-id", 3291},
    {"instagram-clone-story-editor-display-id", 1885},
    {"instagram-profile-u2-visible-to-user", 4005},
    {"jukandian-news-webview-169k", 17093},
    {"marvel-contest-game-rotation1-2780x1264", 29},
    {"miui-lockscreen-aod-systemui", 0},
    {"pixel-nexuslauncher-1080x2400", 1310},
    {"protonvpn-main", 715},
    {"safeum-messenger", 1582},
    {"sayhi-userlist-arabic", 3559},
    {"spotlight-bluestacks-rotation1", 2144},
    {"superproxy-rotation1-display-id", 2310},
    {"swapcard-adipec-event-111k", 4846},
    {"tiktok-u2-480px-visible-to-user", 1788},
    {"vivo-launcher-home-zh", 2873},
    {"wechat-zh", 1691},
    {"wecom-msglist-zh-720x1608", 2981},
    {"whatsapp-720x1280", 1301},
    {"whatsapp-chatlist-pt-motorola", 4259},
    {"youtube-emulator-720p-drawing-order", 472},
};
constexpr std::size_t kBaselineTotal = 79634;

// Prints the README's table (dump, bytes before, bytes now, raw XML bytes) with
// ADBWIRE_PRINT_SIZES=1.
TEST(Corpus, SnapshotsGrowAtMostTenPercentInTotal) {
  std::size_t before = 0, now = 0, raw = 0;
  // jukandian lost its off-screen WebView content (16 KB); the budget holds without it too.
  std::size_t others_before = 0, others_now = 0;
  const char* print = std::getenv("ADBWIRE_PRINT_SIZES");
  const bool table = print && std::string(print) == "1";
  if (table) std::printf("| dump | before | now | XML |\n|---|---:|---:|---:|\n");
  for (const auto& [name, bytes] : kBaseline) {
    const std::string xml = read(kCorpus / (std::string(name) + ".xml"));
    ASSERT_FALSE(xml.empty()) << name;
    const std::size_t size = parse_dump(xml).to_text().size();
    before += bytes;
    now += size;
    raw += xml.size();
    if (name != "jukandian-news-webview-169k") {
      others_before += bytes;
      others_now += size;
    }
    if (table)
      std::printf("| %s | %zu | %zu | %zu |\n", std::string(name).c_str(), bytes, size, xml.size());
  }
  if (table) std::printf("| total | %zu | %zu | %zu |\n", before, now, raw);
  ASSERT_EQ(before, kBaselineTotal);
  ASSERT_EQ(std::size(kBaseline), kCorpusFiles);
  EXPECT_LE(now * 10, before * 11) << now << " bytes now, " << before << " before";
  EXPECT_LE(others_now * 10, others_before * 11)
      << "without jukandian: " << others_now << " bytes now, " << others_before << " before";
}

TEST(Corpus, TheAppIsNamedFirstOnAllWindowsDumps) {
  const std::pair<const char*, const char*> expected[] = {
      {"brella-events-webview-display-id", "# app: com.brella\n"},
      {"ecovacs-home-webview-display-id", "# app: com.eco.global.app\n"},
      {"google-tasks-tablet-1600-display-id", "# app: com.google.android.apps.tasks\n"},
      {"homee-smarthome-systemui-display-id", "# app: de.vorwerk.homee.homee\n"},
      {"indrive-u2-allwindows-display-id", "# app: sinet.startup.inDriver\n"},
      {"instagram-clone-story-editor-display-id", "# app: com.instagram.androim\n"},
      {"instagram-profile-u2-visible-to-user", "# app: com.instagram.android\n"},
      {"superproxy-rotation1-display-id", "# app: com.scheler.superproxy\n"},
      {"swapcard-adipec-event-111k", "# app: com.swapcard.apps.android.adipec, keyboard shown\n"},
      {"tiktok-u2-480px-visible-to-user", "# app: com.zhiliaoapp.musically\n"},
      {"miui-lockscreen-aod-systemui", "# app: com.android.systemui\n"},
  };
  for (const auto& [name, header] : expected) {
    const Snapshot s = parse_dump(read(kCorpus / (std::string(name) + ".xml")));
    EXPECT_TRUE(s.to_text().starts_with(header)) << name << ":\n" << s.to_text();
    EXPECT_TRUE(s.app().inferred) << name;
    EXPECT_EQ(s.windows().front().kind, WindowKind::app) << name;
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
    for (const SnapshotOptions& options :
         {SnapshotOptions{.interactive_only = true}, SnapshotOptions{.compact = true}}) {
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

// A name ending in ".ids" is the dump of that name with SnapshotOptions::show_ids.
TEST_P(Golden, MatchesReviewedOutput) {
  std::string name = GetParam();
  SnapshotOptions options;
  std::string dump = name;
  if (name.ends_with(".ids")) {
    options.show_ids = true;
    dump.resize(dump.size() - 4);
  }
  const std::string text = parse_dump(read(kCorpus / (dump + ".xml")), options).to_text();
  const fs::path golden = kGolden / (name + ".txt");
  if (const char* update = std::getenv("ADBWIRE_UPDATE_GOLDEN");
      update && std::string(update) == "1") {
    std::ofstream(golden, std::ios::binary) << text;
  }
  ASSERT_TRUE(fs::exists(golden)) << golden;
  EXPECT_EQ(text, read(golden));
}

INSTANTIATE_TEST_SUITE_P(
    Reviewed, Golden,
    ::testing::Values("bus-simulator-game-rotation3", "android-phone-network-settings",
                      "whatsapp-720x1280", "herald-campus-800x1216-zh",
                      "appium-automotive-ivi-vehiclecontrol", "aosp-launcher3-1080x1776",
                      "indrive-u2-allwindows-display-id", "swapcard-adipec-event-111k",
                      "homee-smarthome-systemui-display-id", "miui-lockscreen-aod-systemui",
                      "marvel-contest-game-rotation1-2780x1264", "jukandian-news-webview-169k",
                      "instagram-clone-story-editor-display-id", "superproxy-rotation1-display-id",
                      "tiktok-u2-480px-visible-to-user", "pixel-nexuslauncher-1080x2400",
                      "android-phone-network-settings.ids"),
    [](const auto& info) {
      std::string n = info.param;
      std::replace(n.begin(), n.end(), '-', '_');
      std::replace(n.begin(), n.end(), '.', '_');
      return n;
    });

}  // namespace
}  // namespace adbwire::ui
