// The connection runtime: one transport, one protocol::Session, one I/O thread.
//
// The I/O thread (an asio io_context) owns the transport and the Session and is the only
// thread that touches them. Caller threads post work to it (open, write, acknowledge,
// close) and wait on per-stream condition variables with their deadline, so any number of
// threads can use one connection at once. Internal; Device is the public face.
#pragma once

#include <asio/executor_work_guard.hpp>
#include <asio/io_context.hpp>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "adbwire/connect_options.hpp"
#include "adbwire/keys.hpp"
#include "adbwire/protocol/session.hpp"
#include "base/mutex.hpp"
#include "connection/stream_opener.hpp"
#include "transport/output_pump.hpp"
#include "transport/tls_transport.hpp"
#include "transport/transport.hpp"

namespace adbwire::connection {

// Makes the link on `io` before the I/O thread starts (it may run `io` itself); nullptr with
// failure set when it cannot.
using TransportFactory = std::function<std::unique_ptr<transport::Transport>(
    asio::io_context& io, Deadline deadline, detail::Failure& failure)>;

// Told once, on the connection's own thread, when the device refused every signature and our
// public key was offered: the handshake now waits for a person (ConnectOptions::auth_timeout).
// fingerprint: the key's, as the phone shows it. give_up, callable from any thread while the
// handshake lasts (and harmless after), ends that wait: the connect fails with unauthorized.
// Must not block.
using KeyOffered = std::function<void(std::string_view fingerprint, std::function<void()> give_up)>;

class Connection final : public StreamOpener, public std::enable_shared_from_this<Connection> {
 public:
  // Builds the transport, starts the I/O thread and runs the handshake (CNXN, AUTH with
  // each host key, then the public key). Returns nullptr with failure set on error; the
  // codes are those of Device::connect. `target` and `serial` are for messages and serial().
  static std::shared_ptr<Connection> establish(const TransportFactory& factory, std::string target,
                                               std::string serial, const ConnectOptions& options,
                                               detail::Failure& failure,
                                               KeyOffered on_key_offered = {});

  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  // Closes; must not run on the I/O thread (handlers never own the Connection).
  ~Connection() override;

  std::unique_ptr<StreamBackend> open(std::string_view service, Deadline deadline,
                                      detail::Failure& failure) override;
  const protocol::Banner& banner() const noexcept override { return peer_banner_; }
  bool can_use_feature(std::string_view feature) const noexcept override;
  std::string serial() const override { return serial_; }
  ConnectionInfo info() const override;
  void close() noexcept override;
  bool connected() const noexcept override;
  bool set_incoming(std::shared_ptr<detail::IncomingStreams> handler) override;

 private:
  struct StreamState;
  class SessionStream;
  enum class Phase { handshaking, online, failed };

  Connection(std::string target, std::string serial, const ConnectOptions& options);

  // Caller threads.
  void wait_online(Deadline connect_deadline, detail::Failure& failure);
  void post_close_stream(const std::shared_ptr<StreamState>& state);
  void forget(const StreamState* state);

  // The I/O thread.
  void start_read();
  void on_read(const std::error_code& error, std::size_t bytes);
  void handle_events();
  void handle_event(protocol::Event& event);
  void answer_auth_token(const std::vector<std::uint8_t>& token);
  bool load_keys();
  void start_tls();
  void went_online();
  void answer_open(const protocol::Event& event);
  void flush();
  void fail(std::error_code code, std::string detail);
  void do_open(const std::shared_ptr<StreamState>& state, const std::string& service);
  void do_write(const std::shared_ptr<StreamState>& state, const std::vector<std::uint8_t>& data,
                std::uint64_t ticket);
  void do_acknowledge(const std::shared_ptr<StreamState>& state, std::size_t bytes);
  void do_close(const std::shared_ptr<StreamState>& state);
  std::shared_ptr<StreamState> find(std::uint32_t id) const;

  const std::string target_;
  const std::string serial_;
  const ConnectOptions options_;
  const std::vector<std::string> our_features_;

  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  std::thread thread_;

  // Touched by the I/O thread only (and by establish() before the thread starts).
  std::unique_ptr<transport::Transport> transport_;
  transport::TlsTransport* tls_ = nullptr;  // transport_ itself once the device asked for STLS
  protocol::Session session_;
  std::vector<std::uint8_t> read_buffer_;
  transport::OutputPump pump_;
  bool stopped_ = false;  // fail() ran: no more reads or writes
  std::unordered_map<std::uint32_t, std::shared_ptr<StreamState>> streams_by_id_;
  // Streams that received data in the batch being handled, woken once it is done.
  std::vector<std::shared_ptr<StreamState>> to_wake_;
  std::vector<PrivateKey> keys_;
  bool keys_loaded_ = false;
  std::size_t next_key_ = 0;
  bool public_key_sent_ = false;
  KeyOffered on_key_offered_;

  // Written by the I/O thread before phase_ becomes online; read-only afterwards.
  protocol::Banner peer_banner_;
  // A received payload is acknowledged as it arrives while the unread bytes queued ahead of it
  // (each chunk charged a little for its bookkeeping) are under this many: one negotiated
  // max payload. So a stream holds at most about two payloads (with delayed_ack, the receive
  // window more) that its reader has not taken, and the device never waits on a reader that
  // keeps up.
  std::size_t acknowledge_ahead_ = protocol::kMaxPayloadV1;

  mutable detail::Mutex mutex_;
  std::condition_variable phase_changed_;
  Phase phase_ ADBWIRE_GUARDED_BY(mutex_) = Phase::handshaking;
  detail::Failure failure_ ADBWIRE_GUARDED_BY(mutex_);
  bool awaiting_user_ ADBWIRE_GUARDED_BY(mutex_) = false;
  Deadline auth_deadline_ ADBWIRE_GUARDED_BY(mutex_){};
  ConnectionInfo info_ ADBWIRE_GUARDED_BY(mutex_);
  bool closing_ ADBWIRE_GUARDED_BY(mutex_) = false;
  std::shared_ptr<detail::IncomingStreams> incoming_ ADBWIRE_GUARDED_BY(mutex_);
  // Every stream a caller may be waiting on, so a failure can wake them all.
  std::unordered_map<const StreamState*, std::weak_ptr<StreamState>> live_
      ADBWIRE_GUARDED_BY(mutex_);
};

}  // namespace adbwire::connection
