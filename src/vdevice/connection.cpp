#include "vdevice/connection.hpp"

#include <asio/post.hpp>
#include <asio/write.hpp>
#include <openssl/rand.h>

#include <array>
#include <cstdio>
#include <random>
#include <utility>

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

}  // namespace

Connection::Connection(asio::ip::tcp::socket socket, protocol::SessionOptions options, DeviceContext& device,
                       const AuthorizedKeys& keys)
    : socket_(std::move(socket)), session_(std::move(options)), device_(device), keys_(keys) {
  std::error_code error;
  auto endpoint = socket_.remote_endpoint(error);
  peer_ = error ? "unknown peer" : endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
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
  services_.clear();
  reverse_rules_.reset();
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
  socket_.async_read_some(asio::buffer(read_buffer_), [self = shared_from_this()](std::error_code error, std::size_t n) {
    if (self->closed_) return;
    if (error) {
      // EOF or reset: the host went away, which is how adb disconnects.
      self->close();
      return;
    }
    std::error_code protocol_error = self->session_.receive({self->read_buffer_.data(), n});
    self->process();
    if (protocol_error) {
      std::fprintf(stderr, "adbwire vdevice: %s: %s (%s); closing this connection\n", self->peer_.c_str(),
                   protocol_error.message().c_str(), self->session_.error_detail().c_str());
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

void Connection::handle(protocol::Event& event) {
  using Type = protocol::Event::Type;
  switch (event.type) {
    case Type::auth_token_needed:
      send_fresh_token(false);
      break;
    case Type::auth_signature:
      if (keys_.verify(session_.auth_token(), event.data)) {
        session_.accept_auth();
      } else {
        send_fresh_token(true);
      }
      break;
    case Type::auth_public_key:
      // Not accepted: the host stays unauthorized, as with a dialog nobody answers.
      if (keys_.offer({reinterpret_cast<const char*>(event.data.data()), event.data.size()})) session_.accept_auth();
      break;
    case Type::open_requested: {
      std::string_view destination = event.service;
      while (!destination.empty() && destination.back() == '\0') destination.remove_suffix(1);
      auto service = open_service(destination, *this, event.stream);
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
    case Type::online:
    case Type::auth_token:
    case Type::stls_requested:
      break;
  }
}

void Connection::flush() {
  if (writing_ || closed_) return;
  auto pending = session_.pending_output();
  if (pending.empty()) return;
  write_buffer_.assign(pending.begin(), pending.end());
  session_.consume_output(pending.size());
  writing_ = true;
  asio::async_write(socket_, asio::buffer(write_buffer_), [self = shared_from_this()](std::error_code error, std::size_t) {
    self->writing_ = false;
    if (self->closed_) return;
    if (error) {
      self->close();
      return;
    }
    self->flush();
  });
}

}  // namespace adbwire::vdevice
