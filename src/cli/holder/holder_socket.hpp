// The connection holder's Unix socket: where it is for a target, how a client decides to trust
// what it finds there, and the few blocking socket calls (with deadlines) both sides make.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include "adbwire/deadline.hpp"
#include "adbwire/target.hpp"
#include "base/failure.hpp"

namespace adbwire::cli::holder {

// What one held connection is: the target's canonical form, what picks the host key ($HOME,
// $ADB_VENDOR_KEYS: another key is another connection), and which build holds it: the version
// and the full program's file (device, inode, modification time), so a holder left running by
// another build, worktree or install, or by the program before an upgrade, is never asked.
// program: the full program (the front's full_program_path(), the holder's /proc/self/exe).
std::string holder_identity(const Target& target, const std::filesystem::path& program);

struct HolderPaths {
  std::filesystem::path socket;  // <runtime>/holders/<hash of the identity>.sock
  std::filesystem::path lock;    // the same with .lock: held while a holder is being started
};

// The paths for identity, creating <runtime>/holders (0700, checked as the runtime folder is:
// detail::open_private_folder with FolderTrust::own). Errors: as private_runtime_folder (the
// detail also names --no-holder, which needs no runtime folder).
HolderPaths holder_paths(std::string_view identity, detail::Failure& failure);

// Connects to the holder at socket (detail::connect_private_socket). -1 without failure when
// none is there to answer (no file, or a socket nobody listens on: a holder that ended). -1 with
// permission_denied when what is there is not this user's holder: not a socket, a symbolic link,
// owned by another user, open to group or others (mode beyond 0600), or answered by a process of
// another user (SO_PEERCRED). The detail names the path and says to remove it or use
// --no-holder.
int connect_holder(const std::filesystem::path& socket, detail::Failure& failure);

// An exclusive lock on path (created 0600, never through a link), held until the descriptor is
// closed; waits for it at most until deadline. -1 with failure (timeout, permission_denied,
// io_error).
int lock_file(const std::filesystem::path& path, Deadline deadline, detail::Failure& failure);

// Removes the lock file at path, then lets go of the lock fd holds on it (lock_file takes a lock
// only on the file still at path, so no one is left holding a lock on a removed file).
void unlock_and_remove(const std::filesystem::path& path, int fd);

// Waits until fd is ready for events (POLLIN or POLLOUT); false when deadline passed first.
bool wait_ready(int fd, short events, Deadline deadline);

// Sends all of data (MSG_NOSIGNAL). false with failure: timeout, or closed when the peer went.
bool send_all(int fd, std::span<const std::uint8_t> data, Deadline deadline,
              detail::Failure& failure);

// Reads what is there (up to buffer.size()), waiting until deadline. > 0 bytes; 0 at the end;
// -1 with failure (timeout, or closed when the connection was reset).
long receive_some(int fd, std::span<std::uint8_t> buffer, Deadline deadline,
                  detail::Failure& failure);

}  // namespace adbwire::cli::holder
