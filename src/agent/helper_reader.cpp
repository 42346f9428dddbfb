#include "agent/helper_reader.hpp"

#include <cstdio>
#include <utility>

#include "adbwire/error.hpp"
#include "adbwire/protocol/printable.hpp"
#include "agent/dump.hpp"
#include "base/advice.hpp"

namespace adbwire::agent {

HelperReader::HelperReader(Device& device, const PageOptions& options, ScreenReader& fallback)
    : device_(device), options_(options), fallback_(fallback) {}

bool HelperReader::usable() const noexcept {
  return options_.helper != PageOptions::Helper::off && !status_.fell_back;
}

HelperBudget HelperReader::budget() const {
  return {options_.helper_idle_quiet, options_.helper_idle_max, options_.helper_timeout};
}

std::string HelperReader::read(Deadline deadline, detail::Failure& failure) {
  if (!usable()) return fallback_.read(deadline, failure);
  detail::Failure helper_failure;
  std::string output = client_.dump(device_, budget(), deadline, helper_failure);
  if (!helper_failure && classify_dump_output(output) == DumpFailure::no_xml) {
    helper_failure.set(
        errc::command_failed,
        "the on-device dumper answered without a UI hierarchy: \"" + output.substr(0, 200) + "\"");
  }
  if (!helper_failure) {
    status_.in_use = true;
    return output;
  }
  status_.in_use = false;
  status_.last_error = Error(helper_failure.code, helper_failure.detail).what();
  // busy: uiautomator would meet the same holder; a lost connection loses both paths.
  if (options_.helper == PageOptions::Helper::on || helper_failure.code == errc::busy ||
      helper_failure.code == errc::device_offline || helper_failure.code == errc::closed) {
    failure = std::move(helper_failure);
    return {};
  }
  fall_back();
  return fallback_.read(deadline, failure);
}

void HelperReader::fall_back() {
  status_.fell_back = true;
  client_.stop();
  if (options_.on_warning) {
    options_.on_warning(
        "the on-device dumper (experimental) failed: " + status_.last_error +
        "; snapshots use `uiautomator dump` from now on. Turn the helper off with " +
        std::string(detail::advice("--helper off (PageOptions::helper = off)",
                                   "PageOptions(helper=\"off\")")) +
        " and please report this with the output of `adbwire doctor --helper`");
  }
}

void HelperReader::set_clipboard(std::string_view text, Deadline deadline,
                                 detail::Failure& failure) {
  client_.set_clipboard(device_, text, budget(), deadline, failure);
}

std::string HelperReader::get_clipboard(Deadline deadline, detail::Failure& failure) {
  return client_.get_clipboard(device_, budget(), deadline, failure);
}

bool HelperReader::inject(const Gesture& gesture, Deadline deadline, detail::Failure& failure) {
  bool refused = false;
  detail::Failure helper_failure;
  const bool was_running = client_.running();
  const std::string why =
      client_.inject(device_, gesture, budget(), deadline, refused, helper_failure);
  if (helper_failure) {
    status_.last_error = Error(helper_failure.code, helper_failure.detail).what();
    const bool helper_broke =
        options_.helper == PageOptions::Helper::automatic && helper_failure.code != errc::busy &&
        helper_failure.code != errc::device_offline && helper_failure.code != errc::closed;
    if (helper_broke) fall_back();
    // A helper that failed to start injected nothing: `input` can do the gesture instead.
    if (helper_broke && !was_running) return false;
    failure = std::move(helper_failure);
    return true;
  }
  if (!refused) return true;
  // "at event N: why": events before N reached the screen.
  std::uint32_t event = 0;
  if (std::sscanf(why.c_str(), "at event %u:", &event) != 1) event = 0;
  const std::string quoted = protocol::printable(why, 300);
  if (event > 0) {
    failure.set(errc::command_failed,
                "the gesture stopped after " + std::to_string(event) + " of " +
                    std::to_string(gesture.size()) +
                    " touch events (the screen saw part of it; it was not sent again): " + quoted);
    return true;
  }
  status_.input_error = "the on-device dumper could not inject touch events: " + quoted;
  if (options_.on_warning) {
    options_.on_warning(status_.input_error +
                        "; taps and swipes go through `input` from now on, and multi-touch "
                        "gestures are not available on this Page");
  }
  return false;
}

void HelperReader::check_input(Deadline deadline) {
  if (input_checked_ || !gestures_usable()) return;
  input_checked_ = true;
  detail::Failure ignored;
  inject({}, deadline, ignored);
}

std::string HelperReader::labels(Deadline deadline, detail::Failure& failure) {
  return client_.labels(device_, budget(), deadline, failure);
}

}  // namespace adbwire::agent
