// Row context shown on the real dumps of ../shared/corpus/xml: every list of every dump scrolls by
// itself by every amount from 1 px to two rows (at most its own size: beyond, all it showed is
// gone), both ways (its content moved, cut to the list and
// rid of what left it, as uiautomator dumps a scrolled list: vdevice/scrolled_dump.hpp), and no
// ref of the dump taken before may resolve to another element of the dump taken after. Each node
// carries its document index in an attribute the pipeline ignores, so "the same element" is
// known exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <pugixml.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "adbwire/ui.hpp"
#include "integration/sanitizer.hpp"
#include "ui/bounds.hpp"
#include "vdevice/scrolled_dump.hpp"

namespace adbwire::ui {
namespace {

namespace fs = std::filesystem;

const fs::path kCorpus = fs::path(ADBWIRE_SOURCE_DIR) / ".." / "shared" / "corpus" / "xml";
// Every amount in the default build. Under AddressSanitizer, some thirty times slower on these
// string-heavy loops, every 7th: 7 and the tokens' 8-px grid share no factor, so a sweep still
// meets every offset from the grid, and the sanitizer still sees every path.
constexpr std::int32_t kStep = test::kAddressSanitizer ? 7 : 1;
constexpr const char* kOrigin = "origin";

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string text_of(const pugi::xml_document& doc) {
  struct Writer final : pugi::xml_writer {
    std::string text;
    void write(const void* data, std::size_t size) override {
      text.append(static_cast<const char*>(data), size);
    }
  } writer;
  doc.save(writer, "", pugi::format_raw);
  return std::move(writer.text);
}

bool visible(const pugi::xml_node& n) {
  const auto bounds = parse_bounds(n.attribute("bounds").value());
  return std::string_view(n.attribute("visible-to-user").value()) != "false" && bounds &&
         !bounds->empty();
}

std::vector<pugi::xml_node> visible_children(const pugi::xml_node& n) {
  std::vector<pugi::xml_node> kids;
  for (pugi::xml_node c : n.children("node")) {
    if (visible(c)) kids.push_back(c);
  }
  return kids;
}

// A list to scroll: its origin, the axis its rows run along and its row size (the median row
// at its first level with more than one child, the smaller of two, at most the list's own size).
struct List {
  std::string origin;
  bool horizontal = false;
  std::int32_t row = 0;
  std::int32_t extent = 0;  // the list's size along its axis: beyond it, all it showed is gone
};

// The lists of a dump, each once: a scrollable whose only content is another scrollable (a
// pager around a list) moves the same rows, so only the inner one is taken.
std::vector<List> lists_of(const pugi::xml_document& doc) {
  std::vector<List> lists;
  for (const pugi::xpath_node& hit : doc.select_nodes("//node[@scrollable='true']")) {
    const pugi::xml_node list = hit.node();
    if (!visible(list)) continue;
    std::vector<pugi::xml_node> rows = visible_children(list);
    bool wraps_a_list = false;
    while (rows.size() == 1) {
      wraps_a_list = wraps_a_list || rows[0].attribute("scrollable").as_bool();
      rows = visible_children(rows[0]);
    }
    if (rows.empty() || wraps_a_list) continue;
    const Bounds box = *parse_bounds(list.attribute("bounds").value());
    List entry{list.attribute(kOrigin).value()};
    const Bounds first = *parse_bounds(rows[0].attribute("bounds").value());
    entry.horizontal = rows.size() > 1 && std::all_of(rows.begin(), rows.end(), [&](auto r) {
                         return parse_bounds(r.attribute("bounds").value())->top == first.top;
                       });
    std::vector<std::int32_t> sizes;
    for (const pugi::xml_node& r : rows) {
      const Bounds b = *parse_bounds(r.attribute("bounds").value());
      sizes.push_back(entry.horizontal ? b.width() : b.height());
    }
    const auto median = sizes.begin() + static_cast<std::ptrdiff_t>((sizes.size() - 1) / 2);
    std::nth_element(sizes.begin(), median, sizes.end());
    entry.extent = entry.horizontal ? box.width() : box.height();
    entry.row = std::min(*median, entry.extent);
    if (entry.row > 0) lists.push_back(entry);
  }
  return lists;
}

// What the shifts of one dump showed.
struct Tally {
  std::size_t shifts = 0;
  std::size_t checked = 0;      // refs looked up after a shift
  std::size_t same = 0;         // found: the same element
  std::size_t refused = 0;      // not found (gone, ambiguous)
  std::size_t wrong = 0;        // found: another element (must stay 0)
  std::size_t naive_wrong = 0;  // another element at the ref's old place, alike but for its row
  std::size_t kept_whole = 0;   // refs without look-alikes whose element and whole row (with a
                                // label of its own) are unchanged by the shift
  std::size_t kept_found = 0;   // of those, found
};

// The element's fields without its row, as the tokens held them before rows: what an element
// at the same place alike but in another row shares with it.
std::string alike_key(const Node& n) {
  const Bounds& b = n.bounds;
  const auto q = [](std::int32_t v) {
    return v >= 0 ? v / kBoundsQuantum : -1 - (-v - 1) / kBoundsQuantum;
  };
  return std::string(n.package) + '|' + std::string(n.class_name) + '|' +
         std::string(n.resource_id) + '|' + std::string(n.editable ? n.hint : n.text) + '|' +
         std::string(n.content_desc) + '|' + std::to_string(q(b.left)) + ',' +
         std::to_string(q(b.top)) + ',' + std::to_string(q(b.right)) + ',' +
         std::to_string(q(b.bottom));
}

// The texts and descs of a node's subtree with their bounds, to tell whether a row came
// through a shift unchanged.
std::string row_print(const Snapshot& s, NodeIndex i) {
  std::string out;
  for (NodeIndex d = i; d < s.node(i).subtree_end; ++d) {
    const Node& n = s.node(d);
    if (!n.visible) continue;
    out += std::string(n.text) + '|' + std::string(n.content_desc) + '|' +
           std::to_string(n.bounds.width()) + 'x' + std::to_string(n.bounds.height()) + ';';
  }
  return out;
}

// The node under the list's first level (the row) holding i, or i.
NodeIndex row_of(const Snapshot& s, const std::vector<std::string_view>& origin, NodeIndex i,
                 const std::string& list) {
  for (NodeIndex at = i; s.node(at).parent != kNoNode; at = s.node(at).parent) {
    if (origin[s.node(at).parent] == list) return at;
  }
  return i;
}

// Every node's origin attribute, by node index.
std::vector<std::string_view> origins(const Snapshot& s) {
  std::vector<std::string_view> out(s.nodes().size());
  for (NodeIndex i = 0; i < out.size(); ++i) {
    for (const Attribute& a : s.extra_attributes(i)) {
      if (a.name == kOrigin) out[i] = a.value;
    }
  }
  return out;
}

// What a ref of the dump before the shifts is compared by, worked out once.
struct Before {
  std::string_view origin;
  std::string alike;  // alike_key
  std::string row;    // row_print of its row, then of itself
  bool labelled;      // its row has a label of its own (else a neighbour names it)
};

std::vector<Before> before_side(const Snapshot& s, const std::vector<std::string_view>& origin,
                                const std::string& list) {
  std::vector<Before> out;
  for (const RefInfo& ref : s.refs()) {
    const NodeIndex row = row_of(s, origin, ref.node, list);
    bool labelled = false;
    for (NodeIndex d = row; d < s.node(row).subtree_end; ++d)
      labelled = labelled || (s.node(d).visible &&
                              (!s.node(d).text.empty() || !s.node(d).content_desc.empty()));
    out.push_back({origin[ref.node], alike_key(s.node(ref.node)),
                   row_print(s, row) + '/' + row_print(s, ref.node), labelled});
  }
  return out;
}

void check_shift(const Snapshot& before, const std::vector<Before>& was, const Snapshot& after,
                 const std::string& list, Tally& tally) {
  const std::vector<std::string_view> is = origins(after);
  std::unordered_map<std::string_view, NodeIndex> ref_by_origin;
  std::unordered_map<std::string, std::vector<NodeIndex>> alike;
  for (const RefInfo& r : after.refs()) {
    ref_by_origin[is[r.node]] = r.node;
    alike[alike_key(after.node(r.node))].push_back(r.node);
  }
  for (std::size_t k = 0; k < before.refs().size(); ++k) {
    const RefInfo& ref = before.refs()[k];
    const std::string_view origin = was[k].origin;
    ++tally.checked;
    const RefMatch match = find_ref(ref, after);
    if (match.node == kNoNode) {
      ++tally.refused;
    } else if (is[match.node] == origin) {
      ++tally.same;
    } else {
      ++tally.wrong;
      ADD_FAILURE() << "ref " << ref.ref << " (" << ref.label << ", row \"" << ref.row
                    << "\") resolved to " << after.node(match.node).role << " \""
                    << after.node(match.node).text << "\" (origin " << is[match.node] << ", was "
                    << origin << ")";
    }
    // The hazard rows guard against: an element alike at the ref's old place, from another row.
    const auto same_place = alike.find(was[k].alike);
    if (same_place != alike.end() &&
        std::any_of(same_place->second.begin(), same_place->second.end(),
                    [&](NodeIndex n) { return is[n] != origin; }))
      ++tally.naive_wrong;
    const auto same = ref_by_origin.find(origin);
    if (same == ref_by_origin.end() || ref.look_alikes > 1 || !was[k].labelled) continue;
    if (was[k].row == row_print(after, row_of(after, is, same->second, list)) + '/' +
                          row_print(after, same->second)) {
      ++tally.kept_whole;
      if (match.node != kNoNode) ++tally.kept_found;
    }
  }
}

TEST(RefScroll, NoRefOfAScrolledRealListResolvesToAnotherElement) {
  std::vector<fs::path> files;
  if (fs::is_directory(kCorpus)) {
    for (const auto& entry : fs::directory_iterator(kCorpus)) {
      if (entry.path().extension() == ".xml") files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty()) << "the real dumps belong in " << kCorpus;
  Tally total;
  std::size_t lists = 0;
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.filename().string());
    const std::string xml = read(file);
    pugi::xml_document doc;
    const std::size_t start =
        xml.find("<?xml") != std::string::npos ? xml.find("<?xml") : xml.find("<hierarchy");
    ASSERT_NE(start, std::string::npos);
    ASSERT_TRUE(doc.load_buffer(xml.data() + start, xml.size() - start));
    std::size_t index = 0;
    for (const pugi::xpath_node& hit : doc.select_nodes("//node"))
      hit.node().append_attribute(kOrigin) = std::to_string(index++).c_str();
    const Snapshot before = parse_dump(text_of(doc));
    const std::vector<std::string_view> origin = origins(before);
    Tally tally;
    for (const List& list : lists_of(doc)) {
      ++lists;
      const std::vector<Before> was = before_side(before, origin, list.origin);
      for (std::int32_t d = 1; d <= std::min(2 * list.row, list.extent); d += kStep) {
        for (const std::int32_t sign : {-1, 1}) {
          pugi::xml_document moved;
          moved.reset(doc);
          const pugi::xml_node node = moved.find_node(
              [&](const pugi::xml_node& n) { return list.origin == n.attribute(kOrigin).value(); });
          vdevice::scroll_content(node, list.horizontal ? sign * d : 0,
                                  list.horizontal ? 0 : sign * d);
          ++tally.shifts;
          check_shift(before, was, parse_dump(text_of(moved)), list.origin, tally);
        }
      }
    }
    std::printf("%-48s shifts %6zu refs %7zu same %7zu refused %6zu naive-wrong %5zu\n",
                file.filename().c_str(), tally.shifts, tally.checked, tally.same, tally.refused,
                tally.naive_wrong);
    total.shifts += tally.shifts;
    total.checked += tally.checked;
    total.same += tally.same;
    total.refused += tally.refused;
    total.wrong += tally.wrong;
    total.naive_wrong += tally.naive_wrong;
    total.kept_whole += tally.kept_whole;
    total.kept_found += tally.kept_found;
  }
  std::printf(
      "%zu lists, %zu shifts: %zu refs looked up, %zu found the same element, %zu refused, "
      "%zu wrong; an element alike from another row sat at the old place %zu times; "
      "%zu of %zu refs whose row came through whole were found\n",
      lists, total.shifts, total.checked, total.same, total.refused, total.wrong, total.naive_wrong,
      total.kept_found, total.kept_whole);
  EXPECT_EQ(total.wrong, 0u);
  // The hazard is real in these dumps: without rows, an exact token would have picked another
  // row's element this often.
  EXPECT_GT(total.naive_wrong, 0u);
  // And rows do not refuse what plainly moved: every ref whose element and row came through a
  // shift unchanged (only moved) is found.
  EXPECT_EQ(total.kept_found, total.kept_whole);
  EXPECT_GT(total.kept_whole, total.checked / 10);
}

}  // namespace
}  // namespace adbwire::ui
