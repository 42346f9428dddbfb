#include "agent/dump.hpp"

#include "services/device_command.hpp"

namespace adbwire {

DumpFailure classify_dump_output(std::string_view output) noexcept {
  if (output.find("<hierarchy") != std::string_view::npos) return DumpFailure::none;
  if (output.find("could not get idle state") != std::string_view::npos)
    return DumpFailure::idle_timeout;
  if (output.find("null root node returned by UiTestAutomationBridge") != std::string_view::npos) {
    return DumpFailure::null_root;
  }
  if (output.find("UiAutomationService") != std::string_view::npos &&
      output.find("already registered") != std::string_view::npos) {
    return DumpFailure::automation_busy;
  }
  if (output.find("Killed") != std::string_view::npos) return DumpFailure::killed;
  return DumpFailure::no_xml;
}

namespace agent {

std::string dump_command(PageOptions::DumpMethod method, std::string_view path) {
  if (method == PageOptions::DumpMethod::tty) return "uiautomator dump /dev/tty 2>&1";
  const std::string p = detail::shell_quote(path);
  return "rm -f " + p + "; uiautomator dump " + p + " 2>&1 && cat " + p + " 2>&1; rm -f " + p;
}

bool retryable(DumpFailure failure) noexcept {
  return failure == DumpFailure::idle_timeout || failure == DumpFailure::null_root;
}

detail::Failure dump_error(DumpFailure failure, std::string_view output, std::uint32_t attempts) {
  detail::Failure result;
  const std::string times = std::to_string(attempts) + (attempts == 1 ? " time" : " times");
  switch (failure) {
    case DumpFailure::idle_timeout:
      result.set(errc::timeout,
                 "the screen never settled: uiautomator reported \"could not get idle state\" " +
                     times +
                     " (an animation, video or progress indicator keeps redrawing it); wait for "
                     "it to stop, "
                     "or turn animations off in developer options, then take the snapshot again");
      return result;
    case DumpFailure::null_root:
      result.set(errc::command_failed,
                 "uiautomator returned a null root node " + times +
                     " (the window was changing or not drawn yet); take the snapshot again");
      return result;
    case DumpFailure::automation_busy:
      result.set(
          errc::busy,
          "another tool holds Android's single UiAutomation connection (uiautomator2, Appium, "
          "Maestro or an instrumentation left running); stop it, then take the snapshot again");
      return result;
    case DumpFailure::killed:
      result.set(errc::command_failed,
                 "the uiautomator process was killed on the device (low memory or a watchdog); "
                 "take the snapshot again");
      return result;
    case DumpFailure::none:
    case DumpFailure::no_xml:
      break;
  }
  // What uiautomator said besides its success line ("UI hierchary dumped to: …").
  std::string said(output.substr(0, 300));
  if (const std::size_t line = said.find("UI hierchary dumped to:"); line != std::string::npos) {
    const std::size_t end = said.find('\n', line);
    said.erase(line, end == std::string::npos ? std::string::npos : end - line + 1);
  }
  while (!said.empty() && (said.back() == '\n' || said.back() == '\r' || said.back() == ' '))
    said.pop_back();
  if (said.empty()) {
    result.set(
        errc::command_failed,
        "uiautomator reported no error but the dump was empty or missing (is the screen on and "
        "unlocked?); take the snapshot again");
    return result;
  }
  result.set(errc::command_failed,
             "uiautomator produced no UI hierarchy; it printed: \"" + said + "\"");
  return result;
}

}  // namespace agent
}  // namespace adbwire
