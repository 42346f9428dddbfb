#include "verbs/secrets_keyring.hpp"

#include <libsecret/secret.h>

#include <chrono>
#include <condition_variable>
#include <thread>
#include <utility>

#include "adbwire/error.hpp"
#include "adbwire/protocol/printable.hpp"
#include "base/mutex.hpp"

namespace adbwire::verbs {
namespace {

const SecretSchema* schema() {
  static const SecretSchema kSchema = {
      kKeyringSchema,
      SECRET_SCHEMA_NONE,
      {{"name", SECRET_SCHEMA_ATTRIBUTE_STRING}, {nullptr, SECRET_SCHEMA_ATTRIBUTE_STRING}},
      0,
      nullptr,
      nullptr,
      nullptr,
      nullptr,
      nullptr,
      nullptr,
      nullptr};
  return &kSchema;
}

// Owns a GError.
struct ErrorBox {
  GError* error = nullptr;
  ~ErrorBox() {
    if (error != nullptr) g_error_free(error);
  }
};

[[noreturn]] void unreachable(const GError* error) {
  throw Error(errc::not_supported,
              "the desktop keyring is not reachable (" +
                  protocol::printable(error != nullptr ? error->message : "no answer", 200) +
                  "): start a Secret Service (GNOME Keyring, KeePassXC) in this session and "
                  "unlock it, or give the secret as the environment variable "
                  "ADBWIRE_SECRET_NAME or a line NAME=VALUE in a secrets file of mode 0600 "
                  "(--secrets-file, $ADBWIRE_SECRETS_FILE)");
}

// Bounds one libsecret call: a thread of its own cancels the call's GCancellable at the
// deadline or when the verb's call is cancelled (libsecret's sync calls stop at a cancelled
// GCancellable; D-Bus alone would wait 25 s a method, and an unlock prompt for ever).
class Bounded {
 public:
  Bounded(Deadline deadline, const detail::CancelToken* cancel)
      : cancellable_(g_cancellable_new()), deadline_(deadline), cancel_(cancel) {
    watcher_ = std::thread([this] { watch(); });
  }
  ~Bounded() {
    {
      detail::MutexLock lock(mutex_);
      done_ = true;
    }
    changed_.notify_all();
    watcher_.join();
    g_object_unref(cancellable_);
  }
  Bounded(const Bounded&) = delete;
  Bounded& operator=(const Bounded&) = delete;

  GCancellable* cancellable() const noexcept { return cancellable_; }

  // After a call that failed: throws timeout or cancelled when the failure was ours, naming
  // what was asked (`what`: "the secret bank_pin", never a value).
  void check(const GError* error, const std::string& what) {
    if (error == nullptr || !g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED)) return;
    detail::MutexLock lock(mutex_);
    if (timed_out_) {
      throw Error(errc::timeout,
                  "the desktop keyring did not answer for " + what +
                      " in time: unlock the keyring (or restart the Secret Service that hangs), "
                      "or give the secret as the environment variable ADBWIRE_SECRET_NAME or a "
                      "line NAME=VALUE in a secrets file of mode 0600 (--secrets-file)");
    }
    throw Error(errc::cancelled,
                "the client cancelled the call while the keyring looked up " + what);
  }

 private:
  void watch() {
    constexpr std::chrono::milliseconds kPoll{100};  // how often the verb's cancel is read
    detail::MutexLock lock(mutex_);
    while (!done_) {
      const Deadline now = Clock::now();
      if (now >= deadline_) {
        timed_out_ = true;
        g_cancellable_cancel(cancellable_);
        return;
      }
      if (cancel_ != nullptr && cancel_->cancelled()) {
        g_cancellable_cancel(cancellable_);
        return;
      }
      const Deadline wake = deadline_ - now > kPoll ? now + kPoll : deadline_;
      changed_.wait_until(lock.native(), wake);
    }
  }

  GCancellable* cancellable_;
  const Deadline deadline_;
  const detail::CancelToken* cancel_;
  detail::Mutex mutex_;
  std::condition_variable changed_;
  bool done_ ADBWIRE_GUARDED_BY(mutex_) = false;
  bool timed_out_ ADBWIRE_GUARDED_BY(mutex_) = false;
  std::thread watcher_;
};

}  // namespace

// GLib and libsecret keep the shared D-Bus connection's bookkeeping for the life of the process
// (and leak a few bytes per connection), which LeakSanitizer reports at exit: in a sanitizer
// build, leaks allocated inside those two libraries are theirs, not ours (we own nothing of theirs
// past a call: values, lists and attribute tables are freed above).
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ADBWIRE_LEAK_CHECKED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(ADBWIRE_LEAK_CHECKED)
extern "C" const char* __lsan_default_suppressions() {
  return "leak:libglib-2.0.so\nleak:libgio-2.0.so\nleak:libsecret-1.so\n";
}
#endif

std::optional<std::string> keyring_secret(const std::string& name, Deadline deadline,
                                          const detail::CancelToken* cancel) {
  ErrorBox failure;
  gchar* value = nullptr;
  {
    Bounded bound(deadline, cancel);
    value = secret_password_lookup_sync(schema(), bound.cancellable(), &failure.error, "name",
                                        name.c_str(), nullptr);
    bound.check(failure.error, "the secret " + name);
  }
  if (failure.error != nullptr) unreachable(failure.error);
  if (value == nullptr) return std::nullopt;
  std::string out(value);
  secret_password_free(value);  // wipes the copy libsecret made
  return out;
}

std::vector<std::string> keyring_names(Deadline deadline, const detail::CancelToken* cancel) {
  ErrorBox failure;
  GList* items = nullptr;
  {
    Bounded bound(deadline, cancel);
    items = secret_password_search_sync(schema(), SECRET_SEARCH_ALL, bound.cancellable(),
                                        &failure.error, nullptr);
    if (failure.error != nullptr) g_list_free_full(std::exchange(items, nullptr), g_object_unref);
    bound.check(failure.error, "the names of its secrets");
  }
  if (failure.error != nullptr) {
    g_list_free_full(items, g_object_unref);
    unreachable(failure.error);
  }
  std::vector<std::string> names;
  for (GList* at = items; at != nullptr; at = at->next) {
    GHashTable* attributes = secret_retrievable_get_attributes(SECRET_RETRIEVABLE(at->data));
    if (attributes == nullptr) continue;
    if (const auto* name = static_cast<const char*>(g_hash_table_lookup(attributes, "name")))
      names.emplace_back(name);
    g_hash_table_unref(attributes);
  }
  g_list_free_full(items, g_object_unref);
  return names;
}

}  // namespace adbwire::verbs
