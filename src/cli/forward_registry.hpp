// adbwire has no server to hold forward rules: each `adbwire forward` process holds its own.
// So that `forward --list` and `--remove` work as with adb, each such process registers its
// rule as a file in the private runtime folder (runtime_folder.hpp) for as long as it runs;
// removing a rule asks its process to end (SIGTERM), which closes the listener.
//
// A file outlives a process killed with SIGKILL. Each file names its process by PID and
// start time, so a stale file (and a PID the system has given to another process since) is
// recognised, skipped and deleted, and never signalled.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace adbwire::cli {

// A rule held by a running `adbwire forward` process.
struct RegisteredForward {
  pid_t pid = 0;
  std::string serial;
  std::string local;   // "tcp:8080", the bound port
  std::string remote;  // the device service
};

// This process's rule, registered for the object's lifetime (written whole, then renamed
// into place, so a reader never sees half of it).
class ForwardRegistration {
 public:
  // Throws Error(io_error) when the file cannot be written; Error(permission_denied) as
  // private_runtime_folder().
  ForwardRegistration(std::string_view serial, std::string_view local, std::string_view remote);
  ~ForwardRegistration();
  ForwardRegistration(const ForwardRegistration&) = delete;
  ForwardRegistration& operator=(const ForwardRegistration&) = delete;

 private:
  std::filesystem::path path_;
};

// The rules of every running `adbwire forward` process of this user, oldest process first.
// Deletes the files of processes that are gone.
std::vector<RegisteredForward> registered_forwards();

// Ends the processes holding `local` ("" = every rule) with SIGTERM and waits up to `wait`
// for each to drop its rule. Returns how many rules were removed (0: none held `local`).
// Throws Error(timeout) naming the PID of a process that did not end in time.
std::size_t remove_registered_forwards(std::string_view local, std::chrono::milliseconds wait);

}  // namespace adbwire::cli
