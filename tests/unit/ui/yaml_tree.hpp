// Reads a text snapshot back with libyaml (the reference YAML parser, an independent peer) and
// compares the tree YAML sees with the tree the lines' indentation describes.
#pragma once

#include <yaml.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace adbwire::ui::test {

// One list item: its depth and its string value.
using YamlItem = std::pair<std::uint32_t, std::string>;

// The items libyaml reads from text, which must be comments and nested lists whose items are
// plain or single-quoted strings or one-key mappings from such a string to a list. On anything
// else (a syntax error, another structure or scalar style) returns false with a message.
inline bool read_yaml_tree(const std::string& text, std::vector<YamlItem>& items,
                           std::string& error) {
  enum class Frame : std::uint8_t { list, key, value, done };
  struct Open {
    Frame frame;
    std::uint32_t depth;
  };
  items.clear();
  yaml_parser_t parser;
  if (!yaml_parser_initialize(&parser)) {
    error = "yaml_parser_initialize failed";
    return false;
  }
  yaml_parser_set_input_string(&parser, reinterpret_cast<const unsigned char*>(text.data()),
                               text.size());
  std::vector<Open> stack;
  int documents = 0;
  bool ok = true;
  const auto fail = [&](const std::string& why, const yaml_mark_t& mark) {
    error = why + " at line " + std::to_string(mark.line + 1) + ", column " +
            std::to_string(mark.column + 1);
    ok = false;
  };
  for (bool end = false; ok && !end;) {
    yaml_event_t event;
    if (!yaml_parser_parse(&parser, &event)) {
      fail(std::string("libyaml: ") + (parser.problem ? parser.problem : "error") +
               (parser.context ? std::string(" ") + parser.context : std::string()),
           parser.problem_mark);
      break;
    }
    switch (event.type) {
      case YAML_STREAM_START_EVENT:
      case YAML_DOCUMENT_END_EVENT:
        break;
      case YAML_STREAM_END_EVENT:
        end = true;
        break;
      case YAML_DOCUMENT_START_EVENT:
        if (++documents > 1) fail("more than one document", event.start_mark);
        break;
      case YAML_SEQUENCE_START_EVENT:
        if (event.data.sequence_start.anchor || event.data.sequence_start.tag) {
          fail("anchor or tag", event.start_mark);
        } else if (stack.empty()) {
          stack.push_back({Frame::list, 0});
        } else if (stack.back().frame == Frame::value) {
          stack.back().frame = Frame::done;
          stack.push_back({Frame::list, stack.back().depth + 1});
        } else {
          fail("a list where a list item was expected", event.start_mark);
        }
        break;
      case YAML_SEQUENCE_END_EVENT:
        stack.pop_back();
        break;
      case YAML_MAPPING_START_EVENT:
        if (stack.empty() || stack.back().frame != Frame::list) {
          fail("a mapping outside a list", event.start_mark);
        } else {
          stack.push_back({Frame::key, stack.back().depth});
        }
        break;
      case YAML_MAPPING_END_EVENT:
        if (stack.back().frame != Frame::done)
          fail("a mapping of other than one key", event.start_mark);
        stack.pop_back();
        break;
      case YAML_SCALAR_EVENT: {
        const auto style = event.data.scalar.style;
        if (event.data.scalar.anchor || event.data.scalar.tag) {
          fail("anchor or tag", event.start_mark);
        } else if (style != YAML_PLAIN_SCALAR_STYLE && style != YAML_SINGLE_QUOTED_SCALAR_STYLE) {
          fail("a scalar neither plain nor single-quoted", event.start_mark);
        } else if (stack.empty() || stack.back().frame == Frame::value ||
                   stack.back().frame == Frame::done) {
          fail("a scalar where a list was expected", event.start_mark);
        } else {
          items.emplace_back(stack.back().depth,
                             std::string(reinterpret_cast<const char*>(event.data.scalar.value),
                                         event.data.scalar.length));
          if (stack.back().frame == Frame::key) stack.back().frame = Frame::value;
        }
        break;
      }
      default:
        fail("an alias", event.start_mark);
        break;
    }
    yaml_event_delete(&event);
  }
  yaml_parser_delete(&parser);
  return ok;
}

// The items the lines of a text snapshot stand for: depth from the indent, the value after
// "- " without the ":" of a parent and without single quotes ('' read as ').
inline std::vector<YamlItem> line_tree(const std::string& text) {
  std::vector<std::string> lines;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    if (text[at] != '#') lines.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  std::vector<YamlItem> items;
  for (std::size_t k = 0; k < lines.size(); ++k) {
    const std::size_t indent = lines[k].find_first_not_of(' ');
    std::string item = lines[k].substr(indent + 2);
    const bool parent = k + 1 < lines.size() && lines[k + 1].find_first_not_of(' ') > indent;
    if (parent && !item.empty() && item.back() == ':') item.pop_back();
    if (item.size() >= 2 && item.front() == '\'' && item.back() == '\'') {
      std::string unquoted;
      for (std::size_t i = 1; i + 1 < item.size(); ++i) {
        unquoted += item[i];
        if (item[i] == '\'') ++i;
      }
      item = unquoted;
    }
    items.emplace_back(static_cast<std::uint32_t>(indent / 2), item);
  }
  return items;
}

// Every line is "# …" or "  "×depth "- …", and each item is at most one level deeper than the
// one before; returns the first line that is not, or "" when all are.
inline std::string misshapen_line(const std::string& text) {
  std::size_t previous_depth = 0;
  bool first = true;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) return "(no newline at the end)";
    const std::string line = text.substr(at, end - at);
    at = end + 1;
    if (line.starts_with("# ")) continue;
    const std::size_t indent = line.find_first_not_of(' ');
    if (indent == std::string::npos || indent % 2 != 0 || line.compare(indent, 2, "- ") != 0 ||
        line.size() == indent + 2 || line[indent + 2] == ' ')
      return line;
    const std::size_t depth = indent / 2;
    if ((first && depth != 0) || (!first && depth > previous_depth + 1)) return line;
    for (const char c : line) {
      if (static_cast<unsigned char>(c) < 0x20) return line;
    }
    previous_depth = depth;
    first = false;
  }
  return "";
}

}  // namespace adbwire::ui::test
