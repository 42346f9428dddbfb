#include "connection/connection.hpp"

#include <algorithm>
#include <asio/post.hpp>
#include <cstring>
#include <deque>
#include <exception>
#include <utility>

#include "adbwire/error.hpp"

namespace adbwire::connection {
namespace {

// Largest piece one Stream::write hands to the I/O thread at a time, and the queue level
// below which a write returns at once: together they bound a stream's send memory.
constexpr std::size_t kWriteChunk = 256 * 1024;
constexpr std::size_t kSendHighWater = kWriteChunk;
constexpr std::size_t kReadBufferSize = 256 * 1024;
// What one received chunk costs beyond its bytes (its vector and deque slot), charged against
// the acknowledge-ahead bound so a device sending one-byte WRTEs cannot grow the queue past it
// in bookkeeping.
constexpr std::size_t kChunkOverhead = 64;

std::vector<std::string> host_banner_features(std::uint32_t delayed_ack_window) {
  std::vector<std::string> features = protocol::host_features();
  const auto delayed = std::find(features.begin(), features.end(), "delayed_ack");
  if (delayed_ack_window == 0 && delayed != features.end()) features.erase(delayed);
  if (delayed_ack_window != 0 && delayed == features.end()) features.emplace_back("delayed_ack");
  return features;
}

protocol::SessionOptions session_options(const ConnectOptions& options,
                                         const std::vector<std::string>& features) {
  protocol::SessionOptions session;
  session.role = protocol::Role::host;
  session.banner.system_type = "host";
  session.banner.features = features;
  session.delayed_ack_window = options.delayed_ack_window;
  // Device OPENs reach answer_open, which accepts only what a reverse rule names.
  session.accept_peer_opens = true;
  return session;
}

std::string milliseconds(std::chrono::milliseconds value) {
  return std::to_string(value.count()) + " ms";
}

}  // namespace

// What a caller waiting on one stream shares with the I/O thread.
struct Connection::StreamState {
  enum class Phase { opening, open, ended, failed };

  // A stream the device opened (answer_open) starts open; one a caller opens, opening.
  StreamState(std::string name, Phase initial) : service(std::move(name)), phase(initial) {}

  // Wakes waiters with `why` unless the stream already ended or failed.
  void fail(const detail::Failure& why) {
    {
      detail::MutexLock lock(mutex);
      if (phase == Phase::ended || phase == Phase::failed) return;
      phase = Phase::failed;
      failure = why;
    }
    changed.notify_all();
  }

  // The unacknowledged bytes, once what is queued ahead of them fell under `bound` (then they
  // are taken: the caller acknowledges them); else 0.
  std::size_t take_acknowledgeable(std::size_t bound) ADBWIRE_REQUIRES(mutex) {
    if (unacknowledged == 0) return 0;
    const std::size_t ahead =
        queued_charge > unacknowledged_charge ? queued_charge - unacknowledged_charge : 0;
    if (ahead >= bound) return 0;
    const std::size_t taken = unacknowledged;
    unacknowledged = 0;
    unacknowledged_charge = 0;
    return taken;
  }

  const std::string service;

  detail::Mutex mutex;
  std::condition_variable changed;
  Phase phase ADBWIRE_GUARDED_BY(mutex);
  detail::Failure failure ADBWIRE_GUARDED_BY(mutex);
  // Received, not yet read; front_offset bytes of chunks.front() are read.
  std::deque<std::vector<std::uint8_t>> chunks ADBWIRE_GUARDED_BY(mutex);
  std::size_t front_offset ADBWIRE_GUARDED_BY(mutex) = 0;
  // Unread bytes of chunks, each chunk charged kChunkOverhead more.
  std::size_t queued_charge ADBWIRE_GUARDED_BY(mutex) = 0;
  // The newest chunks, not yet acknowledged to the device because the queue ahead of them was
  // at the bound when they arrived: their bytes, and their share of queued_charge.
  std::size_t unacknowledged ADBWIRE_GUARDED_BY(mutex) = 0;
  std::size_t unacknowledged_charge ADBWIRE_GUARDED_BY(mutex) = 0;
  std::uint64_t writes_posted ADBWIRE_GUARDED_BY(mutex) = 0;
  std::uint64_t writes_done ADBWIRE_GUARDED_BY(mutex) = 0;
  bool locally_closed ADBWIRE_GUARDED_BY(mutex) = false;

  // I/O thread only.
  std::uint32_t id = 0;
  std::uint64_t write_waiting = 0;  // ticket to complete on stream_writable
};

class Connection::SessionStream final : public StreamBackend {
 public:
  SessionStream(std::shared_ptr<Connection> connection, std::shared_ptr<StreamState> state)
      : connection_(std::move(connection)), state_(std::move(state)) {}

  ~SessionStream() override { close(); }

  std::size_t read_some(std::span<std::uint8_t> buffer, Deadline deadline,
                        detail::Failure& failure) override {
    if (buffer.empty()) return 0;
    std::size_t copied = 0;
    std::size_t release = 0;
    {
      detail::MutexLock lock(state_->mutex);
      if (!wait_readable(lock, deadline, failure)) return 0;
      // A large buffer takes every chunk that fits in one call, not one chunk per call.
      while (copied < buffer.size() && !state_->chunks.empty()) {
        const std::vector<std::uint8_t>& front = state_->chunks.front();
        const std::size_t n = std::min(buffer.size() - copied, front.size() - state_->front_offset);
        std::memcpy(buffer.data() + copied, front.data() + state_->front_offset, n);
        copied += n;
        consume_locked(n);
      }
      release = state_->take_acknowledgeable(connection_->acknowledge_ahead_);
    }
    acknowledge(release);
    return copied;
  }

  // The received payload itself, moved out (the rest of one a read_some began is copied).
  std::size_t read_chunk(std::vector<std::uint8_t>& chunk, std::size_t max, Deadline deadline,
                         detail::Failure& failure) override {
    if (max == 0) return 0;
    std::size_t release = 0;
    {
      detail::MutexLock lock(state_->mutex);
      if (!wait_readable(lock, deadline, failure)) {
        chunk.clear();
        return 0;
      }
      std::vector<std::uint8_t>& front = state_->chunks.front();
      const std::size_t left = front.size() - state_->front_offset;
      if (state_->front_offset == 0) {
        chunk.swap(front);  // front, now chunk's old buffer, is dropped below
      } else {
        chunk.assign(front.begin() + static_cast<std::ptrdiff_t>(state_->front_offset),
                     front.end());
      }
      state_->front_offset = 0;
      state_->queued_charge -= left + kChunkOverhead;
      state_->chunks.pop_front();
      release = state_->take_acknowledgeable(connection_->acknowledge_ahead_);
    }
    acknowledge(release);
    return chunk.size();
  }

  void write(std::span<const std::uint8_t> data, Deadline deadline,
             detail::Failure& failure) override {
    while (!data.empty()) {
      const std::size_t piece = std::min(data.size(), kWriteChunk);
      std::uint64_t ticket = 0;
      {
        detail::MutexLock lock(state_->mutex);
        if (!writable_locked(failure)) return;
        ticket = ++state_->writes_posted;
      }
      asio::post(connection_->io_,
                 [connection = connection_.get(), state = state_,
                  bytes = std::vector<std::uint8_t>(data.begin(), data.begin() + piece),
                  ticket] { connection->do_write(state, bytes, ticket); });
      detail::MutexLock lock(state_->mutex);
      const bool done = detail::wait_until(
          state_->changed, lock, deadline, [&]() ADBWIRE_REQUIRES(state_->mutex) {
            return state_->writes_done >= ticket || state_->phase != StreamState::Phase::open;
          });
      if (!done) {
        failure.set(errc::timeout,
                    "'" + state_->service + "' did not accept more input before the deadline");
        return;
      }
      if (state_->writes_done < ticket) {
        writable_locked(failure);
        return;
      }
      data = data.subspan(piece);
    }
  }

  void close() noexcept override { connection_->post_close_stream(state_); }

  bool is_open() const noexcept override {
    detail::MutexLock lock(state_->mutex);
    return state_->phase == StreamState::Phase::open;
  }

 private:
  // Waits until a chunk is queued (true) or the stream ended (false, failure set if it failed)
  // or the deadline passed (false, timeout).
  bool wait_readable(detail::MutexLock& lock, Deadline deadline, detail::Failure& failure)
      ADBWIRE_REQUIRES(state_->mutex) {
    const bool ready =
        detail::wait_until(state_->changed, lock, deadline, [&]() ADBWIRE_REQUIRES(state_->mutex) {
          return !state_->chunks.empty() || state_->phase == StreamState::Phase::ended ||
                 state_->phase == StreamState::Phase::failed;
        });
    if (!ready) {
      failure.set(errc::timeout, "no output from '" + state_->service + "' before the deadline");
      return false;
    }
    if (state_->chunks.empty()) {
      if (state_->phase == StreamState::Phase::failed) failure = state_->failure;
      return false;
    }
    // The deadline holds while data flows too: a device that never stops sending must not
    // keep a call going past it (the data stays for a later read).
    if (deadline != kNoDeadline && Clock::now() >= deadline) {
      failure.set(errc::timeout,
                  "'" + state_->service + "' was still sending when its deadline passed");
      return false;
    }
    return true;
  }

  // The reader took n bytes of the front chunk.
  void consume_locked(std::size_t n) ADBWIRE_REQUIRES(state_->mutex) {
    state_->front_offset += n;
    state_->queued_charge -= n;
    if (state_->front_offset == state_->chunks.front().size()) {
      state_->queued_charge -= kChunkOverhead;
      state_->chunks.pop_front();
      state_->front_offset = 0;
    }
  }

  // Acknowledges bytes the reader's draining released (take_acknowledgeable), on the I/O thread.
  void acknowledge(std::size_t bytes) {
    if (bytes == 0) return;
    asio::post(connection_->io_, [connection = connection_.get(), state = state_, bytes] {
      connection->do_acknowledge(state, bytes);
    });
  }

  bool writable_locked(detail::Failure& failure) const ADBWIRE_REQUIRES(state_->mutex) {
    switch (state_->phase) {
      case StreamState::Phase::open:
        return true;
      case StreamState::Phase::ended:
        failure.set(errc::closed,
                    "the device closed '" + state_->service + "'; it takes no more input");
        return false;
      case StreamState::Phase::failed:
        failure = state_->failure;
        return false;
      case StreamState::Phase::opening:
        break;
    }
    failure.set(errc::closed, "'" + state_->service + "' is not open");
    return false;
  }

  std::shared_ptr<Connection> connection_;
  std::shared_ptr<StreamState> state_;
};

Connection::Connection(std::string target, std::string serial, const ConnectOptions& options)
    : target_(std::move(target)),
      serial_(std::move(serial)),
      options_(options),
      our_features_(host_banner_features(options.delayed_ack_window)),
      work_(asio::make_work_guard(io_)),
      session_(session_options(options, our_features_)),
      read_buffer_(kReadBufferSize) {
  info_.target = target_;
}

Connection::~Connection() { close(); }

std::shared_ptr<Connection> Connection::establish(const TransportFactory& factory,
                                                  std::string target, std::string serial,
                                                  const ConnectOptions& options,
                                                  detail::Failure& failure,
                                                  KeyOffered on_key_offered) {
  std::shared_ptr<Connection> connection(
      new Connection(std::move(target), std::move(serial), options));
  connection->on_key_offered_ = std::move(on_key_offered);
  const Deadline connect_deadline = deadline_after(options.connect_timeout);
  connection->transport_ = factory(connection->io_, connect_deadline, failure);
  if (!connection->transport_) return nullptr;
  Connection* raw = connection.get();
  connection->thread_ = std::thread([raw] { raw->io_.run(); });
  asio::post(raw->io_, [raw] {
    raw->session_.start();
    raw->flush();
    raw->start_read();
  });
  connection->wait_online(connect_deadline, failure);
  if (failure) return nullptr;
  return connection;
}

void Connection::wait_online(Deadline connect_deadline, detail::Failure& failure) {
  detail::MutexLock lock(mutex_);
  for (;;) {
    if (phase_ == Phase::online) return;
    if (phase_ == Phase::failed) {
      failure = failure_;
      return;
    }
    const Deadline deadline = awaiting_user_ ? auth_deadline_ : connect_deadline;
    if (phase_changed_.wait_until(lock.native(), deadline) == std::cv_status::timeout &&
        phase_ == Phase::handshaking &&
        (awaiting_user_ ? auth_deadline_ : connect_deadline) <= Clock::now()) {
      if (awaiting_user_) {
        failure.set(errc::unauthorized,
                    target_ + " did not accept this host's key within " +
                        milliseconds(options_.auth_timeout) + ": confirm the RSA key fingerprint " +
                        info_.key_fingerprint + " on the device (Allow USB debugging), then retry");
      } else {
        failure.set(errc::timeout,
                    target_ + " did not answer the ADB handshake within " +
                        milliseconds(options_.connect_timeout) +
                        ": is it an adbd port (`adb tcpip 5555`, `adbwire vdevice`)?");
      }
      return;
    }
  }
}

bool Connection::can_use_feature(std::string_view feature) const noexcept {
  return peer_banner_.has_feature(feature) &&
         std::find(our_features_.begin(), our_features_.end(), feature) != our_features_.end();
}

bool Connection::connected() const noexcept {
  detail::MutexLock lock(mutex_);
  return phase_ == Phase::online && !closing_;
}

ConnectionInfo Connection::info() const {
  detail::MutexLock lock(mutex_);
  return info_;
}

std::unique_ptr<StreamBackend> Connection::open(std::string_view service, Deadline deadline,
                                                detail::Failure& failure) {
  auto state = std::make_shared<StreamState>(std::string(service), StreamState::Phase::opening);
  {
    detail::MutexLock lock(mutex_);
    if (phase_ != Phase::online) {
      failure = phase_ == Phase::failed
                    ? failure_
                    : detail::Failure{make_error_code(errc::closed), target_ + " is not connected"};
      return nullptr;
    }
    live_.emplace(state.get(), state);
  }
  auto stream = std::make_unique<SessionStream>(shared_from_this(), state);
  asio::post(io_, [this, state] { do_open(state, state->service); });

  detail::MutexLock lock(state->mutex);
  const bool settled = detail::wait_until(
      state->changed, lock, deadline,
      [&]() ADBWIRE_REQUIRES(state->mutex) { return state->phase != StreamState::Phase::opening; });
  if (!settled) {
    failure.set(errc::timeout,
                target_ + " did not open '" + state->service + "' before the deadline");
    return nullptr;
  }
  if (state->phase == StreamState::Phase::failed) {
    failure = state->failure;
    return nullptr;
  }
  return stream;
}

void Connection::post_close_stream(const std::shared_ptr<StreamState>& state) {
  {
    detail::MutexLock lock(state->mutex);
    if (state->locally_closed) return;
    state->locally_closed = true;
    state->chunks.clear();
    state->front_offset = 0;
    state->queued_charge = 0;
    state->unacknowledged = 0;
    state->unacknowledged_charge = 0;
    if (state->phase == StreamState::Phase::opening || state->phase == StreamState::Phase::open) {
      state->phase = StreamState::Phase::failed;
      state->failure.set(errc::closed, "'" + state->service + "' was closed");
    }
  }
  state->changed.notify_all();
  forget(state.get());
  asio::post(io_, [this, state] { do_close(state); });
}

void Connection::forget(const StreamState* state) {
  detail::MutexLock lock(mutex_);
  live_.erase(state);
}

void Connection::close() noexcept {
  {
    detail::MutexLock lock(mutex_);
    if (closing_) return;
    closing_ = true;
  }
  if (thread_.joinable()) {
    asio::post(io_, [this] {
      fail(make_error_code(errc::closed), "the connection to " + target_ + " was closed");
      io_.stop();
    });
    thread_.join();
  } else {
    fail(make_error_code(errc::closed), "the connection to " + target_ + " was closed");
  }
}

// ---- I/O thread ---------------------------------------------------------------------------

void Connection::start_read() {
  transport_->async_read_some(read_buffer_, [this](const std::error_code& error,
                                                   std::size_t bytes) { on_read(error, bytes); });
}

void Connection::on_read(const std::error_code& error, std::size_t bytes) {
  if (error) {
    if (tls_ != nullptr && tls_->failure()) {
      fail(tls_->failure().code, tls_->failure().detail);
      return;
    }
    const bool online = session_.state() == protocol::SessionState::online;
    if (!online && public_key_sent_) {
      // A device that hangs up on an offered key refused it (a "Deny", a bridge that checks
      // keys): that is an authorization answer, not a lost link.
      fail(make_error_code(errc::unauthorized),
           target_ +
               " hung up after this host offered its key: it refused the RSA key "
               "fingerprint " +
               keys_.front().fingerprint() +
               ". Allow USB debugging for this computer on the device (or add the key to its "
               "adb_keys), then retry");
      return;
    }
    fail(make_error_code(errc::device_offline),
         online ? "lost the connection to " + target_ + " (" + error.message() + ")"
                : target_ + " hung up during the ADB handshake (" + error.message() +
                      "): it refused this host or is not an adbd port");
    return;
  }
  const std::error_code session_error = session_.receive(std::span(read_buffer_.data(), bytes));
  handle_events();
  // Acknowledgements leave before readers wake: a woken reader must not delay the device.
  if (!session_error) flush();
  for (const auto& state : to_wake_) state->changed.notify_all();
  to_wake_.clear();
  if (session_error) {
    fail(make_error_code(errc::protocol_error),
         target_ + " broke the ADB protocol: " + session_.error_detail());
    return;
  }
  if (!stopped_) start_read();
}

void Connection::handle_events() {
  protocol::Event event;
  while (session_.next_event(event)) {
    // Expected failures (a refused key, a bad OPEN, a broken TLS handshake) reach fail()
    // without throwing. What can still throw is exceptional: OpenSSL unable to sign
    // (PrivateKey::sign_token; the session already refused tokens that are not 20 bytes), no
    // memory, no thread left for a reverse connection's pumps (IncomingStreams::adopt). An
    // exception must not leave the I/O thread, which would end the process: it ends this
    // connection instead.
    try {
      handle_event(event);
    } catch (const Error& error) {
      fail(error.code(), error.detail());
    } catch (const std::exception& error) {
      fail(make_error_code(errc::io_error), error.what());
    }
  }
}

std::shared_ptr<Connection::StreamState> Connection::find(std::uint32_t id) const {
  const auto found = streams_by_id_.find(id);
  return found == streams_by_id_.end() ? nullptr : found->second;
}

void Connection::handle_event(protocol::Event& event) {
  using Type = protocol::Event::Type;
  switch (event.type) {
    case Type::online:
      went_online();
      return;
    case Type::auth_token:
      answer_auth_token(event.data);
      return;
    case Type::stls_requested:
      start_tls();
      return;
    case Type::stream_ready:
      if (auto state = find(event.stream)) {
        {
          detail::MutexLock lock(state->mutex);
          if (state->phase == StreamState::Phase::opening) state->phase = StreamState::Phase::open;
        }
        state->changed.notify_all();
      }
      return;
    case Type::stream_data:
      if (auto state = find(event.stream)) {
        if (event.data.empty()) {
          session_.acknowledge(event.stream, 0);
          return;
        }
        // Acknowledged here, as it arrives, while the queue ahead of it is under the bound:
        // the device sends the next payload while the reader copies this one. Past the bound
        // the reader acknowledges as it drains (read_some), so an unread stream holds the
        // device back.
        const std::size_t size = event.data.size();
        bool acknowledge_now = false;
        {
          detail::MutexLock lock(state->mutex);
          if (state->locally_closed) return;
          acknowledge_now = state->unacknowledged == 0 && state->queued_charge < acknowledge_ahead_;
          state->queued_charge += size + kChunkOverhead;
          if (!acknowledge_now) {
            state->unacknowledged += size;
            state->unacknowledged_charge += size + kChunkOverhead;
          }
          state->chunks.push_back(std::move(event.data));
        }
        if (acknowledge_now) session_.acknowledge(event.stream, size);
        // One wake-up per batch of received messages, not one per message.
        if (to_wake_.empty() || to_wake_.back() != state) to_wake_.push_back(std::move(state));
      }
      return;
    case Type::stream_writable:
      if (auto state = find(event.stream); state && state->write_waiting != 0) {
        {
          detail::MutexLock lock(state->mutex);
          state->writes_done = std::max(state->writes_done, state->write_waiting);
        }
        state->write_waiting = 0;
        state->changed.notify_all();
      }
      return;
    case Type::stream_closed:
      if (auto state = find(event.stream)) {
        streams_by_id_.erase(event.stream);
        {
          detail::MutexLock lock(state->mutex);
          if (state->phase == StreamState::Phase::opening) {
            state->phase = StreamState::Phase::failed;
            state->failure.set(errc::not_supported,
                               target_ + " refused to open '" + state->service +
                                   "' (unknown service, or not available on this device)");
          } else if (state->phase == StreamState::Phase::open) {
            state->phase = StreamState::Phase::ended;
          }
        }
        state->changed.notify_all();
        forget(state.get());
      }
      return;
    case Type::open_requested:
      answer_open(event);
      return;
    case Type::auth_signature:
    case Type::auth_public_key:
    case Type::auth_token_needed:
    case Type::stls_accepted:
      return;  // device-role events; a host session never produces them
  }
}

bool Connection::set_incoming(std::shared_ptr<detail::IncomingStreams> handler) {
  detail::MutexLock lock(mutex_);
  incoming_ = std::move(handler);
  return true;
}

void Connection::answer_open(const protocol::Event& event) {
  std::shared_ptr<detail::IncomingStreams> incoming;
  {
    detail::MutexLock lock(mutex_);
    incoming = incoming_;
  }
  if (!incoming || !incoming->accepts(event.service)) {
    session_.refuse_open(event.stream);
    return;
  }
  auto state = std::make_shared<StreamState>(event.service, StreamState::Phase::open);
  state->id = event.stream;
  session_.accept_open(event.stream);
  streams_by_id_[event.stream] = state;
  {
    detail::MutexLock lock(mutex_);
    live_.emplace(state.get(), state);
  }
  incoming->adopt(event.service, std::make_unique<SessionStream>(shared_from_this(), state));
}

void Connection::went_online() {
  peer_banner_ = session_.peer_banner();
  {
    detail::MutexLock lock(mutex_);
    if (phase_ != Phase::handshaking) return;
    phase_ = Phase::online;
    if (public_key_sent_) {
      info_.auth = AuthMethod::public_key;
    } else if (next_key_ > 0) {
      info_.auth = AuthMethod::signature;
      info_.key_fingerprint = keys_[next_key_ - 1].fingerprint();
    }
    info_.version = session_.negotiated_version();
    info_.max_payload = session_.negotiated_max_payload();
    acknowledge_ahead_ = info_.max_payload;
    info_.delayed_ack = session_.delayed_ack();
    if (tls_ != nullptr) {
      info_.auth = AuthMethod::tls;
      info_.key_fingerprint = keys_[tls_->key_index()].fingerprint();
      info_.tls = true;
      info_.tls_version = tls_->version();
      info_.tls_cipher = tls_->cipher();
      info_.tls_peer_fingerprint = tls_->peer_key_fingerprint();
    }
  }
  phase_changed_.notify_all();
}

// The device answered CNXN with STLS: answer STLS in the clear, then everything, starting
// with the device's CNXN, runs inside TLS with a certificate made from our adb key.
void Connection::start_tls() {
  if (!load_keys()) return;
  session_.send_stls();
  const std::span<const std::uint8_t> stls = session_.pending_output();
  std::vector<std::uint8_t> clear(stls.begin(), stls.end());
  session_.consume_output(stls.size());
  detail::Failure why;
  auto tls = transport::TlsTransport::start(io_, std::move(transport_), std::move(clear),
                                            session_.bytes_after_stls(), keys_, target_, why);
  if (!tls) {
    fail(why.code, why.detail);
    return;
  }
  tls_ = tls.get();
  transport_ = std::move(tls);
}

void Connection::flush() {
  if (stopped_) return;
  pump_.flush(session_, *transport_, [this](const std::error_code& error) {
    if (error) {
      fail(make_error_code(errc::device_offline),
           "lost the connection to " + target_ + " while sending (" + error.message() + ")");
      return;
    }
    flush();
  });
}

void Connection::fail(std::error_code code, std::string detail) {
  std::vector<std::shared_ptr<StreamState>> waiting;
  detail::Failure why;
  {
    detail::MutexLock lock(mutex_);
    if (phase_ == Phase::failed) return;
    phase_ = Phase::failed;
    failure_.set(code, std::move(detail));
    why = failure_;
    for (auto& [key, weak] : live_) {
      if (auto state = weak.lock()) waiting.push_back(std::move(state));
    }
    live_.clear();
  }
  phase_changed_.notify_all();
  for (const auto& state : waiting) state->fail(why);
  streams_by_id_.clear();
  stopped_ = true;
  if (transport_) transport_->close();
}

void Connection::do_open(const std::shared_ptr<StreamState>& state, const std::string& service) {
  {
    detail::MutexLock lock(state->mutex);
    if (state->locally_closed || state->phase != StreamState::Phase::opening) return;
  }
  std::error_code error;
  const std::uint32_t id = session_.open_stream(service, error);
  if (error) {
    detail::Failure why;
    if (error == errc::busy) {
      why.set(errc::busy, "too many streams open on " + target_ + "; close some first");
    } else if (error == errc::invalid_argument) {
      why.set(errc::invalid_argument, "cannot open an empty service name");
    } else {
      why.set(errc::device_offline,
              "cannot open '" + service + "' on " + target_ + ": " + error.message());
    }
    state->fail(why);
    forget(state.get());
    return;
  }
  state->id = id;
  streams_by_id_[id] = state;
  flush();
}

void Connection::do_write(const std::shared_ptr<StreamState>& state,
                          const std::vector<std::uint8_t>& data, std::uint64_t ticket) {
  if (state->id == 0 || find(state->id) != state) return;
  if (const std::error_code error = session_.write(state->id, data)) {
    detail::Failure why;
    why.set(errc::closed, "cannot write to '" + state->service + "': " + error.message());
    state->fail(why);
    return;
  }
  if (session_.queued(state->id) <= kSendHighWater) {
    {
      detail::MutexLock lock(state->mutex);
      state->writes_done = std::max(state->writes_done, ticket);
    }
    state->changed.notify_all();
  } else {
    state->write_waiting = ticket;
  }
  flush();
}

void Connection::do_acknowledge(const std::shared_ptr<StreamState>& state, std::size_t bytes) {
  if (state->id == 0 || find(state->id) != state) return;
  session_.acknowledge(state->id, bytes);
  flush();
}

void Connection::do_close(const std::shared_ptr<StreamState>& state) {
  if (state->id == 0 || find(state->id) != state) return;
  session_.close_stream(state->id);
  flush();
}

}  // namespace adbwire::connection
