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
          if (sessions.empty()) std::puts("no session is open (start one with `adbwire open`)");
          for (const SessionInfo& s : sessions) {
            std::printf("%s %s %ld %s\n", s.name.empty() ? "default" : s.name.c_str(),
                        shown(s.target).c_str(), s.pid, s.socket.c_str());
          }
          return std::fflush(stdout) == 0 ? 0 : 1;
        };
      });
}

}  // namespace adbwire::cli
