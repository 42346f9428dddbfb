#include "services/foreground_parser.hpp"

#include <array>
#include <string>

namespace adbwire::detail {
namespace {

// The fields naming the foreground, most trusted first.
enum class Field { resumed, focused_app, current_focus };

std::optional<Field> field_of(std::string_view line) {
  const std::size_t start = line.find_first_not_of(' ');
  if (start == std::string_view::npos) return std::nullopt;
  line.remove_prefix(start);
  for (const std::string_view name : {"mResumedActivity", "topResumedActivity", "ResumedActivity"})
    if (line.starts_with(name)) return Field::resumed;
  if (line.starts_with("mFocusedApp")) return Field::focused_app;
  if (line.starts_with("mCurrentFocus")) return Field::current_focus;
  return std::nullopt;
}

}  // namespace

std::optional<ForegroundActivity> parse_component_record(std::string_view text) {
  std::size_t record = text.find("ActivityRecord{");
  if (record == std::string_view::npos) record = text.find("Window{");
  if (record == std::string_view::npos) return std::nullopt;
  const std::string_view rest = text.substr(record);
  const std::size_t close = rest.find('}');
  const std::size_t slash = rest.find('/');
  // The component is one word of the record: "{HASH uN PACKAGE/ACTIVITY …}".
  if (slash == std::string_view::npos || (close != std::string_view::npos && close < slash))
    return std::nullopt;
  const std::size_t space = rest.rfind(' ', slash);
  if (space == std::string_view::npos) return std::nullopt;
  std::size_t end = rest.find_first_of(" }", slash);
  if (end == std::string_view::npos) end = rest.size();
  ForegroundActivity result{std::string(rest.substr(space + 1, slash - space - 1)),
                            std::string(rest.substr(slash + 1, end - slash - 1))};
  if (result.package.empty() || result.activity.empty()) return std::nullopt;
  if (result.activity.starts_with(result.package + "."))
    result.activity.erase(0, result.package.size());
  return result;
}

std::optional<ForegroundActivity> parse_foreground_activity(std::string_view dumpsys_output) {
  std::array<std::optional<ForegroundActivity>, 3> found;
  std::string_view text = dumpsys_output;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    const std::optional<Field> field = field_of(line);
    if (!field) continue;
    std::optional<ForegroundActivity>& slot = found[static_cast<std::size_t>(*field)];
    if (slot) continue;
    // A resumed activity is an ActivityRecord; "null" or a bare Window is not one.
    if (*field != Field::current_focus && line.find("ActivityRecord{") == std::string_view::npos)
      continue;
    slot = parse_component_record(line);
    if (*field == Field::resumed && slot) return slot;
  }
  return found[1] ? found[1] : found[2];
}

}  // namespace adbwire::detail
