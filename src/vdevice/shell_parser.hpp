// The command language of the virtual device's shell: a small subset of sh. Words with
// '…', "…" and backslash quoting; commands joined by ';', newline, '&&' and '||'; redirects
// N>FILE, N>>FILE, N<FILE, N>&M. No variable is set: $NAME, ${…} and $? expand to nothing, as
// unset ones do in sh, and command substitution (`…`, $(…)) is refused, so a host that forgot to
// quote an argument is caught. No globs, pipes or background jobs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace adbwire::vdevice {

struct ShellToken {
  enum class Kind {
    word,
    sequence,    // ';'
    newline,     // ends a command like ';', but may also be blank or follow && and ||
    and_then,    // &&
    or_else,     // ||
    pipe,        // |  (recognised so it can be refused clearly)
    background,  // &
    redirect,    // see fd / redirect
  };
  enum class Redirect { none, write, append, read, duplicate };

  Kind kind = Kind::word;
  std::string text;  // word: the unquoted text
  int fd = -1;       // redirect: the descriptor redirected (default 1, or 0 for '<')
  Redirect redirect = Redirect::none;
  int target_fd = -1;  // duplicate: N>&M's M

  bool operator==(const ShellToken&) const = default;
};

// Splits text into tokens. On a syntax error (unterminated quote, bad N>&M) returns false
// and sets error to the message sh would print after "/system/bin/sh: ".
bool tokenize_shell(std::string_view text, std::vector<ShellToken>& tokens, std::string& error);

struct ShellRedirect {
  int fd = 1;
  ShellToken::Redirect kind = ShellToken::Redirect::write;
  std::string path;    // write, append, read
  int target_fd = -1;  // duplicate

  bool operator==(const ShellRedirect&) const = default;
};

struct ShellCommand {
  enum class Connector { always, and_then, or_else };
  Connector connector = Connector::always;  // how this command depends on the previous one
  std::vector<std::string> argv;
  std::vector<ShellRedirect> redirects;  // in source order (order matters for N>&M)
};

// Parses a command line into a list of commands. Empty text gives an empty list.
// Errors as tokenize_shell; also an operator with no command before or after it, a redirect
// without a target, and pipes or '&' (not supported, said so).
bool parse_shell(std::string_view text, std::vector<ShellCommand>& commands, std::string& error);

// Joins argv for logs: arguments separated by one space, unquoted.
std::string join_argv(const std::vector<std::string>& argv);

}  // namespace adbwire::vdevice
