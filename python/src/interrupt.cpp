// CancelScope, the opener that puts streams into the current scope, and the helper threads the
// main thread's calls run on (interrupt.hpp).
#include "interrupt.hpp"

#include <pythread.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <string>
#include <thread>
#include <utility>

#include "connection/stream_backend.hpp"
#include "connection/stream_opener.hpp"

namespace adbwire::python {
namespace {

constexpr std::chrono::milliseconds kSignalCheck{100};

thread_local CancelScope* current = nullptr;
thread_local Work* current_work = nullptr;

// A stream of a call in a scope: the scope closes it when cancelled, until it goes.
class ScopedBackend final : public StreamBackend {
 public:
  ScopedBackend(std::shared_ptr<CancelScope> scope, std::unique_ptr<StreamBackend> inner)
      : scope_(std::move(scope)), inner_(std::move(inner)) {}
  ~ScopedBackend() override { scope_->forget(inner_.get()); }
  ScopedBackend(const ScopedBackend&) = delete;
  ScopedBackend& operator=(const ScopedBackend&) = delete;

  std::size_t read_some(std::span<std::uint8_t> buffer, Deadline deadline,
                        detail::Failure& failure) override {
    return inner_->read_some(buffer, deadline, failure);
  }
  std::size_t read_chunk(std::vector<std::uint8_t>& chunk, std::size_t max, Deadline deadline,
                         detail::Failure& failure) override {
    return inner_->read_chunk(chunk, max, deadline, failure);
  }
  void write(std::span<const std::uint8_t> data, Deadline deadline,
             detail::Failure& failure) override {
    inner_->write(data, deadline, failure);
  }
  void close() noexcept override { inner_->close(); }
  bool is_open() const noexcept override { return inner_->is_open(); }

 private:
  std::shared_ptr<CancelScope> scope_;
  std::unique_ptr<StreamBackend> inner_;
};

// The connection of a Device, each stream opened in a scope joining it. Owns the Device, so
// the connection closes when the last handle on it goes, as before.
class ScopedOpener final : public StreamOpener {
 public:
  explicit ScopedOpener(Device device) : device_(std::move(device)) {}

  std::unique_ptr<StreamBackend> open(std::string_view service, Deadline deadline,
                                      detail::Failure& failure) override {
    CancelScope* scope = current;
    if (scope != nullptr && scope->cancelled()) {
      failure.set(errc::cancelled, "the call was cancelled");
      return nullptr;
    }
    auto backend = inner().open(service, deadline, failure);
    if (backend == nullptr || scope == nullptr) return backend;
    return scope->adopt(std::move(backend), failure);
  }
  const protocol::Banner& banner() const noexcept override { return inner().banner(); }
  bool can_use_feature(std::string_view feature) const noexcept override {
    return inner().can_use_feature(feature);
  }
  std::string serial() const override { return inner().serial(); }
  ConnectionInfo info() const override { return inner().info(); }
  void close() noexcept override { inner().close(); }
  bool connected() const noexcept override { return inner().connected(); }
  bool set_incoming(std::shared_ptr<detail::IncomingStreams> handler) override {
    return inner().set_incoming(std::move(handler));
  }

 private:
  StreamOpener& inner() const noexcept { return *device_.opener(); }

  Device device_;
};

// Threads that run the main thread's calls: one per call at a time, kept for the next call
// (a thread per call would cost more than a warm command). Never destroyed: a helper may still
// be finishing an abandoned connect as the interpreter exits.
class Helpers {
 public:
  void submit(std::shared_ptr<Work> work) {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(std::move(work));
    if (idle_ >= queue_.size()) {
      ready_.notify_one();
      return;
    }
    std::thread([this] { serve(); }).detach();
  }

 private:
  void serve() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      ++idle_;
      ready_.wait(lock, [this] { return !queue_.empty(); });
      --idle_;
      std::shared_ptr<Work> work = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      {
        const ScopeEntry entry(work->scope.get());
        current_work = work.get();
        try {
          work->run();
        } catch (...) {
          work->error = std::current_exception();
        }
        current_work = nullptr;
      }
      {
        std::lock_guard<std::mutex> done_lock(work->mutex);
        work->done = true;
      }
      work->finished.notify_all();
      work.reset();
      lock.lock();
    }
  }

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::shared_ptr<Work>> queue_;
  std::size_t idle_ = 0;
};

Helpers& helpers() {
  static auto* const instance = new Helpers;
  return *instance;
}

}  // namespace

void CancelScope::cancel() noexcept {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    cancelled_ = true;
    // close() never blocks, and a backend leaves open_ (forget) before it is destroyed.
    for (StreamBackend* backend : open_) backend->close();
  }
  token_.cancel();
}

bool CancelScope::cancelled() const noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  return cancelled_;
}

std::unique_ptr<StreamBackend> CancelScope::adopt(std::unique_ptr<StreamBackend> backend,
                                                  detail::Failure& failure) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!cancelled_) {
      open_.push_back(backend.get());
      return std::make_unique<ScopedBackend>(shared_from_this(), std::move(backend));
    }
  }
  backend->close();
  failure.set(errc::cancelled, "the call was cancelled");
  return nullptr;
}

void CancelScope::forget(StreamBackend* backend) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  open_.erase(std::remove(open_.begin(), open_.end(), backend), open_.end());
}

CancelScope* current_scope() noexcept { return current; }

ScopeEntry::ScopeEntry(CancelScope* scope) noexcept : previous_(current) { current = scope; }
ScopeEntry::~ScopeEntry() { current = previous_; }

Device cancellable(Device device) {
  const auto timeout = device.command_timeout();
  const auto limits = device.output_limits();
  return Device(std::make_shared<ScopedOpener>(std::move(device)), timeout, limits);
}

bool interrupt_needs_helper() {
  if (current != nullptr) return false;
  static const unsigned long main_thread =
      py::module_::import("threading").attr("main_thread")().attr("ident").cast<unsigned long>();
  return PyThread_get_thread_ident() == main_thread;
}

void on_caller(const std::function<void()>& f) {
  Work* work = current_work;
  if (work == nullptr) {
    f();
    return;
  }
  std::unique_lock<std::mutex> lock(work->mutex);
  work->call = &f;
  work->finished.notify_all();
  work->finished.wait(lock, [&] { return work->call == nullptr; });
  if (work->call_error) std::rethrow_exception(std::exchange(work->call_error, nullptr));
}

namespace {

// Waits (the GIL released) until work is done, true, or `until` passes, false, meanwhile
// running what the helper asks of this thread (on_caller).
bool wait_serving(Work& work, std::optional<Clock::time_point> until) {
  py::gil_scoped_release release;
  std::unique_lock<std::mutex> lock(work.mutex);
  for (;;) {
    const auto ready = [&] { return work.done || work.call != nullptr; };
    if (until) {
      if (!work.finished.wait_until(lock, *until, ready)) return false;
    } else {
      work.finished.wait(lock, ready);
    }
    if (work.done) return true;
    const std::function<void()>* call = work.call;
    lock.unlock();
    std::exception_ptr error;
    try {
      (*call)();
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    work.call = nullptr;
    work.call_error = error;
    work.finished.notify_all();
  }
}

}  // namespace

void run_on_helper(const std::shared_ptr<Work>& work, bool abandon) {
  helpers().submit(work);
  while (!wait_serving(*work, Clock::now() + kSignalCheck)) {
    if (PyErr_CheckSignals() != 0) {
      const py::error_already_set interrupted;
      work->scope->cancel();
      if (!abandon) wait_serving(*work, std::nullopt);
      throw interrupted;
    }
  }
  if (work->error) std::rethrow_exception(work->error);
}

void bind_interrupt(py::module_& module) {
  py::class_<CancelScope, std::shared_ptr<CancelScope>>(
      module, "CancelScope",
      "The adbwire calls one function makes, which another thread may end at once: cancel() "
      "closes the streams they opened (each call then ends with ClosedError; the connection "
      "stays usable) and fails the calls that follow with CancelledError. What adbwire.aio "
      "runs each call in.")
      .def(py::init([] { return std::make_shared<CancelScope>(); }))
      .def(
          "run",
          [](CancelScope& scope, const py::function& function, const py::args& args,
             const py::kwargs& kwargs) {
            const ScopeEntry entry(&scope);
            return function(*args, **kwargs);
          },
          py::arg("function"),
          "function(*args, **kwargs) with this scope current on this thread: the adbwire calls "
          "it makes here (not on threads it starts) join the scope.")
      .def(
          "cancel",
          [](CancelScope& scope) {
            py::gil_scoped_release release;
            scope.cancel();
          },
          "Ends the scope's calls (see the class); never blocks for long. Idempotent.")
      .def_property_readonly("cancelled", &CancelScope::cancelled, "True once cancel() ran.");
}

}  // namespace adbwire::python
