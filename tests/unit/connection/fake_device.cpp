#include "unit/connection/fake_device.hpp"

#include <asio/post.hpp>
#include <charconv>
#include <chrono>
#include <future>

#include "adbwire/protocol/bytes.hpp"
#include "adbwire/protocol/shell_v2.hpp"
#include "transport/memory_pipe.hpp"

namespace adbwire::test {
namespace {

protocol::SessionOptions device_session(const FakeDeviceOptions& options) {
  protocol::SessionOptions session;
  session.role = protocol::Role::device;
  session.banner.system_type = "device";
  session.banner.properties = {{"ro.product.name", "fake"}, {"ro.product.model", "Fake"}};
  session.banner.features = options.features;
  session.max_payload = options.max_payload;
  session.delayed_ack_window = options.delayed_ack_window;
  if (options.delayed_ack_window != 0) session.banner.features.emplace_back("delayed_ack");
  return session;
}

}  // namespace

FakeDevice::FakeDevice(FakeDeviceOptions options)
    : options_(std::move(options)),
      work_(asio::make_work_guard(io_)),
      thread_([this] { io_.run(); }),
      session_(device_session(options_)),
      read_buffer_(64 * 1024) {}

FakeDevice::~FakeDevice() {
  asio::post(io_, [this] {
    if (transport_) transport_->close();
    io_.stop();
  });
  thread_.join();
}

template <class F>
auto FakeDevice::run_on_device(F f) -> decltype(f()) {
  std::packaged_task<decltype(f())()> task(std::move(f));
  auto result = task.get_future();
  asio::post(io_, [&task] { task(); });
  return result.get();
}

connection::TransportFactory FakeDevice::factory() {
  return [this](asio::io_context& host_io, Deadline, detail::Failure&) {
    auto [host_end, device_end] = transport::make_memory_pipe(host_io, io_, "memory:fake");
    run_on_device([this, end = std::move(device_end)]() mutable {
      transport_ = std::move(end);
      transport_->async_read_some(
          read_buffer_, [this](const std::error_code& e, std::size_t n) { on_read(e, n); });
      return 0;
    });
    return std::move(host_end);
  };
}

void FakeDevice::drop() {
  run_on_device([this] {
    transport_->close();
    return 0;
  });
}

void FakeDevice::send_raw(std::vector<std::uint8_t> bytes) {
  run_on_device([this, bytes = std::move(bytes)] {
    auto buffer = std::make_shared<std::vector<std::uint8_t>>(bytes);
    transport_->async_write(*buffer, [buffer](const std::error_code&, std::size_t) {});
    return 0;
  });
}

void FakeDevice::release_waiting() {
  run_on_device([this] {
    for (std::uint32_t stream : waiting_) {
      session_.write(stream, protocol::bytes_of("done"));
      session_.close_stream(stream);
    }
    waiting_.clear();
    flush();
    return 0;
  });
}

bool FakeDevice::wait_open_streams(std::size_t count) {
  detail::MutexLock lock(mutex_);
  return detail::wait_until(changed_, lock, deadline_after(std::chrono::seconds(30)),
                            [&]() ADBWIRE_REQUIRES(mutex_) { return open_count_ >= count; });
}

bool FakeDevice::wait_received(std::size_t bytes) {
  detail::MutexLock lock(mutex_);
  return detail::wait_until(changed_, lock, deadline_after(std::chrono::seconds(30)),
                            [&]() ADBWIRE_REQUIRES(mutex_) { return received_ >= bytes; });
}

std::size_t FakeDevice::received_bytes() {
  detail::MutexLock lock(mutex_);
  return received_;
}

std::size_t FakeDevice::queued_for_host() {
  return run_on_device([this] {
    std::size_t total = 0;
    for (std::uint32_t stream : open_) total += session_.queued(stream);
    return total;
  });
}

void FakeDevice::on_read(const std::error_code& error, std::size_t bytes) {
  if (error) return;
  if (options_.answer_handshake || session_.state() == protocol::SessionState::online) {
    session_.receive(std::span(read_buffer_.data(), bytes));
    handle_events();
    flush();
  }
  if (session_.state() == protocol::SessionState::failed) return;
  transport_->async_read_some(read_buffer_,
                              [this](const std::error_code& e, std::size_t n) { on_read(e, n); });
}

void FakeDevice::handle_events() {
  protocol::Event event;
  while (session_.next_event(event)) {
    switch (event.type) {
      case protocol::Event::Type::open_requested:
        answer_open(event.stream, event.service);
        break;
      case protocol::Event::Type::stream_data:
        if (sinks_.count(event.stream)) {
          detail::MutexLock lock(mutex_);
          received_ += event.data.size();
        }
        changed_.notify_all();
        session_.acknowledge(event.stream, event.data.size());
        break;
      case protocol::Event::Type::stream_closed:
        sinks_.erase(event.stream);
        waiting_.erase(event.stream);
        if (open_.erase(event.stream) != 0) {
          detail::MutexLock lock(mutex_);
          --open_count_;
        }
        break;
      default:
        break;
    }
  }
}

void FakeDevice::answer_open(std::uint32_t stream, const std::string& service) {
  const auto starts = [&](std::string_view prefix) { return service.starts_with(prefix); };
  if (starts("never:")) return;
  if (!(starts("exec:") || starts("sink:") || starts("shell,v2,raw:") || starts("shell:"))) {
    session_.refuse_open(stream);
    return;
  }
  session_.accept_open(stream);
  open_.insert(stream);
  {
    detail::MutexLock lock(mutex_);
    ++open_count_;
  }
  changed_.notify_all();

  if (starts("sink:")) {
    sinks_.insert(stream);
  } else if (service == "exec:wait") {
    waiting_.insert(stream);
  } else if (starts("exec:echo ")) {
    session_.write(stream, protocol::bytes_of(service.substr(10)));
    session_.close_stream(stream);
  } else if (starts("exec:source ")) {
    std::size_t size = 0;
    std::from_chars(service.data() + 12, service.data() + service.size(), size);
    std::vector<std::uint8_t> data(size);
    for (std::size_t i = 0; i < size; ++i) data[i] = source_byte(i);
    session_.write(stream, data);
    session_.close_stream(stream);
  } else if (starts("shell,v2,raw:")) {
    const std::string command = service.substr(13);
    int status = 0;
    if (command.starts_with("exit "))
      std::from_chars(command.data() + 5, command.data() + command.size(), status);
    std::vector<std::uint8_t> out;
    protocol::append_shell_packet(out, protocol::ShellPacketId::stdout_data,
                                  protocol::bytes_of(command));
    protocol::append_shell_packet(out, protocol::ShellPacketId::stderr_data,
                                  protocol::bytes_of("err:" + command));
    const std::uint8_t code = static_cast<std::uint8_t>(status);
    protocol::append_shell_packet(out, protocol::ShellPacketId::exit_status, std::span(&code, 1));
    session_.write(stream, out);
    session_.close_stream(stream);
  } else if (starts("shell:")) {
    session_.write(stream, protocol::bytes_of(service.substr(6)));
    session_.close_stream(stream);
  } else {
    session_.close_stream(stream);
  }
}

void FakeDevice::flush() {
  if (!transport_) return;
  pump_.flush(session_, *transport_, [this](const std::error_code& error) {
    if (!error) flush();
  });
}

}  // namespace adbwire::test
