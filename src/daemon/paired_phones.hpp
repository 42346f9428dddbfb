// The daemon keeps paired phones connected, as adb's server does: while Wireless debugging is
// on, a phone this host paired with (its GUID in known_hosts_path()) advertises
// _adb-tls-connect._tcp by mDNS, and the daemon connects it without being asked, so `devices`
// lists it and `-s` finds it already connected. A phone is never connected unless its GUID is
// known: what the network advertises decides nothing else (the connection is TLS, and the phone
// takes only a host key it paired with).
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "adbwire/keys.hpp"
#include "adbwire/mdns.hpp"
#include "adbwire/pairing.hpp"
#include "base/mutex.hpp"
#include "daemon/registry.hpp"

namespace adbwire::daemon {

// How long a daemon that starts with paired phones listens for them before it reports ready (a
// phone answers a query within ~120 ms, RFC 6762 §6), so the first command after a start sees
// them as adb's first command after a start sees its USB devices. The phones' connects then
// take what TLS takes, at most kPairedConnectTimeout each.
inline constexpr std::chrono::milliseconds kPairedFirstListen{600};
inline constexpr std::chrono::milliseconds kPairedConnectTimeout{3000};
// After a failed connect, a phone is tried again no sooner than this.
inline constexpr std::chrono::seconds kPairedRetry{30};

// Thread safe. Runs one thread of its own from start() until destruction.
class PairedPhones {
 public:
  // keys: whose known-hosts file (the daemon's HOME and $ADB_VENDOR_KEYS); log: where a
  // querier that cannot run and each phone connected are told (may be empty).
  PairedPhones(Registry& registry, KeyOptions keys, std::function<void(std::string_view)> log);
  ~PairedPhones();
  PairedPhones(const PairedPhones&) = delete;
  PairedPhones& operator=(const PairedPhones&) = delete;

  // Starts watching. With no known-hosts file nothing is opened (no socket on port 5353) until
  // one appears; the file is read again whenever it changes (`adbwire pair` while it runs).
  void start();
  // Stops watching and waits for the thread (a connect under way ends first). The daemon stops
  // it before it lets go of its devices, so none is connected again behind it.
  void stop();
  // Returns once the first look is over: no paired phone is known, or the daemon listened
  // kPairedFirstListen and connected what answered; at most until deadline.
  void wait_first_look(Deadline deadline);

 private:
  void run(std::stop_token stop);
  void first_look_done();
  // Connects each advertised phone whose GUID is known and that is not held.
  void connect_known(const std::vector<MdnsService>& services, const std::vector<KnownHost>& hosts);
  // Sleeps until deadline or stop; false when stopped.
  bool pause(const std::stop_token& stop, Deadline deadline);

  Registry& registry_;
  const KeyOptions keys_;
  const std::function<void(std::string_view)> log_;
  std::map<std::string, Clock::time_point> failed_;  // instance → when its connect failed
  // Guards first_look_done_ and is what pause() waits on (a stop request wakes it).
  detail::Mutex mutex_;
  std::condition_variable_any changed_;
  bool first_look_done_ ADBWIRE_GUARDED_BY(mutex_) = false;
  std::jthread thread_;
};

}  // namespace adbwire::daemon
