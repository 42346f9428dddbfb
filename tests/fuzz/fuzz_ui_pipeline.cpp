// Fuzzes the whole UI pipeline: parse (any bytes), prune, both renderings, queries and ref
// resolution, checking the invariants the agent relies on rather than only "no crash".
#include <cstdint>
#include <cstdlib>
#include <string>

#include "adbwire/ui.hpp"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace adbwire::ui;
  const std::string input(reinterpret_cast<const char*>(data), size);
  for (const SnapshotOptions options :
       {SnapshotOptions{}, SnapshotOptions{true, 3, false}, SnapshotOptions{false, 0, true}}) {
    std::error_code error;
    std::string detail;
    const Snapshot s = parse_dump(input, options, error, &detail);
    if (error) {
      check(!detail.empty() && s.nodes().empty());
      return 0;
    }
    const std::string text = s.to_text();
    const std::string json = s.to_json();
    check(!json.empty() && json.front() == '{' && json.back() == '}');
    for (const RefInfo& r : s.refs()) {
      const Node& n = s.node(r.node);
      check(n.ref == r.ref && (n.clickable || n.editable || n.scrollable));
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
