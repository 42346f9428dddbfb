// Where a ref's element lives (ui.hpp, "Row context"): the labels that tell its row or card from
// the others, so the same button in another row of a list is another element.
#include <algorithm>
#include <string>

#include "ui/snapshot_impl.hpp"

namespace adbwire::ui {
namespace {

// Nodes a context may read, per ref and per snapshot: a hostile dump of many refs in deep
// identical subtrees cannot make a snapshot cost more than this (later refs then get less
// context, which can only make them stale, never another element).
constexpr std::size_t kMaxVisited = 2000;
constexpr std::size_t kMaxVisitedInAll = 4'000'000;
// Labels kept for RefInfo::row, and how long it may get.
constexpr std::size_t kRowLabels = 3;
constexpr std::size_t kRowLength = 60;

constexpr std::uint64_t kFnvOffset = 0xcbf29ce484222325ULL;
constexpr std::uint64_t kFnvPrime = 0x100000001b3ULL;

// The labels of a context: an FNV-1a digest of all of them (separated, so "ab","c" differs from
// "a","bc") and, once keep_text() is called, the first few as text.
class Labels {
 public:
  void keep_text(bool keep = true) { keep_text_ = keep; }
  void add(std::string_view label) {
    if (label.empty()) return;
    for (const char c : label) mix(static_cast<unsigned char>(c));
    mix(0x1f);
    ++count_;
    if (keep_text_ && kept_ < kRowLabels) {
      if (kept_ > 0) text_ += " · ";
      text_ += label;
      ++kept_;
    }
  }
  // The text (editable: the hint, which typing does not change; password: none) and desc of a
  // visible node.
  void add_node(const Node& n) {
    if (!n.visible) return;
    add(n.password ? std::string_view() : n.editable ? n.hint : n.text);
    if (n.content_desc != n.text) add(n.content_desc);
  }
  // Every node of [root, end of its subtree) but [skip, skip_end), leaving out what scrollables
  // inside hold (it moves when they scroll), within the budget of visited nodes.
  void add_subtree(const std::vector<Node>& nodes, NodeIndex root, NodeIndex skip,
                   NodeIndex skip_end, std::size_t& budget) {
    for (NodeIndex i = root; i < nodes[root].subtree_end && budget > 0;) {
      if (i == skip) {
        i = skip_end;
        continue;
      }
      --budget;
      const Node& n = nodes[i];
      add_node(n);
      i = n.scrollable && n.visible ? n.subtree_end : i + 1;
    }
  }
  void separate() { mix(0x1e); }
  void mark(char c) {
    mix(0x1e);
    mix(static_cast<unsigned char>(c));
  }

  std::uint64_t digest() const noexcept { return digest_; }
  std::size_t count() const noexcept { return count_; }
  const std::string& text() const noexcept { return text_; }

 private:
  void mix(unsigned char byte) noexcept { digest_ = (digest_ ^ byte) * kFnvPrime; }

  std::uint64_t digest_ = kFnvOffset;
  std::size_t count_ = 0;
  bool keep_text_ = false;
  std::size_t kept_ = 0;
  std::string text_;
};

NodeIndex scroller_of(const std::vector<Node>& nodes, NodeIndex i) noexcept {
  for (NodeIndex p = nodes[i].parent; p != kNoNode; p = nodes[p].parent) {
    if (nodes[p].scrollable && nodes[p].visible) return p;
  }
  return kNoNode;
}

bool overlap_vertically(const Node& a, const Node& b) noexcept {
  return a.has_bounds && b.has_bounds && a.bounds.top < b.bounds.bottom &&
         b.bounds.top < a.bounds.bottom;
}

class RowReader {
 public:
  explicit RowReader(const detail::SnapshotState& impl)
      : impl_(impl),
        nodes_(impl.nodes),
        refs_(impl.refs),
        shown_kids_(nodes_.size()),
        labelled_(nodes_.size()) {
    for (const Node& n : nodes_) {
      if (n.parent != kNoNode && n.visible) ++shown_kids_[n.parent];
    }
    for (NodeIndex i = 0; i < nodes_.size(); ++i) {
      const Node& n = nodes_[i];
      labelled_[i] =
          impl.labelled_below[i] || (n.visible && (!n.text.empty() || !n.content_desc.empty()));
    }
  }

  RowContext read(std::size_t r) {
    const NodeIndex e = refs_[r].node;
    std::size_t budget = std::min(kMaxVisited, left_);
    const std::size_t given = budget;
    Labels labels;
    labels.add_subtree(nodes_, e, kNoNode, kNoNode, budget);
    labels.separate();
    labels.keep_text();
    // A text field's labels around it change as it is typed into (an error line, a clear
    // button), a list's as it scrolls: their hint or id and place name them.
    if (!nodes_[e].editable && !nodes_[e].scrollable) {
      if (const NodeIndex scroller = scroller_of(nodes_, e); scroller != kNoNode) {
        in_list(e, scroller, labels, budget);
      } else if (labels.count() == 0) {
        around(e, labels, budget);
      }
    }
    left_ -= given - budget;
    RowContext context;
    context.digest = labels.digest();
    append_escaped(context.row, labels.text(), kRowLength);
    return context;
  }

 private:
  // In a scrollable: the labels of its item (the child of the list holding e, below wrappers);
  // for an element that is the item itself and names nothing below it, those of its siblings
  // beside it (a list whose rows are not grouped, as Compose flattens them). A row with no label
  // at all (its text cut off at the list's edge) is named by its neighbour: the nearest row
  // before it with labels, else after it.
  void in_list(NodeIndex e, NodeIndex scroller, Labels& labels, std::size_t& budget) {
    path_.clear();
    for (NodeIndex a = e; a != scroller; a = nodes_[a].parent) path_.push_back(a);
    NodeIndex item = e;
    for (auto a = path_.rbegin(); a != path_.rend(); ++a) {
      if (!wrapper(*a, scroller)) {
        item = *a;
        break;
      }
    }
    const Node& element = nodes_[e];
    if (item != e) {
      labels.add_subtree(nodes_, item, e, element.subtree_end, budget);
    } else if (!impl_.labelled_below[e]) {
      for (NodeIndex c = nodes_[element.parent].first_child; c != kNoNode && budget > 0;
           c = nodes_[c].next_sibling) {
        if (c != e && nodes_[c].visible && overlap_vertically(nodes_[c], element))
          labels.add_subtree(nodes_, c, kNoNode, kNoNode, budget);
      }
    }
    if (labels.count() == 0) neighbour(item, labels, budget);
  }

  // A node between a list and its rows: the only visible child of its parent, filling it (90%
  // of its area or more), or the one child a ScrollView holds. Whether a list's lone visible row
  // is one does not depend on how many rows are in view.
  bool wrapper(NodeIndex a, NodeIndex scroller) const {
    const Node& n = nodes_[a];
    const Node& parent = nodes_[n.parent];
    if (shown_kids_[n.parent] != 1) return false;
    if (n.parent == scroller && parent.class_name.ends_with("ScrollView")) return true;
    const Bounds inside{std::max(n.bounds.left, parent.bounds.left),
                        std::max(n.bounds.top, parent.bounds.top),
                        std::min(n.bounds.right, parent.bounds.right),
                        std::min(n.bounds.bottom, parent.bounds.bottom)};
    if (inside.empty() || parent.bounds.empty()) return false;
    const auto area = [](const Bounds& b) { return std::int64_t{b.width()} * b.height(); };
    return 10 * area(inside) >= 9 * area(parent.bounds);
  }

  // The labels of the nearest sibling of item before it that has some (marked so), else of the
  // nearest after it.
  void neighbour(NodeIndex item, Labels& labels, std::size_t& budget) {
    NodeIndex before = kNoNode;
    NodeIndex after = kNoNode;
    for (NodeIndex c = nodes_[nodes_[item].parent].first_child;
         c != kNoNode && after == kNoNode && budget > 0; c = nodes_[c].next_sibling) {
      --budget;
      if (c == item || !nodes_[c].visible || !labelled_[c]) continue;
      (c < item ? before : after) = c;
    }
    const NodeIndex next = before != kNoNode ? before : after;
    if (next == kNoNode) return;
    // Its labels tell the row apart, but are not the row's own: they stay out of RefInfo::row.
    labels.keep_text(false);
    labels.mark(before != kNoNode ? '<' : '>');
    labels.add_subtree(nodes_, next, kNoNode, kNoNode, budget);
  }

  // Outside lists, for an element with no label of its own (an icon without a description):
  // the labels of its nearest ancestor that has some (the card or bar it sits in).
  void around(NodeIndex e, Labels& labels, std::size_t& budget) {
    const std::size_t before = labels.count();
    for (NodeIndex from = e, a = nodes_[e].parent; a != kNoNode && budget > 0;
         from = a, a = nodes_[a].parent) {
      labels.add_node(nodes_[a]);
      for (NodeIndex c = nodes_[a].first_child; c != kNoNode && budget > 0;
           c = nodes_[c].next_sibling) {
        if (c != from) labels.add_subtree(nodes_, c, kNoNode, kNoNode, budget);
      }
      if (labels.count() > before) return;
      labels.separate();
    }
  }

  const detail::SnapshotState& impl_;
  const std::vector<Node>& nodes_;
  const std::vector<RefInfo>& refs_;
  std::vector<std::uint32_t> shown_kids_;
  std::vector<std::uint8_t> labelled_;  // a visible node with a text or desc in its subtree
  std::vector<NodeIndex> path_;         // in_list's, kept to reuse its memory
  std::size_t left_ = kMaxVisitedInAll;
};

}  // namespace

std::vector<RowContext> row_contexts(const detail::SnapshotState& impl) {
  RowReader reader(impl);
  std::vector<RowContext> contexts;
  contexts.reserve(impl.refs.size());
  for (std::size_t r = 0; r < impl.refs.size(); ++r) contexts.push_back(reader.read(r));
  return contexts;
}

}  // namespace adbwire::ui
