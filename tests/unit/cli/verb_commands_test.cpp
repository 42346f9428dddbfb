// The verb commands' parsers (verb_commands.cpp, built from the verb table's data by both
// programs) carry every constraint of the table: a required parameter left out, an integer out of
// its range and a string not among its choices are usage errors, as the session would have made
// them, and the values the table allows parse.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <limits>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/program.hpp"
#include "verbs/verb.hpp"

namespace adbwire::cli {
namespace {

std::string flag_of(std::string_view param) {
  std::string flag = "--" + std::string(param);
  for (char& c : flag) {
    if (c == '_') c = '-';
  }
  return flag;
}

// A value the table allows for param.
std::string allowed(const verbs::Param& param) {
  if (!param.choices.empty()) return std::string(param.choices.front());
  if (param.type == verbs::ParamType::integer) {
    return std::to_string(
        param.minimum == std::numeric_limits<std::int64_t>::min() ? 1 : param.minimum);
  }
  return param.type == verbs::ParamType::number ? "1.5" : "x";
}

// `VERB` with every required parameter but skip given an allowed value, then extra.
std::vector<std::string> command_line(const verbs::Verb& verb, const verbs::Param* skip,
                                      const std::vector<std::string>& extra) {
  std::vector<std::string> words = {"adbwire", std::string(verb.name)};
  for (const verbs::Param& param : verb.params) {
    if (!param.required || &param == skip) continue;
    words.push_back(flag_of(param.name));
    if (param.type != verbs::ParamType::boolean) words.push_back(allowed(param));
  }
  words.insert(words.end(), extra.begin(), extra.end());
  return words;
}

// Whether the verb's parser, as the programs build it, takes words.
bool parses(const verbs::Verb& verb, const std::vector<std::string>& words) {
  CLI::App app;
  GlobalOptions globals;
  Run run;
  add_global_options(app, globals);
  add_verb_command(app, globals, run, verb.name);
  std::vector<const char*> argv;
  for (const std::string& word : words) argv.push_back(word.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
    return true;
  } catch (const CLI::ParseError&) {
    return false;
  }
}

TEST(VerbCommands, ParsersCarryTheTablesConstraints) {
  int required = 0, ranges = 0, choices = 0;
  for (const verbs::Verb& verb : verbs::all()) {
    EXPECT_TRUE(parses(verb, command_line(verb, nullptr, {}))) << verb.name;
    for (const verbs::Param& param : verb.params) {
      const std::string where = std::string(verb.name) + " " + std::string(param.name);
      const std::string flag = flag_of(param.name);
      if (param.required) {
        ++required;
        EXPECT_FALSE(parses(verb, command_line(verb, &param, {}))) << where << " left out";
      }
      if (param.type == verbs::ParamType::integer) {
        EXPECT_TRUE(parses(verb, command_line(verb, &param, {flag, allowed(param)}))) << where;
        if (param.minimum != std::numeric_limits<std::int64_t>::min()) {
          ++ranges;
          EXPECT_FALSE(
              parses(verb, command_line(verb, &param, {flag, std::to_string(param.minimum - 1)})))
              << where << " below its range";
        }
        if (param.maximum != std::numeric_limits<std::int64_t>::max()) {
          EXPECT_FALSE(
              parses(verb, command_line(verb, &param, {flag, std::to_string(param.maximum + 1)})))
              << where << " above its range";
        }
      }
      if (!param.choices.empty()) {
        ++choices;
        for (const std::string_view choice : param.choices) {
          EXPECT_TRUE(parses(verb, command_line(verb, &param, {flag, std::string(choice)})))
              << where << " " << choice;
        }
        EXPECT_FALSE(parses(verb, command_line(verb, &param, {flag, "no-such-choice"})))
            << where << " off its choices";
      }
    }
  }
  // The table has constraints of each kind, so the loop above checked something.
  EXPECT_GT(required, 5);
  EXPECT_GT(ranges, 5);
  EXPECT_GT(choices, 3);
}

}  // namespace
}  // namespace adbwire::cli
