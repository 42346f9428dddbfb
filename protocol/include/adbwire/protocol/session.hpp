// The sans-IO ADB session: handshake (CNXN/AUTH/STLS) plus the stream multiplexer
// (OPEN/OKAY/WRTE/CLSE with per-stream flow control), for either end of the link.
//
// Bytes in (receive), events out (next_event), bytes to send out (pending_output /
// consume_output). The session owns no socket, thread, clock or file, never throws, and
// allocates only in proportion to what the application queued plus one inbound message.
// Not thread safe: the connection runtime drives it from one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "adbwire/protocol/banner.hpp"
#include "adbwire/protocol/constants.hpp"
#include "adbwire/protocol/message.hpp"

namespace adbwire::protocol {

enum class Role { host, device };

struct SessionOptions {
  Role role = Role::host;
  // Our banner. Host: system_type "host", features = host_features(). Device: "device",
  // serial and ro.product.* properties, the features it implements.
  Banner banner;
  std::uint32_t version = kVersion;
  // Largest payload we accept; values under kMaxPayloadV1 are raised to it.
  std::uint32_t max_payload = kMaxPayload;
  // Receive window per stream when delayed_ack is negotiated (both banners list
  // "delayed_ack"); 0 disables delayed_ack and "delayed_ack" must then not be in banner.
  std::uint32_t delayed_ack_window = 0;
  // Device role: answer a host CNXN with AUTH TOKEN (auth_token_needed event) instead of CNXN.
  bool auth_required = false;
  // Upper bound on open streams; a peer OPEN beyond it is refused (device role), a local
  // open_stream beyond it fails with busy.
  std::size_t max_streams = 4096;
  // Host role: report peer OPENs as open_requested (reverse forwarding) instead of refusing
  // them here. The application must then refuse every OPEN that no reverse rule it set up
  // names: a compromised device must not reach arbitrary host sockets.
  bool accept_peer_opens = false;
  // Device role: answer a host CNXN with STLS and speak only TLS afterwards (Wireless
  // debugging). The runtime runs the TLS server on stls_accepted, then calls finish_tls().
  bool tls = false;
};

enum class SessionState {
  idle,           // start() not called (host) / no CNXN seen yet (device)
  handshaking,    // CNXN sent, waiting for the peer (AUTH exchange in progress)
  awaiting_user,  // host: public key offered, waiting for the user to accept on the phone
  online,         // streams may be opened
  failed,         // a protocol error ended the session; error() says why
};

struct Event {
  enum class Type {
    online,             // handshake finished; peer_banner() is valid
    auth_token,         // host: device sent AUTH TOKEN (data = token); answer with
                        //   send_auth_signature (next key) or send_auth_public_key (no keys left)
    auth_signature,     // device: host signed the token (data = signature, token() = what was
                        //   signed); answer with accept_auth() or reject_auth(new_token)
    auth_public_key,    // device: host offered its public key (data = "<base64> user@host")
    auth_token_needed,  // device: auth_required and a CNXN arrived: call send_auth_token()
    stls_requested,     // host: device asked for TLS (STLS); answer with send_stls() and run the
                        //   TLS client over bytes_after_stls() and everything received next
    stls_accepted,      // device (tls): host answered STLS; run the TLS server over
                        //   bytes_after_stls(), then finish_tls()
    open_requested,     // peer opened `service` as stream `stream`; answer with
                        //   accept_open/refuse_open. (The host role refuses peer OPENs itself
                        //   unless accept_peer_opens.)
    stream_ready,       // our OPEN was accepted: stream can carry data
    stream_data,        // data arrived on `stream`; call acknowledge() once it is consumed
    stream_writable,    // everything queued on `stream` was sent and acknowledged by the peer
    stream_closed,      // `stream` is gone; `refused` when the peer refused our OPEN
  };
  Type type = Type::online;
  std::uint32_t stream = 0;  // our local id
  std::vector<std::uint8_t> data;
  std::string service;   // open_requested
  bool refused = false;  // stream_closed
};

class Session {
 public:
  explicit Session(SessionOptions options);

  // Host: queues CNXN. Device: no-op (it waits for the host's CNXN).
  void start();

  // Feeds received bytes. On protocol_error the session is failed; error_detail() names
  // what was wrong (bad magic, oversize length, unknown command, WRTE for an unknown stream,
  // OKAY before OPEN, data without credit, …). Events produced before the error remain.
  std::error_code receive(std::span<const std::uint8_t> bytes);

  // Pops the next event; false when none is queued.
  bool next_event(Event& out);

  // Bytes to send, in order. The view stays valid until the next non-const call.
  std::span<const std::uint8_t> pending_output() const noexcept;
  // Marks the first n bytes of pending_output() as sent.
  void consume_output(std::size_t n) noexcept;

  SessionState state() const noexcept;
  std::error_code error() const noexcept;
  const std::string& error_detail() const noexcept;
  // The peer's CNXN banner (valid once online).
  const Banner& peer_banner() const noexcept;
  // min(ours, peer's) once the peer's CNXN arrived; before that kVersionMin and
  // kMaxPayloadV1, the values every peer understands.
  std::uint32_t negotiated_version() const noexcept;
  std::uint32_t negotiated_max_payload() const noexcept;
  bool delayed_ack() const noexcept;
  // True when both banners list the feature (AOSP CanUseFeature).
  bool can_use_feature(std::string_view feature) const noexcept;

  // --- auth, host role
  void send_auth_signature(std::span<const std::uint8_t> signature);
  // key_line: "<base64> user@host" (a NUL terminator is appended on the wire).
  void send_auth_public_key(std::string_view key_line);

  // --- auth, device role
  void send_auth_token(std::span<const std::uint8_t> token);
  // The token last sent (what a signature must cover).
  std::span<const std::uint8_t> auth_token() const noexcept;
  void accept_auth();                                         // sends our CNXN: online
  void reject_auth(std::span<const std::uint8_t> new_token);  // sends a fresh TOKEN

  // --- STLS (wireless debugging). After STLS the peer's next bytes are TLS records, not
  // ADB messages: receive() stops parsing at the STLS message and keeps the rest (and
  // whatever it is fed before the runtime takes them) for the TLS layer. Once TLS runs the
  // runtime feeds receive() the decrypted bytes and encrypts pending_output().
  // Bytes received after the STLS message; receive() parses again after this call.
  std::vector<std::uint8_t> bytes_after_stls();
  // Host: answers the device's STLS with our own; the TLS client handshake follows.
  void send_stls();
  // Device: the TLS handshake succeeded (the client key is authorised): sends our CNXN and
  // goes online.
  void finish_tls();

  // --- streams (online only)
  // Sends OPEN; returns the new local id, or 0 with `error` set (closed when not online,
  // busy when max_streams are open, invalid_argument for an empty service).
  std::uint32_t open_stream(std::string_view service, std::error_code& error);
  void accept_open(std::uint32_t stream);
  void refuse_open(std::uint32_t stream);
  // Queues data; WRTEs of at most negotiated_max_payload() go out as the peer grants
  // credit. Errors: not_found for an unknown or closed stream, closed when the session is not
  // online (never started, or failed).
  std::error_code write(std::uint32_t stream, std::span<const std::uint8_t> data);
  // Bytes queued on the stream and not yet sent.
  std::size_t queued(std::uint32_t stream) const noexcept;
  // The application consumed `bytes` of received data: grants the peer more credit
  // (classic: OKAY after each WRTE is fully consumed; delayed_ack: OKAY carrying the count).
  void acknowledge(std::uint32_t stream, std::size_t bytes);
  // Closes our end: queued data is flushed first, then CLSE. No events follow for it
  // except stream_closed.
  void close_stream(std::uint32_t stream);
  std::size_t open_streams() const noexcept;

 private:
  struct Impl;
  struct ImplDeleter {
    void operator()(Impl* impl) const noexcept;
  };
  std::unique_ptr<Impl, ImplDeleter> impl_;
};

}  // namespace adbwire::protocol
