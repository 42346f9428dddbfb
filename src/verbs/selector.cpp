#include "verbs/selector.hpp"

#include <algorithm>
#include <vector>

#include "adbwire/error.hpp"
#include "verbs/reply_text.hpp"

namespace adbwire::verbs {
namespace {

constexpr std::size_t kListedCandidates = 10;

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

std::uint32_t ref_by_selector(Call& call, bool with_text) {
  Page& page = call.page();
  const ui::Snapshot& snapshot = page.snapshot();
  std::vector<std::uint32_t> refs;
  std::vector<ui::NodeIndex> shown;
  for (const ui::NodeIndex n : matches(call, snapshot, with_text)) {
    for (ui::NodeIndex at = n; at != ui::kNoNode; at = snapshot.node(at).parent) {
      const std::uint32_t ref = snapshot.node(at).ref;
      if (ref == 0) continue;
      if (std::find(refs.begin(), refs.end(), ref) == refs.end()) {
        refs.push_back(ref);
        shown.push_back(at);
      }
      break;
    }
  }
  if (refs.size() == 1) return refs[0];
  if (refs.empty()) {
    throw Error(errc::not_found, "nothing on the screen matches " +
                                     selector_label(call, with_text) + " (" +
                                     std::to_string(snapshot.nodes().size()) +
                                     " elements searched); take a snapshot to read the screen, "
                                     "or try another field or a shorter text");
  }
  std::string list;
  for (std::size_t i = 0; i < std::min(shown.size(), kListedCandidates); ++i)
    list += "\n" + describe(snapshot, shown[i]);
  if (shown.size() > kListedCandidates)
    list += "\n… " + std::to_string(shown.size() - kListedCandidates) + " more";
  throw Error(errc::invalid_argument,
              std::to_string(refs.size()) + " elements match " + selector_label(call, with_text) +
                  "; nothing was done. Pass the ref of the one you mean (refs from the snapshot "
                  "just taken):" +
                  list);
}

}  // namespace adbwire::verbs
