// The screen through adbwire's on-device dumper (PageOptions::helper), with the fallback to
// `uiautomator dump` that automatic mode makes once the helper fails; and the clipboard, which
// only the dumper reaches. Internal.
#pragma once

#include <string>
#include <string_view>

#include "adbwire/device.hpp"
#include "adbwire/page.hpp"
#include "agent/helper_client.hpp"
#include "agent/screen_reader.hpp"

namespace adbwire::agent {

// Not thread safe: one per Page.
class HelperReader final : public ScreenReader {
 public:
  // device, options and fallback must outlive the reader.
  HelperReader(Device& device, const PageOptions& options, ScreenReader& fallback);

  // The helper's dump while it is on and has not been given up on, else fallback's. A helper
  // failure is the reading's failure with Helper::on, and also in automatic mode when it is
  // busy (uiautomator would meet the same holder of UiAutomation) or the connection is lost
  // (which loses both paths); any other failure in automatic mode stops the helper, records
  // why in status(), calls PageOptions::on_warning once, and reads through fallback from then
  // on. An answer without a hierarchy counts as a helper failure (command_failed).
  std::string read(Deadline deadline, detail::Failure& failure) override;

  // The helper is on for this Page and has not been given up on.
  bool usable() const noexcept;
  const HelperStatus& status() const noexcept { return status_; }

  // Gestures go through the helper while it is usable and has not refused one.
  bool gestures_usable() const noexcept { return usable() && status_.input_error.empty(); }
  // Injects gesture through the helper. False, with failure unset, when it must go through
  // `input` instead: the dumper refused it before its first event reached the screen (gestures
  // stay off for this Page from then on, status().input_error says why, on_warning is called
  // once). failure: refused after some events reached the screen (command_failed, never sent
  // again), or the helper's own failures (automatic mode then gives the helper up, as for a
  // dump).
  bool inject(const Gesture& gesture, Deadline deadline, detail::Failure& failure);
  // Whether the dumper can inject at all, asked once without touching the screen: an empty
  // gesture loads its Gesture class (a phone whose verifier rejected it answers failed, and
  // gestures go to `input` from then on, as after a refusal). Failures leave gestures as they
  // were (the next action meets them); nothing is thrown.
  void check_input(Deadline deadline);
  // HelperClient's app labels with this Page's budget.
  std::string labels(Deadline deadline, detail::Failure& failure);

  // HelperClient's clipboard calls with this Page's budget.
  void set_clipboard(std::string_view text, Deadline deadline, detail::Failure& failure);
  std::string get_clipboard(Deadline deadline, detail::Failure& failure);

 private:
  HelperBudget budget() const;
  // Gives the helper up for this Page (status_.last_error says why).
  void fall_back();

  Device& device_;
  const PageOptions& options_;
  ScreenReader& fallback_;
  HelperClient client_;
  HelperStatus status_;
  bool input_checked_ = false;
};

}  // namespace adbwire::agent
