// Verbs of the agent's memory: remember, recall, forget (verbs/memory_store.hpp).
#include <ctime>

#include "adbwire/apps.hpp"
#include "adbwire/protocol/printable.hpp"
#include "services/device_command.hpp"
#include "verbs/handlers.hpp"
#include "verbs/memory_store.hpp"
#include "verbs/reply_text.hpp"

namespace adbwire::verbs::handlers {
namespace {

using namespace std::chrono_literals;

constexpr std::size_t kDefaultRecall = 20;
// Bytes of a serial or package kept as a scope: real ones are under 64.
constexpr std::size_t kMaxScopeName = 128;

MemoryStore open_store(Call& call) {
  std::filesystem::path path = call.options().memory_db;
  if (path.empty()) path = default_memory_db();
  if (path.empty()) {
    throw Error(errc::invalid_argument,
                "no memory database: set ADBWIRE_MEMORY_DB or HOME, or start the server with "
                "--memory-db FILE");
  }
  return MemoryStore(path);
}

// The device's own serial (ro.serialno: the same over USB, TCP and Wi-Fi), else the name adb
// would list; and the app in front ("" when none is known).
MemoryScope scope_of(Call& call) {
  Page& page = call.page();
  MemoryScope scope;
  std::error_code error;
  const ShellResult serial = page.device().shell("getprop ro.serialno", deadline_after(5s), error);
  if (!error) scope.device = detail::trim(serial.out).substr(0, kMaxScopeName);
  if (scope.device.empty()) scope.device = page.device().serial();
  const ForegroundActivity now = page.foreground(kDefaultDeadline, error);
  if (!error) scope.app = now.package.substr(0, kMaxScopeName);
  return scope;
}

MemoryReach reach_of(Call& call) {
  const std::string reach = call.string("reach").value_or("app");
  if (reach == "device") return MemoryReach::device;
  if (reach == "all") return MemoryReach::all;
  return MemoryReach::app;
}

std::string date_of(std::int64_t seconds) {
  const auto at = static_cast<std::time_t>(seconds);
  std::tm local{};
  localtime_r(&at, &local);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M", &local);
  return text;
}

}  // namespace

Reply remember(Call& call) {
  const std::string text = call.required_string("text");
  MemoryScope scope = scope_of(call);
  if (call.flag("device_wide")) scope.app.clear();
  MemoryStore store = open_store(call);
  const std::int64_t id = store.remember(scope, text);
  return Reply::text(
      "Remembered as note " + std::to_string(id) + " for " + protocol::printable(scope.device) +
      (scope.app.empty() ? ", every app" : ", " + protocol::printable(scope.app)) + ".");
}

Reply recall(Call& call) {
  const std::string query = call.string("query").value_or("");
  const MemoryScope scope = scope_of(call);
  const auto limit = static_cast<std::size_t>(call.integer("limit").value_or(kDefaultRecall));
  MemoryStore store = open_store(call);
  const std::vector<MemoryNote> notes = store.recall(scope, reach_of(call), query, limit);
  if (notes.empty()) {
    return Reply::text(std::string("Nothing remembered") +
                       (query.empty() ? "" : " matching " + in_quotes(query)) + " here.");
  }
  std::string text = std::to_string(notes.size()) + " note" + (notes.size() == 1 ? "" : "s") +
                     (query.empty() ? "" : " matching " + in_quotes(query)) + ":\n";
  for (const MemoryNote& note : notes) {
    text += "- [" + std::to_string(note.id) + "] " + date_of(note.created) + " " +
            protocol::printable(note.device) + " " +
            (note.app.empty() ? std::string("(every app)") : protocol::printable(note.app)) + ": " +
            protocol::printable(note.text) + "\n";
  }
  return Reply::text(cap(call, text));
}

Reply forget(Call& call) {
  const std::optional<std::int64_t> id = call.integer("id");
  const std::optional<std::string> query = call.string("query");
  const bool all = call.flag("all");
  if (static_cast<int>(id.has_value()) + static_cast<int>(query.has_value()) + (all ? 1 : 0) != 1)
    throw Error(errc::invalid_argument,
                "give one of id (a note), query (the notes matching it) or all (every note in "
                "reach)");
  if (query && detail::trim(*query).empty())
    throw Error(errc::invalid_argument, "query is empty: give words, or all to forget every note");
  MemoryStore store = open_store(call);
  std::size_t removed = 0;
  if (id) {
    removed = store.forget(*id);
  } else {
    removed = store.forget(scope_of(call), reach_of(call), query.value_or(""));
  }
  return Reply::text("Forgot " + std::to_string(removed) + " note" + (removed == 1 ? "" : "s") +
                     ".");
}

}  // namespace adbwire::verbs::handlers
