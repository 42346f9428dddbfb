// Fuzzes the whole UI pipeline: parse (any bytes), prune, both renderings, queries and ref
// resolution, checking the invariants the agent relies on rather than only "no crash".
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "adbwire/ui.hpp"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

// Every line of the text is a comment or a list item, indented in steps of two spaces, with
// no control character; the output is never empty once a dump parsed.
void check_lines(const std::string& text) {
  check(!text.empty() && text.back() == '\n');
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = text.find('\n', at);
    const std::string_view line(text.data() + at, end - at);
    at = end + 1;
    for (const char c : line) check(static_cast<unsigned char>(c) >= 0x20 && c != 0x7f);
    if (line.starts_with("# ")) continue;
    const std::size_t indent = line.find_first_not_of(' ');
    check(indent != std::string_view::npos && indent % 2 == 0 && line.substr(indent, 2) == "- " &&
          line.size() > indent + 2);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace adbwire::ui;
  const std::string input(reinterpret_cast<const char*>(data), size);
  for (const SnapshotOptions& options :
       {SnapshotOptions{}, SnapshotOptions{.interactive_only = true, .max_depth = 3},
        SnapshotOptions{.compact = true, .show_ids = true, .app_package = "com.example"}}) {
    std::error_code error;
    std::string detail;
    const Snapshot s = parse_dump(input, options, error, &detail);
    if (error) {
      check(!detail.empty() && s.nodes().empty());
      return 0;
    }
    const std::string text = s.to_text();
    check_lines(text);
    const std::string json = s.to_json();
    check(!json.empty() && json.front() == '{' && json.back() == '}');
    for (const RefInfo& r : s.refs()) {
      const Node& n = s.node(r.node);
      check(n.ref == r.ref && n.visible &&
            (n.clickable || n.long_clickable || n.editable || n.scrollable || n.checkable ||
             !n.content_desc.empty() || (n.focusable && !n.resource_id.empty())));
      if (options.max_depth == 0)
        check(text.find("[ref=" + std::to_string(r.ref) + "]") != std::string::npos);
      std::error_code stale;
      const NodeIndex hit = resolve(r, s, stale);
      if (!stale) {
        check(s.refs()[s.node(hit).ref - 1].identity_token == r.identity_token);
      }
      s.info(r.node);
    }
    if (!s.nodes().empty()) {
      s.find(s.node(0).text);
      std::error_code xpath_error;
      s.xpath("//node[@clickable='true']", xpath_error);
    }
  }
  return 0;
}
