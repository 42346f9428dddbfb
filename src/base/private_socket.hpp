// Unix sockets of adbwire's own processes (the connection holder, a CLI session, the daemons to
// come), trusted only when they are this user's: whoever listens there gets the commands sent to
// it (a `type` of a password, the device's screen), and whoever connects can drive the device. A
// client checks the socket file and the process answering before it sends a byte; a server checks
// each process that connects. Internal.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string_view>

#include "base/failure.hpp"

namespace adbwire::detail {

// Connects to the socket at path, trusting it only when it is this user's: -1 without failure
// when nothing is there to answer (no file, or a socket nobody listens on); -1 with
// permission_denied when what is there is not ours: a symbolic link, not a socket, owned by
// another user, open to group or others (mode beyond 0600), or answered by a process of another
// user (SO_PEERCRED). The detail names `what` and the path, and ends with `way_out` (what the
// user can do: remove it, an option that avoids it). Errors also: invalid_argument (a path too
// long for a Unix socket), io_error. The descriptor is close-on-exec.
int connect_private_socket(const std::filesystem::path& path, std::string_view what,
                           std::string_view way_out, Failure& failure);

// Listens at path with mode 0600 from birth (a socket left there is replaced). Errors:
// invalid_argument (too long), io_error, naming the path.
int listen_private_socket(const std::filesystem::path& path, int backlog, Failure& failure);

// The uid of the process at the other end of a Unix socket; -1 when unknown.
uid_t socket_peer_uid(int fd);

// True when the process at the other end runs as this user: a server's check of each client.
bool peer_is_this_user(int fd);

}  // namespace adbwire::detail
