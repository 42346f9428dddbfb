// A reading of a settled screen: the failures uiautomator reports as text turned into typed
// failures, the passing ones (a busy screen, a null root node) retried. Internal.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "agent/screen_reader.hpp"

namespace adbwire::agent {

// Not thread safe: one per Page.
class SettledReader final : public ScreenReader {
 public:
  // inner must outlive the reader. Up to `attempts` readings (at least one), `pause` apart.
  SettledReader(ScreenReader& inner, std::uint32_t attempts, std::chrono::milliseconds pause);

  // inner's output when it holds a hierarchy. A busy screen ("could not get idle state") and a
  // null root node are read again while attempts remain and the pause fits before deadline;
  // the last such failure, and any other (Killed, busy UiAutomation, no XML), becomes
  // dump_error's failure (timeout, command_failed, busy).
  std::string read(Deadline deadline, detail::Failure& failure) override;

 private:
  ScreenReader& inner_;
  std::uint32_t attempts_;
  std::chrono::milliseconds pause_;
};

}  // namespace adbwire::agent
