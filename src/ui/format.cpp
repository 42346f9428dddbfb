// The text (YAML) and JSON renderings of the pruned tree. Both are written iteratively
// from SnapshotState::lines, so output depth never turns into stack depth.
#include <algorithm>
#include <string>

#include "ui/snapshot_impl.hpp"

namespace adbwire::ui {
namespace {

constexpr std::string_view kEllipsis = "…";
// YAML reads an implicit mapping key of at most 1024 characters; a parent's line stays below.
constexpr std::size_t kMaxKeySize = 1000;
// Limits, in code points, tried in turn on every part of a parent line too long for a key. At
// the last one a line is at most about 650 bytes: role, id, text, hint and desc of 16 code
// points of at most 6 bytes escaped, a ref and every state.
constexpr std::size_t kKeyLimits[] = {kCompactTextLength, 16};

void append_states(std::string& out, std::uint16_t states) {
  bool first = true;
  for_each_state(states, [&](std::string_view name) {
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

void append_quoted(std::string& out, std::string_view before, std::string_view text,
                   std::string_view after, std::size_t limit) {
  out += before;
  append_escaped(out, text, limit);
  out += after;
}

// The part of a node's line after "- " (ui.hpp, "Text format"): text, hint and desc cut to
// text_limit code points, role and id to name_limit (0: whole).
std::string node_item(const detail::SnapshotState& impl, const OutputLine& line,
                      std::size_t text_limit, std::size_t name_limit) {
  const Node& node = impl.nodes[line.node];
  const NodeLabel label = line.bare ? NodeLabel{} : label_of(impl, line.node);
  // A ref that shows no text, hint or desc and has no labelled node below it is told apart by
  // its id, else by its place.
  const bool unnamed = node.ref != 0 && !line.bare && !label.show_text && label.hint.empty() &&
                       label.desc.empty() && !impl.labelled_below[line.node];
  std::string item;
  append_escaped(item, node.role, name_limit);
  if ((impl.options.show_ids || unnamed) && !node.resource_id.empty()) {
    item += '#';
    append_escaped(item, short_id(node), name_limit);
  }
  if (node.ref != 0) {
    item += " [ref=";
    item += std::to_string(node.ref);
    item += ']';
  }
  if (unnamed && node.resource_id.empty() && node.has_bounds) {
    const Point at = node.bounds.center();
    item += " @" + std::to_string(at.x) + ',' + std::to_string(at.y);
  }
  if (line.bare) return item;
  if (label.show_text) append_quoted(item, " \"", label.text, "\"", text_limit);
  if (!label.hint.empty()) append_quoted(item, " hint=\"", label.hint, "\"", text_limit);
  if (!label.desc.empty()) append_quoted(item, " (", label.desc, ")", text_limit);
  append_states(item, label.states);
  return item;
}

// The item of a parent's line, its parts cut until YAML takes it as a mapping key; the ref
// and the states are never cut.
std::string key_item(const detail::SnapshotState& impl, const OutputLine& line, std::string item,
                     std::size_t text_limit) {
  for (const std::size_t limit : kKeyLimits) {
    if (yaml_item_size(item) <= kMaxKeySize) break;
    item = node_item(impl, line, text_limit == 0 ? limit : std::min(text_limit, limit), limit);
  }
  return item;
}

std::string no_element_note(const AppInfo& app) {
  std::string note = "no element to act on";
  const std::string& name = app.shown.empty() ? app.package : app.shown;
  if (!name.empty()) {
    note += " in ";
    append_escaped(note, name, 0);
  }
  note += " (a game or a custom-drawn screen): use a screenshot and tap by coordinates";
  return note;
}

std::string_view json_kind(WindowKind kind) noexcept {
  switch (kind) {
    case WindowKind::status_bar:
      return "status_bar";
    case WindowKind::navigation_bar:
      return "navigation_bar";
    default:
      return to_string(kind);
  }
}

bool has_children(const std::vector<OutputLine>& lines, std::size_t k) noexcept {
  return k + 1 < lines.size() && lines[k + 1].kind != LineKind::window &&
         lines[k + 1].depth > lines[k].depth;
}

}  // namespace

std::string Snapshot::to_text() const {
  const detail::SnapshotState& impl = *impl_;
  std::string out;
  if (!impl.parsed) return out;
  out.reserve(impl.lines.size() * 48 + 128);
  const AppInfo& app = impl.app;
  if (!app.package.empty()) {
    out += "# app: ";
    append_escaped(out, app.package, 0);
    if (!app.activity.empty()) append_quoted(out, " (", app.activity, ")", 0);
    if (!app.shown.empty() && app.shown != app.package)
      append_quoted(out, ", screen shows ", app.shown, "", 0);
    if (app.keyboard) out += ", keyboard shown";
    out += '\n';
  }
  if (impl.app_refs == 0) out += "# " + no_element_note(app) + '\n';
  const std::size_t limit = impl.options.compact ? kCompactTextLength : 0;
  for (std::size_t k = 0; k < impl.lines.size(); ++k) {
    const OutputLine& line = impl.lines[k];
    if (line.kind == LineKind::window) {
      const Window& window = impl.windows[line.window];
      out += "# ";
      out += to_string(window.kind);
      append_quoted(out, ": ", window.package, "\n", 0);
      continue;
    }
    out.append(2 * static_cast<std::size_t>(line.depth), ' ');
    out += "- ";
    std::string item;
    if (line.kind == LineKind::cut) {
      item = kEllipsis;
      append_hidden_refs(item, line);
    } else {
      item = node_item(impl, line, limit, 0);
    }
    const bool parent = has_children(impl.lines, k);
    if (parent) item = key_item(impl, line, std::move(item), limit);
    append_yaml_item(out, item);
    if (parent) out += ':';
    out += '\n';
  }
  return out;
}

std::string Snapshot::to_json() const {
  const detail::SnapshotState& impl = *impl_;
  const AppInfo& app = impl.app;
  std::string out = "{\"app\":{";
  bool first_member = true;
  const auto member = [&out, &first_member](std::string_view name, std::string_view value) {
    if (value.empty()) return;
    if (!first_member) out += ',';
    first_member = false;
    out += '"';
    out += name;
    out += "\":";
    append_json_string(out, value);
  };
  const auto flag = [&out, &first_member](std::string_view name, bool on) {
    if (!on) return;
    if (!first_member) out += ',';
    first_member = false;
    out += '"';
    out += name;
    out += "\":true";
  };
  member("package", app.package);
  member("activity", app.activity);
  if (app.shown != app.package) member("shown", app.shown);
  flag("inferred", app.inferred);
  flag("keyboard", app.keyboard);
  out += "},\"rotation\":" + std::to_string(impl.rotation);
  if (impl.parsed && impl.app_refs == 0) {
    out += ",\"note\":";
    append_json_string(out, no_element_note(app));
  }
  out += ",\"nodes\":[";
  std::vector<bool> first_at_depth{true};
  std::uint32_t open = 0;  // children arrays currently open
  bool in_windows = false;
  for (std::size_t k = 0; k < impl.lines.size(); ++k) {
    const OutputLine& line = impl.lines[k];
    if (line.kind == LineKind::window) {
      for (; open > 0; --open) out += "]}";
      out += in_windows ? "]}," : "],\"windows\":[";
      in_windows = true;
      const Window& window = impl.windows[line.window];
      out += "{\"kind\":";
      append_json_string(out, json_kind(window.kind));
      out += ",\"package\":";
      append_json_string(out, window.package);
      out += ",\"nodes\":[";
      first_at_depth.assign(1, true);
      continue;
    }
    for (; open > line.depth; --open) out += "]}";
    if (!first_at_depth[line.depth]) out += ',';
    first_at_depth[line.depth] = false;
    if (line.kind == LineKind::cut) {
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
    if (!line.bare && node.visible) {
      const NodeLabel label = label_of(impl, line.node);
      if (label.show_text) {
        out += ",\"text\":";
        append_json_string(out, label.text);
      }
      field("hint", label.hint.empty() ? node.hint : label.hint);
      field("desc", node.content_desc);
      bool first = true;
      for_each_state(label.states, [&](std::string_view name) {
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
    if (!node.visible) out += ",\"visible\":false";
    if (has_children(impl.lines, k)) {
      out += ",\"children\":[";
      ++open;
      if (first_at_depth.size() <= open) first_at_depth.push_back(true);
      first_at_depth[open] = true;
    } else {
      out += '}';
    }
  }
  for (; open > 0; --open) out += "]}";
  out += in_windows ? "]}]}" : "]}";
  return out;
}

}  // namespace adbwire::ui
