#include "daemon/paired_phones.hpp"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <utility>

#include "adbwire/protocol/printable.hpp"

namespace adbwire::daemon {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// How often the known-hosts file is looked at, and the longest a wait for mDNS answers lasts
// before the phones are looked at again.
constexpr auto kLookEvery = 1s;
// RFC 6762 §5.2: questions spaced out, doubling from 1 s, at most once an hour; adbwire stops
// at a minute so a phone that turns Wireless debugging on is found within one.
constexpr auto kFirstQueryGap = 1s;
constexpr auto kLongestQueryGap = 60s;

// When the known-hosts file last changed; nullopt while it does not exist.
std::optional<fs::file_time_type> changed_at(const fs::path& path) {
  std::error_code error;
  const fs::file_time_type time = fs::last_write_time(path, error);
  if (error) return std::nullopt;
  return time;
}

}  // namespace

PairedPhones::PairedPhones(Registry& registry, KeyOptions keys,
                           std::function<void(std::string_view)> log)
    : registry_(registry), keys_(std::move(keys)), log_(std::move(log)) {}

PairedPhones::~PairedPhones() { stop(); }

void PairedPhones::stop() {
  thread_.request_stop();
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void PairedPhones::start() {
  thread_ = std::jthread([this](std::stop_token stop) { run(std::move(stop)); });
}

void PairedPhones::wait_first_look(Deadline deadline) {
  detail::MutexLock lock(mutex_);
  changed_.wait_until(lock.native(), deadline,
                      [&]() ADBWIRE_REQUIRES(mutex_) { return first_look_done_; });
}

void PairedPhones::first_look_done() {
  {
    detail::MutexLock lock(mutex_);
    if (first_look_done_) return;
    first_look_done_ = true;
  }
  changed_.notify_all();
}

bool PairedPhones::pause(const std::stop_token& stop, Deadline deadline) {
  detail::MutexLock lock(mutex_);
  return !changed_.wait_until(lock.native(), stop, deadline, [] { return false; });
}

void PairedPhones::connect_known(const std::vector<MdnsService>& services,
                                 const std::vector<KnownHost>& hosts) {
  for (const MdnsService& service : services) {
    if (service.service != kAdbTlsConnectService || !is_known_host(hosts, service.instance))
      continue;
    const std::string target = "mdns:" + service.instance;
    if (registry_.holds(target)) continue;
    const auto failed = failed_.find(service.instance);
    if (failed != failed_.end() && Clock::now() - failed->second < kPairedRetry) continue;
    ConnectOptions options;
    options.keys = keys_;
    options.connect_timeout = kPairedConnectTimeout;
    // Never raise a prompt: a paired phone takes the key over TLS, and one that does not is
    // not ours to ask.
    options.offer_public_key = false;
    options.auth_timeout = kPairedConnectTimeout;
    Notes notes;
    detail::Failure failure;
    if (registry_.attach(target, options, false, notes, failure)) {
      failed_.erase(service.instance);
      if (log_) log_("connected paired phone " + protocol::printable(service.instance));
    } else {
      failed_[service.instance] = Clock::now();
      if (log_) {
        log_("paired phone " + protocol::printable(service.instance) + " at " + service.address() +
             " did not connect: " + protocol::printable(failure.detail));
      }
    }
  }
}

void PairedPhones::run(std::stop_token stop) {
  const fs::path file = known_hosts_path(keys_);
  std::optional<fs::file_time_type> seen;
  std::vector<KnownHost> hosts;
  std::optional<MdnsBrowser> browser;
  bool browser_failed = false;
  auto query_gap = kFirstQueryGap;
  Clock::time_point next_query{};
  Clock::time_point first_look_until{};
  while (!stop.stop_requested()) {
    const auto changed = file.empty() ? std::nullopt : changed_at(file);
    if (changed != seen) {
      seen = changed;
      std::error_code error;
      hosts = changed ? load_known_hosts(keys_, error) : std::vector<KnownHost>{};
      if (error && log_) log_("reading " + file.string() + ": " + error.message());
      // A phone paired just now is looked for at once.
      query_gap = kFirstQueryGap;
      next_query = Clock::now();
      browser_failed = false;
    }
    if (hosts.empty()) {
      browser.reset();
      first_look_done();
      if (!pause(stop, Clock::now() + kLookEvery)) return;
      continue;
    }
    if (!browser && !browser_failed) {
      MdnsOptions options;
      options.services = {std::string(kAdbTlsConnectService)};
      // The phones an adb server saw are that server's to hold.
      options.ask_adb_server = false;
      std::error_code error;
      MdnsBrowser opened(options, error);
      if (error) {
        browser_failed = true;  // until the file changes
        if (log_) log_("paired phones are not looked for: " + error.message());
        first_look_done();
        continue;
      }
      browser.emplace(std::move(opened));
      first_look_until = Clock::now() + kPairedFirstListen;
      next_query = Clock::now() + query_gap;
    }
    if (!browser) {
      if (!pause(stop, Clock::now() + kLookEvery)) return;
      continue;
    }
    if (Clock::now() >= next_query) {
      browser->query();
      query_gap = std::min<std::chrono::seconds>(query_gap * 2, kLongestQueryGap);
      next_query = Clock::now() + query_gap;
    }
    const Deadline until =
        std::min({next_query, Clock::now() + kLookEvery,
                  first_look_until > Clock::now() ? first_look_until : Deadline::max()});
    browser->poll(until);
    connect_known(browser->services(), hosts);
    if (Clock::now() >= first_look_until) first_look_done();
  }
}

}  // namespace adbwire::daemon
