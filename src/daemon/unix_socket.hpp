// The daemon's Unix socket: where it is, how a client decides to trust what it finds there, and
// the few blocking socket calls (with deadlines) both sides make.
#pragma once

#include <sys/types.h>
#include <sys/uio.h>

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include "adbwire/deadline.hpp"
#include "base/failure.hpp"

namespace adbwire::daemon {

// Which daemon serves a call: the build (adbwire's version and the full program's file: device,
// inode, modification time, so a daemon left running by another build, worktree or install, or by
// the program before an upgrade, is never asked) and what picks the host key ($HOME,
// $ADB_VENDOR_KEYS: another key is another daemon). program: the full program (the front's
// full_program_path(), the daemon's /proc/self/exe).
std::string daemon_identity(const std::filesystem::path& program);

struct DaemonPaths {
  std::filesystem::path socket;  // <runtime>/server-<hash of the identity>.sock
  std::filesystem::path lock;    // the same with .lock: held while a daemon is being started
};

// The paths for identity: $ADBWIRE_SESSION names the socket when set (a path the user chose),
// else <runtime> is the private runtime folder ($XDG_RUNTIME_DIR/adbwire, else /tmp/adbwire-UID;
// made 0700 and checked as FolderTrust::own). Errors: permission_denied when the runtime folder
// is not private, its detail naming the ways out (XDG_RUNTIME_DIR, --no-daemon); io_error.
DaemonPaths daemon_paths(std::string_view identity, detail::Failure& failure);

// Connects to the daemon at socket (detail::connect_private_socket). -1 without failure when none
// is there to answer (no file, or a socket nobody listens on: a daemon that ended). -1 with
// permission_denied when what is there is not this user's daemon: not a socket, a symbolic link,
// owned by another user, open to group or others (mode beyond 0600), or answered by a process of
// another user (SO_PEERCRED), all checked before a byte is sent. The detail names the path and says
// to remove it or run with --no-daemon (or, with $ADBWIRE_SESSION set, to point it elsewhere or
// unset it).
int connect_daemon(const std::filesystem::path& socket, detail::Failure& failure);

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

// The same for data in pieces (one sendmsg for many), pieces adjusted as they go out.
bool send_all(int fd, std::span<iovec> pieces, Deadline deadline, detail::Failure& failure);

// send_all for data with the descriptor passed sent beside its first byte (SCM_RIGHTS): the
// daemon's client hands it a file to fill or read; the receiver gets its own descriptor of it.
bool send_with_descriptor(int fd, std::span<const std::uint8_t> data, int passed, Deadline deadline,
                          detail::Failure& failure);

// receive_some on a socket that may also carry a descriptor (send_with_descriptor): one that
// arrives is stored in passed (close-on-exec; a descriptor passed still unclaimed there is closed
// first, so only the last one sent is kept).
long receive_with_descriptor(int fd, std::span<std::uint8_t> buffer, Deadline deadline, int& passed,
                             detail::Failure& failure);

// Reads what is there (up to buffer.size()), waiting until deadline. > 0 bytes; 0 at the end;
// -1 with failure (timeout, or closed when the connection was reset). Works on pipes too.
long receive_some(int fd, std::span<std::uint8_t> buffer, Deadline deadline,
                  detail::Failure& failure);

}  // namespace adbwire::daemon
