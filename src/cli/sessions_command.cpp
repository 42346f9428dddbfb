#include <cstdio>

#include "cli/commands.hpp"
#include "cli/session/session.hpp"
#include "cli/terminal_text.hpp"

namespace adbwire::cli {

void add_sessions_command(CLI::App& app, const GlobalOptions& globals, Run& run) {
  app.add_subcommand("sessions", "list the open sessions: NAME TARGET PID SOCKET")
      ->callback([&globals, &run] {
        run = [&globals] {
          const std::vector<SessionInfo> sessions = list_sessions(globals);
          std::string text;
          if (sessions.empty()) text = "no session is open (start one with `adbwire open`)\n";
          for (const SessionInfo& s : sessions) {
            text += (s.name.empty() ? std::string("default") : s.name) + " " + s.target + " " +
                    std::to_string(s.pid) + " " + s.socket.string() + "\n";
          }
          return print(text) ? 0 : 1;
        };
      });
}

}  // namespace adbwire::cli
