// The pull plan against a scripted lister: names from a device are single path components, and
// the SyncLimits bounds hold, whatever the listing says.
#include "services/pull_plan.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <map>
#include <string>
#include <vector>

namespace adbwire::detail {
namespace {

RemoteStat folder() {
  RemoteStat st;
  st.mode = S_IFDIR | 0755;
  return st;
}
RemoteStat file(std::uint64_t size) {
  RemoteStat st;
  st.mode = S_IFREG | 0644;
  st.size = size;
  return st;
}
RemoteStat link() {
  RemoteStat st;
  st.mode = S_IFLNK | 0777;
  return st;
}

// A device whose folders list what `tree` says; stat answers from `stats`.
class ScriptedLister final : public PullLister {
 public:
  std::map<std::string, std::vector<std::pair<std::string, RemoteStat>>> tree;
  std::map<std::string, RemoteStat> stats;
  std::vector<std::string> listed;

  bool stat(std::string_view path, RemoteStat& result, Failure& failure) override {
    const auto it = stats.find(std::string(path));
    if (it == stats.end()) {
      failure.set(errc::not_found, std::string(path) + " on the device: No such file");
      return false;
    }
    result = it->second;
    return true;
  }
  bool list(std::string_view path,
            const std::function<bool(std::string&& name, const RemoteStat&)>& on_entry,
            Failure&) override {
    listed.emplace_back(path);
    for (auto [name, st] : tree[std::string(path)]) {
      if (!on_entry(std::move(name), st)) return false;
    }
    return true;
  }
};

TEST(UnsafeName, SingleComponentsPass) {
  for (const char* name : {"a", ".hidden", "..dots", "a..b", "with space", "微信.txt",
                           "\x1b]0;title\x07", "-rf", "~"}) {
    EXPECT_EQ(unsafe_name_reason(name, 255), nullptr) << name;
  }
  EXPECT_EQ(unsafe_name_reason(std::string(255, 'x'), 255), nullptr);
}

TEST(UnsafeName, AnythingThatIsNotOneComponentFails) {
  EXPECT_STREQ(unsafe_name_reason("", 255), "is empty");
  EXPECT_NE(unsafe_name_reason(".", 255), nullptr);
  EXPECT_NE(unsafe_name_reason("..", 255), nullptr);
  EXPECT_STREQ(unsafe_name_reason("../escape.txt", 255), "contains '/'");
  EXPECT_STREQ(unsafe_name_reason("sub/../../x", 255), "contains '/'");
  EXPECT_STREQ(unsafe_name_reason("/etc/passwd", 255), "contains '/'");
  EXPECT_STREQ(unsafe_name_reason("dir/", 255), "contains '/'");
  EXPECT_STREQ(unsafe_name_reason(std::string("a\0b", 3), 255), "contains a NUL byte");
  EXPECT_STREQ(unsafe_name_reason(std::string(256, 'x'), 255), "is too long");
}

TEST(CheckListedEntry, NamesTheBoundOrTheNameEscaped) {
  Failure failure;
  EXPECT_FALSE(check_listed_entry(1, "../\x1b[2Jx", "/sdcard", SyncLimits{}, failure));
  EXPECT_EQ(failure.code, errc::protocol_error);
  EXPECT_NE(failure.detail.find("\"../\\x1b[2Jx\""), std::string::npos) << failure.detail;
  EXPECT_EQ(failure.detail.find('\x1b'), std::string::npos);

  failure = {};
  SyncLimits limits;
  limits.max_listing_entries = 3;
  EXPECT_TRUE(check_listed_entry(3, "ok", "/sdcard", limits, failure));
  EXPECT_FALSE(check_listed_entry(4, "ok", "/sdcard", limits, failure));
  EXPECT_EQ(failure.code, errc::limit_exceeded);
  EXPECT_NE(failure.detail.find("SyncLimits::max_listing_entries"), std::string::npos);

  failure = {};
  EXPECT_FALSE(check_listed_entry(1, std::string(300, 'n'), "/sdcard", SyncLimits{}, failure));
  EXPECT_EQ(failure.code, errc::limit_exceeded);
  EXPECT_NE(failure.detail.find("SyncLimits::max_name_length"), std::string::npos);
}

TEST(PullPlan, PlansATreeWithLinksToFilesAndSkipsTheRest) {
  ScriptedLister device;
  device.stats["/sdcard/dir"] = folder();
  device.tree["/sdcard/dir"] = {{"a.txt", file(3)},
                                {"sub", folder()},
                                {"to-file", link()},
                                {"to-dir", link()},
                                {"dangling", link()}};
  device.tree["/sdcard/dir/sub"] = {{"b.txt", file(5)}};
  device.stats["/sdcard/dir/to-file"] = file(7);
  device.stats["/sdcard/dir/to-dir"] = folder();
  PullPlan plan(SyncLimits{});
  Failure failure;
  ASSERT_TRUE(plan.build({{"/sdcard/dir", "out"}}, device, failure)) << failure.detail;
  EXPECT_EQ(plan.file_count(), 3u);
  EXPECT_EQ(plan.total_size(), 15u);
  EXPECT_EQ(plan.skipped(), 2u);
  std::vector<std::string> files;
  for (std::uint32_t i = 0; i < plan.entries().size(); ++i) {
    if (plan.entries()[i].kind == PlanKind::file)
      files.push_back(plan.local_path(i) + " <- " + plan.remote_path(i));
  }
  EXPECT_EQ(files, (std::vector<std::string>{"out/a.txt <- /sdcard/dir/a.txt",
                                             "out/to-file <- /sdcard/dir/to-file",
                                             "out/sub/b.txt <- /sdcard/dir/sub/b.txt"}));
  // Parents always come before their children (folders are created in plan order).
  for (std::uint32_t i = 0; i < plan.entries().size(); ++i) {
    if (plan.entries()[i].parent != kNoParent) {
      EXPECT_LT(plan.entries()[i].parent, i);
    }
  }
}

TEST(PullPlan, AnUnsafeNameAnywhereFailsTheWholePlan) {
  for (const std::string& bad :
       std::vector<std::string>{"../escape.txt", "/tmp/abs", "..", "a/b", std::string("n\0l", 3)}) {
    ScriptedLister device;
    device.stats["/d"] = folder();
    device.tree["/d"] = {{"fine", folder()}};
    device.tree["/d/fine"] = {{"ok.txt", file(1)}, {bad, file(1)}};
    PullPlan plan(SyncLimits{});
    Failure failure;
    EXPECT_FALSE(plan.build({{"/d", "d"}}, device, failure)) << bad;
    EXPECT_EQ(failure.code, errc::protocol_error) << bad;
    EXPECT_NE(failure.detail.find("/d/fine"), std::string::npos) << failure.detail;
  }
}

TEST(PullPlan, DepthAndTreeBoundsStopAnEndlessTree) {
  ScriptedLister device;
  device.stats["/d"] = folder();
  std::string path = "/d";
  for (int level = 0; level < 50; ++level) {
    device.tree[path] = {{"d", folder()}, {"f", file(1)}};
    path += "/d";
  }
  SyncLimits limits;
  limits.max_depth = 10;
  PullPlan deep(limits);
  Failure failure;
  EXPECT_FALSE(deep.build({{"/d", "d"}}, device, failure));
  EXPECT_EQ(failure.code, errc::limit_exceeded);
  EXPECT_NE(failure.detail.find("deeper than 10 folders"), std::string::npos) << failure.detail;
  EXPECT_LE(device.listed.size(), 11u);

  limits = {};
  limits.max_tree_entries = 20;
  PullPlan wide(limits);
  failure = {};
  EXPECT_FALSE(wide.build({{"/d", "d"}}, device, failure));
  EXPECT_EQ(failure.code, errc::limit_exceeded);
  EXPECT_NE(failure.detail.find("SyncLimits::max_tree_entries"), std::string::npos);
  EXPECT_LE(wide.entries().size(), 20u);
}

TEST(PullPlan, AMissingRootIsNotFound) {
  ScriptedLister device;
  PullPlan plan(SyncLimits{});
  Failure failure;
  EXPECT_FALSE(plan.build({{"/nothing", "nothing"}}, device, failure));
  EXPECT_EQ(failure.code, errc::not_found);
}

}  // namespace
}  // namespace adbwire::detail
