// A connected Android device: run commands, open streams. The same Device whatever the path
// (direct TCP today; direct USB and through an adb server share this API).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <system_error>

#include "adbwire/connect_options.hpp"
#include "adbwire/connection_info.hpp"
#include "adbwire/deadline.hpp"
#include "adbwire/output_limits.hpp"
#include "adbwire/protocol/banner.hpp"
#include "adbwire/stream.hpp"

namespace adbwire {

// What a Device opens its streams with: the connection runtime, an adb server, the CLI daemon.
// Internal (src/connection/stream_opener.hpp): outside the library it is only a handle.
class StreamOpener;

namespace detail {
struct Failure;
}  // namespace detail

// Output of a command as it arrives. The span is valid only during the call. A handler may
// throw: the stream is closed and the exception propagates out of the Device call.
using OutputHandler = std::function<void(std::span<const std::uint8_t>)>;

struct ShellResult {
  std::string out;     // stdout (with stderr merged in when the device lacks shell_v2)
  std::string err;     // stderr; empty without shell_v2
  int exit_code = -1;  // the command's exit status 0..255; -1 when the device lacks shell_v2,
                       // whose shell protocol v1 reports none
};

// One connection to one device. Move-only. Thread safe: any number of threads may run
// commands and open streams on one Device at once; each call opens its own ADB stream over
// the shared connection (one round trip, no process spawned). Every blocking call ends by
// its deadline (kDefaultDeadline = now + ConnectOptions::command_timeout) with
// errc::timeout; when the connection drops, every waiting call wakes at once with
// errc::device_offline, and later calls fail the same way (connect again to recover).
class Device {
 public:
  // Connects to target (see Target for the forms; "" = $ANDROID_SERIAL) and completes the
  // handshake, signing the device's token with each host key in turn and, when none is
  // known, offering the public key (unless options.offer_public_key is off) and waiting up to
  // options.auth_timeout for a person to accept it. A device that answers with STLS (Wireless
  // debugging) gets TLS 1.3 with a certificate made from the host key it names. Errors:
  // invalid_argument (bad target), not_supported (usb: targets in this build), connection_refused
  // (nothing listening), timeout (no TCP connection or no answer within connect_timeout),
  // unauthorized (key not accepted within auth_timeout, the device hung up on the offered key, or
  // no key known and offer_public_key off: the message names the fingerprint to confirm; or a TLS
  // device that does not know our key: the message says to pair with `adb pair`), device_offline
  // (the device hung up), protocol_error, io_error (keys unreadable). The error_code form returns
  // an empty Device on error (its calls fail with closed).
  static Device connect(std::string_view target, const ConnectOptions& options = {});
  static Device connect(std::string_view target, const ConnectOptions& options,
                        std::error_code& error);

  // Wraps a stream opener the library made (connect, Replay, the CLI daemon's client); calls
  // made with kDefaultDeadline get command_timeout, output gathered whole is bounded by limits.
  // A null opener makes an empty Device, whose calls fail with closed.
  Device(std::shared_ptr<StreamOpener> opener, std::chrono::milliseconds command_timeout,
         const OutputLimits& limits = {}) noexcept;
  Device(Device&&) noexcept;
  Device& operator=(Device&&) noexcept;
  // Closes the connection (see close()).
  ~Device();

  // Runs `command` through the device's shell (sh -c) and collects its output: shell
  // protocol v2 ("shell,v2,raw:") when both sides offer shell_v2, giving separate
  // stdout/stderr and the exit code; v1 ("shell:") otherwise. The command gets an empty
  // stdin (on v1 an open one that never ends; ShellStream gives it input). The deadline
  // covers the whole command. A non-zero exit code is not an error.
  // Errors: timeout (the command is then closed on the device), device_offline, closed,
  // protocol_error (malformed shell packets, or the stream ended without an exit status),
  // limit_exceeded (stdout and stderr together passed output_limits().command bytes: the
  // command's stream is closed, the connection stays usable; use the streaming form for output
  // of unknown size).
  ShellResult shell(std::string_view command, Deadline deadline = kDefaultDeadline);
  ShellResult shell(std::string_view command, Deadline deadline, std::error_code& error);

  // Streaming shell: on_stdout / on_stderr get output as it arrives (memory stays bounded);
  // returns the exit code as ShellResult::exit_code does. Errors as above; on error the
  // return value is -1.
  int shell(std::string_view command, const OutputHandler& on_stdout,
            const OutputHandler& on_stderr, Deadline deadline = kDefaultDeadline);
  int shell(std::string_view command, const OutputHandler& on_stdout,
            const OutputHandler& on_stderr, Deadline deadline, std::error_code& error);

  // Runs `command` with "exec:" (no PTY, no shell protocol): the bytes the command writes,
  // unchanged (binary safe: screencap -p, logcat -B), stderr merged in as adbd does. A device
  // without exec: (Android before 5.0) runs it through the shell instead, whose PTY newline
  // translation is undone. Errors as shell() (limit_exceeded past output_limits().command); on
  // error the bytes received so far are returned.
  std::string exec(std::string_view command, Deadline deadline = kDefaultDeadline);
  std::string exec(std::string_view command, Deadline deadline, std::error_code& error);

  // Streaming exec: on_chunk gets the output piece by piece; the device is acknowledged only
  // after on_chunk returns, so a slow consumer slows the device, not memory.
  void exec(std::string_view command, const OutputHandler& on_chunk,
            Deadline deadline = kDefaultDeadline);
  void exec(std::string_view command, const OutputHandler& on_chunk, Deadline deadline,
            std::error_code& error);

  // Opens a raw stream to a service (AOSP names: "exec:…", "shell:…", "sync:", "tcp:5000",
  // "localabstract:…"). The deadline covers only the open. Errors: not_supported (the
  // device refused the service), invalid_argument (empty service), busy (4096 streams
  // already open on this connection), timeout, device_offline, closed.
  Stream open(std::string_view service, Deadline deadline = kDefaultDeadline);
  Stream open(std::string_view service, Deadline deadline, std::error_code& error);

  // The device's CNXN banner (serial, ro.product.*, features). Valid while the Device lives.
  const protocol::Banner& banner() const noexcept;
  // True when the device lists the feature and adbwire implements it (both banners).
  bool has_feature(std::string_view feature) const noexcept;
  // What adb would list as this device's serial: "HOST:PORT" for TCP targets,
  // "INSTANCE._adb-tls-connect._tcp" for a phone found by mDNS.
  std::string serial() const;
  // Authentication path and negotiated parameters.
  ConnectionInfo connection_info() const;
  // The bounds on output gathered whole (ConnectOptions::limits), which the calls on this
  // Device and the services and Page built on it apply.
  const OutputLimits& output_limits() const noexcept { return limits_; }

  // Closes the connection: calls waiting on it wake with errc::closed, later calls fail with
  // it. Idempotent and thread safe; blocks only to join the connection's I/O thread.
  void close() noexcept;

  // The budget of a call made with kDefaultDeadline (ConnectOptions::command_timeout).
  std::chrono::milliseconds command_timeout() const noexcept { return command_timeout_; }
  // deadline, or now + command_timeout() for kDefaultDeadline: what a call of several steps
  // resolves once, so its steps share one deadline.
  Deadline resolve(Deadline deadline) const noexcept;
  // The connection under this Device, shared: what the layers built on Device hold (ShellStream,
  // Forwarder, the CLI daemon) so their calls fail cleanly once it is closed, even after the
  // Device is gone. A handle outside the library; null for an empty or moved-from Device.
  const std::shared_ptr<StreamOpener>& opener() const noexcept { return opener_; }

 private:
  Stream open_stream(std::string_view service, Deadline deadline, detail::Failure& failure);

  std::shared_ptr<StreamOpener> opener_;
  std::chrono::milliseconds command_timeout_{0};
  OutputLimits limits_;
};

}  // namespace adbwire
