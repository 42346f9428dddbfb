// Ctrl-C and cancellation for the binding's blocking calls. A Python signal handler runs only
// on the main thread and only between bytecodes, so a call that waits inside the library would
// see KeyboardInterrupt only once it returned. Calls made on the main thread therefore run on a
// helper thread while the main thread waits in slices and checks for signals; a signal cancels
// the call's CancelScope, which closes every stream the call opened (the call then ends at once
// with ClosedError, the connection untouched), and the handler's exception propagates.
// adbwire.aio cancels a task's call the same way.
#pragma once

#include <pybind11/pybind11.h>

#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "adbwire/device.hpp"
#include "base/cancel_token.hpp"

namespace adbwire {
class StreamBackend;
}  // namespace adbwire

namespace adbwire::python {

namespace py = pybind11;

// The calls one thread runs for one Python call, which another thread may end at once: cancel()
// closes each stream they opened (a call waiting on one wakes with ClosedError), fails the
// opens that follow with errc::cancelled and cancels token() (Page.call's verbs check it).
// Thread safe.
class CancelScope : public std::enable_shared_from_this<CancelScope> {
 public:
  void cancel() noexcept;
  bool cancelled() const noexcept;
  const detail::CancelToken& token() const noexcept { return token_; }

  // The stream backend the opener made for a call in this scope, wrapped so that cancel()
  // closes it; nullptr with failure set (and the stream closed) when cancelled meanwhile.
  std::unique_ptr<StreamBackend> adopt(std::unique_ptr<StreamBackend> backend,
                                       detail::Failure& failure);
  // Called by an adopted backend as it goes; it is not closed by cancel() after that.
  void forget(StreamBackend* backend) noexcept;

 private:
  mutable std::mutex mutex_;
  bool cancelled_ = false;
  std::vector<StreamBackend*> open_;  // the inner backends of adopted streams still alive
  detail::CancelToken token_;
};

// The scope of the call this thread is running; null outside one.
CancelScope* current_scope() noexcept;

// Makes scope the current scope of this thread while it lives.
class ScopeEntry {
 public:
  explicit ScopeEntry(CancelScope* scope) noexcept;
  ~ScopeEntry();
  ScopeEntry(const ScopeEntry&) = delete;
  ScopeEntry& operator=(const ScopeEntry&) = delete;

 private:
  CancelScope* previous_;
};

// device, whose streams from now on join the scope of the thread that opens them. What the
// binding does to every Device it connects.
Device cancellable(Device device);

// One blocking call handed to a helper thread.
struct Work {
  std::function<void()> run;  // called without the GIL, in scope
  std::shared_ptr<CancelScope> scope = std::make_shared<CancelScope>();
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;  // guarded by mutex
  std::exception_ptr error;
  // What the helper asks the waiting thread to run (on_caller), and what that threw; guarded
  // by mutex.
  const std::function<void()>* call = nullptr;
  std::exception_ptr call_error;
};

// Runs f on the thread that made the current call: the waiting main thread when this is a
// helper running its call (so Python callbacks run on the thread that called, as they did before
// calls were handed over), else here. f takes the GIL itself; what it throws is thrown here.
void on_caller(const std::function<void()>& f);

// True when a call made here must run on a helper thread to be interruptible: this is the main
// thread (the one Python runs signal handlers on) and no scope is current. Needs the GIL.
bool interrupt_needs_helper();

// Runs work on a helper thread and waits for it, the GIL released, checking for Python signals
// every 100 ms. When a handler raises (Ctrl-C: KeyboardInterrupt), work's scope is cancelled
// and, once work has ended (at once: its streams are closed) or, with abandon, straight away,
// the handler's exception propagates; otherwise what work threw does. Needs the GIL.
void run_on_helper(const std::shared_ptr<Work>& work, bool abandon);

// f() with the GIL released, interruptible by Ctrl-C (see above). f may refer to the caller's
// locals: it has ended when this returns or throws. Needs the GIL.
template <typename F>
auto interruptible(F&& f) -> std::decay_t<std::invoke_result_t<F&>> {
  using R = std::decay_t<std::invoke_result_t<F&>>;
  if (!interrupt_needs_helper()) {
    py::gil_scoped_release release;
    return f();
  }
  auto work = std::make_shared<Work>();
  if constexpr (std::is_void_v<R>) {
    work->run = [&f] { f(); };
    run_on_helper(work, false);
  } else {
    std::optional<R> result;
    work->run = [&f, &result] { result.emplace(f()); };
    run_on_helper(work, false);
    return std::move(*result);
  }
}

// As interruptible, for work that closing streams cannot cut short (a connection's handshake):
// on Ctrl-C it is left to end by its own deadline and its result dropped. f is moved in and
// must own what it uses.
template <typename F>
auto interruptible_or_left(F f) -> std::invoke_result_t<F&> {
  using R = std::invoke_result_t<F&>;
  if (!interrupt_needs_helper()) {
    py::gil_scoped_release release;
    return f();
  }
  auto result = std::make_shared<std::optional<R>>();
  auto work = std::make_shared<Work>();
  work->run = [f = std::move(f), result]() mutable { result->emplace(f()); };
  run_on_helper(work, true);
  return std::move(**result);
}

// adbwire._adbwire.CancelScope, for adbwire.aio.
void bind_interrupt(py::module_& module);

}  // namespace adbwire::python
