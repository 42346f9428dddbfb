#include "vdevice/shell_parser.hpp"

namespace adbwire::vdevice {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string describe(const ShellToken& token) {
  switch (token.kind) {
    case ShellToken::Kind::word:
      return token.text;
    case ShellToken::Kind::sequence:
      return ";";
    case ShellToken::Kind::newline:
      return "newline";
    case ShellToken::Kind::and_then:
      return "&&";
    case ShellToken::Kind::or_else:
      return "||";
    case ShellToken::Kind::pipe:
      return "|";
    case ShellToken::Kind::background:
      return "&";
    case ShellToken::Kind::redirect:
      return token.redirect == ShellToken::Redirect::read ? "<" : ">";
  }
  return "?";
}

bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_name_char(char c) { return is_name_start(c) || is_digit(c); }

// A '$' or '`' at text[i], outside single quotes: what sh expands there. No variable is set, so a
// parameter expands to nothing, as an unset one does in sh ("$Inner" in ".Outer$Inner" is gone),
// and command substitution is refused (sh would run the command). Advances i past what was
// expanded; false with error set for a substitution or a bad ${…}. A '$' sh leaves alone (before
// a blank, a quote or the end) is kept.
bool expand(std::string_view text, std::size_t& i, std::string& word, std::string& error) {
  if (text[i] == '`' || text.substr(i, 2) == "$(") {
    error = "syntax error: command substitution is not supported by the virtual device";
    return false;
  }
  const char next = i + 1 < text.size() ? text[i + 1] : '\0';
  if (next == '{') {
    const std::size_t end = text.find('}', i + 2);
    if (end == std::string_view::npos) {
      error = "syntax error: bad substitution";
      return false;
    }
    i = end + 1;
  } else if (is_name_start(next)) {
    i += 2;
    while (i < text.size() && is_name_char(text[i])) ++i;
  } else if (is_digit(next) || std::string_view("?$#!@*-").find(next) != std::string_view::npos) {
    i += 2;
  } else {
    word += '$';
    ++i;
  }
  return true;
}

}  // namespace

bool tokenize_shell(std::string_view text, std::vector<ShellToken>& tokens, std::string& error) {
  tokens.clear();
  std::string word;
  bool in_word = false;      // a word is open (possibly empty, after "" or '')
  bool word_quoted = false;  // some of it was quoted: "2">x is a word, not fd 2

  auto finish_word = [&] {
    if (in_word) tokens.push_back({ShellToken::Kind::word, word});
    word.clear();
    in_word = false;
    word_quoted = false;
  };

  std::size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (is_blank(c)) {
      finish_word();
      ++i;
    } else if (c == '\\') {
      if (i + 1 < text.size() && text[i + 1] == '\n') {
        i += 2;  // line continuation
        continue;
      }
      in_word = true;
      word_quoted = true;
      if (i + 1 < text.size()) word += text[i + 1];
      i += 2;
    } else if (c == '\'') {
      std::size_t end = text.find('\'', i + 1);
      if (end == std::string_view::npos) {
        error = "syntax error: unterminated quoted string";
        return false;
      }
      word.append(text.substr(i + 1, end - i - 1));
      in_word = true;
      word_quoted = true;
      i = end + 1;
    } else if (c == '"') {
      in_word = true;
      word_quoted = true;
      ++i;
      bool closed = false;
      while (i < text.size()) {
        char d = text[i];
        if (d == '"') {
          closed = true;
          ++i;
          break;
        }
        if (d == '\\' && i + 1 < text.size()) {
          char e = text[i + 1];
          if (e == '"' || e == '\\' || e == '$' || e == '`') {
            word += e;
            i += 2;
            continue;
          }
          if (e == '\n') {
            i += 2;
            continue;
          }
        }
        if (d == '$' || d == '`') {
          if (!expand(text, i, word, error)) return false;
          continue;
        }
        word += d;
        ++i;
      }
      if (!closed) {
        error = "syntax error: unterminated quoted string";
        return false;
      }
    } else if (c == '$' || c == '`') {
      if (!expand(text, i, word, error)) return false;
      in_word = in_word || !word.empty();  // an unquoted expansion to nothing makes no word
    } else if (c == '#' && !in_word) {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (c == ';' || c == '\n') {
      finish_word();
      tokens.push_back({c == ';' ? ShellToken::Kind::sequence : ShellToken::Kind::newline, {}});
      ++i;
    } else if (c == '&' || c == '|') {
      finish_word();
      bool doubled = i + 1 < text.size() && text[i + 1] == c;
      ShellToken token;
      if (c == '&') {
        token.kind = doubled ? ShellToken::Kind::and_then : ShellToken::Kind::background;
      } else {
        token.kind = doubled ? ShellToken::Kind::or_else : ShellToken::Kind::pipe;
      }
      tokens.push_back(token);
      i += doubled ? 2 : 1;
    } else if (c == '>' || c == '<') {
      ShellToken token;
      token.kind = ShellToken::Kind::redirect;
      token.fd = c == '<' ? 0 : 1;
      // "2>" names the descriptor only when the digit is the whole (unquoted) word so far.
      if (in_word && !word_quoted && word.size() == 1 && is_digit(word[0])) {
        token.fd = word[0] - '0';
        word.clear();
        in_word = false;
      } else {
        finish_word();
      }
      ++i;
      if (c == '<') {
        token.redirect = ShellToken::Redirect::read;
      } else if (i < text.size() && text[i] == '>') {
        token.redirect = ShellToken::Redirect::append;
        ++i;
      } else if (i < text.size() && text[i] == '&') {
        ++i;
        if (i >= text.size() || !is_digit(text[i])) {
          error = "syntax error: bad file descriptor after >&";
          return false;
        }
        token.redirect = ShellToken::Redirect::duplicate;
        token.target_fd = text[i] - '0';
        ++i;
      } else {
        token.redirect = ShellToken::Redirect::write;
      }
      tokens.push_back(token);
    } else {
      word += c;
      in_word = true;
      ++i;
    }
  }
  finish_word();
  return true;
}

bool parse_shell(std::string_view text, std::vector<ShellCommand>& commands, std::string& error) {
  commands.clear();
  std::vector<ShellToken> tokens;
  if (!tokenize_shell(text, tokens, error)) return false;

  ShellCommand current;
  bool have_connector = false;  // an && or || is waiting for its right-hand command
  auto unexpected = [&](const std::string& what) {
    error = "syntax error: '" + what + "' unexpected";
    return false;
  };
  auto command_empty = [&] { return current.argv.empty() && current.redirects.empty(); };

  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const ShellToken& token = tokens[i];
    switch (token.kind) {
      case ShellToken::Kind::word:
        current.argv.push_back(token.text);
        break;
      case ShellToken::Kind::redirect: {
        ShellRedirect redirect{token.fd, token.redirect, {}, token.target_fd};
        if (token.redirect != ShellToken::Redirect::duplicate) {
          if (i + 1 >= tokens.size()) return unexpected("newline");
          if (tokens[i + 1].kind != ShellToken::Kind::word)
            return unexpected(describe(tokens[i + 1]));
          redirect.path = tokens[++i].text;
        }
        current.redirects.push_back(std::move(redirect));
        break;
      }
      case ShellToken::Kind::pipe:
      case ShellToken::Kind::background:
        error = "'" + describe(token) + "' is not supported by the adbwire virtual device shell";
        return false;
      case ShellToken::Kind::newline:
        if (command_empty()) break;
        commands.push_back(std::move(current));
        current = {};
        have_connector = false;
        break;
      case ShellToken::Kind::sequence:
        if (command_empty()) return unexpected(";");
        commands.push_back(std::move(current));
        current = {};
        have_connector = false;
        break;
      case ShellToken::Kind::and_then:
      case ShellToken::Kind::or_else:
        if (command_empty()) return unexpected(describe(token));
        commands.push_back(std::move(current));
        current = {};
        current.connector = token.kind == ShellToken::Kind::and_then
                                ? ShellCommand::Connector::and_then
                                : ShellCommand::Connector::or_else;
        have_connector = true;
        break;
    }
  }
  if (!command_empty()) {
    commands.push_back(std::move(current));
  } else if (have_connector) {
    return unexpected("newline");
  }
  return true;
}

std::string join_argv(const std::vector<std::string>& argv) {
  std::string line;
  for (const std::string& arg : argv) {
    if (!line.empty()) line += ' ';
    line += arg;
  }
  return line;
}

}  // namespace adbwire::vdevice
