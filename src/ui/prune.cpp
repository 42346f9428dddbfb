// The prune rules of docs/design.md (Snapshot format), applied bottom-up in one reverse pass over
// the pre-order node array (children always follow their parent), then emitted window by window in
// display order with an explicit stack.
#include <algorithm>
#include <functional>
#include <unordered_set>
#include <utility>

#include "ui/snapshot_impl.hpp"

namespace adbwire::ui {
namespace {

enum class Kind : std::uint8_t {
  dropped,    // nothing left to show
  collapsed,  // an unlabeled wrapper: its one kept child stands in its place
  printed,
  hoisted,  // compact mode: an unlabeled group whose children move up to its depth
};

std::uint64_t mix(std::uint64_t h, std::uint64_t v) noexcept {
  // splitmix64 finaliser over the running hash and the next value.
  std::uint64_t z = h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t hash_text(std::string_view s) noexcept { return std::hash<std::string_view>{}(s); }

// Signatures of the kept siblings seen so far: a linear scan for the usual handful, a hash
// set once a list grows long (clearing a big set per node would cost its bucket count).
class SeenSignatures {
 public:
  void clear() {
    few_.clear();
    if (!many_.empty()) many_.clear();
  }
  // True when signature was not seen before.
  bool insert(std::uint64_t signature) {
    if (!many_.empty()) return many_.insert(signature).second;
    if (std::find(few_.begin(), few_.end(), signature) != few_.end()) return false;
    few_.push_back(signature);
    if (few_.size() == kLinearLimit) many_.insert(few_.begin(), few_.end());
    return true;
  }

 private:
  static constexpr std::size_t kLinearLimit = 32;
  std::vector<std::uint64_t> few_;
  std::unordered_set<std::uint64_t> many_;
};

class Pruner {
 public:
  explicit Pruner(detail::SnapshotState& impl)
      : impl_(impl),
        nodes_(impl.nodes),
        kind_(nodes_.size(), Kind::dropped),
        stand_in_(nodes_.size(), kNoNode),
        bare_(nodes_.size(), 0),
        ref_below_(nodes_.size(), 0),
        signature_(nodes_.size(), 0),
        kids_(nodes_.size()) {}

  void run() {
    mark_bare();
    for (NodeIndex i = static_cast<NodeIndex>(nodes_.size()); i-- > 0;) decide(i);
    emit();
  }

 private:
  // interactive_only hides the labels of nodes outside every ref'd element.
  void mark_bare() {
    if (!impl_.options.interactive_only) return;
    std::vector<std::uint8_t> inside_ref(nodes_.size(), 0);
    for (NodeIndex i = 0; i < nodes_.size(); ++i) {
      const NodeIndex p = nodes_[i].parent;
      inside_ref[i] = p != kNoNode && (inside_ref[p] || nodes_[p].ref != 0);
      bare_[i] = nodes_[i].ref == 0 && !inside_ref[i];
    }
  }

  // Kept children of the sibling chain starting at first, with repeats dropped.
  std::pair<std::uint32_t, std::uint32_t> collect(NodeIndex first) {
    const auto begin = static_cast<std::uint32_t>(arena_.size());
    seen_.clear();
    for (NodeIndex c = first; c != kNoNode; c = nodes_[c].next_sibling) {
      const NodeIndex kept = stand_in_[c];
      if (kept == kNoNode) continue;
      if (!ref_below_[kept] && !seen_.insert(signature_[kept])) continue;
      arena_.push_back(kept);
    }
    return {begin, static_cast<std::uint32_t>(arena_.size())};
  }

  void decide(NodeIndex i) {
    const Node& node = nodes_[i];
    const auto [begin, end] = collect(node.first_child);
    kids_[i] = {begin, end};
    bool ref_below = node.ref != 0;
    for (auto k = begin; k < end; ++k) ref_below = ref_below || ref_below_[arena_[k]];
    ref_below_[i] = ref_below;

    const NodeLabel label = label_of(impl_, i);
    const bool labeled = node.ref != 0 || (!bare_[i] && (label.show_text || !label.hint.empty() ||
                                                         !label.desc.empty() || label.states != 0));
    const std::uint32_t kept = end - begin;
    if (labeled) {
      kind_[i] = Kind::printed;
    } else if (kept == 0) {
      kind_[i] = Kind::dropped;
    } else if (kept == 1) {
      kind_[i] = Kind::collapsed;
      stand_in_[i] = arena_[begin];
      return;
    } else {
      kind_[i] = impl_.options.compact ? Kind::hoisted : Kind::printed;
    }
    if (kind_[i] == Kind::dropped) return;
    stand_in_[i] = i;
    std::uint64_t h = mix(hash_text(node.class_name), static_cast<std::uint64_t>(kind_[i]));
    h = mix(h, hash_text(node.role));
    h = mix(h, node.ref != 0);
    if (!bare_[i]) {
      h = mix(h, label.show_text);
      h = mix(h, hash_text(label.text));
      h = mix(h, hash_text(label.hint));
      h = mix(h, hash_text(label.desc));
      h = mix(h, label.states);
    }
    if (impl_.options.show_ids) h = mix(h, hash_text(node.resource_id));
    for (auto k = begin; k < end; ++k) h = mix(h, signature_[arena_[k]]);
    signature_[i] = h;
  }

  // The refs of a cut subtree are consecutive: a window's refs are numbered in document order.
  void cut(NodeIndex parent, std::uint32_t depth) {
    OutputLine line;
    line.kind = LineKind::cut;
    line.depth = depth;
    for (NodeIndex i = parent + 1; i < nodes_[parent].subtree_end; ++i) {
      const std::uint32_t ref = nodes_[i].ref;
      if (ref == 0) continue;
      if (line.hidden_refs == 0 || ref < line.first_hidden_ref) line.first_hidden_ref = ref;
      ++line.hidden_refs;
    }
    impl_.lines.push_back(line);
  }

  // Windows in display order; a run of windows of one kind and package that is not the app's
  // is opened by a window line when it prints anything.
  void emit() {
    const std::uint32_t max_depth = impl_.options.max_depth;
    std::vector<std::pair<NodeIndex, std::uint32_t>> stack;
    const auto push_kids = [&](std::pair<std::uint32_t, std::uint32_t> kids, std::uint32_t depth) {
      for (auto k = kids.second; k-- > kids.first;) stack.emplace_back(arena_[k], depth);
    };
    const Window* opened = nullptr;
    for (std::uint32_t w = 0; w < impl_.windows.size(); ++w) {
      const Window& window = impl_.windows[w];
      const NodeIndex root = stand_in_[window.root];
      if (root == kNoNode) continue;
      if (window.kind != WindowKind::app &&
          (opened == nullptr || opened->kind != window.kind || opened->package != window.package)) {
        OutputLine line;
        line.kind = LineKind::window;
        line.window = w;
        impl_.lines.push_back(line);
        opened = &window;
      }
      stack.emplace_back(root, 0);
      while (!stack.empty()) {
        const auto [i, depth] = stack.back();
        stack.pop_back();
        if (kind_[i] == Kind::hoisted) {
          push_kids(kids_[i], depth);
          continue;
        }
        OutputLine line;
        line.node = i;
        line.depth = depth;
        line.bare = bare_[i] != 0;
        impl_.lines.push_back(line);
        if (kids_[i].first == kids_[i].second) continue;
        if (max_depth != 0 && depth + 1 >= max_depth) {
          cut(i, depth + 1);
        } else {
          push_kids(kids_[i], depth + 1);
        }
      }
    }
  }

  detail::SnapshotState& impl_;
  const std::vector<Node>& nodes_;
  std::vector<Kind> kind_;
  std::vector<NodeIndex> stand_in_;  // the node printed in place of each node, or kNoNode
  std::vector<std::uint8_t> bare_;
  std::vector<std::uint8_t> ref_below_;
  std::vector<std::uint64_t> signature_;                       // of the subtree as it renders
  std::vector<std::pair<std::uint32_t, std::uint32_t>> kids_;  // ranges of arena_
  std::vector<NodeIndex> arena_;
  SeenSignatures seen_;
};

}  // namespace

void prune(detail::SnapshotState& impl) {
  impl.lines.clear();
  Pruner(impl).run();
}

}  // namespace adbwire::ui
