// Connection's side of adb's authentication: a signature with each host key the device asks
// for, then the public key offered and a person awaited (KeyOffered told, so the daemon can list
// the device unauthorized meanwhile and give up on it).
#include <asio/post.hpp>

#include "adbwire/error.hpp"
#include "connection/connection.hpp"

namespace adbwire::connection {

bool Connection::load_keys() {
  if (keys_loaded_) return true;
  std::error_code error;
  keys_ = load_host_keys(options_.keys, error);
  keys_loaded_ = true;
  const std::string key_path = default_key_path(options_.keys).string();
  if (error == errc::not_found || (!error && keys_.empty())) {
    fail(make_error_code(errc::unauthorized),
         target_ + " requires authentication and there is no adb key at '" + key_path +
             "': create one with `adbwire keygen " + key_path + "`");
    return false;
  }
  if (error) {
    fail(error, "cannot use the adb key '" + key_path + "' that " + target_ +
                    " asks for: " + error.message());
    return false;
  }
  return true;
}

void Connection::answer_auth_token(const std::vector<std::uint8_t>& token) {
  if (!load_keys()) return;
  if (next_key_ < keys_.size()) {
    const PrivateKey& key = keys_[next_key_++];
    session_.send_auth_signature(key.sign_token(token));
    detail::MutexLock lock(mutex_);
    ++info_.signatures_sent;
    return;
  }
  if (public_key_sent_) return;  // the device asks again while its prompt is up: keep waiting
  if (!options_.offer_public_key) {
    {
      detail::MutexLock lock(mutex_);
      info_.key_fingerprint = keys_.front().fingerprint();
    }
    fail(make_error_code(errc::unauthorized),
         target_ + " refused this host's " + std::to_string(keys_.size()) +
             (keys_.size() == 1 ? " key" : " keys") + " (RSA key fingerprint " +
             keys_.front().fingerprint() +
             "); the public key was not offered, so the device shows no prompt: connect with "
             "offering on to raise it");
    return;
  }
  public_key_sent_ = true;
  session_.send_auth_public_key(keys_.front().public_key_line(default_key_comment()));
  {
    detail::MutexLock lock(mutex_);
    awaiting_user_ = true;
    auth_deadline_ = deadline_after(options_.auth_timeout);
    info_.key_fingerprint = keys_.front().fingerprint();
  }
  phase_changed_.notify_all();
  if (!on_key_offered_) return;
  // The I/O thread runs the give-up, so it races no handshake step; the posted handler never
  // owns the Connection (~Connection joins this thread before its members go).
  on_key_offered_(keys_.front().fingerprint(), [weak = weak_from_this()] {
    const std::shared_ptr<Connection> self = weak.lock();
    if (!self) return;
    asio::post(self->io_, [raw = self.get()] {
      {
        detail::MutexLock lock(raw->mutex_);
        if (raw->phase_ != Phase::handshaking) return;
      }
      raw->fail(make_error_code(errc::unauthorized),
                raw->target_ + " was let go of while it waited for its key to be accepted");
    });
  });
}

}  // namespace adbwire::connection
