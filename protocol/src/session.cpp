#include "adbwire/protocol/session.hpp"

#include <algorithm>
#include <deque>
#include <unordered_map>
#include <utility>

#include "adbwire/error.hpp"
#include "adbwire/protocol/bytes.hpp"

namespace adbwire::protocol {
namespace {

// OKAY credits travel as int32; keeping windows at or under 1 GiB means a window plus one
// message never overflows them.
constexpr std::uint32_t kMaxDelayedAckWindow = 1u << 30;

constexpr std::string_view kDelayedAckFeature = "delayed_ack";

std::vector<std::uint8_t> le32_bytes(std::uint32_t value) {
  std::vector<std::uint8_t> bytes;
  append_le32(bytes, value);
  return bytes;
}

std::string_view strip_trailing_nuls(std::string_view text) {
  while (!text.empty() && text.back() == '\0') text.remove_suffix(1);
  return text;
}

std::string name(std::uint32_t command) { return std::string(command_name(command)); }

enum class StreamState {
  opening,         // we sent OPEN, the peer has not answered
  pending_accept,  // the peer sent OPEN, the application has not answered
  open,
};

struct Stream {
  std::uint32_t local = 0;
  std::uint32_t remote = 0;
  StreamState state = StreamState::opening;
  bool close_requested = false;

  // Sending.
  std::vector<std::uint8_t> queue;
  std::size_t queue_offset = 0;
  bool wrte_in_flight = false;    // classic: a WRTE waits for the peer's OKAY
  std::int64_t send_credit = 0;   // delayed_ack: bytes the peer still accepts
  bool writable_pending = false;  // data was queued since the last stream_writable

  // Receiving.
  std::size_t unconsumed = 0;           // delivered in stream_data, not yet acknowledged
  std::int64_t receive_credit = 0;      // delayed_ack: bytes the peer may still send
  std::size_t consumed_unreported = 0;  // delayed_ack: acknowledged, not yet sent in an OKAY

  std::size_t queued() const noexcept { return queue.size() - queue_offset; }
};

}  // namespace

struct Session::Impl {
  SessionOptions options;
  Banner banner;  // ours, with delayed_ack present exactly when the window is non-zero
  std::string banner_text;

  SessionState state = SessionState::idle;
  std::error_code error;
  std::string error_detail;

  MessageReader reader{kMaxPayload};
  std::vector<Message> inbox;
  std::vector<std::uint8_t> output;
  std::size_t output_offset = 0;
  std::deque<Event> events;

  // Until the peer's CNXN arrives the link runs at the oldest version and smallest payload,
  // as AOSP's transports do: that is what every peer understands.
  bool peer_known = false;
  Banner peer_banner;
  std::uint32_t version = kVersionMin;
  std::uint32_t max_payload = kMaxPayloadV1;
  bool delayed_ack = false;

  std::vector<std::uint8_t> token;

  // STLS: device sent STLS (tls option); the peer's STLS arrived and input is held for the
  // TLS layer; the TLS handshake finished.
  bool stls_sent = false;
  bool holding_for_tls = false;
  bool tls_running = false;
  bool tls_requested = false;  // host: the device sent STLS
  std::vector<std::uint8_t> after_stls;

  std::unordered_map<std::uint32_t, Stream> streams;
  std::uint32_t next_local = 1;

  explicit Impl(SessionOptions opts) : options(std::move(opts)) {
    options.delayed_ack_window = std::min(options.delayed_ack_window, kMaxDelayedAckWindow);
    options.max_payload = std::max(options.max_payload, kMaxPayloadV1);
    // A side that speaks only checksummed versions checks every message, the first CNXN too,
    // as adbd before A_VERSION_SKIP_CHECKSUM did.
    reader.set_verify_checksum(options.version < kVersionSkipChecksum);
    banner = options.banner;
    std::erase(banner.features, std::string(kDelayedAckFeature));
    if (options.delayed_ack_window > 0) banner.features.emplace_back(kDelayedAckFeature);
    banner_text = format_banner(banner);
  }

  bool failed() const noexcept { return state == SessionState::failed; }

  void fail(errc code, std::string detail) {
    if (failed()) return;
    state = SessionState::failed;
    error = make_error_code(code);
    error_detail = std::move(detail);
  }
  void protocol_error(std::string detail) { fail(errc::protocol_error, std::move(detail)); }

  void send(std::uint32_t command, std::uint32_t arg0, std::uint32_t arg1,
            std::span<const std::uint8_t> payload) {
    if (output_offset > 0 && output_offset >= output.size() / 2) {
      output.erase(output.begin(), output.begin() + static_cast<std::ptrdiff_t>(output_offset));
      output_offset = 0;
    }
    // Before the peer's CNXN `version` is kVersionMin, so early CNXN/AUTH are checksummed.
    append_message(output, command, arg0, arg1, payload, version < kVersionSkipChecksum);
  }

  void push_event(Event::Type type, std::uint32_t stream = 0, std::vector<std::uint8_t> data = {}) {
    Event event;
    event.type = type;
    event.stream = stream;
    event.data = std::move(data);
    events.push_back(std::move(event));
  }

  // --- handshake

  void send_cnxn() {
    if (banner_text.size() > kMaxPayloadV1) {
      fail(errc::invalid_argument, "our CNXN banner is " + std::to_string(banner_text.size()) +
                                       " bytes; it must fit in " + std::to_string(kMaxPayloadV1) +
                                       " because an old peer accepts no more: list fewer features");
      return;
    }
    // The device answers with the negotiated payload size, the host offers its own (AOSP).
    const std::uint32_t offered = options.role == Role::host ? options.max_payload : max_payload;
    send(kCommandCnxn, options.version, offered, bytes_of(banner_text));
  }

  void send_auth(std::uint32_t type, std::span<const std::uint8_t> data, const char* what) {
    if (data.size() > kMaxPayloadV1) {
      fail(errc::invalid_argument, std::string(what) + " is " + std::to_string(data.size()) +
                                       " bytes; AUTH payloads must fit in " +
                                       std::to_string(kMaxPayloadV1));
      return;
    }
    send(kCommandAuth, type, 0, data);
  }

  void go_online() {
    state = SessionState::online;
    push_event(Event::Type::online);
  }

  void accept_peer_cnxn(const Message& m) {
    // Every adb since the first accepts 4096 bytes; a smaller offer is broken or hostile and
    // would not even fit an OPEN or a delayed_ack OKAY.
    if (m.arg1 < kMaxPayloadV1) {
      protocol_error("CNXN offers a max payload of " + std::to_string(m.arg1) +
                     " bytes; ADB peers accept at least " + std::to_string(kMaxPayloadV1));
      return;
    }
    peer_known = true;
    version = std::min(options.version, m.arg0);
    max_payload = std::min(options.max_payload, m.arg1);
    peer_banner = parse_banner(
        std::string_view(reinterpret_cast<const char*>(m.payload.data()), m.payload.size()));
    reader.set_max_payload(max_payload);
    reader.set_verify_checksum(version < kVersionSkipChecksum);
    delayed_ack = options.delayed_ack_window > 0 && peer_banner.has_feature(kDelayedAckFeature);
  }

  void on_cnxn(const Message& m) {
    if (state == SessionState::online) {
      protocol_error(
          "CNXN received on a connection that is already online: the peer restarted "
          "its side, reconnect");
      return;
    }
    if (options.role == Role::host) {
      if (state == SessionState::idle) {
        protocol_error("CNXN received before start() sent ours");
        return;
      }
      accept_peer_cnxn(m);
      if (!failed()) go_online();
      return;
    }
    accept_peer_cnxn(m);
    if (failed()) return;
    if (options.tls) {
      state = SessionState::handshaking;
      stls_sent = true;
      send(kCommandStls, kStlsVersion, 0, {});
      return;
    }
    if (options.auth_required) {
      state = SessionState::handshaking;
      push_event(Event::Type::auth_token_needed);
      return;
    }
    send_cnxn();
    if (!failed()) go_online();
  }

  void on_auth(Message& m) {
    if (options.role == Role::host) {
      // Once the device asked for TLS, the TLS client certificate is the authentication: AOSP's
      // host ignores AUTH from then on (adb.cpp, use_tls), and so do we.
      if (tls_requested) return;
      if (state != SessionState::handshaking && state != SessionState::awaiting_user) {
        protocol_error("AUTH received while the connection is " +
                       std::string(state == SessionState::online ? "online" : "not started"));
        return;
      }
      if (m.arg0 != kAuthToken) {
        protocol_error("device sent AUTH type " + std::to_string(m.arg0) +
                       "; a host only expects TOKEN (1)");
        return;
      }
      if (m.payload.size() != kAuthTokenSize) {
        protocol_error("AUTH TOKEN of " + std::to_string(m.payload.size()) + " bytes; adbd sends " +
                       std::to_string(kAuthTokenSize));
        return;
      }
      push_event(Event::Type::auth_token, 0, std::move(m.payload));
      return;
    }
    if (!peer_known) {
      protocol_error("AUTH received before the host's CNXN");
      return;
    }
    if (state == SessionState::online) {
      protocol_error("AUTH received on a connection that is already online");
      return;
    }
    switch (m.arg0) {
      case kAuthSignature:
        if (token.empty()) {
          protocol_error("AUTH SIGNATURE received before any TOKEN was sent");
          return;
        }
        push_event(Event::Type::auth_signature, 0, std::move(m.payload));
        return;
      case kAuthRsaPublicKey: {
        const std::string_view key = strip_trailing_nuls(
            std::string_view(reinterpret_cast<const char*>(m.payload.data()), m.payload.size()));
        push_event(Event::Type::auth_public_key, 0, {key.begin(), key.end()});
        return;
      }
      default:
        protocol_error("host sent AUTH type " + std::to_string(m.arg0) +
                       "; a device expects SIGNATURE (2) or RSAPUBLICKEY (3)");
    }
  }

  void on_stls() {
    if (options.role == Role::device) {
      if (!stls_sent) {
        protocol_error("host sent STLS; this device does not offer TLS");
        return;
      }
      if (tls_running) {
        protocol_error("host sent STLS a second time, inside TLS");
        return;
      }
      tls_running = true;
      holding_for_tls = true;
      push_event(Event::Type::stls_accepted);
      return;
    }
    if (state != SessionState::handshaking && state != SessionState::awaiting_user) {
      protocol_error("STLS received outside the handshake");
      return;
    }
    holding_for_tls = true;
    tls_requested = true;
    push_event(Event::Type::stls_requested);
  }

  // --- streams

  // The stream for an id the peer names as ours; nullptr for one we closed (a legitimate race:
  // the peer sent before it saw our CLSE) or after a protocol error.
  Stream* find_for(std::uint32_t command, std::uint32_t local) {
    if (next_local == 1) {
      protocol_error(name(command) + " for stream " + std::to_string(local) +
                     " before any OPEN: no stream exists yet");
      return nullptr;
    }
    if (local == 0 || local >= next_local) {
      protocol_error(name(command) + " for stream " + std::to_string(local) +
                     ", which was never opened (ids 1.." + std::to_string(next_local - 1) +
                     " exist)");
      return nullptr;
    }
    const auto it = streams.find(local);
    return it == streams.end() ? nullptr : &it->second;
  }

  bool check_remote(std::uint32_t command, const Stream& s, std::uint32_t remote) {
    if (remote == s.remote) return true;
    protocol_error(name(command) + " for stream " + std::to_string(s.local) + " from peer id " +
                   std::to_string(remote) + ", but that stream's peer id is " +
                   std::to_string(s.remote));
    return false;
  }

  void send_okay(const Stream& s, std::int64_t credit) {
    if (delayed_ack) {
      send(kCommandOkay, s.local, s.remote, le32_bytes(static_cast<std::uint32_t>(credit)));
    } else {
      send(kCommandOkay, s.local, s.remote, {});
    }
  }

  void close_now(std::uint32_t local, bool send_clse) {
    const auto it = streams.find(local);
    if (send_clse) send(kCommandClse, it->second.local, it->second.remote, {});
    streams.erase(it);
    Event event;
    event.type = Event::Type::stream_closed;
    event.stream = local;
    events.push_back(std::move(event));
  }

  // Sends queued data as credit allows; finishes a requested close once the queue is empty.
  // May erase the stream.
  void pump(Stream& s) {
    if (s.state != StreamState::open) return;
    while (s.queued() > 0) {
      std::size_t chunk = std::min<std::size_t>(s.queued(), max_payload);
      if (delayed_ack) {
        if (s.send_credit <= 0) break;
        chunk = std::min<std::size_t>(chunk, static_cast<std::size_t>(s.send_credit));
        s.send_credit -= static_cast<std::int64_t>(chunk);
      } else {
        if (s.wrte_in_flight) break;
        s.wrte_in_flight = true;
      }
      send(kCommandWrte, s.local, s.remote,
           std::span<const std::uint8_t>(s.queue.data() + s.queue_offset, chunk));
      s.queue_offset += chunk;
    }
    if (s.queued() == 0) {
      s.queue.clear();
      s.queue_offset = 0;
    } else if (s.queue_offset >= s.queue.size() / 2) {
      s.queue.erase(s.queue.begin(), s.queue.begin() + static_cast<std::ptrdiff_t>(s.queue_offset));
      s.queue_offset = 0;
    }
    if (s.queued() > 0) return;
    if (s.close_requested) {
      close_now(s.local, true);
      return;
    }
    // delayed_ack: the peer's credit already covers what is on the wire, so a drained queue
    // means the application may write more; classic: the last WRTE must be acknowledged too.
    if (s.writable_pending && (delayed_ack || !s.wrte_in_flight)) {
      s.writable_pending = false;
      push_event(Event::Type::stream_writable, s.local);
    }
  }

  void on_open(Message& m) {
    const std::uint32_t remote = m.arg0;
    if (remote == 0) {
      protocol_error("OPEN with stream id 0 (ids are never 0)");
      return;
    }
    const bool window_mismatch = delayed_ack ? m.arg1 == 0 : m.arg1 != 0;
    // A host serves peer OPENs only when its application checks them against its reverse
    // rules: a compromised device must not reach host sockets.
    const bool host_refuses = options.role == Role::host && !options.accept_peer_opens;
    if (host_refuses || window_mismatch || streams.size() >= options.max_streams ||
        next_local == 0) {
      send(kCommandClse, 0, remote, {});
      return;
    }
    Stream s;
    s.local = next_local++;
    s.remote = remote;
    s.state = StreamState::pending_accept;
    s.send_credit = delayed_ack ? static_cast<std::int64_t>(m.arg1) : 0;
    const std::string_view service = strip_trailing_nuls(
        std::string_view(reinterpret_cast<const char*>(m.payload.data()), m.payload.size()));
    Event event;
    event.type = Event::Type::open_requested;
    event.stream = s.local;
    event.service = std::string(service);
    streams.emplace(s.local, std::move(s));
    events.push_back(std::move(event));
  }

  void on_okay(Message& m) {
    Stream* s = find_for(kCommandOkay, m.arg1);
    if (s == nullptr) return;
    if (m.arg0 == 0) {
      protocol_error("OKAY for stream " + std::to_string(s->local) + " from peer id 0");
      return;
    }
    if (!m.payload.empty() && m.payload.size() != 4) {
      protocol_error("OKAY for stream " + std::to_string(s->local) + " carries " +
                     std::to_string(m.payload.size()) +
                     " payload bytes; it must carry nothing or a 4-byte credit");
      return;
    }
    const std::int64_t credit =
        m.payload.size() == 4 ? static_cast<std::int32_t>(load_le32(m.payload.data())) : 0;
    switch (s->state) {
      case StreamState::pending_accept:
        protocol_error("OKAY for stream " + std::to_string(s->local) +
                       ", which the peer opened and we have not accepted yet");
        return;
      case StreamState::opening:
        if (delayed_ack && m.payload.size() != 4) {
          protocol_error("first OKAY for stream " + std::to_string(s->local) +
                         " carries no initial window although delayed_ack was negotiated");
          return;
        }
        s->remote = m.arg0;
        s->state = StreamState::open;
        s->send_credit = credit;
        if (!s->close_requested) push_event(Event::Type::stream_ready, s->local);
        pump(*s);
        return;
      case StreamState::open:
        if (!check_remote(kCommandOkay, *s, m.arg0)) return;
        if (delayed_ack) {
          s->send_credit += credit;
        } else {
          s->wrte_in_flight = false;
        }
        pump(*s);
        return;
    }
  }

  void on_wrte(Message& m) {
    Stream* s = find_for(kCommandWrte, m.arg1);
    if (s == nullptr) return;
    const std::string id = std::to_string(s->local);
    if (s->state == StreamState::opening) {
      protocol_error("WRTE for stream " + id + " before the peer accepted our OPEN");
      return;
    }
    if (s->state == StreamState::pending_accept) {
      protocol_error("WRTE for stream " + id + " before we accepted the peer's OPEN");
      return;
    }
    if (!check_remote(kCommandWrte, *s, m.arg0)) return;
    const std::size_t size = m.payload.size();
    if (delayed_ack) {
      if (s->receive_credit <= 0) {
        protocol_error("WRTE for stream " + id + " beyond the delayed_ack window of " +
                       std::to_string(options.delayed_ack_window) +
                       " bytes: the peer sent without credit");
        return;
      }
      s->receive_credit -= static_cast<std::int64_t>(size);
    } else if (s->unconsumed > 0) {
      protocol_error("WRTE for stream " + id +
                     " without credit: the previous WRTE was not yet acknowledged with OKAY");
      return;
    }
    // Data for a stream we are closing (or an empty WRTE) is acknowledged at once: the
    // application will never consume it, and the peer must not stall on it.
    if (s->close_requested || size == 0) {
      if (delayed_ack) {
        if (size > 0) {
          s->receive_credit += static_cast<std::int64_t>(size);
          send_okay(*s, static_cast<std::int64_t>(size));
        }
      } else {
        send_okay(*s, 0);
      }
      return;
    }
    s->unconsumed += size;
    push_event(Event::Type::stream_data, s->local, std::move(m.payload));
  }

  void on_clse(const Message& m) {
    Stream* s = find_for(kCommandClse, m.arg1);
    if (s == nullptr) return;
    // CLSE(0, id) is how a peer refuses an OPEN; old adb also used it for ordinary closes.
    if (m.arg0 != 0 && s->state == StreamState::open && !check_remote(kCommandClse, *s, m.arg0)) {
      return;
    }
    const bool refused = s->state == StreamState::opening && m.arg0 == 0;
    const std::uint32_t local = s->local;
    streams.erase(local);
    Event event;
    event.type = Event::Type::stream_closed;
    event.stream = local;
    event.refused = refused;
    events.push_back(std::move(event));
  }

  void handle(Message& m) {
    // A TLS-only device takes nothing but the host's STLS until TLS has finished; adb hosts
    // older than 30 answer STLS in the clear.
    if (options.role == Role::device && stls_sent && state != SessionState::online &&
        (m.command != kCommandStls || tls_running)) {
      protocol_error("host sent " + name(m.command) +
                     (tls_running ? " before the TLS handshake finished"
                                  : " in the clear after this device asked for TLS (STLS)") +
                     ": this port requires TLS (Wireless debugging, adb 30 or later)");
      return;
    }
    switch (m.command) {
      case kCommandCnxn:
        on_cnxn(m);
        return;
      case kCommandAuth:
        on_auth(m);
        return;
      case kCommandStls:
        on_stls();
        return;
      case kCommandSync:
        protocol_error("obsolete SYNC message; no adb since 2009 sends it");
        return;
      default:
        break;
    }
    if (state != SessionState::online) {
      protocol_error(name(m.command) + " received before the connection came online");
      return;
    }
    switch (m.command) {
      case kCommandOpen:
        on_open(m);
        return;
      case kCommandOkay:
        on_okay(m);
        return;
      case kCommandWrte:
        on_wrte(m);
        return;
      case kCommandClse:
        on_clse(m);
        return;
      default:
        protocol_error("unknown command " + name(m.command));
    }
  }

  Stream* live(std::uint32_t stream) {
    if (failed()) return nullptr;
    const auto it = streams.find(stream);
    return it == streams.end() ? nullptr : &it->second;
  }
};

void Session::ImplDeleter::operator()(Impl* impl) const noexcept { delete impl; }

Session::Session(SessionOptions options) : impl_(new Impl(std::move(options))) {}

void Session::start() {
  Impl& d = *impl_;
  if (d.options.role != Role::host || d.state != SessionState::idle) return;
  d.state = SessionState::handshaking;
  d.send_cnxn();
}

std::error_code Session::receive(std::span<const std::uint8_t> bytes) {
  Impl& d = *impl_;
  while (!d.failed() && !bytes.empty()) {
    if (d.holding_for_tls) {
      d.after_stls.insert(d.after_stls.end(), bytes.begin(), bytes.end());
      break;
    }
    std::error_code read_error;
    d.inbox.clear();
    bytes = bytes.subspan(d.reader.feed_one(bytes, d.inbox, read_error));
    for (Message& m : d.inbox) {
      d.handle(m);
      if (d.failed()) break;
    }
    if (read_error) d.protocol_error(d.reader.error_detail());
  }
  return d.error;
}

std::vector<std::uint8_t> Session::bytes_after_stls() {
  Impl& d = *impl_;
  d.holding_for_tls = false;
  return std::exchange(d.after_stls, {});
}

void Session::send_stls() {
  Impl& d = *impl_;
  if (d.failed() || d.options.role != Role::host || d.state == SessionState::online) return;
  d.send(kCommandStls, kStlsVersion, 0, {});
}

void Session::finish_tls() {
  Impl& d = *impl_;
  if (d.failed() || d.options.role != Role::device || !d.tls_running ||
      d.state != SessionState::handshaking) {
    return;
  }
  d.send_cnxn();
  if (!d.failed()) d.go_online();
}

bool Session::next_event(Event& out) {
  Impl& d = *impl_;
  if (d.events.empty()) return false;
  out = std::move(d.events.front());
  d.events.pop_front();
  return true;
}

std::span<const std::uint8_t> Session::pending_output() const noexcept {
  const Impl& d = *impl_;
  return std::span<const std::uint8_t>(d.output).subspan(d.output_offset);
}

void Session::consume_output(std::size_t n) noexcept {
  Impl& d = *impl_;
  d.output_offset += std::min(n, d.output.size() - d.output_offset);
  if (d.output_offset == d.output.size()) {
    d.output.clear();
    d.output_offset = 0;
  }
}

SessionState Session::state() const noexcept { return impl_->state; }
std::error_code Session::error() const noexcept { return impl_->error; }
const std::string& Session::error_detail() const noexcept { return impl_->error_detail; }
const Banner& Session::peer_banner() const noexcept { return impl_->peer_banner; }
std::uint32_t Session::negotiated_version() const noexcept { return impl_->version; }
std::uint32_t Session::negotiated_max_payload() const noexcept { return impl_->max_payload; }
bool Session::delayed_ack() const noexcept { return impl_->delayed_ack; }

bool Session::can_use_feature(std::string_view feature) const noexcept {
  return impl_->peer_known && impl_->banner.has_feature(feature) &&
         impl_->peer_banner.has_feature(feature);
}

void Session::send_auth_signature(std::span<const std::uint8_t> signature) {
  Impl& d = *impl_;
  if (d.failed() || d.options.role != Role::host) return;
  d.state = SessionState::handshaking;
  d.send_auth(kAuthSignature, signature, "the AUTH signature");
}

void Session::send_auth_public_key(std::string_view key_line) {
  Impl& d = *impl_;
  if (d.failed() || d.options.role != Role::host) return;
  std::vector<std::uint8_t> data(key_line.begin(), key_line.end());
  data.push_back(0);  // adbd reads the key as a C string
  d.send_auth(kAuthRsaPublicKey, data, "the public key line");
  if (!d.failed()) d.state = SessionState::awaiting_user;
}

void Session::send_auth_token(std::span<const std::uint8_t> token) {
  Impl& d = *impl_;
  if (d.failed() || d.options.role != Role::device || d.state != SessionState::handshaking) return;
  d.token.assign(token.begin(), token.end());
  d.send_auth(kAuthToken, token, "the AUTH token");
}

std::span<const std::uint8_t> Session::auth_token() const noexcept { return impl_->token; }

void Session::accept_auth() {
  Impl& d = *impl_;
  if (d.failed() || d.options.role != Role::device || d.state != SessionState::handshaking) return;
  d.send_cnxn();
  if (!d.failed()) d.go_online();
}

void Session::reject_auth(std::span<const std::uint8_t> new_token) { send_auth_token(new_token); }

std::uint32_t Session::open_stream(std::string_view service, std::error_code& error) {
  Impl& d = *impl_;
  error.clear();
  if (d.state != SessionState::online) {
    error = make_error_code(errc::closed);
    return 0;
  }
  if (service.empty() || service.size() + 1 > d.max_payload) {
    error = make_error_code(errc::invalid_argument);
    return 0;
  }
  if (d.streams.size() >= d.options.max_streams || d.next_local == 0) {
    error = make_error_code(errc::busy);
    return 0;
  }
  Stream s;
  s.local = d.next_local++;
  s.state = StreamState::opening;
  s.receive_credit = d.delayed_ack ? d.options.delayed_ack_window : 0;
  std::vector<std::uint8_t> payload(service.begin(), service.end());
  payload.push_back(0);
  d.send(kCommandOpen, s.local, d.delayed_ack ? d.options.delayed_ack_window : 0, payload);
  const std::uint32_t local = s.local;
  d.streams.emplace(local, std::move(s));
  return local;
}

void Session::accept_open(std::uint32_t stream) {
  Impl& d = *impl_;
  Stream* s = d.live(stream);
  if (s == nullptr || s->state != StreamState::pending_accept) return;
  s->state = StreamState::open;
  s->receive_credit = d.delayed_ack ? d.options.delayed_ack_window : 0;
  d.send_okay(*s, d.options.delayed_ack_window);
  d.pump(*s);
}

void Session::refuse_open(std::uint32_t stream) {
  Impl& d = *impl_;
  Stream* s = d.live(stream);
  if (s == nullptr || s->state != StreamState::pending_accept) return;
  d.send(kCommandClse, 0, s->remote, {});
  d.streams.erase(stream);
}

std::error_code Session::write(std::uint32_t stream, std::span<const std::uint8_t> data) {
  Impl& d = *impl_;
  if (d.state != SessionState::online) return make_error_code(errc::closed);
  Stream* s = d.live(stream);
  if (s == nullptr || s->close_requested) return make_error_code(errc::not_found);
  if (data.empty()) return {};
  s->queue.insert(s->queue.end(), data.begin(), data.end());
  s->writable_pending = true;
  d.pump(*s);
  return {};
}

std::size_t Session::queued(std::uint32_t stream) const noexcept {
  const auto it = impl_->streams.find(stream);
  return it == impl_->streams.end() ? 0 : it->second.queued();
}

void Session::acknowledge(std::uint32_t stream, std::size_t bytes) {
  Impl& d = *impl_;
  Stream* s = d.live(stream);
  if (s == nullptr || s->unconsumed == 0) return;
  const std::size_t n = std::min(bytes, s->unconsumed);
  s->unconsumed -= n;
  if (!d.delayed_ack) {
    if (s->unconsumed == 0) d.send_okay(*s, 0);
    return;
  }
  s->consumed_unreported += n;
  // Batch credits: one OKAY per half window keeps the peer streaming without an OKAY per
  // WRTE; an idle receiver reports at once so small exchanges are not held back.
  if (s->consumed_unreported >= d.options.delayed_ack_window / 2 || s->unconsumed == 0) {
    const auto credit = static_cast<std::int64_t>(s->consumed_unreported);
    s->consumed_unreported = 0;
    s->receive_credit += credit;
    d.send_okay(*s, credit);
  }
}

void Session::close_stream(std::uint32_t stream) {
  Impl& d = *impl_;
  Stream* s = d.live(stream);
  if (s == nullptr || s->close_requested) return;
  if (s->state == StreamState::pending_accept) {
    d.send(kCommandClse, 0, s->remote, {});
    d.close_now(stream, false);
    return;
  }
  s->close_requested = true;
  d.pump(*s);
}

std::size_t Session::open_streams() const noexcept { return impl_->streams.size(); }

}  // namespace adbwire::protocol
