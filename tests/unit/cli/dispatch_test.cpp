#include "cli/front/dispatch.hpp"

#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/program.hpp"
#include "verbs/verb.hpp"

namespace adbwire::cli::front {
namespace {

CommandLine scan(std::vector<const char*> args) { return scan_command_line(args); }

std::string served(std::vector<const char*> args, Environment environment = {}) {
  const FrontCommand* command = front_command(scan(std::move(args)), environment);
  return command == nullptr ? "full program" : std::string(command->name);
}

TEST(FrontDispatch, FindsTheCommandAfterGlobalOptionsAndTheirValues) {
  const CommandLine line = scan({"-s", "tcp:h:5555", "-H", "host", "-P", "5038", "--auth-timeout",
                                 "3", "--no-daemon", "shell", "ls", "-l"});
  EXPECT_EQ(line.command, "shell");
  EXPECT_EQ(line.serial, "tcp:h:5555");
  EXPECT_TRUE(line.no_daemon);
  EXPECT_TRUE(scan({"--no-holder", "shell"}).no_daemon) << "the old name";
  EXPECT_FALSE(line.record);
  EXPECT_TRUE(line.plain);

  const CommandLine joined = scan({"-stcp:h:1", "--record=x.pcapng", "exec-out", "cat"});
  EXPECT_EQ(joined.command, "exec-out");
  EXPECT_EQ(joined.serial, "tcp:h:1");
  EXPECT_TRUE(joined.record);
  EXPECT_TRUE(joined.plain);

  // A value that looks like a command is a value.
  EXPECT_EQ(scan({"-s", "shell", "version"}).command, "version");
}

TEST(FrontDispatch, AnythingUnusualIsLeftToTheFullProgram) {
  EXPECT_FALSE(scan({"--help"}).plain);
  EXPECT_FALSE(scan({"shell", "ls", "--help"}).plain);
  EXPECT_FALSE(scan({"-h", "shell"}).plain);
  EXPECT_FALSE(scan({"--verbose", "shell"}).plain);
  EXPECT_FALSE(scan({"-s", "a", "-s", "b", "shell"}).plain);
  EXPECT_FALSE(scan({"-s"}).plain);
  EXPECT_FALSE(scan({"--", "shell"}).plain);
  EXPECT_TRUE(scan({}).command.empty());
}

TEST(FrontDispatch, ServesShellAndExecOutOnTheDaemonsTargets) {
  EXPECT_EQ(served({"-s", "tcp:127.0.0.1:5555", "shell", "true"}), "shell");
  EXPECT_EQ(served({"-s", "127.0.0.1:5555", "exec-out", "true"}), "exec-out");
  EXPECT_EQ(served({"shell"}, {.android_serial = "tcp:h"}), "shell");
  EXPECT_EQ(served({"-s", "usb:", "shell"}), "shell");
  EXPECT_EQ(served({"-s", "usb:0123456789ABCDEF", "exec-out", "ls"}), "exec-out");
  EXPECT_EQ(served({"version"}), "version");
  EXPECT_EQ(served({"start-server"}), "start-server");
  EXPECT_EQ(served({"kill-server"}), "kill-server");
  // The adb server holds these; no target at all is an error the full program words.
  EXPECT_EQ(served({"-s", "server:emulator-5554", "shell"}), "full program");
  EXPECT_EQ(served({"-s", "emulator-5554", "shell"}), "full program");
  EXPECT_EQ(served({"shell"}), "full program");
  EXPECT_EQ(served({"-s", "tcp:h:99999", "shell"}), "full program");
  // pull and push on a named device are the front's; with none, adb's choice of device is the
  // full one's, and so are the targets and opt-outs every device command leaves to it.
  EXPECT_EQ(served({"-s", "tcp:h", "pull", "/x"}), "pull");
  EXPECT_EQ(served({"pull", "/x"}), "full program");
  EXPECT_EQ(served({"-s", "tcp:h", "push", "/x", "/y"}), "push");
  EXPECT_EQ(served({"push", "-z", "lz4", "/x", "/y"}, {.android_serial = "usb:"}), "push");
  EXPECT_EQ(served({"push", "/x", "/y"}), "full program");
  EXPECT_EQ(served({"-s", "server:emulator-5554", "push", "/x", "/y"}), "full program");
  EXPECT_EQ(served({"--no-daemon", "-s", "tcp:h", "push", "/x", "/y"}), "full program");
  EXPECT_EQ(served({"-s", "tcp:h", "push", "/x", "/y"}, {.no_daemon = "1"}), "full program");
  EXPECT_EQ(served({"--record", "r.pcapng", "-s", "tcp:h", "push", "/x", "/y"}), "full program");
  EXPECT_EQ(served({"-s", "tcp:h", "push", "--help"}), "full program");
  // Every other subcommand, and an unknown one.
  EXPECT_EQ(served({"-s", "tcp:h", "install", "a.apk"}), "full program");
  EXPECT_EQ(served({"-s", "tcp:h", "no-such-command"}), "full program");
}

TEST(FrontDispatch, OptOutsAndRecordingConnectDirectly) {
  EXPECT_EQ(served({"--no-daemon", "-s", "tcp:h", "shell"}), "full program");
  EXPECT_EQ(served({"--no-holder", "-s", "tcp:h", "shell"}), "full program");
  EXPECT_EQ(served({"--record", "x.pcapng", "-s", "tcp:h", "shell"}), "full program");
  EXPECT_EQ(served({"-s", "tcp:h", "shell"}, {.no_daemon = "1"}), "full program");
  EXPECT_EQ(served({"-s", "tcp:h", "shell"}, {.no_holder = "yes"}), "full program");
  EXPECT_EQ(served({"-s", "tcp:h", "shell"}, {.no_daemon = "0", .no_holder = "0"}), "shell");
  // version reaches no device: no reason to hand it over.
  EXPECT_EQ(served({"--no-daemon", "version"}), "version");
}

// The session verbs only talk to the session daemon's socket: the front serves every one, so
// `adbwire tap 5` never starts the full program. snapshot, screenshot and the verbs that are
// adb commands too (install, shell, …) have CLI-only options and stay in the full program.
TEST(FrontDispatch, ServesEverySessionVerb) {
  std::size_t served_verbs = 0;
  for (const verbs::Verb& verb : verbs::all()) {
    const std::string name(verb.name);
    if (!is_session_verb(verb.name)) continue;
    ++served_verbs;
    EXPECT_EQ(served({name.c_str()}), "session verbs") << name;
    EXPECT_EQ(served({"--session", "agent", name.c_str()}), "session verbs") << name;
  }
  EXPECT_GE(served_verbs, 20U);
  EXPECT_EQ(served({"tap", "5"}), "session verbs");
  EXPECT_EQ(served({"tap", "--help"}), "full program");
  for (const char* elsewhere :
       {"snapshot", "screenshot", "install", "uninstall", "shell", "devices", "webviews"})
    EXPECT_FALSE(is_session_verb(elsewhere)) << elsewhere;
  EXPECT_EQ(served({"install", "a.apk"}), "full program");
}

// `adbwire snapshot` in the session is the session's reply: the front serves it with the
// options the snapshot verb has; a target, --xml, --helper, --no-web need the library.
TEST(FrontDispatch, ServesTheSessionSnapshotOnly) {
  EXPECT_EQ(served({"snapshot"}), "session snapshot");
  EXPECT_EQ(served({"--session", "a", "snapshot", "--print", "--ids", "--max-depth", "3"}),
            "session snapshot");
  EXPECT_EQ(served({"snapshot", "-p", "--json", "--max-depth=2", "--activity", "--compact",
                    "--interactive"}),
            "session snapshot");
  EXPECT_EQ(served({"snapshot", "--xml", "dump.xml"}), "full program");
  EXPECT_EQ(served({"snapshot", "--helper", "auto"}), "full program");
  EXPECT_EQ(served({"snapshot", "--no-web"}), "full program");
  EXPECT_EQ(served({"snapshot", "--max-depth"}), "full program");
  EXPECT_EQ(served({"-s", "tcp:h:5555", "snapshot"}), "full program");
  EXPECT_EQ(served({"snapshot"}, {.android_serial = "tcp:h"}), "full program");
  EXPECT_EQ(served({"screenshot"}), "full program");
}

// The scan skips exactly the values CLI11 takes: add_global_options registers the one list the scan
// reads, each option taking a value there takes one in the parser, and each flag none.
TEST(FrontDispatch, ValuedOptionsAreThoseTheParserGivesAValue) {
  CLI::App app;
  GlobalOptions globals;
  add_global_options(app, globals);
  for (const GlobalOption& global : kGlobalOptions) {
    std::string_view names = global.names;
    while (!names.empty()) {
      const std::string name(names.substr(0, names.find(',')));
      names.remove_prefix(std::min(name.size() + 1, names.size()));
      const CLI::Option* option = app.get_option(name);
      ASSERT_NE(option, nullptr) << name;
      EXPECT_EQ(option->get_items_expected_min(), global.takes_value() ? 1 : 0) << name;
      // A word the scan reads as this option ends up in the parser as it.
      const std::vector<std::string> words = global.takes_value()
                                                 ? std::vector<std::string>{name, "v"}
                                                 : std::vector<std::string>{name};
      std::vector<const char*> args;
      for (const std::string& word : words) args.push_back(word.c_str());
      args.push_back("version");
      EXPECT_EQ(scan(args).command, "version") << name;
    }
  }
}

}  // namespace
}  // namespace adbwire::cli::front
