#include "verbs/selector.hpp"

#include <algorithm>
#include <vector>

#include "adbwire/error.hpp"
#include "verbs/reply_text.hpp"

namespace adbwire::verbs {
namespace {

constexpr std::size_t kListedCandidates = 10;
// A tap needs this much of an element on the screen, each way (a sliver left at the edge of a
// list is not worth a tap that may land on its neighbour).
constexpr std::int32_t kMinTouch = 8;

std::vector<ui::NodeIndex> matches(const Call& call, const ui::Snapshot& snapshot, bool with_text) {
  if (const std::optional<std::string> needle = call.string("selector"))
    return snapshot.find(*needle);
  const std::pair<const char*, ui::FindField> fields[] = {{"id", ui::FindField::resource_id},
                                                          {"text", ui::FindField::text},
                                                          {"desc", ui::FindField::content_desc}};
  for (const auto& [name, field] : fields) {
    const std::optional<std::string> value = call.string(name);
    if (!value || (!with_text && field == ui::FindField::text)) continue;
    std::vector<ui::NodeIndex> found = snapshot.find(field, *value, ui::MatchMode::exact);
    if (found.empty()) found = snapshot.find(field, *value, ui::MatchMode::partial);
    return found;
  }
  return {};
}

bool inside(const ui::Snapshot& snapshot, ui::NodeIndex inner, ui::NodeIndex outer) {
  return inner > outer && inner < snapshot.node(outer).subtree_end;
}

// The part of node on the screen: its bounds cut to its window's (the top-level node's).
ui::Bounds on_screen(const ui::Snapshot& snapshot, ui::NodeIndex node) {
  ui::NodeIndex top = node;
  while (snapshot.node(top).parent != ui::kNoNode) top = snapshot.node(top).parent;
  const ui::Bounds& b = snapshot.node(node).bounds;
  const ui::Bounds& w = snapshot.node(top).bounds;
  if (!snapshot.node(top).has_bounds) return b;
  return {std::max(b.left, w.left), std::max(b.top, w.top), std::min(b.right, w.right),
          std::min(b.bottom, w.bottom)};
}

}  // namespace

bool has_selector(const Call& call, bool with_text) {
  return call.has("selector") || call.has("id") || (with_text && call.has("text")) ||
         call.has("desc");
}

bool selector_matches(Call& call) { return !matches(call, call.page().snapshot(), true).empty(); }

std::string selector_label(const Call& call, bool with_text) {
  for (const std::string_view name : {"selector", "id", "text", "desc"}) {
    if (!with_text && name == "text") continue;
    if (const std::optional<std::string> value = call.string(name))
      return std::string(name) + " " + in_quotes(*value);
  }
  return "selector";
}

Selected select_element(Call& call, bool with_text) {
  Page& page = call.page();
  const ui::Snapshot& snapshot = page.snapshot();
  const std::vector<ui::NodeIndex> found = matches(call, snapshot, with_text);
  std::vector<ui::NodeIndex> shown;
  for (const ui::NodeIndex n : found) {
    if (snapshot.node(n).visible) shown.push_back(n);
  }
  // Nested matches are one element: the outer one when it holds a ref, else the inner one.
  std::vector<ui::NodeIndex> candidates;
  for (const ui::NodeIndex n : shown) {
    const bool taken_by_outer = std::any_of(shown.begin(), shown.end(), [&](ui::NodeIndex o) {
      return inside(snapshot, n, o) && snapshot.node(o).ref != 0;
    });
    const bool gives_way_to_inner =
        snapshot.node(n).ref == 0 && std::any_of(shown.begin(), shown.end(), [&](ui::NodeIndex i) {
          return inside(snapshot, i, n);
        });
    if (!taken_by_outer && !gives_way_to_inner) candidates.push_back(n);
  }
  if (candidates.size() == 1) return {candidates[0], snapshot.node(candidates[0]).ref};
  const std::string what = selector_label(call, with_text);
  if (candidates.empty() && !found.empty()) {
    throw Error(errc::not_found,
                std::to_string(found.size()) + " element(s) match " + what +
                    " but none is on the screen (they are off it, or hidden); scroll to bring it "
                    "into view, then try again");
  }
  if (candidates.empty()) {
    throw Error(errc::not_found, "nothing on the screen matches " + what + " (" +
                                     std::to_string(snapshot.nodes().size()) +
                                     " elements searched); take a snapshot to read the screen, "
                                     "or try another field or a shorter text");
  }
  std::string list;
  for (std::size_t i = 0; i < std::min(candidates.size(), kListedCandidates); ++i)
    list += "\n" + describe(snapshot, candidates[i]);
  if (candidates.size() > kListedCandidates)
    list += "\n… " + std::to_string(candidates.size() - kListedCandidates) + " more";
  throw Error(errc::invalid_argument,
              std::to_string(candidates.size()) + " elements match " + what +
                  " equally well; nothing was done. Pass the ref of the one you mean (refs from "
                  "the snapshot just taken), or x and y for one without a ref:" +
                  list);
}

ui::Point touch_point(const ui::Snapshot& snapshot, ui::NodeIndex node) {
  const ui::Bounds part = on_screen(snapshot, node);
  const std::string name = describe(snapshot, node).substr(2);
  if (!snapshot.node(node).visible || part.empty()) {
    throw Error(errc::not_found,
                name + " is not on the screen; scroll to bring it into view, then try again");
  }
  if (part.width() < kMinTouch || part.height() < kMinTouch) {
    throw Error(errc::invalid_argument,
                name + ": only " + std::to_string(part.width()) + "x" +
                    std::to_string(part.height()) +
                    " px of it is on the screen, too small to tap without hitting its "
                    "neighbours; scroll to bring it into view");
  }
  const ui::Point p = snapshot.info(node).tap_point;
  return part.contains(p) ? p : part.center();
}

}  // namespace adbwire::verbs
