// The client side of the daemon, for the CLI: reaching it (started on first use), a Device whose
// streams the daemon opens on the connection it holds, and adbwire's requests answered in frames.
// Plain sockets and the connection layer's Device only, so the lean front links nothing heavy.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

#include "adbwire/deadline.hpp"
#include "adbwire/device.hpp"
#include "adbwire/output_limits.hpp"
#include "base/failure.hpp"
#include "daemon/daemon_protocol.hpp"
#include "daemon/unix_socket.hpp"

namespace adbwire::daemon {

// How to start the daemon when none answers.
struct DaemonStart {
  // The full program; started as `PROGRAM server --idle N --open-wait N --ready-fd 3`, its own
  // session, no terminal, stdio on /dev/null, nothing of ours inherited but the ready pipe.
  std::filesystem::path program;
  std::chrono::seconds idle{1800};     // it ends after this long unused (DaemonOptions::idle)
  std::chrono::seconds open_wait{30};  // DaemonOptions::open_wait
};

// Something the daemon says for the user (it reconnected), once per call that met it.
using NoteHandler = std::function<void(std::string_view)>;

// A connection to this user's daemon for program (daemon_paths(daemon_identity(program))).
// start: when none answers, one is started (under a lock, so concurrent calls start one);
// nullptr: -1 without failure then. started, when given, says whether this call started it.
// Errors: permission_denied (a socket or runtime folder that is not this user's and private: the
// detail says what to do), timeout (a daemon that did not get ready in 10 s), io_error (it could
// not be started).
int reach_daemon(const std::filesystem::path& program, const DaemonStart* start,
                 detail::Failure& failure, bool* started = nullptr);

// Sends request (a smart-socket request) on fd. Errors: invalid_argument (too long), closed,
// timeout.
bool send_request(int fd, std::string_view request, Deadline deadline, detail::Failure& failure);

// Reads an adbwire answer (daemon_protocol.hpp) from fd: NOTE frames to on_note, then OKAY (true;
// with data, the DATA frames up to DONE are appended to *data) or FAIL (false, failure set to its
// code and sentence). reader keeps what came after. Errors also: protocol_error, device_offline
// (the daemon hung up), timeout.
bool read_answer(int fd, FrameReader& reader, Deadline deadline, const NoteHandler& on_note,
                 std::string* data, detail::Failure& failure);

// A Device for target (a tcp: or usb: target) through the daemon, started first when none answers
// (start). Its streams are the daemon's to the device; banner, features and serial are those of
// the held connection; command_timeout as ConnectOptions'; output gathered whole bounded by
// limits (ConnectOptions::limits). auth_timeout: how long the daemon's connect, when it makes
// one, waits for a person to accept the key. Throws adbwire::Error: what the daemon's connect met
// (the codes and sentences of Device::connect, relayed), and reach_daemon's errors.
Device connect_through_daemon(std::string_view target, const DaemonStart& start,
                              std::chrono::milliseconds auth_timeout, const OutputLimits& limits,
                              NoteHandler on_note);

// Pulls files into descriptors and pushes files from them through the daemon (kPullIntoRequest,
// kPushFromRequest): one connection to it, switched to target's device, for every file of one
// pull or push, so a file's bytes go between the daemon's connection and the file, never through
// this process. Not thread-safe.
class DescriptorClient {
 public:
  // Throws adbwire::Error as connect_through_daemon.
  DescriptorClient(std::string_view target, const DaemonStart& start,
                   std::chrono::milliseconds auth_timeout, NoteHandler on_note);
  ~DescriptorClient();
  DescriptorClient(const DescriptorClient&) = delete;
  DescriptorClient& operator=(const DescriptorClient&) = delete;

  // Has the daemon receive pull.remote into file (a regular file open for writing; this process
  // keeps its descriptor), calling on_wait about every 100 ms until it answers. bytes: what the
  // file received; wire_bytes: what crossed the wire. Errors: the pull's own (the daemon's FAIL:
  // SyncClient::pull's codes and sentences), invalid_argument, closed or device_offline (the
  // daemon went away), protocol_error.
  bool pull(const PullInto& pull, int file, const std::function<void()>& on_wait,
            std::uint64_t& bytes, std::uint64_t& wire_bytes, detail::Failure& failure);
  // Has the daemon send file (a regular file open for reading, from its offset; the offset is
  // shared, so on_wait can read the progress from it) as push.remote. bytes: what was read from
  // file. Errors as pull's, with SyncClient::push's codes and sentences.
  bool push(const PushFrom& push, int file, const std::function<void()>& on_wait,
            std::uint64_t& bytes, std::uint64_t& wire_bytes, detail::Failure& failure);

 private:
  // Sends request with file beside it and reads the "BYTES WIRE_BYTES" answer.
  bool transfer(const std::string& request, int file, const std::function<void()>& on_wait,
                std::uint64_t& bytes, std::uint64_t& wire_bytes, detail::Failure& failure);

  int fd_ = -1;
  FrameReader reader_;
  NoteHandler on_note_;
};

// Sends one of adb's host requests (host:devices-l, host:connect:…, host:disconnect:…) to this
// user's daemon for program and reads adb's answer, OKAY and a string, into reply. start as
// reach_daemon's: with nullptr only a daemon that runs is asked, and false without failure says
// none does. A FAIL answer is false with its message as the detail and classify_failure's code
// (not_found for "no such device …"). Errors also: reach_daemon's, closed and device_offline (the
// daemon hung up), protocol_error, timeout.
bool ask_daemon(const std::filesystem::path& program, const DaemonStart* start,
                std::string_view request, Deadline deadline, std::string& reply,
                detail::Failure& failure, bool* started = nullptr);

// Ends this user's daemon for program (host:kill) and waits until its socket is gone. False when
// none was running. Throws adbwire::Error: permission_denied (as reach_daemon), timeout (it did
// not end within 10 s).
bool stop_daemon(const std::filesystem::path& program);
// The same for the daemon listening at socket (any program's, in a runtime folder).
bool stop_daemon_at(const std::filesystem::path& socket);

}  // namespace adbwire::daemon
