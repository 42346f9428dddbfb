// The text (YAML-like) and JSON renderings of the pruned tree. Both are written iteratively
// from SnapshotState::lines, so output depth never turns into stack depth.
#include <cstdio>

#include "ui/snapshot_impl.hpp"

namespace adbwire::ui {
namespace {

constexpr std::string_view kEllipsis = "…";
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

bool is_continuation(unsigned char c) noexcept { return (c & 0xC0) == 0x80; }

void append_control(std::string& out, unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\u%04x", c);
  out += buf;
}

// Length of the well-formed UTF-8 sequence at s[i], or 0 when it is not one.
std::size_t utf8_length(std::string_view s, std::size_t i) noexcept {
  const auto c = static_cast<unsigned char>(s[i]);
  std::size_t len = 0;
  std::uint32_t min = 0;
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) {
    len = 2;
    min = 0x80;
  } else if ((c & 0xF0) == 0xE0) {
    len = 3;
    min = 0x800;
  } else if ((c & 0xF8) == 0xF0) {
    len = 4;
    min = 0x10000;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  std::uint32_t cp = c & (0x7Fu >> len);
  for (std::size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if (!is_continuation(b)) return 0;
    cp = (cp << 6) | (b & 0x3Fu);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
      ++i;
    } else if (c == '\n') {
      out += "\\n", ++i;
    } else if (c == '\r') {
      out += "\\r", ++i;
    } else if (c == '\t') {
      out += "\\t", ++i;
    } else if (c < 0x20) {
      append_control(out, c), ++i;
    } else if (const std::size_t len = utf8_length(s, i); len != 0) {
      out.append(s.data() + i, len);
      i += len;
    } else {
      out += kReplacement;
      ++i;
    }
  }
  out += '"';
}

// Calls add(name) for each state the format shows, in the format's order.
template <typename Add>
void for_each_state(const Node& node, Add add) {
  if (node.checked) add("checked");
  if (node.selected) add("selected");
  if (node.focused) add("focused");
  if (!node.enabled) add("disabled");
}

void append_states(std::string& out, const Node& node) {
  bool first = true;
  for_each_state(node, [&](std::string_view name) {
    out += first ? " [" : ", ";
    out += name;
    first = false;
  });
  if (!first) out += ']';
}

void append_hidden_refs(std::string& out, const OutputLine& line) {
  if (line.hidden_refs == 0) return;
  out += line.hidden_refs == 1 ? " [ref " : " [refs ";
  out += std::to_string(line.first_hidden_ref);
  if (line.hidden_refs > 1) {
    out += '-';
    out += std::to_string(line.first_hidden_ref + line.hidden_refs - 1);
  }
  out += " hidden]";
}

}  // namespace

void append_escaped(std::string& out, std::string_view text, std::size_t max_code_points) {
  std::size_t code_points = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (!is_continuation(c) && max_code_points != 0 && code_points++ == max_code_points) {
      out += kEllipsis;
      return;
    }
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          append_control(out, c);
        } else {
          out += static_cast<char>(c);
        }
    }
  }
}

std::string Snapshot::to_text() const {
  const detail::SnapshotState& impl = *impl_;
  const std::size_t limit = impl.options.compact ? kCompactTextLength : 0;
  std::string out;
  out.reserve(impl.lines.size() * 48);
  for (const OutputLine& line : impl.lines) {
    out.append(2 * static_cast<std::size_t>(line.depth), ' ');
    out += "- ";
    if (line.node == kNoNode) {
      out += kEllipsis;
      append_hidden_refs(out, line);
      out += '\n';
      continue;
    }
    const Node& node = impl.nodes[line.node];
    out += node.role;
    if (node.ref != 0) {
      out += " [ref=";
      out += std::to_string(node.ref);
      out += ']';
    }
    if (!line.bare) {
      if (!node.text.empty() || node.editable) {
        out += " \"";
        append_escaped(out, node.text, limit);
        out += '"';
      }
      if (!node.content_desc.empty()) {
        out += " (";
        append_escaped(out, node.content_desc, limit);
        out += ')';
      }
      append_states(out, node);
    }
    out += '\n';
  }
  return out;
}

std::string Snapshot::to_json() const {
  const detail::SnapshotState& impl = *impl_;
  std::string out = "{\"rotation\":" + std::to_string(impl.rotation) + ",\"nodes\":[";
  std::vector<bool> first_at_depth{true};
  std::uint32_t open = 0;  // children arrays currently open
  for (std::size_t k = 0; k < impl.lines.size(); ++k) {
    const OutputLine& line = impl.lines[k];
    for (; open > line.depth; --open) out += "]}";
    if (!first_at_depth[line.depth]) out += ',';
    first_at_depth[line.depth] = false;
    if (line.node == kNoNode) {
      out += "{\"truncated\":true";
      if (line.hidden_refs != 0) {
        out += ",\"hidden_refs\":[" + std::to_string(line.first_hidden_ref) + ',' +
               std::to_string(line.first_hidden_ref + line.hidden_refs - 1) + ']';
      }
      out += '}';
      continue;
    }
    const Node& node = impl.nodes[line.node];
    out += "{\"role\":";
    append_json_string(out, node.role);
    if (node.ref != 0) out += ",\"ref\":" + std::to_string(node.ref);
    const auto field = [&out](std::string_view name, std::string_view value) {
      if (value.empty()) return;
      out += ",\"";
      out += name;
      out += "\":";
      append_json_string(out, value);
    };
    if (!line.bare) {
      if (!node.text.empty() || node.editable) {
        out += ",\"text\":";
        append_json_string(out, node.text);
      }
      field("desc", node.content_desc);
      field("hint", node.hint);
      bool first = true;
      for_each_state(node, [&](std::string_view name) {
        out += first ? ",\"states\":[\"" : ",\"";
        out += name;
        out += '"';
        first = false;
      });
      if (!first) out += ']';
    }
    field("class", node.class_name);
    field("resource_id", node.resource_id);
    if (node.has_bounds) {
      out += ",\"bounds\":[" + std::to_string(node.bounds.left) + ',' +
             std::to_string(node.bounds.top) + ',' + std::to_string(node.bounds.right) + ',' +
             std::to_string(node.bounds.bottom) + ']';
    }
    const bool has_children = k + 1 < impl.lines.size() && impl.lines[k + 1].depth > line.depth;
    if (has_children) {
      out += ",\"children\":[";
      ++open;
      if (first_at_depth.size() <= open) first_at_depth.push_back(true);
      first_at_depth[open] = true;
    } else {
      out += '}';
    }
  }
  for (; open > 0; --open) out += "]}";
  out += "]}";
  return out;
}

}  // namespace adbwire::ui
