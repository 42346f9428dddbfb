// Temporary files that must not outlive a process ended by a signal. A pull writes each file into
// a hidden temporary file and renames it once complete; a failure removes it, but SIGINT (Ctrl-C),
// SIGTERM or SIGHUP would end the process with it left behind. A file being written registers
// here; a program that writes such files calls remove_on_signals() once, and a handler then
// removes the registered files and ends the process by the same signal, as it would have ended.
// The registry is process-wide because signals are. Internal.
#pragma once

#include <string_view>

namespace adbwire::detail {

// A registration; removes nothing itself. Move-only; releasing it forgets the file.
class SignalCleanup {
 public:
  SignalCleanup() = default;
  // Registers name in the folder open as folder_fd. With every slot taken (kSlots files written
  // at once) the file is not registered: it is then only removed on ordinary failures.
  SignalCleanup(int folder_fd, std::string_view name) noexcept;
  SignalCleanup(SignalCleanup&& other) noexcept;
  SignalCleanup& operator=(SignalCleanup&& other) noexcept;
  SignalCleanup(const SignalCleanup&) = delete;
  SignalCleanup& operator=(const SignalCleanup&) = delete;
  ~SignalCleanup() { release(); }

  // Forgets the file (it was renamed into place or removed). Idempotent.
  void release() noexcept;

  static constexpr int kSlots = 64;

 private:
  int slot_ = -1;
};

// Installs handlers for SIGINT, SIGTERM and SIGHUP (once; later calls do nothing) that remove the
// registered files, then restore the default action and raise the signal again. A signal the
// process ignores stays ignored.
void remove_on_signals() noexcept;

// Removes the registered files now. Async-signal-safe (unlinkat only).
void remove_registered_files() noexcept;

}  // namespace adbwire::detail
