// base/shell_quote.hpp: the quoted forms, and a real /bin/sh (dash on Debian, POSIX like the
// device's mksh) handing every tricky word back unchanged.
#include "base/shell_quote.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <string>
#include <vector>

namespace adbwire::detail {
namespace {

// What `sh -c 'printf %s WORD'` prints, WORD being shell_quote(text).
std::string through_sh(const std::string& text) {
  const std::string command = "printf %s " + shell_quote(text);
  const std::string line = "/bin/sh -c " + shell_quote(command);
  FILE* pipe = ::popen(line.c_str(), "r");
  EXPECT_NE(pipe, nullptr) << "cannot start /bin/sh";
  if (pipe == nullptr) return {};
  std::string out;
  char buffer[4096];
  while (const std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
  const int status = ::pclose(pipe);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << line;
  return out;
}

TEST(ShellQuote, SingleQuotesWithEachQuoteClosedEscapedAndReopened) {
  EXPECT_EQ(shell_quote("abc"), "'abc'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote("$HOME; `id` \"x\" \\"), "'$HOME; `id` \"x\" \\'");
  EXPECT_EQ(shell_quote(""), "''");
  EXPECT_EQ(shell_quote("''"), "''\\'''\\'''");
}

TEST(ShellQuote, ARealShHandsEveryWordBackUnchanged) {
  const std::vector<std::string> words = {
      "",
      "plain",
      "two words",
      "it's",
      "'",
      "''''",
      "$HOME ${PATH} $(id) `id`",
      "a; rm -rf /tmp/nothing-here && echo no | cat > x",
      "* ? [a-z] ~ ~root",
      "back\\slash \\' \\\\",
      "\"double\" 'single' \"mixed'\"",
      "new\nline\ttab\rreturn",
      "-n",
      "--",
      "caf\xc3\xa9 \xe5\xbe\xae\xe4\xbf\xa1 \xff\xfe not utf-8",
      "%s %d %%",
  };
  for (const std::string& word : words) EXPECT_EQ(through_sh(word), word) << word;
}

}  // namespace
}  // namespace adbwire::detail
