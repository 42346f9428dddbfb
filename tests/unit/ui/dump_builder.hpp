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
  std::string bounds = "[0,0][100,100]";
  bool clickable = false;
  bool scrollable = false;
  bool checkable = false;
  bool checked = false;
  bool selected = false;
  bool focused = false;
  bool enabled = true;
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
         escape_attribute(n.id) + "\" class=\"" + n.cls +
         "\" package=\"com.example\" content-desc=\"" + escape_attribute(n.desc) +
         "\" checkable=\"" + flag(n.checkable) + "\" checked=\"" + flag(n.checked) +
         "\" clickable=\"" + flag(n.clickable) + "\" enabled=\"" + flag(n.enabled) +
         "\" focusable=\"false\" focused=\"" + flag(n.focused) + "\" scrollable=\"" +
         flag(n.scrollable) + "\" long-clickable=\"false\" password=\"false\" selected=\"" +
         flag(n.selected) + "\" bounds=\"" + n.bounds + "\"";
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

}  // namespace adbwire::ui::test
