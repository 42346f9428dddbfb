// Queries on a snapshot: find by field, XPath on the parsed dump, tap points.
#include <algorithm>
#include <cstdlib>
#include <string>
#include <unordered_map>

#include "adbwire/error.hpp"
#include "ui/snapshot_impl.hpp"

namespace adbwire::ui {
namespace {

constexpr std::string_view kIdMarker = ":id/";

char lower(char c) noexcept { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool contains_ignoring_case(std::string_view hay, std::string_view needle) noexcept {
  if (needle.size() > hay.size()) return false;
  return std::search(hay.begin(), hay.end(), needle.begin(), needle.end(),
                     [](char a, char b) { return lower(a) == lower(b); }) != hay.end();
}

std::string_view field_of(const Node& node, FindField field) noexcept {
  switch (field) {
    case FindField::resource_id:
      return node.resource_id;
    case FindField::text:
      return node.text;
    case FindField::content_desc:
      return node.content_desc;
  }
  return {};
}

bool matches(const Node& node, FindField field, std::string_view value, MatchMode mode) noexcept {
  const std::string_view have = field_of(node, field);
  if (have.empty()) return false;
  if (mode == MatchMode::partial) return contains_ignoring_case(have, value);
  if (have == value) return true;
  if (field != FindField::resource_id) return false;
  const auto marker = have.find(kIdMarker);
  return marker != std::string_view::npos && have.substr(marker + kIdMarker.size()) == value;
}

// The nearest free coordinate to `centre` on [lo, hi) after removing `taken` (sorted,
// possibly overlapping half-open intervals): the centre itself when free, else the middle
// of the nearest free stretch. Returns false when nothing is free.
bool free_coordinate(std::int32_t lo, std::int32_t hi, std::int32_t centre,
                     std::vector<std::pair<std::int32_t, std::int32_t>>& taken,
                     std::int32_t& best) {
  std::sort(taken.begin(), taken.end());
  bool found = false;
  std::int64_t best_distance = 0;
  const auto consider = [&](std::int32_t a, std::int32_t b) {
    if (b <= a) return;
    const std::int32_t x = centre >= a && centre < b ? centre : a + (b - a) / 2;
    const std::int64_t d = std::abs(static_cast<std::int64_t>(x) - centre);
    if (!found || d < best_distance) {
      found = true;
      best_distance = d;
      best = x;
    }
  };
  std::int32_t cursor = lo;
  for (const auto& [a, b] : taken) {
    consider(cursor, std::min(a, hi));
    cursor = std::max(cursor, b);
    if (cursor >= hi) break;
  }
  consider(cursor, hi);
  return found;
}

}  // namespace

std::vector<NodeIndex> Snapshot::find(FindField field, std::string_view value,
                                      MatchMode mode) const {
  std::vector<NodeIndex> hits;
  if (value.empty()) return hits;
  for (NodeIndex i = 0; i < impl_->nodes.size(); ++i) {
    if (matches(impl_->nodes[i], field, value, mode)) hits.push_back(i);
  }
  return hits;
}

std::vector<NodeIndex> Snapshot::find(std::string_view needle) const {
  for (MatchMode mode : {MatchMode::exact, MatchMode::partial}) {
    for (FindField field : {FindField::resource_id, FindField::text, FindField::content_desc}) {
      auto hits = find(field, needle, mode);
      if (!hits.empty()) return hits;
    }
  }
  return {};
}

namespace {

std::vector<NodeIndex> run_xpath(const detail::SnapshotState& impl, std::string_view query,
                                 std::string& problem) {
  std::vector<NodeIndex> hits;
  const std::string text(query);
  try {
    const pugi::xpath_query compiled(text.c_str());
    const pugi::xpath_node_set set = impl.document.select_nodes(compiled);
    if (set.empty()) return hits;
    std::unordered_map<const pugi::xml_node_struct*, NodeIndex> index_of;
    index_of.reserve(impl.elements.size());
    for (NodeIndex i = 0; i < impl.elements.size(); ++i) index_of.emplace(impl.elements[i], i);
    for (const pugi::xpath_node& hit : set) {
      const pugi::xml_node element = hit.node() ? hit.node() : hit.parent();
      const auto found = index_of.find(element.internal_object());
      if (found != index_of.end()) hits.push_back(found->second);
    }
  } catch (const pugi::xpath_exception& e) {
    problem = "XPath query \"" + text + "\" is unusable: " + e.what();
    if (e.result().offset >= 0 && static_cast<std::size_t>(e.result().offset) < text.size()) {
      problem += " (at character " + std::to_string(e.result().offset + 1) + ")";
    }
    hits.clear();
    return hits;
  }
  std::sort(hits.begin(), hits.end());
  hits.erase(std::unique(hits.begin(), hits.end()), hits.end());
  return hits;
}

}  // namespace

std::vector<NodeIndex> Snapshot::xpath(std::string_view query, std::error_code& error) const {
  error.clear();
  std::string problem;
  auto hits = run_xpath(*impl_, query, problem);
  if (!problem.empty()) error = make_error_code(errc::invalid_argument);
  return hits;
}

std::vector<NodeIndex> Snapshot::xpath(std::string_view query) const {
  std::string problem;
  auto hits = run_xpath(*impl_, query, problem);
  if (!problem.empty()) throw Error(errc::invalid_argument, problem);
  return hits;
}

ElementInfo Snapshot::info(NodeIndex index) const {
  const Node& target = node(index);
  const auto& nodes = impl_->nodes;
  ElementInfo result;
  result.node = index;
  result.ref = target.ref;
  result.bounds = target.bounds;
  result.center = target.bounds.center();
  result.tap_point = result.center;
  if (target.bounds.empty()) {
    result.tap_point_clear = false;
    return result;
  }
  const auto& tops = impl_->top_level;
  const auto window_of = [&](NodeIndex i) {
    return *std::prev(std::upper_bound(tops.begin(), tops.end(), i));
  };
  const NodeIndex window = window_of(index);
  std::vector<Bounds>& occluders = result.occluders;
  for (const RefInfo& r : impl_->refs) {
    const NodeIndex i = r.node;
    if (i == index || !nodes[i].bounds.intersects(target.bounds)) continue;
    const bool ancestor = i < index && index < nodes[i].subtree_end;
    const bool descendant = i > index && i < target.subtree_end;
    if (ancestor) continue;
    if (descendant || i > index || window_of(i) != window) occluders.push_back(nodes[i].bounds);
  }
  if (occluders.empty()) return result;

  // Candidate rows: the centre row, then the middle of each horizontal band between
  // occluder edges; in each row the best free column.
  std::vector<std::int32_t> edges{target.bounds.top, target.bounds.bottom};
  for (const Bounds& o : occluders) {
    edges.push_back(std::clamp(o.top, target.bounds.top, target.bounds.bottom));
    edges.push_back(std::clamp(o.bottom, target.bounds.top, target.bounds.bottom));
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  std::vector<std::int32_t> rows{result.center.y};
  for (std::size_t k = 0; k + 1 < edges.size(); ++k)
    rows.push_back(edges[k] + (edges[k + 1] - edges[k]) / 2);

  bool found = false;
  std::int64_t best_distance = 0;
  std::vector<std::pair<std::int32_t, std::int32_t>> taken;
  for (const std::int32_t y : rows) {
    taken.clear();
    for (const Bounds& o : occluders) {
      if (y >= o.top && y < o.bottom) taken.emplace_back(o.left, o.right);
    }
    std::int32_t x = 0;
    if (!free_coordinate(target.bounds.left, target.bounds.right, result.center.x, taken, x))
      continue;
    const std::int64_t dx = x - result.center.x;
    const std::int64_t dy = y - result.center.y;
    const std::int64_t distance = dx * dx + dy * dy;
    if (!found || distance < best_distance) {
      found = true;
      best_distance = distance;
      result.tap_point = {x, y};
    }
  }
  result.tap_point_clear = found;
  if (!found) result.tap_point = result.center;
  return result;
}

}  // namespace adbwire::ui
