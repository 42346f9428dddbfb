#include "verbs/observer.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <utility>

#include "adbwire/error.hpp"
#include "adbwire/protocol/printable.hpp"
#include "base/mutex.hpp"
#include "services/device_command.hpp"
#include "verbs/reply_text.hpp"
#include "verbs/screen_fingerprint.hpp"

namespace adbwire::verbs {
namespace {

using namespace std::chrono_literals;

// Bytes of a serial kept as a scope: real ones are under 64.
constexpr std::size_t kMaxScopeName = 128;
// Bytes of the next screen's summary in an action's outcome.
constexpr std::size_t kOutcomeSummary = 300;

// Verbs that act on the screen: their rows say what was done and what followed.
constexpr std::array<std::string_view, 16> kActions = {
    "tap",     "click_area", "long_press", "type", "scroll", "swipe",  "drag", "pinch",
    "gesture", "press",      "back",       "home", "recent", "launch", "stop", "open_url"};
// Verbs that take a snapshot: the screen they saw is a row.
constexpr std::array<std::string_view, 3> kLookers = {"snapshot", "find", "wait"};

template <std::size_t N>
bool among(const std::array<std::string_view, N>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::size_t hash_of(std::string_view text) { return std::hash<std::string_view>{}(text); }

// What the call asked, for the row: the verb and its arguments (secrets typed masked), and the
// element its ref named on the screen it was given for.
std::string action_of(const Call& call, const std::string& target) {
  Json arguments = call.arguments();
  arguments.erase("device");
  std::string text = std::string(call.verb().name);
  if (!arguments.empty())
    text += " " + arguments.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (!target.empty()) text += " on " + target;
  return text;
}

}  // namespace

MemoryStore open_memory(const Options& options) {
  std::filesystem::path path = options.memory_db;
  if (path.empty()) path = default_memory_db();
  if (path.empty()) {
    throw Error(errc::invalid_argument,
                "no memory database: set ADBWIRE_MEMORY_DB or HOME, or give --memory-db FILE");
  }
  return MemoryStore(path);
}

std::string device_identity(Page& page) {
  // Kept for the process: a Page's target stays one device.
  static detail::Mutex mutex;
  static std::map<std::pair<const Page*, std::string>, std::string> known ADBWIRE_GUARDED_BY(mutex);
  const auto key = std::make_pair(static_cast<const Page*>(&page), page.device().serial());
  {
    detail::MutexLock lock(mutex);
    if (const auto it = known.find(key); it != known.end()) return it->second;
  }
  std::error_code error;
  const ShellResult serial = page.device().shell("getprop ro.serialno", deadline_after(5s), error);
  std::string identity;
  if (!error) identity = detail::trim(serial.out).substr(0, kMaxScopeName);
  if (identity.empty()) return key.second;
  detail::MutexLock lock(mutex);
  known[key] = identity;
  return identity;
}

Observer::Observer(Call& call) {
  const std::string_view name = call.verb().name;
  action_ = among(kActions, name);
  on_ = call.options().observe && (action_ || among(kLookers, name));
  if (!on_) return;
  const Page& page = call.page();
  const ui::Snapshot& seen = page.last_snapshot();
  snapshot_ = seen.nodes().data();
  dump_hash_ = hash_of(page.last_dump());
  before_ = screen_fingerprint(seen);
  before_app_ = seen.app().package;
  if (const std::optional<std::uint32_t> ref = call.ref()) {
    if (const ui::RefInfo* info = seen.ref(*ref)) target_ = info->label;
  }
}

void Observer::finished(Call& call, const std::optional<std::string>& error) noexcept {
  if (!on_) return;
  try {
    Page& page = call.page();
    const ui::Snapshot& now = page.last_snapshot();
    const bool fresh = now.nodes().data() != snapshot_ || hash_of(page.last_dump()) != dump_hash_;
    const std::string seen_now = fresh ? screen_fingerprint(now) : std::string();
    // A snapshot an action took is the screen after it only when the action's auto-snapshot
    // took it; else it found the element (a selector) on the screen it then acted on.
    const bool after_action = action_ && call.options().auto_snapshot;
    std::string acted_on = before_;
    std::string acted_app = before_app_;
    if (action_ && !seen_now.empty() && !after_action) {
      acted_on = seen_now;
      acted_app = now.app().package;
    }
    if (seen_now.empty() && !(action_ && !acted_on.empty())) return;
    const detail::SecretMask& mask = call.host().secret_mask();
    MemoryStore store = open_memory(call.options());
    const std::string device = device_identity(page);
    const std::string next =
        seen_now.empty() ? std::string()
                         : "screen " + seen_now + " (" + screen_summary(now, kOutcomeSummary) + ")";
    if (!seen_now.empty()) {
      // The screen seen now is what the device's earlier actions led to.
      store.settle(device, mask.apply(next));
      store.observe({device, now.app().package}, seen_now, mask.apply(screen_summary(now)), "", "");
    }
    if (action_ && !acted_on.empty()) {
      const std::string outcome = error ? "error: " + *error : after_action ? next : "";
      store.observe({device, acted_app}, acted_on, "", mask.apply(action_of(call, target_)),
                    mask.apply(outcome));
    }
  } catch (const std::exception& e) {
    call.host().log("the observation cache was not written: " + protocol::printable(e.what()));
  }
}

}  // namespace adbwire::verbs
