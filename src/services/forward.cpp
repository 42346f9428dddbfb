// Forwarder: local TCP listeners (one asio thread accepts for every rule) and bridged
// connections (one thread per direction, blocking, a 64 KiB buffer each), plus the
// device-initiated streams of reverse rules, taken through StreamOpener::set_incoming.
#include "adbwire/forward.hpp"

#include <sys/socket.h>

#include <algorithm>
#include <asio/executor_work_guard.hpp>
#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/post.hpp>
#include <asio/write.hpp>
#include <atomic>
#include <future>
#include <optional>
#include <thread>

#include "adbwire/error.hpp"
#include "adbwire/protocol/bytes.hpp"
#include "adbwire/protocol/printable.hpp"
#include "adbwire/protocol/smart_socket.hpp"
#include "base/failure.hpp"
#include "base/mutex.hpp"
#include "base/port.hpp"
#include "connection/stream_opener.hpp"
#include "transport/close_on_exec.hpp"

namespace adbwire {

using detail::Failure;
using detail::or_code;
using detail::or_throw;

namespace {

constexpr std::size_t kPipeBuffer = 64 * 1024;

std::optional<std::uint16_t> tcp_port(std::string_view spec) {
  if (!spec.starts_with("tcp:")) return std::nullopt;
  return detail::parse_listen_port(spec.substr(4));
}

}  // namespace

// One bridged connection: a TCP socket and a device stream.
struct Pipe {
  explicit Pipe(asio::ip::tcp::socket s, std::string key)
      : socket(std::move(s)), rule(std::move(key)) {}

  // Ends both directions; any thread. The socket is shut down (which wakes a blocked read),
  // never closed here: the pipe's threads still use it.
  void shutdown() noexcept {
    detail::MutexLock lock(mutex);
    ending = true;
    stream.close();
    if (socket.is_open()) ::shutdown(socket.native_handle(), SHUT_RDWR);
  }

  asio::ip::tcp::socket socket;
  const std::string rule;  // the forward rule's local spec; "" for reverse
  detail::Mutex mutex;
  // Set once, with mutex held, before the pump threads start; they then use it without the
  // mutex (Stream's calls are safe beside a close() from any thread), so it is not annotated.
  Stream stream;
  bool ending ADBWIRE_GUARDED_BY(mutex) = false;
  std::thread owner;
  std::atomic<bool> done{false};
};

struct Forwarder::Impl : std::enable_shared_from_this<Impl> {
  struct Rule {
    std::string remote;
    std::shared_ptr<asio::ip::tcp::acceptor> acceptor;  // touched on the io thread only
  };

  std::shared_ptr<StreamOpener> opener;
  std::chrono::milliseconds timeout{0};
  std::string serial;
  asio::io_context io;
  asio::executor_work_guard<asio::io_context::executor_type> work{io.get_executor()};
  std::thread io_thread;
  bool incoming_supported = false;

  mutable detail::Mutex mutex;
  // Forward rules, in the order made.
  std::vector<std::pair<std::string, Rule>> rules ADBWIRE_GUARDED_BY(mutex);
  // Host sides of reverse rules: the device OPENs accepted.
  std::vector<std::string> reverse_targets ADBWIRE_GUARDED_BY(mutex);
  std::vector<std::shared_ptr<Pipe>> pipes ADBWIRE_GUARDED_BY(mutex);
  bool stopped ADBWIRE_GUARDED_BY(mutex) = false;

  std::atomic<std::uint64_t> connections{0};
  std::atomic<std::uint64_t> to_device{0};
  std::atomic<std::uint64_t> from_device{0};
  std::atomic<std::uint64_t> refused{0};

  // Each public operation once, against a Failure; the Forwarder's overload pairs wrap them.
  struct Ops;

  // Runs fn on the io thread and waits for it (acceptors are used on that thread only).
  template <typename Fn>
  auto on_io(Fn fn) -> decltype(fn()) {
    std::packaged_task<decltype(fn())()> task(std::move(fn));
    auto result = task.get_future();
    asio::post(io, [&task] { task(); });
    return result.get();
  }

  // Joins pipes that ended.
  void reap_locked() ADBWIRE_REQUIRES(mutex) {
    std::erase_if(pipes, [](const std::shared_ptr<Pipe>& pipe) {
      if (!pipe->done) return false;
      if (pipe->owner.joinable()) pipe->owner.join();
      return true;
    });
  }

  void start_pipe(std::shared_ptr<Pipe> pipe, std::string remote, Stream opened) {
    detail::MutexLock lock(mutex);
    reap_locked();
    if (stopped) {
      if (pipe->socket.is_open()) ::shutdown(pipe->socket.native_handle(), SHUT_RDWR);
      opened.close();
      return;
    }
    ++connections;
    pipes.push_back(pipe);
    pipe->owner = std::thread([self = shared_from_this(), pipe, remote = std::move(remote),
                               opened = std::move(opened)]() mutable {
      self->run_pipe(*pipe, remote, std::move(opened));
      pipe->done = true;
    });
  }

  // The pipe's owner thread: opens the side still missing (the device stream of a forward
  // connection, the TCP connection of a reverse one), then pumps host → device itself and
  // device → host on a second thread until either side ends.
  void run_pipe(Pipe& pipe, const std::string& remote, Stream opened) {
    if (!opened.is_open()) {
      Failure failure;
      auto backend = opener->open(remote, deadline_after(timeout), failure);
      if (!backend) {
        pipe.shutdown();
        return;
      }
      opened = Stream(std::move(backend), timeout);
    } else {
      std::error_code error;
      transport::open_close_on_exec(pipe.socket, asio::ip::tcp::v4(), error);
      if (!error)
        pipe.socket.connect({asio::ip::address_v4::loopback(), tcp_port(remote).value_or(0)},
                            error);
      if (error) {
        opened.close();
        return;
      }
      pipe.socket.set_option(asio::ip::tcp::no_delay(true), error);
    }
    {
      detail::MutexLock lock(pipe.mutex);
      if (pipe.ending) {
        opened.close();
        ::shutdown(pipe.socket.native_handle(), SHUT_RDWR);
        return;
      }
      pipe.stream = std::move(opened);
    }
    std::thread down([this, &pipe] {
      std::vector<std::uint8_t> buffer(kPipeBuffer);
      for (;;) {
        std::error_code error;
        const std::size_t n = pipe.stream.read_some(buffer, kNoDeadline, error);
        if (error || n == 0) break;
        asio::write(pipe.socket, asio::buffer(buffer.data(), n), error);
        if (error) break;
        from_device += n;
      }
      pipe.shutdown();
    });
    std::vector<std::uint8_t> buffer(kPipeBuffer);
    for (;;) {
      std::error_code error;
      const std::size_t n = pipe.socket.read_some(asio::buffer(buffer), error);
      if (error || n == 0) break;
      pipe.stream.write({buffer.data(), n}, kNoDeadline, error);
      if (error) break;
      to_device += n;
    }
    pipe.shutdown();
    down.join();
    std::error_code ignored;
    pipe.socket.close(ignored);
  }

  void accept(const std::string& key, const std::shared_ptr<asio::ip::tcp::acceptor>& acceptor,
              const std::string& remote) {
    acceptor->async_accept([weak = weak_from_this(), key, acceptor, remote](
                               std::error_code error, asio::ip::tcp::socket socket) {
      auto self = weak.lock();
      if (!self || error == asio::error::operation_aborted || !acceptor->is_open()) return;
      if (!error) transport::set_close_on_exec(socket, error);
      if (!error) {
        socket.set_option(asio::ip::tcp::no_delay(true), error);
        self->start_pipe(std::make_shared<Pipe>(std::move(socket), key), remote, Stream());
      }
      self->accept(key, acceptor, remote);
    });
  }

  // Ends the pipes of one forward rule ("" for reverse ones) or of all (nullptr) and joins
  // them.
  void end_pipes(const std::string* rule) {
    std::vector<std::shared_ptr<Pipe>> ending;
    {
      detail::MutexLock lock(mutex);
      std::erase_if(pipes, [&](const std::shared_ptr<Pipe>& pipe) {
        if (rule != nullptr && pipe->rule != *rule) return false;
        ending.push_back(pipe);
        return true;
      });
    }
    for (const auto& pipe : ending) pipe->shutdown();
    for (const auto& pipe : ending) {
      if (pipe->owner.joinable()) pipe->owner.join();
    }
  }

  Deadline resolve(Deadline deadline) const {
    return deadline == kDefaultDeadline ? deadline_after(timeout) : deadline;
  }

  // Opens reverse:COMMAND and returns what follows the device's OKAY; FAIL becomes
  // command_failed with the device's text.
  std::string ask_reverse(const std::string& command, Deadline deadline, Failure& failure) {
    if (!opener) {
      failure = detail::moved_from_device();
      return {};
    }
    if (!incoming_supported) {
      failure.set(errc::not_supported, serial +
                                           " is reached through an adb server, which carries "
                                           "reverse rules itself: use `adb reverse`");
      return {};
    }
    deadline = resolve(deadline);
    auto backend = opener->open("reverse:" + command, deadline, failure);
    if (!backend) return {};
    Stream stream(std::move(backend), timeout);
    std::error_code error;
    const std::string answer = stream.read_all(deadline, error);
    if (error) {
      failure = detail::reported(error);
      return {};
    }
    // adbd answers list-forward with the hex4-length listing alone.
    if (command == "list-forward" && !answer.starts_with("OKAY") && !answer.starts_with("FAIL"))
      return answer;
    protocol::SmartReplyReader reader;
    reader.feed(protocol::bytes_of(answer));
    protocol::SmartStatus status;
    if (reader.read_status(status) != protocol::SmartReplyReader::Result::ready) {
      failure.set(errc::protocol_error,
                  "reverse " + command + " on " + serial + " answered '" +
                      protocol::printable(answer, 40) +
                      (answer.starts_with("FAIL") ? "', a FAIL without its length-prefixed reason"
                                                  : "', neither OKAY nor FAIL"));
      return {};
    }
    if (!status.okay) {
      failure.set(errc::command_failed, "reverse " + command + " on " + serial +
                                            " failed: " + protocol::printable(status.message));
      return {};
    }
    const std::vector<std::uint8_t> rest = reader.take_remaining();
    return {rest.begin(), rest.end()};
  }

  // The hex4-length-prefixed string of an answer ("" when there is none).
  static std::string length_prefixed(const std::string& text, Failure& failure) {
    if (text.size() < 4) return {};
    protocol::SmartReplyReader reader;
    reader.feed(protocol::bytes_of(text));
    std::string string;
    if (reader.read_string(string) != protocol::SmartReplyReader::Result::ready) {
      failure.set(errc::parse_error, "a reverse answer's length prefix is malformed: '" +
                                         protocol::printable(text, 40) + "'");
      return {};
    }
    return string;
  }

  // Routes the device's OPENs to the Forwarder: only registered reverse host sides pass.
  class Incoming final : public detail::IncomingStreams {
   public:
    explicit Incoming(std::weak_ptr<Impl> impl) : impl_(std::move(impl)) {}

    bool accepts(std::string_view service) override {
      auto impl = impl_.lock();
      if (!impl) return false;
      detail::MutexLock lock(impl->mutex);
      const bool known =
          !impl->stopped && std::find(impl->reverse_targets.begin(), impl->reverse_targets.end(),
                                      service) != impl->reverse_targets.end();
      if (!known) ++impl->refused;
      return known;
    }

    void adopt(std::string service, std::unique_ptr<StreamBackend> backend) override {
      auto impl = impl_.lock();
      Stream stream(std::move(backend), impl ? impl->timeout : std::chrono::milliseconds(0));
      if (!impl) return;
      impl->start_pipe(std::make_shared<Pipe>(asio::ip::tcp::socket(impl->io), ""), service,
                       std::move(stream));
    }

   private:
    std::weak_ptr<Impl> impl_;
  };

  void shutdown() noexcept {
    {
      detail::MutexLock lock(mutex);
      if (stopped) return;
      stopped = true;
    }
    if (incoming_supported) opener->set_incoming(nullptr);
    asio::post(io, [this] {
      detail::MutexLock lock(mutex);
      for (auto& [local, rule] : rules) {
        std::error_code ignored;
        rule.acceptor->close(ignored);
      }
      work.reset();
    });
    if (io_thread.joinable()) io_thread.join();
    end_pipes(nullptr);
  }
};

Forwarder::Forwarder(Device& device) : impl_(std::make_shared<Impl>()) {
  Impl& d = *impl_;
  d.opener = device.opener();
  d.timeout = device.command_timeout();
  d.serial = d.opener ? d.opener->serial() : std::string("a moved-from Device");
  d.incoming_supported =
      d.opener && d.opener->set_incoming(std::make_shared<Impl::Incoming>(impl_));
  d.io_thread = std::thread([&d] { d.io.run(); });
}

Forwarder::~Forwarder() { impl_->shutdown(); }

struct Forwarder::Impl::Ops {
  static std::string forward(Impl& d, std::string_view local, std::string_view remote,
                             bool no_rebind, Failure& failure) {
    const auto port = tcp_port(local);
    if (!port) {
      failure.set(
          errc::invalid_argument,
          "forward listens on 'tcp:PORT' (tcp:0 picks a port), not '" + std::string(local) + "'");
      return {};
    }
    if (remote.empty()) {
      failure.set(errc::invalid_argument,
                  "forward needs a device service (tcp:PORT, localabstract:NAME …)");
      return {};
    }
    if (!d.opener) {
      failure = detail::moved_from_device();
      return {};
    }
    return d.on_io([&]() -> std::string {
      detail::MutexLock lock(d.mutex);
      if (d.stopped) {
        failure.set(errc::closed, "the Forwarder is shutting down");
        return {};
      }
      auto existing = std::find_if(d.rules.begin(), d.rules.end(),
                                   [&](const auto& r) { return r.first == local; });
      if (existing != d.rules.end() && *port != 0) {
        if (no_rebind) {
          failure.set(errc::busy, "cannot rebind existing socket " + std::string(local));
          return {};
        }
        std::error_code ignored;
        existing->second.acceptor->close(ignored);
        d.rules.erase(existing);
      }
      auto acceptor = std::make_shared<asio::ip::tcp::acceptor>(d.io);
      const asio::ip::tcp::endpoint endpoint(asio::ip::address_v4::loopback(), *port);
      std::error_code error;
      transport::open_close_on_exec(*acceptor, endpoint.protocol(), error);
      if (!error) acceptor->set_option(asio::ip::tcp::acceptor::reuse_address(true), error);
      if (!error) acceptor->bind(endpoint, error);
      if (!error) acceptor->listen(asio::socket_base::max_listen_connections, error);
      if (error) {
        failure.set(error == asio::error::address_in_use ? errc::busy : errc::io_error,
                    "cannot listen on 127.0.0.1:" + std::to_string(*port) + ": " + error.message());
        return {};
      }
      std::string key = "tcp:" + std::to_string(acceptor->local_endpoint().port());
      d.rules.push_back({key, {std::string(remote), acceptor}});
      d.accept(key, acceptor, std::string(remote));
      return key;
    });
  }

  static void remove(Impl& d, std::string_view local, Failure& failure) {
    const std::string key(local);
    const bool found = d.on_io([&] {
      detail::MutexLock lock(d.mutex);
      auto it = std::find_if(d.rules.begin(), d.rules.end(),
                             [&](const auto& r) { return r.first == key; });
      if (it == d.rules.end()) return false;
      std::error_code ignored;
      it->second.acceptor->close(ignored);
      d.rules.erase(it);
      return true;
    });
    if (!found) {
      failure.set(errc::not_found, "listener '" + key + "' not found");
      return;
    }
    d.end_pipes(&key);
  }

  static std::string reverse(Impl& d, std::string_view device_side, std::string_view host_side,
                             bool no_rebind, Deadline deadline, Failure& failure) {
    if (!tcp_port(host_side) || tcp_port(host_side) == 0) {
      failure.set(errc::invalid_argument, "reverse connects to 'tcp:PORT' on this host, not '" +
                                              std::string(host_side) + "'");
      return {};
    }
    if (device_side.find(':') == std::string_view::npos) {
      failure.set(errc::invalid_argument,
                  "'" + std::string(device_side) +
                      "' is not a device socket (tcp:PORT, localabstract:NAME …)");
      return {};
    }
    bool added = false;
    {
      // Registered before the device is asked, so a connection that comes at once is accepted.
      detail::MutexLock lock(d.mutex);
      if (std::find(d.reverse_targets.begin(), d.reverse_targets.end(), host_side) ==
          d.reverse_targets.end()) {
        d.reverse_targets.emplace_back(host_side);
        added = true;
      }
    }
    const std::string rest =
        d.ask_reverse(std::string("forward:") + (no_rebind ? "norebind:" : "") +
                          std::string(device_side) + ";" + std::string(host_side),
                      deadline, failure);
    std::string port = failure ? std::string() : Impl::length_prefixed(rest, failure);
    if (failure && added) {
      detail::MutexLock lock(d.mutex);
      std::erase(d.reverse_targets, std::string(host_side));
    }
    return port;
  }

  static std::vector<ForwardRule> reverse_list(Impl& d, Deadline deadline, Failure& failure) {
    const std::string answer = d.ask_reverse("list-forward", deadline, failure);
    if (failure) return {};
    const std::string listing = Impl::length_prefixed(answer, failure);
    if (failure) return {};
    // "TRANSPORT DEVICE_SIDE HOST_SIDE" lines, as host:list-forward writes them.
    std::vector<protocol::ForwardEntry> entries;
    std::string detail;
    if (protocol::parse_forward_list(listing, entries, detail)) {
      failure.set(errc::parse_error, "reverse --list: " + protocol::printable(detail));
      return {};
    }
    std::vector<ForwardRule> rules;
    for (protocol::ForwardEntry& entry : entries)
      rules.push_back({std::move(entry.local), std::move(entry.remote)});
    return rules;
  }

  static void reverse_remove(Impl& d, std::string_view device_side, Deadline deadline,
                             Failure& failure) {
    std::string host_side;
    for (const ForwardRule& rule : reverse_list(d, deadline, failure)) {
      if (rule.local == device_side) host_side = rule.remote;
    }
    if (failure) return;
    d.ask_reverse("killforward:" + std::string(device_side), deadline, failure);
    if (failure) return;
    detail::MutexLock lock(d.mutex);
    std::erase(d.reverse_targets, host_side);
  }

  static void reverse_remove_all(Impl& d, Deadline deadline, Failure& failure) {
    d.ask_reverse("killforward-all", deadline, failure);
    if (failure) return;
    detail::MutexLock lock(d.mutex);
    d.reverse_targets.clear();
  }
};

std::string Forwarder::forward(std::string_view local, std::string_view remote, bool no_rebind) {
  return or_throw(
      [&](Failure& f) { return Impl::Ops::forward(*impl_, local, remote, no_rebind, f); });
}

std::string Forwarder::forward(std::string_view local, std::string_view remote, bool no_rebind,
                               std::error_code& error) {
  return or_code(
      error, [&](Failure& f) { return Impl::Ops::forward(*impl_, local, remote, no_rebind, f); });
}

std::vector<ForwardRule> Forwarder::list() const {
  detail::MutexLock lock(impl_->mutex);
  std::vector<ForwardRule> out;
  for (const auto& [local, rule] : impl_->rules) out.push_back({local, rule.remote});
  return out;
}

void Forwarder::remove(std::string_view local) {
  or_throw([&](Failure& f) { Impl::Ops::remove(*impl_, local, f); });
}

void Forwarder::remove(std::string_view local, std::error_code& error) {
  or_code(error, [&](Failure& f) { Impl::Ops::remove(*impl_, local, f); });
}

void Forwarder::remove_all() noexcept {
  for (const ForwardRule& rule : list()) {
    Failure ignored;
    Impl::Ops::remove(*impl_, rule.local, ignored);
  }
}

std::string Forwarder::reverse(std::string_view device_side, std::string_view host_side,
                               bool no_rebind, Deadline deadline) {
  return or_throw([&](Failure& f) {
    return Impl::Ops::reverse(*impl_, device_side, host_side, no_rebind, deadline, f);
  });
}

std::string Forwarder::reverse(std::string_view device_side, std::string_view host_side,
                               bool no_rebind, Deadline deadline, std::error_code& error) {
  return or_code(error, [&](Failure& f) {
    return Impl::Ops::reverse(*impl_, device_side, host_side, no_rebind, deadline, f);
  });
}

std::vector<ForwardRule> Forwarder::reverse_list(Deadline deadline) {
  return or_throw([&](Failure& f) { return Impl::Ops::reverse_list(*impl_, deadline, f); });
}

std::vector<ForwardRule> Forwarder::reverse_list(Deadline deadline, std::error_code& error) {
  return or_code(error, [&](Failure& f) { return Impl::Ops::reverse_list(*impl_, deadline, f); });
}

void Forwarder::reverse_remove(std::string_view device_side, Deadline deadline) {
  or_throw([&](Failure& f) { Impl::Ops::reverse_remove(*impl_, device_side, deadline, f); });
}

void Forwarder::reverse_remove(std::string_view device_side, Deadline deadline,
                               std::error_code& error) {
  or_code(error, [&](Failure& f) { Impl::Ops::reverse_remove(*impl_, device_side, deadline, f); });
}

void Forwarder::reverse_remove_all(Deadline deadline) {
  or_throw([&](Failure& f) { Impl::Ops::reverse_remove_all(*impl_, deadline, f); });
}

void Forwarder::reverse_remove_all(Deadline deadline, std::error_code& error) {
  or_code(error, [&](Failure& f) { Impl::Ops::reverse_remove_all(*impl_, deadline, f); });
}

ForwardStats Forwarder::stats() const {
  const Impl& d = *impl_;
  return {d.connections.load(), d.to_device.load(), d.from_device.load(), d.refused.load()};
}

}  // namespace adbwire
