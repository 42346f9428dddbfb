// CLI sessions, a service of the daemon: `adbwire open [--session NAME] TARGET` makes one here, a
// named Page (its ref map, helper and WebView state) over the daemon's connection to the device,
// and the agent verbs (src/verbs) run in it, one call at a time, as MCP tool calls. A session
// ends on `adbwire close`, or after its idle time without a call.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/failure.hpp"
#include "base/mutex.hpp"
#include "daemon/registry.hpp"
#include "daemon/session_spec.hpp"

namespace adbwire::daemon {

struct SessionInfo {
  std::string name;  // "" for the default session
  std::string target;
};

// Thread safe.
class Sessions {
 public:
  explicit Sessions(Registry& registry);
  ~Sessions();

  // Opens the session spec names on its target through the registry (connected now, so a target
  // that does not answer is the open's error). Returns the target. Errors: busy (a session of
  // that name is open: the detail names its target and how to close it), invalid_argument (a bad
  // name), the connect's.
  std::string open(const SessionSpec& spec, detail::Failure& failure);
  // Ends session name; false when it is not open.
  bool close(std::string_view name);
  // The open sessions, the default one first.
  std::vector<SessionInfo> list() const;
  bool empty() const;

  // Serves one client's JSON-RPC lines on fd in session name ("" = the default one, else the only
  // named one), until the client shuts its side: the reply lines go to fd. early: bytes that came
  // with the request. Calls of one session run one at a time. Errors (before anything is served):
  // not_found (no such session: says to run `adbwire open`), invalid_argument (several named
  // sessions and none chosen).
  void serve(std::string_view name, int fd, std::span<const std::uint8_t> early,
             detail::Failure& failure);

  // Ends the sessions idle longer than their limit.
  void sweep();

 private:
  struct Session;
  std::shared_ptr<Session> find(std::string_view name, detail::Failure& failure) const;

  Registry& registry_;
  mutable detail::Mutex mutex_;
  std::map<std::string, std::shared_ptr<Session>> sessions_ ADBWIRE_GUARDED_BY(mutex_);
};

}  // namespace adbwire::daemon
