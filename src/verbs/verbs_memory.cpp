// Verbs of the agent's memory: remember, recall, forget (verbs/memory_store.hpp).
#include <ctime>

#include "adbwire/apps.hpp"
#include "adbwire/protocol/printable.hpp"
#include "services/device_command.hpp"
#include "verbs/handlers.hpp"
#include "verbs/memory_store.hpp"
#include "verbs/observer.hpp"
#include "verbs/reply_text.hpp"
#include "verbs/screen_fingerprint.hpp"

namespace adbwire::verbs::handlers {
namespace {

using namespace std::chrono_literals;

constexpr std::size_t kDefaultRecall = 20;
// Bytes of a package kept as a scope: real ones are under 64.
constexpr std::size_t kMaxScopeName = 128;

// The device's identity and the app in front ("" when none is known).
MemoryScope scope_of(Call& call) {
  Page& page = call.page();
  MemoryScope scope;
  scope.device = device_identity(page);
  std::error_code error;
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
  MemoryStore store = open_memory(call.options());
  const std::int64_t id = store.remember(scope, text);
  return Reply::text(
      "Remembered as note " + std::to_string(id) + " for " + protocol::printable(scope.device) +
      (scope.app.empty() ? ", every app" : ", " + protocol::printable(scope.app)) + ".");
}

Reply recall(Call& call) {
  const std::string query = call.string("query").value_or("");
  const MemoryScope scope = scope_of(call);
  const auto limit = static_cast<std::size_t>(call.integer("limit").value_or(kDefaultRecall));
  MemoryStore store = open_memory(call.options());
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
  const bool observations = call.flag("observations");
  if (static_cast<int>(id.has_value()) + static_cast<int>(query.has_value()) + (all ? 1 : 0) +
          (observations ? 1 : 0) !=
      1)
    throw Error(errc::invalid_argument,
                "give one of id (a note), query (the notes matching it), all (every note and "
                "observation in reach) or observations (the observations in reach)");
  if (query && detail::trim(*query).empty())
    throw Error(errc::invalid_argument, "query is empty: give words, or all to forget every note");
  MemoryStore store = open_memory(call.options());
  std::size_t removed = 0;
  std::size_t observed = 0;
  if (id) {
    removed = store.forget(*id);
  } else {
    const MemoryScope scope = scope_of(call);
    if (!observations) removed = store.forget(scope, reach_of(call), query.value_or(""));
    if (all || observations) observed = store.forget_observations(scope, reach_of(call));
  }
  std::string text = "Forgot " + std::to_string(removed) + " note" + (removed == 1 ? "" : "s");
  if (all || observations)
    text += (observed > 0 || observations
                 ? " and " + std::to_string(observed) + " observation" + (observed == 1 ? "" : "s")
                 : std::string());
  return Reply::text(text + ".");
}

Reply observations(Call& call) {
  Page& page = call.page();
  const std::optional<std::string> given = call.string("screen");
  const auto limit = static_cast<std::size_t>(call.integer("limit").value_or(kDefaultRecall));
  std::string screen = given.value_or("");
  // A fingerprint given alone: that screen in any app of the device.
  std::optional<std::string> app;
  if (!given) {
    const ui::Snapshot& seen =
        page.last_snapshot().nodes().empty() ? page.snapshot() : page.last_snapshot();
    screen = screen_fingerprint(seen);
    app = seen.app().package;
  }
  const std::string device = device_identity(page);
  MemoryStore store = open_memory(call.options());
  const MemoryStore::Sightings sighted = store.sightings(device, app, screen);
  const std::vector<MemoryObservation> actions = store.observations(device, app, screen, limit);
  std::string text = "Screen " + protocol::printable(screen);
  if (sighted.times == 0 && actions.empty()) {
    text += ": nothing observed here yet.";
    if (!call.options().observe)
      text +=
          " The observation cache is off: open the session or start the server with "
          "--observe to record screens and actions.";
    return Reply::text(text);
  }
  text += ": seen " + std::to_string(sighted.times) + " time" + (sighted.times == 1 ? "" : "s");
  if (sighted.times > 0)
    text += ", last " + date_of(sighted.last) + " (" + protocol::printable(sighted.seen) + ")";
  if (actions.empty()) return Reply::text(text + "; nothing done here yet.");
  text += "; done here, newest first:\n";
  for (const MemoryObservation& row : actions) {
    text += "- " + date_of(row.created) + " " + protocol::printable(row.action) + " -> " +
            (row.outcome.empty() ? std::string("(no screen seen after it yet)")
                                 : protocol::printable(row.outcome)) +
            "\n";
  }
  return Reply::text(cap(call, text));
}

}  // namespace adbwire::verbs::handlers
