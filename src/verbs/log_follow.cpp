#include "verbs/log_follow.hpp"

#include <algorithm>

namespace adbwire::verbs {
namespace {

using namespace std::chrono_literals;

// How long a burst of lines may pause before a read returns what it has.
constexpr auto kQuiet = 100ms;

std::size_t size_of(const LogRecord& record) {
  return record.tag.size() + record.message.size() + sizeof(LogRecord);
}

}  // namespace

LogFollow::LogFollow(Device& device, const LogFilter& filter, std::size_t tail, std::uint64_t first)
    : filter_(filter), first_(first) {
  LogcatOptions options;
  options.filter = filter;
  options.tail = tail;
  options.ring_capacity = 0;  // the buffer here keeps them, numbered
  logcat_ = Logcat::start(device, options, [this](const LogRecord& record) { add(record); });
}

LogFollow::~LogFollow() { logcat_.stop(); }

void LogFollow::add(const LogRecord& record) {
  {
    detail::MutexLock lock(mutex_);
    records_.push_back(record);
    bytes_ += size_of(record);
    while (records_.size() > kMaxRecords || bytes_ > kMaxBytes) {
      bytes_ -= size_of(records_.front());
      records_.pop_front();
      ++first_;
    }
  }
  arrived_.notify_all();
}

std::uint64_t LogFollow::next() const {
  detail::MutexLock lock(mutex_);
  return first_ + records_.size();
}

LogBatch LogFollow::read(std::uint64_t cursor, std::size_t max, std::chrono::milliseconds wait,
                         const detail::CancelToken& cancel) {
  const Deadline end = deadline_after(wait);
  detail::MutexLock lock(mutex_);
  // Waits in slices so a cancel or the stream's end is seen within one.
  while (first_ + records_.size() <= cursor + 1 && std::chrono::steady_clock::now() < end &&
         !cancel.cancelled()) {
    lock.unlock();
    const bool alive = logcat_.running();
    lock.lock();
    if (!alive) break;
    detail::wait_until(
        arrived_, lock, std::min(end, deadline_after(100ms)),
        [&]() ADBWIRE_REQUIRES(mutex_) { return first_ + records_.size() > cursor + 1; });
  }
  // logcat's backlog comes over several packets: gather while lines keep coming (each within
  // kQuiet of the last), so a first call returns the backlog and not only its first line.
  std::uint64_t seen = first_ + records_.size();
  while (seen > cursor + 1 && seen - (cursor + 1) < max && std::chrono::steady_clock::now() < end &&
         !cancel.cancelled()) {
    detail::wait_until(arrived_, lock, std::min(end, deadline_after(kQuiet)),
                       [&]() ADBWIRE_REQUIRES(mutex_) { return first_ + records_.size() > seen; });
    const std::uint64_t now_seen = first_ + records_.size();
    if (now_seen == seen) break;
    seen = now_seen;
  }
  cancel.check();
  LogBatch batch;
  batch.cursor = cursor;
  const std::uint64_t from = std::max(cursor + 1, first_);
  batch.missed = from - (cursor + 1);
  const std::uint64_t end_number = first_ + records_.size();
  for (std::uint64_t n = from; n < end_number && batch.records.size() < max; ++n) {
    batch.records.push_back(records_[static_cast<std::size_t>(n - first_)]);
    batch.cursor = n;
  }
  if (batch.records.empty() && batch.missed > 0) batch.cursor = from - 1;
  batch.more = batch.cursor + 1 < end_number;
  return batch;
}

LogFollow& LogFollows::get(const std::string& key, Device& device, const LogFilter& filter,
                           std::size_t tail) {
  auto it = follows_.find(key);
  if (it != follows_.end()) {
    LogFollow& follow = *it->second;
    if (follow.running() && follow.filter().specs() == filter.specs()) return follow;
    next_ = std::max(next_, follow.next());
    follows_.erase(it);
  }
  auto follow = std::make_unique<LogFollow>(device, filter, tail, next_);
  return *follows_.emplace(key, std::move(follow)).first->second;
}

}  // namespace adbwire::verbs
