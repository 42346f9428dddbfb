// What `adbwire open` asks the daemon for (daemon_protocol.hpp's open request), as JSON. Apart
// from daemon_protocol.hpp so that the lean front, which never opens a session, links nothing of
// the agent layer.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

#include "adbwire/output_limits.hpp"
#include "adbwire/page.hpp"

namespace adbwire::daemon {

// What `adbwire open` asks the daemon for: a session of that name on that device.
struct SessionSpec {
  std::string name;  // "" = the default session
  std::string target;
  std::chrono::seconds idle{1800};  // the session ends after this long without a call
  std::chrono::milliseconds auth_timeout{60000};
  OutputLimits limits;  // the session's bounds on output gathered whole (--max-output)
  PageOptions page;     // only helper, web, ref_check and stealth travel
  // The memory database of the session's verbs (absolute; "" = the daemon's default) and
  // whether they feed its observation cache (verbs::Options::memory_db, observe).
  std::filesystem::path memory_db;
  bool observe = false;
};
std::string format_session_spec(const SessionSpec& spec);
// invalid_argument, with detail, for JSON that is not a SessionSpec.
std::error_code parse_session_spec(std::string_view text, SessionSpec& out, std::string& detail);

}  // namespace adbwire::daemon
