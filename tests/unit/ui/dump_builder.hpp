// Builds small uiautomator dumps for unit tests, so each test states the screen it needs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace adbwire::ui::test {

// One <node>; attributes default to what uiautomator writes for a plain FrameLayout.
struct N {
  std::string cls = "android.widget.FrameLayout";
  std::string text;
  std::string desc;
  std::string id;
  std::string package = "com.example";
  std::string bounds = "[0,0][100,100]";
  bool clickable = false;
  bool long_clickable = false;
  bool scrollable = false;
  bool checkable = false;
  bool checked = false;
  bool selected = false;
  bool focused = false;
  bool enabled = true;
  bool password = false;
  std::string extra;  // raw attributes appended as is, for example R"(hint="Name")"
  std::vector<N> kids;
};

inline std::string escape_attribute(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\n':
        out += "&#10;";
        break;
      case '\r':
        out += "&#13;";
        break;
      case '\t':
        out += "&#9;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

inline const char* flag(bool b) { return b ? "true" : "false"; }

inline void append_node(std::string& out, const N& n) {
  out += "<node index=\"0\" text=\"" + escape_attribute(n.text) + "\" resource-id=\"" +
         escape_attribute(n.id) + "\" class=\"" + escape_attribute(n.cls) + "\" package=\"" +
         escape_attribute(n.package) + "\" content-desc=\"" + escape_attribute(n.desc) +
         "\" checkable=\"" + flag(n.checkable) + "\" checked=\"" + flag(n.checked) +
         "\" clickable=\"" + flag(n.clickable) + "\" enabled=\"" + flag(n.enabled) +
         "\" focusable=\"false\" focused=\"" + flag(n.focused) + "\" scrollable=\"" +
         flag(n.scrollable) + "\" long-clickable=\"" + flag(n.long_clickable) + "\" password=\"" +
         flag(n.password) + "\" selected=\"" + flag(n.selected) + "\" bounds=\"" + n.bounds + "\"";
  if (!n.extra.empty()) out += " " + n.extra;
  if (n.kids.empty()) {
    out += " />";
    return;
  }
  out += ">";
  for (const N& k : n.kids) append_node(out, k);
  out += "</node>";
}

inline std::string dump(const std::vector<N>& roots) {
  std::string out =
      "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">";
  for (const N& r : roots) append_node(out, r);
  out += "</hierarchy>";
  return out;
}

inline std::string dump(const N& root) { return dump(std::vector<N>{root}); }

inline N text(std::string t) {
  N n;
  n.cls = "android.widget.TextView";
  n.text = std::move(t);
  return n;
}

inline N button(std::string t) {
  N n;
  n.cls = "android.widget.Button";
  n.text = std::move(t);
  n.clickable = true;
  return n;
}

inline N group(std::vector<N> kids) {
  N n;
  n.kids = std::move(kids);
  return n;
}

inline N field(std::string hint, std::string typed = "") {
  N n;
  n.cls = "android.widget.EditText";
  n.text = std::move(typed);
  n.clickable = true;
  n.extra = "hint=\"" + escape_attribute(hint) + "\"";
  return n;
}

inline void set_package(N& n, const std::string& package) {
  n.package = package;
  for (N& k : n.kids) set_package(k, package);
}

// A window of an all-windows (uiautomator2) dump: a top-level node of package at bounds.
inline N window(const std::string& package, std::string bounds, std::vector<N> kids) {
  N n = group(std::move(kids));
  set_package(n, package);
  n.bounds = std::move(bounds);
  return n;
}

// The node lines of a text snapshot, without its comment lines ("# app: …").
inline std::string node_lines(const std::string& text) {
  std::string out;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find('\n', at);
    end = end == std::string::npos ? text.size() : end + 1;
    if (text[at] != '#') out.append(text, at, end - at);
    at = end;
  }
  return out;
}

}  // namespace adbwire::ui::test
