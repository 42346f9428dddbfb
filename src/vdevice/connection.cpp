#include "vdevice/connection.hpp"

#include <openssl/rand.h>

#include <algorithm>
#include <array>
#include <asio/post.hpp>
#include <asio/write.hpp>
#include <cstdio>
#include <random>
#include <utility>

#include "adbwire/protocol/bytes.hpp"
#include "vdevice/reverse_rules.hpp"

namespace adbwire::vdevice {
namespace {

constexpr std::size_t kReadSize = 64 * 1024;

std::array<std::uint8_t, protocol::kAuthTokenSize> random_token() {
  std::array<std::uint8_t, protocol::kAuthTokenSize> token{};
  if (RAND_bytes(token.data(), static_cast<int>(token.size())) != 1) {
    std::random_device random;
    for (auto& byte : token) byte = static_cast<std::uint8_t>(random());
  }
  return token;
}

// The session's output through the TLS link, as the pump takes it on a TLS-only port.
struct TlsOutput {
  TlsLink& link;
  protocol::Session& session;
  std::span<const std::uint8_t> pending_output() { return link.outbound(session); }
  void consume_output(std::size_t n) noexcept { link.consume(n); }
};

}  // namespace

Connection::Connection(asio::ip::tcp::socket socket, protocol::SessionOptions options,
                       DeviceContext& device, const AuthorizedKeys& keys, ConnectionFaultPlan fault)
    : socket_(std::move(socket)),
      session_(std::move(options)),
      device_(device),
      keys_(keys),
      fault_(fault),
      slow_timer_(socket_.get_executor()),
      auth_timer_(socket_.get_executor()) {
  std::error_code error;
  auto endpoint = socket_.remote_endpoint(error);
  peer_ = error ? "unknown peer"
                : endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
  socket_.set_option(asio::ip::tcp::no_delay(true), error);
}

void Connection::start() {
  session_.start();
  read();
}

void Connection::close() {
  if (closed_) return;
  closed_ = true;
  std::error_code ignored;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
  slow_timer_.cancel();
  auth_timer_.cancel();
  services_.clear();
  reverse_rules_.reset();
  recording_.reset();
}

void Connection::adopt(std::uint32_t stream, std::shared_ptr<Service> service) {
  services_[stream] = std::move(service);
}

ReverseRules& Connection::reverse_rules() {
  if (!reverse_rules_) reverse_rules_ = std::make_shared<ReverseRules>(*this);
  return *reverse_rules_;
}

void Connection::wake() {
  if (wake_posted_ || closed_) return;
  wake_posted_ = true;
  asio::post(socket_.get_executor(), [self = shared_from_this()] {
    self->wake_posted_ = false;
    if (!self->closed_) self->process();
  });
}

void Connection::read() {
  read_buffer_.resize(kReadSize);
  socket_.async_read_some(asio::buffer(read_buffer_), [self = shared_from_this()](
                                                          std::error_code error, std::size_t n) {
    if (self->closed_) return;
    if (error) {
      // EOF or reset: the host went away, which is how adb disconnects.
      self->close();
      return;
    }
    if (self->stalled_) {
      // A stalled device keeps the socket open and reads nothing it acts on.
      self->read();
      return;
    }
    if (self->recording_)
      self->recording_->record(CaptureDirection::host_to_device, {self->read_buffer_.data(), n});
    std::span<const std::uint8_t> bytes(self->read_buffer_.data(), n);
    if (self->tls_ && !self->tls_->inbound(bytes, self->session_, bytes)) {
      self->tls_->report_failure(self->socket_, self->peer_);
      self->close();
      return;
    }
    std::error_code protocol_error = self->session_.receive(bytes);
    self->process();
    if (protocol_error) {
      std::fprintf(stderr, "adbwire vdevice: %s: %s (%s); closing this connection\n",
                   self->peer_.c_str(), protocol_error.message().c_str(),
                   self->session_.error_detail().c_str());
      self->close();
      return;
    }
    self->read();
  });
}

void Connection::process() {
  protocol::Event event;
  while (!closed_ && session_.next_event(event)) handle(event);
  if (closed_) return;
  // Services waiting for room continue now that acknowledgements may have arrived. Copy:
  // a service may close its stream meanwhile.
  std::vector<std::shared_ptr<Service>> services;
  services.reserve(services_.size());
  for (auto& [id, service] : services_) services.push_back(service);
  for (auto& service : services) service->resume();
  while (!closed_ && session_.next_event(event)) handle(event);
  flush();
}

void Connection::send_fresh_token(bool reject) {
  auto token = random_token();
  if (reject) {
    session_.reject_auth(token);
  } else {
    session_.send_auth_token(token);
  }
}

void Connection::answer_auth(bool accepted, bool offered_key) {
  const auto answer = [this, accepted, offered_key] {
    if (accepted) {
      session_.accept_auth();
    } else if (offered_key && device_.hang_up_on_refused_key()) {
      close();
    } else if (!offered_key) {
      send_fresh_token(true);
    }
  };
  if (device_.auth_delay().count() == 0) {
    answer();
    return;
  }
  auth_timer_.expires_after(device_.auth_delay());
  auth_timer_.async_wait([self = shared_from_this(), answer](std::error_code error) {
    if (error || self->closed_) return;
    answer();
    self->process();
  });
}

void Connection::handle(protocol::Event& event) {
  using Type = protocol::Event::Type;
  switch (event.type) {
    case Type::auth_token_needed:
      send_fresh_token(false);
      break;
    case Type::auth_signature:
      answer_auth(fault_.kind != ConnectionFault::refuse_auth &&
                      keys_.verify(session_.auth_token(), event.data),
                  false);
      break;
    case Type::auth_public_key:
      // Not accepted: the host stays unauthorized, as with a dialog nobody answers.
      answer_auth(
          fault_.kind != ConnectionFault::refuse_auth &&
              keys_.offer({reinterpret_cast<const char*>(event.data.data()), event.data.size()}),
          true);
      break;
    case Type::open_requested: {
      std::string_view destination = event.service;
      while (!destination.empty() && destination.back() == '\0') destination.remove_suffix(1);
      if (fault_.kind == ConnectionFault::close_streams) {
        session_.accept_open(event.stream);
        session_.close_stream(event.stream);
        break;
      }
      auto service =
          device_.refuses(destination) ? nullptr : open_service(destination, *this, event.stream);
      if (!service) {
        session_.refuse_open(event.stream);
        break;
      }
      session_.accept_open(event.stream);
      services_[event.stream] = service;
      service->start();
      break;
    }
    case Type::stream_data: {
      auto it = services_.find(event.stream);
      if (it != services_.end()) {
        auto service = it->second;
        service->on_data(event.data);
      } else {
        session_.acknowledge(event.stream, event.data.size());
      }
      break;
    }
    case Type::stream_writable: {
      auto it = services_.find(event.stream);
      if (it != services_.end()) {
        auto service = it->second;
        service->resume();
      }
      break;
    }
    case Type::stream_closed:
      services_.erase(event.stream);
      break;
    case Type::stream_ready: {
      // A stream this side opened (reverse forwarding) was accepted by the host.
      auto it = services_.find(event.stream);
      if (it != services_.end()) {
        auto service = it->second;
        service->start();
      }
      break;
    }
    case Type::stls_accepted:
      if (!tls_->start(session_.bytes_after_stls())) {
        tls_->report_failure(socket_, peer_);
        close();
      }
      break;
    case Type::online:
    case Type::auth_token:
    case Type::stls_requested:
      break;
  }
}

void Connection::flush() {
  if (closed_ || stalled_) return;
  if (tls_) {
    TlsOutput output{*tls_, session_};
    if (!pump_.take(output)) return;
  } else if (!pump_.take(session_)) {
    return;
  }
  after_write_ = apply_output_fault();
  // Recorded when issued, before the host can answer, so a recording's order stays causal.
  if (recording_) recording_->record(CaptureDirection::device_to_host, pump_.buffer());
  if (fault_.kind == ConnectionFault::slow) {
    slow_timer_.expires_after(fault_.delay);
    slow_timer_.async_wait([self = shared_from_this()](std::error_code) {
      if (self->closed_) {
        self->pump_.written();
        return;
      }
      self->write_pending();
    });
    return;
  }
  write_pending();
}

void Connection::write_pending() {
  asio::async_write(socket_, asio::buffer(pump_.buffer()),
                    [self = shared_from_this()](std::error_code error, std::size_t) {
                      self->pump_.written();
                      if (self->closed_) return;
                      if (error || self->after_write_ == AfterWrite::close) {
                        self->close();
                        return;
                      }
                      if (self->after_write_ == AfterWrite::stall) {
                        self->stalled_ = true;
                        return;
                      }
                      self->flush();
                    });
}

Connection::AfterWrite Connection::apply_output_fault() {
  std::vector<std::uint8_t>& bytes = pump_.buffer();
  AfterWrite after = AfterWrite::carry_on;
  switch (fault_.kind) {
    case ConnectionFault::drop:
    case ConnectionFault::stall: {
      const std::uint64_t budget =
          fault_.after_bytes > bytes_sent_ ? fault_.after_bytes - bytes_sent_ : 0;
      if (bytes.size() >= budget) {
        bytes.resize(budget);
        after = fault_.kind == ConnectionFault::drop ? AfterWrite::close : AfterWrite::stall;
      }
      break;
    }
    case ConnectionFault::corrupt_header: {
      // The session queues whole messages, so a header never straddles two writes.
      std::size_t at = 0;
      while (at < bytes.size()) {
        if (message_left_ == 0) {
          if (at + protocol::kHeaderSize > bytes.size()) break;
          const std::uint8_t* header = bytes.data() + at;
          const std::uint32_t length = protocol::load_le32(header + 12);
          if (messages_sent_ == fault_.after_messages) {
            for (std::size_t i = 20; i < 24; ++i) bytes[at + i] ^= 0xff;
          }
          ++messages_sent_;
          message_left_ = protocol::kHeaderSize + std::uint64_t{length};
        }
        const std::uint64_t step = std::min<std::uint64_t>(message_left_, bytes.size() - at);
        at += static_cast<std::size_t>(step);
        message_left_ -= step;
      }
      break;
    }
    case ConnectionFault::silent:
      if (bytes_sent_ == 0) after = AfterWrite::stall;  // the first write holds the CNXN
      break;
    case ConnectionFault::long_banner:
      if (bytes_sent_ == 0) pad_banner(bytes, fault_.after_bytes);
      break;
    case ConnectionFault::none:
    case ConnectionFault::slow:
    case ConnectionFault::refuse_auth:
    case ConnectionFault::close_streams:
      break;
  }
  bytes_sent_ += bytes.size();
  return after;
}

void Connection::pad_banner(std::vector<std::uint8_t>& bytes, std::uint64_t padding) {
  if (bytes.size() < protocol::kHeaderSize) return;
  const std::uint32_t length = protocol::load_le32(bytes.data() + 12);
  if (bytes.size() < protocol::kHeaderSize + length) return;
  std::string extra = ";ro.adbwire.padding=";
  extra.append(static_cast<std::size_t>(padding), 'x');
  const auto at = bytes.begin() + static_cast<std::ptrdiff_t>(protocol::kHeaderSize + length);
  bytes.insert(at, extra.begin(), extra.end());
  const std::uint32_t padded = length + static_cast<std::uint32_t>(extra.size());
  std::uint32_t sum = 0;
  for (std::size_t i = 0; i < padded; ++i) sum += bytes[protocol::kHeaderSize + i];
  protocol::store_le32(bytes.data() + 12, padded);
  protocol::store_le32(bytes.data() + 16, sum);
}

}  // namespace adbwire::vdevice
