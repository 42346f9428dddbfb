// Page's side of the on-device dumper: installs the embedded dex (by hash), starts it in one
// long-lived exec stream, pings it, then sends dump requests; restarts it once when it died.
#pragma once

#include <chrono>
#include <span>
#include <string>
#include <string_view>

#include "adbwire/deadline.hpp"
#include "adbwire/device.hpp"
#include "adbwire/stream.hpp"
#include "agent/gesture.hpp"
#include "base/failure.hpp"

namespace adbwire::agent {

struct HelperBudget {
  std::chrono::milliseconds idle_quiet{500};  // UiAutomation.waitForIdle's quiet window
  std::chrono::milliseconds idle_max{5000};   // and the most it waits
  // Most a start (ping) may take, and a dump beyond idle_max, before the helper counts as hung.
  std::chrono::milliseconds reply_timeout{5000};
};

// Not thread safe: one per Page. The Device passed to each call must be the same one.
class HelperClient {
 public:
  // Picks this helper's process name ("adbwire-dumper-" and 8 random hex digits).
  HelperClient();

  // One dump: the XML, or the failure text the dumper reported (uiautomator's wording, for
  // classify_dump_output). failure is set when the helper itself failed: busy (another tool
  // holds UiAutomation), timeout (no reply within the budget), protocol_error (a reply that is
  // no frame), command_failed (it could not start, or died again after a restart), and the
  // Device/SyncClient errors of installing it. Every read ends by the budget or deadline,
  // whichever comes first.
  std::string dump(Device& device, const HelperBudget& budget, Deadline deadline,
                   detail::Failure& failure);

  // The device's clipboard through the dumper (IClipboard, as a shell-uid tool calls it).
  // Errors: command_failed (the clipboard service refused: the message has its exception),
  // invalid_argument (text over helper::kMaxClip bytes), and dump()'s helper errors.
  void set_clipboard(Device& device, std::string_view text, const HelperBudget& budget,
                     Deadline deadline, detail::Failure& failure);
  std::string get_clipboard(Device& device, const HelperBudget& budget, Deadline deadline,
                            detail::Failure& failure);

  // One gesture through UiAutomation.injectInputEvent (agent/gesture.hpp), answered once its
  // last event was injected; the reply may take the gesture's length plus the reply budget.
  // Returns "" when it ran, else the dumper's refusal ("at event N: why", N counted from 0:
  // events before N reached the screen) with `refused` set. failure: dump()'s helper errors.
  std::string inject(Device& device, const Gesture& gesture, const HelperBudget& budget,
                     Deadline deadline, bool& refused, detail::Failure& failure);
  // The installed apps' labels from PackageManager: UTF-8 lines "package<TAB>label". Errors:
  // command_failed (PackageManager could not be reached: the message has the exception) and
  // dump()'s helper errors. Loading every label takes a phone a second or two.
  std::string labels(Device& device, const HelperBudget& budget, Deadline deadline,
                     detail::Failure& failure);

  // True while a started helper's stream is open.
  bool running() const noexcept { return stream_.is_open(); }
  // Closes the stream; a working dumper exits when its stdin ends. Never blocks.
  void stop() noexcept { stream_.close(); }
  // The process name it runs under on the device (what `ps -A` shows).
  const std::string& process_name() const noexcept { return name_; }

 private:
  void install(Device& device, Deadline deadline, detail::Failure& failure);
  void start(Device& device, const HelperBudget& budget, Deadline deadline,
             detail::Failure& failure);
  // One request and its reply. False when the helper died (the stream ended) before replying,
  // or failure is set.
  bool exchange(std::span<const std::uint8_t> request, Deadline reply_deadline,
                std::string& payload, bool& failed, detail::Failure& failure);
  // One request on a running helper, starting it when needed and restarting it once when it
  // died (unless !repeatable: a request that acts on the screen is never sent twice); a reply
  // must come within `reply_budget`. On any failure the helper is stopped and killed, and
  // failure set. `what` names the request for messages ("a dump").
  std::string request(Device& device, std::string_view what, std::span<const std::uint8_t> request,
                      std::chrono::milliseconds reply_budget, const HelperBudget& budget,
                      Deadline deadline, bool& failed, detail::Failure& failure,
                      bool repeatable = true);

  // Ends the process on the device, however stuck (best effort, a short deadline of its own):
  // a hung dumper keeps the device's only UiAutomation connection, and the fallback to
  // `uiautomator dump` would fail "already registered" while it lives.
  void kill(Device& device) noexcept;
  // The start of the dumper's stderr log, escaped, for an error message ("" when empty).
  std::string read_log(Device& device, Deadline deadline) noexcept;

  std::string name_;
  Stream stream_;
  bool installed_ = false;
  OutputLimits limits_;  // the Device's, from start(): a reply is held to limits_.ui_dump
};

}  // namespace adbwire::agent
