#include "verbs/screen_fingerprint.hpp"

#include <openssl/evp.h>

#include <map>
#include <set>
#include <variant>
#include <vector>

namespace adbwire::verbs {
namespace {

// Windows that change without the screen changing: the clock and icons, the keys, a keyboard.
bool skipped(ui::WindowKind kind) {
  return kind == ui::WindowKind::status_bar || kind == ui::WindowKind::navigation_bar ||
         kind == ui::WindowKind::keyboard;
}

std::string element_token(const ui::Node& node) {
  std::string token;
  token.append(node.role).append("|").append(node.class_name).append("|");
  token.append(node.resource_id).append("|");
  token += node.clickable ? 'c' : '-';
  token += node.long_clickable ? 'l' : '-';
  token += node.editable ? 'e' : '-';
  token += node.scrollable ? 's' : '-';
  token += node.checkable ? 'k' : '-';
  return token;
}

// The nearest scrollable above index, below root; kNoNode when none.
ui::NodeIndex scroller_of(std::span<const ui::Node> nodes, ui::NodeIndex index,
                          ui::NodeIndex root) {
  for (ui::NodeIndex at = nodes[index].parent; at != ui::kNoNode && at >= root;
       at = nodes[at].parent) {
    if (nodes[at].scrollable) return at;
  }
  return ui::kNoNode;
}

// Appends a length-prefixed field, so no two skeletons join into the same bytes.
void field(std::string& out, std::string_view text) {
  out += std::to_string(text.size());
  out += ':';
  out += text;
}

}  // namespace

std::string screen_fingerprint(const ui::Snapshot& snapshot) {
  const std::span<const ui::Node> nodes = snapshot.nodes();
  if (nodes.empty()) return {};
  std::string skeleton;
  field(skeleton, snapshot.app().package);
  field(skeleton, snapshot.app().activity);
  for (const ui::Window& window : snapshot.windows()) {
    if (skipped(window.kind) || window.root == ui::kNoNode) continue;
    field(skeleton, ui::to_string(window.kind));
    field(skeleton, window.package);
    // In order: an element's token, or the set of a scrollable's (its index).
    std::vector<std::variant<std::string, ui::NodeIndex>> entries;
    std::map<ui::NodeIndex, std::set<std::string>> lists;
    const ui::NodeIndex end = nodes[window.root].subtree_end;
    for (ui::NodeIndex i = window.root; i < end && i < nodes.size(); ++i) {
      const ui::Node& node = nodes[i];
      if (node.ref == 0 || !node.visible) continue;
      std::string token = element_token(node);
      const ui::NodeIndex list = scroller_of(nodes, i, window.root);
      if (list != ui::kNoNode) {
        if (!lists.contains(list)) entries.emplace_back(list);
        lists[list].insert(std::move(token));
      } else if (entries.empty() || !std::holds_alternative<std::string>(entries.back()) ||
                 std::get<std::string>(entries.back()) != token) {
        entries.emplace_back(std::move(token));
      }
    }
    for (const auto& entry : entries) {
      if (const auto* token = std::get_if<std::string>(&entry)) {
        field(skeleton, *token);
        continue;
      }
      skeleton += '{';
      for (const std::string& token : lists[std::get<ui::NodeIndex>(entry)]) field(skeleton, token);
      skeleton += '}';
    }
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(skeleton.data(), skeleton.size(), digest, &size, EVP_sha256(), nullptr) != 1)
    return {};
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < 8 && i < size; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 0xF];
  }
  return out;
}

std::string screen_summary(const ui::Snapshot& snapshot, std::size_t max) {
  std::string out = snapshot.app().package;
  if (!snapshot.app().activity.empty()) out += "/" + snapshot.app().activity;
  out += ":";
  constexpr std::string_view kMore = ", …";
  bool first = true;
  for (const ui::RefInfo& ref : snapshot.refs()) {
    const std::string piece = (first ? " " : ", ") + ref.label;
    if (out.size() + piece.size() > max) {
      if (out.size() + kMore.size() <= max) out += kMore;
      break;
    }
    out += piece;
    first = false;
  }
  return out;
}

}  // namespace adbwire::verbs
