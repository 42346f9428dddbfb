// The agent's memory (verbs/memory_store.hpp; remember, recall, forget) in a real SQLite file:
// notes kept across sessions and told apart by device, the file's mode, the bounds, forgetting,
// and queries an agent might type that are no FTS5 syntax.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "adbwire/testing/vdevice.hpp"
#include "integration/temp_dir.hpp"
#include "integration/tools_fixture.hpp"
#include "verbs/memory_store.hpp"

namespace adbwire::mcp {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using verbs::MemoryBounds;
using verbs::MemoryReach;
using verbs::MemoryScope;
using verbs::MemoryStore;

using testing_tools::text_of;

VirtualDeviceOptions phone(const std::string& serial) {
  VirtualDeviceOptions options;
  options.serial = serial;
  return options;
}

// A phone running the demo app: a list whose "Add item" opens a form whose back arrow returns.
VirtualDeviceOptions demo_phone(const std::string& serial) {
  VirtualDeviceOptions options = phone(serial);
  options.screens = fs::path(ADBWIRE_SOURCE_DIR) / "src/vdevice/screens/demo";
  return options;
}

// The fingerprint an observations reply names first ("Screen FP…").
std::string screen_of(const std::string& reply) {
  const std::size_t at = reply.find("Screen ");
  return at == std::string::npos ? std::string() : reply.substr(at + 7, 16);
}

class MemoryVerbs : public testing_tools::ToolsTest {
 protected:
  DeviceToolsOptions options_for(const VirtualDevice& device) const {
    DeviceToolsOptions o = ToolsTest::options_for(device);
    o.verbs.memory_db = db();
    return o;
  }
  fs::path db() const { return work_.path() / "memory" / "memory.db"; }
  DeviceToolsOptions observing(const VirtualDevice& device) const {
    DeviceToolsOptions o = options_for(device);
    o.verbs.observe = true;
    return o;
  }
};

TEST_F(MemoryVerbs, ANoteOutlivesItsSessionAndStaysWithItsDevice) {
  VirtualDevice a(phone("phone-a"));
  VirtualDevice b(phone("phone-b"));
  a.start();
  b.start();
  {
    DeviceTools first(options_for(a));
    const Json kept = call(first, "remember", {{"text", "The Wi-Fi switch is under Network"}});
    ASSERT_FALSE(kept["isError"].get<bool>()) << text_of(kept);
    EXPECT_NE(text_of(kept).find("for phone-a"), std::string::npos) << text_of(kept);
  }
  struct stat st {};
  ASSERT_EQ(::stat(db().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(::stat(db().parent_path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);

  DeviceTools second(options_for(a));
  const std::string found = text_of(call(second, "recall", {{"query", "wi-fi network"}}));
  EXPECT_NE(found.find("1 note matching \"wi-fi network\""), std::string::npos) << found;
  EXPECT_NE(found.find("phone-a"), std::string::npos) << found;
  EXPECT_NE(found.find("The Wi-Fi switch is under Network"), std::string::npos) << found;
  EXPECT_NE(text_of(call(second, "recall", {{"query", "bluetooth"}})).find("Nothing remembered"),
            std::string::npos);

  DeviceTools other(options_for(b));
  EXPECT_NE(text_of(call(other, "recall")).find("Nothing remembered"), std::string::npos);
  const std::string everywhere = text_of(call(other, "recall", {{"reach", "all"}}));
  EXPECT_NE(everywhere.find("The Wi-Fi switch"), std::string::npos) << everywhere;
}

TEST_F(MemoryVerbs, ForgetTakesOneNoteMatchingNotesOrAllInReach) {
  VirtualDevice a(phone("phone-a"));
  a.start();
  DeviceTools tools(options_for(a));
  for (const char* note : {"milk is in aisle 3", "bread is in aisle 5", "login needs a code"})
    ASSERT_FALSE(call(tools, "remember", {{"text", note}})["isError"].get<bool>());
  EXPECT_EQ(text_of(call(tools, "forget", {{"query", "aisle"}})), "Forgot 2 notes.\n");
  const std::string left = text_of(call(tools, "recall"));
  EXPECT_NE(left.find("1 note:"), std::string::npos) << left;
  EXPECT_NE(left.find("login needs a code"), std::string::npos) << left;
  const std::size_t open = left.find("- [");
  const std::int64_t id = std::stoll(left.substr(open + 3));
  EXPECT_EQ(text_of(call(tools, "forget", {{"id", id}})), "Forgot 1 note.\n");
  EXPECT_EQ(text_of(call(tools, "forget", {{"id", id}})), "Forgot 0 notes.\n");
  ASSERT_FALSE(call(tools, "remember", {{"text", "x"}})["isError"].get<bool>());
  EXPECT_EQ(text_of(call(tools, "forget", {{"all", true}})), "Forgot 1 note.\n");
  EXPECT_TRUE(call(tools, "forget")["isError"].get<bool>());
  EXPECT_TRUE(call(tools, "forget", {{"query", "  "}})["isError"].get<bool>());
}

TEST_F(MemoryVerbs, TheStoreKeepsItsBoundsByDroppingTheOldest) {
  MemoryBounds bounds;
  bounds.max_notes = 5;
  bounds.max_note_bytes = 1000;
  bounds.max_observations = 3;
  MemoryStore store(db(), bounds);
  const MemoryScope scope{"phone-a", "com.example"};
  for (int i = 0; i < 8; ++i) store.remember(scope, "note number " + std::to_string(i));
  EXPECT_EQ(store.note_count(), 5u);
  const auto newest = store.recall(scope, MemoryReach::app, "", 10);
  ASSERT_EQ(newest.size(), 5u);
  EXPECT_EQ(newest.front().text, "note number 7");
  EXPECT_EQ(newest.back().text, "note number 3");
  // 3 notes of 400 bytes pass 1000: the oldest goes.
  for (int i = 0; i < 3; ++i) store.remember(scope, std::string(400, char('a' + i)));
  EXPECT_EQ(store.note_count(), 2u);
  EXPECT_THROW(store.remember(scope, std::string(bounds.max_note_length + 1, 'x')), Error);
  for (int i = 0; i < 5; ++i)
    store.observe(scope, "screen-1", "seen", "tap " + std::to_string(i), "ok");
  const auto seen = store.observations(scope, "screen-1", 10);
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen.front().action, "tap 4");
  EXPECT_TRUE(store.observations(scope, "screen-2", 10).empty());
}

TEST_F(MemoryVerbs, AnyQueryTextIsSearchedNeverParsedAsSyntax) {
  MemoryStore store(db());
  const MemoryScope scope{"phone-a", ""};
  store.remember(scope, "the \"Save\" button (top right) saves");
  for (const char* query : {"\"Save\"", "NEAR(a b)", "top*", "(", "-right", "AND OR NOT", "\"\""}) {
    EXPECT_NO_THROW(store.recall(scope, MemoryReach::app, query, 10)) << query;
  }
  EXPECT_EQ(store.recall(scope, MemoryReach::app, "\"Save\"", 10).size(), 1u);
  // Punctuation separates words (the unicode61 tokenizer), so "(top" is the word top.
  EXPECT_EQ(store.recall(scope, MemoryReach::app, "(top", 10).size(), 1u);
  EXPECT_EQ(store.recall(scope, MemoryReach::app, "top bottom", 10).size(), 0u);
}

TEST_F(MemoryVerbs, ALinkOrAFileOfAnotherKindIsRefused) {
  fs::create_directories(db().parent_path());
  fs::permissions(db().parent_path(), fs::perms::owner_all, fs::perm_options::replace);
  fs::create_symlink(work_.path() / "elsewhere.db", db());
  EXPECT_THROW(MemoryStore store(db()), Error);
  EXPECT_FALSE(fs::exists(work_.path() / "elsewhere.db"));
  fs::remove(db());
  fs::create_directory(db());
  EXPECT_THROW(MemoryStore store(db()), Error);
}

// The observation cache fed by the verbs: what each screen showed, what was done there and the
// screen it led to, kept for a later session, an error as what happened, and forgotten.
TEST_F(MemoryVerbs, TheVerbsFeedTheObservationCacheAndObservationsReadsIt) {
  VirtualDevice a(demo_phone("phone-a"));
  a.start();
  std::string list;
  std::string form;
  {
    DeviceTools tools(observing(a));
    ASSERT_FALSE(call(tools, "snapshot")["isError"].get<bool>());
    const std::string nothing = text_of(call(tools, "observations"));
    list = screen_of(nothing);
    ASSERT_EQ(list.size(), 16U) << nothing;
    EXPECT_NE(nothing.find("seen 1 time, last"), std::string::npos) << nothing;
    EXPECT_NE(nothing.find("nothing done here yet"), std::string::npos) << nothing;

    const Json tapped = call(tools, "tap", {{"text", "Add item"}});
    ASSERT_FALSE(tapped["isError"].get<bool>()) << text_of(tapped);
    // Not seen yet: the form's screen comes with the next snapshot.
    const std::string waiting = text_of(call(tools, "observations", {{"screen", list}}));
    EXPECT_NE(waiting.find("(no screen seen after it yet)"), std::string::npos) << waiting;
    ASSERT_FALSE(call(tools, "snapshot")["isError"].get<bool>());
    const std::string on_form = text_of(call(tools, "observations"));
    form = screen_of(on_form);
    EXPECT_NE(form, list) << on_form;
    // A ref that is not there fails; its error is what happened.
    EXPECT_TRUE(call(tools, "tap", {{"ref", 99}})["isError"].get<bool>());
    ASSERT_FALSE(call(tools, "tap", {{"x", 60}, {"y", 200}})["isError"].get<bool>());
    ASSERT_FALSE(call(tools, "snapshot")["isError"].get<bool>());
  }
  DeviceTools later(observing(a));
  ASSERT_FALSE(call(later, "snapshot")["isError"].get<bool>());
  const std::string back = text_of(call(later, "observations"));
  EXPECT_EQ(screen_of(back), list) << back;
  // Seen by two snapshots and a later session's, and found "Add item" on by tap's selector.
  EXPECT_NE(back.find("seen 4 times"), std::string::npos) << back;
  EXPECT_NE(back.find("(com.example.adbwire.demo"), std::string::npos) << back;
  EXPECT_NE(back.find("Button \"Add item\""), std::string::npos) << back;
  EXPECT_NE(
      back.find("tap {\"text\":\"Add item\"} -> screen " + form + " (com.example.adbwire.demo"),
      std::string::npos)
      << back;
  const std::string there = text_of(call(later, "observations", {{"screen", form}}));
  EXPECT_NE(there.find("seen 1 time"), std::string::npos) << there;
  EXPECT_NE(there.find("tap {\"x\":60,\"y\":200} -> screen " + list), std::string::npos) << there;
  EXPECT_NE(there.find("tap {\"ref\":99} -> error: "), std::string::npos) << there;
  EXPECT_LT(there.find("{\"x\":60"), there.find("{\"ref\":99}")) << "newest first: " << there;

  // Another device has its own cache.
  VirtualDevice b(demo_phone("phone-b"));
  b.start();
  DeviceTools other(observing(b));
  ASSERT_FALSE(call(other, "snapshot")["isError"].get<bool>());
  const std::string elsewhere = text_of(call(other, "observations"));
  EXPECT_EQ(screen_of(elsewhere), list) << "the same app's screen is the same screen";
  EXPECT_NE(elsewhere.find("seen 1 time"), std::string::npos) << elsewhere;

  const std::size_t kept = MemoryStore(db()).observation_count();
  EXPECT_EQ(kept, 9U) << "5 screens seen and 3 actions on phone-a, 1 screen on phone-b";
  EXPECT_EQ(text_of(call(later, "forget", {{"observations", true}})),
            "Forgot 0 notes and 8 observations.\n");
  EXPECT_NE(text_of(call(later, "observations", {{"screen", form}})).find("nothing observed"),
            std::string::npos);
  EXPECT_EQ(MemoryStore(db()).observation_count(), 1U);
  EXPECT_EQ(text_of(call(other, "forget", {{"all", true}})), "Forgot 0 notes and 1 observation.\n");
  EXPECT_EQ(MemoryStore(db()).observation_count(), 0U);
}

TEST_F(MemoryVerbs, WithoutObserveNothingOfAScreenIsWritten) {
  VirtualDevice a(demo_phone("phone-a"));
  a.start();
  DeviceTools tools(options_for(a));
  ASSERT_FALSE(call(tools, "snapshot")["isError"].get<bool>());
  ASSERT_FALSE(call(tools, "tap", {{"text", "Add item"}})["isError"].get<bool>());
  ASSERT_FALSE(call(tools, "snapshot")["isError"].get<bool>());
  const std::string reply = text_of(call(tools, "observations"));
  EXPECT_NE(reply.find("nothing observed here yet. The observation cache is off"),
            std::string::npos)
      << reply;
  EXPECT_EQ(MemoryStore(db()).observation_count(), 0U);
}

// A secret typed shows nowhere in the cache: its arguments name it, and the screens seen after
// show <secret NAME> where they show the value.
TEST_F(MemoryVerbs, TheCacheHoldsNoSecretValue) {
  VirtualDevice a(demo_phone("phone-a"));
  a.start();
  const fs::path secrets = work_.path() / "secrets";
  { std::ofstream(secrets) << "grocer_pin=Zq81-unseen\n"; }
  fs::permissions(secrets, fs::perms::owner_read | fs::perms::owner_write,
                  fs::perm_options::replace);
  DeviceToolsOptions o = observing(a);
  o.verbs.secrets.file = secrets;
  DeviceTools tools(o);
  ASSERT_FALSE(call(tools, "snapshot")["isError"].get<bool>());
  ASSERT_FALSE(call(tools, "tap", {{"text", "Add item"}})["isError"].get<bool>());
  ASSERT_FALSE(call(tools, "snapshot")["isError"].get<bool>());
  const Json typed = call(tools, "type", {{"id", "name"}, {"secret", "grocer_pin"}});
  ASSERT_FALSE(typed["isError"].get<bool>()) << text_of(typed);
  ASSERT_FALSE(call(tools, "snapshot")["isError"].get<bool>());
  std::ifstream in(db(), std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(in), {}};
  EXPECT_EQ(bytes.find("Zq81-unseen"), std::string::npos);
  const std::string there = text_of(call(tools, "observations", {{"limit", 5}}));
  EXPECT_NE(there.find("\"secret\":\"grocer_pin\""), std::string::npos) << there;
}

}  // namespace
}  // namespace adbwire::mcp