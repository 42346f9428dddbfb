// adbwire exec-out COMMAND [ARG…]: adb exec-out, word for word (client/commandline.cpp): the
// first word is the command as written, every word after it is quoted for the device's sh, so
// `exec-out echo 'a  b;c'` prints `a  b;c`. No flags of its own: each word is the command's.
#include <string>

#include "base/shell_quote.hpp"
#include "cli/commands.hpp"
#include "cli/connect.hpp"
#include "cli/terminal_text.hpp"

namespace adbwire::cli {

void add_exec_out_command(CLI::App& app, const GlobalOptions& globals, Run& run) {
  app.add_subcommand("exec-out",
                     "COMMAND [ARG…]: run COMMAND with no PTY and copy its raw output to stdout "
                     "(binary safe: exec-out screencap -p > screen.png); each ARG reaches it as "
                     "one word, quoted as adb quotes it")
      ->callback([&globals, &run] {
        run = [&globals] {
          const std::vector<std::string>& words = globals.command_words;
          if (words.empty()) {
            print_error("adbwire: usage: adbwire exec-out command");
            return 1;
          }
          std::string command = words.front();
          for (std::size_t i = 1; i < words.size(); ++i)
            command += " " + detail::shell_quote(words[i]);
          Device device = connect_device(globals);
          device.exec(command, write_to(stdout), kNoDeadline);
          return 0;
        };
      });
}

}  // namespace adbwire::cli
