#include "adbwire/output_limits.hpp"

#include "base/advice.hpp"
#include "connection/bounded_output.hpp"

namespace adbwire {
namespace {

struct Kind {
  detail::OutputBound field;
  std::string_view name;
};
constexpr Kind kKinds[] = {
    {&OutputLimits::command, "command"},       {&OutputLimits::ui_dump, "ui_dump"},
    {&OutputLimits::properties, "properties"}, {&OutputLimits::packages, "packages"},
    {&OutputLimits::dumpsys, "dumpsys"},       {&OutputLimits::logcat, "logcat"},
    {&OutputLimits::screenshot, "screenshot"},
};

std::string_view name_of(detail::OutputBound field) {
  for (const Kind& kind : kKinds) {
    if (kind.field == field) return kind.name;
  }
  return "command";
}

// "4 MiB", "3 KiB", "300 bytes".
std::string size_text(std::size_t bytes) {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) == 0)
    return std::to_string(bytes / (1024 * 1024)) + " MiB";
  if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes / 1024) + " KiB";
  return std::to_string(bytes) + " bytes";
}

}  // namespace

std::size_t* output_limit(OutputLimits& limits, std::string_view name) noexcept {
  for (const Kind& kind : kKinds) {
    if (kind.name == name) return &(limits.*kind.field);
  }
  return nullptr;
}

std::string_view output_limit_names() noexcept {
  return "command, ui_dump, properties, packages, dumpsys, logcat, screenshot";
}

namespace detail {

std::string over_limit_detail(std::string_view what, const OutputLimits& limits,
                              OutputBound bound) {
  const std::string name(name_of(bound));
  const bool python = detail::audience() == detail::Audience::python;
  return std::string(what) + " sent more than " + size_text(limits.*bound) + " (" +
         (python ? "max_output[\"" + name + "\"]" : "OutputLimits::" + name) +
         "), so adbwire stopped reading and closed the stream; a phone sends far less, so the "
         "device is broken or hostile. If it is not, raise the bound (" +
         (python ? "ConnectOptions(max_output={\"" + name + "\": BYTES})"
                 : "ConnectOptions::limits." + name + ", or --max-output " + name + "=BYTES") +
         ")";
}

}  // namespace detail
}  // namespace adbwire
