#include "vdevice/shell_parser.hpp"

#include <gtest/gtest.h>

namespace adbwire::vdevice {
namespace {

using Kind = ShellToken::Kind;
using Redirect = ShellToken::Redirect;

std::vector<ShellToken> tokens_of(std::string_view text) {
  std::vector<ShellToken> tokens;
  std::string error;
  EXPECT_TRUE(tokenize_shell(text, tokens, error)) << error;
  return tokens;
}

std::vector<std::string> words_of(std::string_view text) {
  std::vector<std::string> words;
  for (const auto& token : tokens_of(text)) {
    EXPECT_EQ(token.kind, Kind::word) << "in: " << text;
    words.push_back(token.text);
  }
  return words;
}

ShellToken word(std::string text) { return {Kind::word, std::move(text)}; }
ShellToken op(Kind kind) { return {kind, {}}; }
ShellToken redirect(int fd, Redirect r, int target = -1) {
  return {Kind::redirect, {}, fd, r, target};
}

TEST(ShellTokenizer, SplitsOnBlanks) {
  EXPECT_EQ(words_of("  echo \t hello   world "),
            (std::vector<std::string>{"echo", "hello", "world"}));
  EXPECT_TRUE(tokens_of("").empty());
  EXPECT_TRUE(tokens_of("   ").empty());
}

TEST(ShellTokenizer, SingleQuotesKeepEverything) {
  EXPECT_EQ(words_of(R"(echo 'a  b; c && d > e \n "x"')"),
            (std::vector<std::string>{"echo", R"(a  b; c && d > e \n "x")"}));
}

TEST(ShellTokenizer, DoubleQuotesEscapeOnlyShellSpecials) {
  EXPECT_EQ(words_of(R"("a \"b\" \\ \$ \` \n 'c'")"),
            (std::vector<std::string>{R"(a "b" \ $ ` \n 'c')"}));
}

// No variable is set on the virtual device: parameters expand to nothing, as unset ones do in sh,
// so a host that forgot to quote ".Outer$Inner" sends ".Outer"; substitutions are refused.
TEST(ShellTokenizer, ParametersExpandToNothingOutsideSingleQuotes) {
  EXPECT_EQ(
      words_of(R"(am start -n p/.Outer$Inner "a${b}c$1$?" '$x' \$y $ x$)"),
      (std::vector<std::string>{"am", "start", "-n", "p/.Outer", "ac", "$x", "$y", "$", "x$"}));
  EXPECT_EQ(words_of("echo $UNSET done"), (std::vector<std::string>{"echo", "done"}));
  EXPECT_EQ(words_of(R"(echo "$UNSET")"), (std::vector<std::string>{"echo", ""}));
  for (const std::string_view text : {"echo `id`", "echo $(id)", "echo \"`id`\"", "echo ${x"}) {
    std::vector<ShellToken> tokens;
    std::string error;
    EXPECT_FALSE(tokenize_shell(text, tokens, error)) << text;
    EXPECT_NE(error.find("substitution"), std::string::npos) << error;
  }
}

TEST(ShellTokenizer, BackslashEscapesOneCharacter) {
  EXPECT_EQ(words_of(R"(a\ b c\;d \&\&)"), (std::vector<std::string>{"a b", "c;d", "&&"}));
  EXPECT_EQ(words_of("one\\\ntwo"), (std::vector<std::string>{"onetwo"}));
}

TEST(ShellTokenizer, QuotedPiecesJoinAndEmptyQuotesMakeAWord) {
  EXPECT_EQ(words_of(R"(a'b'"c"d)"), (std::vector<std::string>{"abcd"}));
  EXPECT_EQ(words_of(R"(echo "" '')"), (std::vector<std::string>{"echo", "", ""}));
}

TEST(ShellTokenizer, Operators) {
  EXPECT_EQ(
      tokens_of("a;b&&c||d|e&\nf"),
      (std::vector<ShellToken>{word("a"), op(Kind::sequence), word("b"), op(Kind::and_then),
                               word("c"), op(Kind::or_else), word("d"), op(Kind::pipe), word("e"),
                               op(Kind::background), op(Kind::newline), word("f")}));
}

TEST(ShellTokenizer, Redirects) {
  EXPECT_EQ(tokens_of("cmd >out 2>/dev/null >>log <in 2>&1 >&2"),
            (std::vector<ShellToken>{
                word("cmd"), redirect(1, Redirect::write), word("out"),
                redirect(2, Redirect::write), word("/dev/null"), redirect(1, Redirect::append),
                word("log"), redirect(0, Redirect::read), word("in"),
                redirect(2, Redirect::duplicate, 1), redirect(1, Redirect::duplicate, 2)}));
}

TEST(ShellTokenizer, DigitNamesADescriptorOnlyWhenItIsTheWholeUnquotedWord) {
  EXPECT_EQ(tokens_of("echo 2>x"),
            (std::vector<ShellToken>{word("echo"), redirect(2, Redirect::write), word("x")}));
  EXPECT_EQ(
      tokens_of("echo a2>x"),
      (std::vector<ShellToken>{word("echo"), word("a2"), redirect(1, Redirect::write), word("x")}));
  EXPECT_EQ(
      tokens_of("echo \"2\">x"),
      (std::vector<ShellToken>{word("echo"), word("2"), redirect(1, Redirect::write), word("x")}));
}

TEST(ShellTokenizer, CommentsRunToEndOfLine) {
  EXPECT_EQ(tokens_of("echo a # b c\necho d#e"),
            (std::vector<ShellToken>{word("echo"), word("a"), op(Kind::newline), word("echo"),
                                     word("d#e")}));
}

TEST(ShellTokenizer, Errors) {
  std::vector<ShellToken> tokens;
  std::string error;
  EXPECT_FALSE(tokenize_shell("echo 'abc", tokens, error));
  EXPECT_NE(error.find("unterminated"), std::string::npos);
  EXPECT_FALSE(tokenize_shell("echo \"abc", tokens, error));
  EXPECT_FALSE(tokenize_shell("echo 2>&x", tokens, error));
}

std::vector<ShellCommand> parse_ok(std::string_view text) {
  std::vector<ShellCommand> commands;
  std::string error;
  EXPECT_TRUE(parse_shell(text, commands, error)) << text << ": " << error;
  return commands;
}

std::string parse_error(std::string_view text) {
  std::vector<ShellCommand> commands;
  std::string error;
  EXPECT_FALSE(parse_shell(text, commands, error)) << text;
  return error;
}

TEST(ShellParser, SequenceAndConditionals) {
  auto commands = parse_ok("a 1; b && c || d\ne");
  ASSERT_EQ(commands.size(), 5u);
  using C = ShellCommand::Connector;
  EXPECT_EQ(commands[0].argv, (std::vector<std::string>{"a", "1"}));
  EXPECT_EQ(commands[0].connector, C::always);
  EXPECT_EQ(commands[1].connector, C::always);
  EXPECT_EQ(commands[2].connector, C::and_then);
  EXPECT_EQ(commands[3].connector, C::or_else);
  EXPECT_EQ(commands[4].argv, (std::vector<std::string>{"e"}));
  EXPECT_EQ(commands[4].connector, C::always);
}

TEST(ShellParser, RedirectsStayWithTheirCommandInOrder) {
  auto commands = parse_ok("cat <in >out 2>&1; echo x 2>/dev/null");
  ASSERT_EQ(commands.size(), 2u);
  EXPECT_EQ(commands[0].argv, (std::vector<std::string>{"cat"}));
  EXPECT_EQ(commands[0].redirects, (std::vector<ShellRedirect>{{0, Redirect::read, "in", -1},
                                                               {1, Redirect::write, "out", -1},
                                                               {2, Redirect::duplicate, "", 1}}));
  EXPECT_EQ(commands[1].redirects,
            (std::vector<ShellRedirect>{{2, Redirect::write, "/dev/null", -1}}));
}

TEST(ShellParser, BlankLinesTrailingSemicolonAndContinuationAfterAndAreFine) {
  EXPECT_EQ(parse_ok("\n\necho a;\n\n").size(), 1u);
  auto commands = parse_ok("true &&\n\necho b");
  ASSERT_EQ(commands.size(), 2u);
  EXPECT_EQ(commands[1].connector, ShellCommand::Connector::and_then);
  EXPECT_TRUE(parse_ok("").empty());
  EXPECT_TRUE(parse_ok("# only a comment").empty());
}

TEST(ShellParser, SyntaxErrors) {
  EXPECT_EQ(parse_error("&& echo"), "syntax error: '&&' unexpected");
  EXPECT_EQ(parse_error("echo a &&"), "syntax error: 'newline' unexpected");
  EXPECT_EQ(parse_error("echo a;;"), "syntax error: ';' unexpected");
  EXPECT_EQ(parse_error(";"), "syntax error: ';' unexpected");
  EXPECT_EQ(parse_error("echo >"), "syntax error: 'newline' unexpected");
  EXPECT_EQ(parse_error("echo > ;"), "syntax error: ';' unexpected");
  EXPECT_NE(parse_error("echo a | cat").find("not supported"), std::string::npos);
  EXPECT_NE(parse_error("sleep 1 &").find("not supported"), std::string::npos);
}

TEST(ShellParser, JoinArgv) {
  EXPECT_EQ(join_argv({"input", "tap", "10", "20"}), "input tap 10 20");
  EXPECT_EQ(join_argv({}), "");
}

}  // namespace
}  // namespace adbwire::vdevice
