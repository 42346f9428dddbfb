#include <cstdio>
#include <string>

#include "cli/commands.hpp"
#include "cli/terminal_text.hpp"
#include "verbs/verb.hpp"

namespace adbwire::cli {

std::string_view agent_guide() noexcept;  // agent_guide.cpp, generated from agent_guide.md

void add_guide_command(CLI::App& app, const GlobalOptions&, Run& run) {
  app.add_subcommand("guide",
                     "print the instructions for an AI agent driving the CLI: the session, the "
                     "snapshot format, the stale-ref rule and every verb")
      ->callback([&run] {
        run = [] {
          std::string text(agent_guide());
          text +=
              "\n## The verbs\nEach is `adbwire VERB [ARGS]`; `adbwire VERB --help` lists its "
              "options.\n";
          for (const verbs::Verb& verb : verbs::all()) {
            text += "- `" + std::string(verb.name);
            for (const std::string_view p : verb.positional) text += " [" + std::string(p) + "]";
            text += "` — " + std::string(verb.description) + "\n";
          }
          return print(text) ? 0 : 1;
        };
      });
}

}  // namespace adbwire::cli
