// logs with follow: the device's log as a cursor a client polls (log_follow.hpp). Each call
// starts the stream on first use, waits up to a second for a record after the cursor, and
// returns those records and the cursor to pass next; the CLI polls it in a loop and streams.
#include "verbs/handlers.hpp"
#include "verbs/log_follow.hpp"
#include "verbs/reply_text.hpp"

namespace adbwire::verbs::handlers {
namespace {

using namespace std::chrono_literals;

// How long a poll waits for the first new record: short enough for an agent's turn, long
// enough that a client polling in a loop does not spin.
constexpr std::chrono::milliseconds kPollWait = 1s;

}  // namespace

Reply logs_follow(Call& call) {
  const auto lines = static_cast<std::size_t>(call.integer("lines").value_or(100));
  const std::string key = call.device().empty() ? call.host().default_device() : call.device();
  LogFollow& follow =
      call.host().log_follows().get(key, call.page().device(), log_filter(call), lines);
  const std::optional<std::int64_t> given = call.integer("cursor");
  const std::uint64_t from = given ? static_cast<std::uint64_t>(*given) : 0;
  if (given && from >= follow.next()) {
    throw Error(errc::invalid_argument,
                "cursor " + std::to_string(from) +
                    " is not one this server gave (its log is numbered up to " +
                    std::to_string(follow.next() - 1) +
                    "; a restarted server numbers anew): leave cursor out to start again");
  }
  const LogBatch batch = follow.read(from, lines, kPollWait, call.cancel());
  const std::string contains = call.string("contains").value_or("");
  std::string text;
  if (batch.missed > 0) {
    text += "(" + std::to_string(batch.missed) +
            " lines came and went before this call: the buffer keeps the newest " +
            std::to_string(LogFollow::kMaxRecords) + "; poll more often)\n";
  }
  // A reply stays within the budget by returning fewer lines, never by cutting: the cursor
  // then stops at the last line returned and the rest come with the next call.
  const std::size_t budget = call.options().max_snapshot_chars;
  const std::uint64_t before_first = batch.cursor - batch.records.size();
  std::uint64_t cursor = before_first;
  bool more = batch.more;
  for (const LogRecord& record : batch.records) {
    const bool shown = contains.empty() || record.message.find(contains) != std::string::npos ||
                       record.tag.find(contains) != std::string::npos;
    const std::string line = shown ? log_line(record) : std::string();
    if (cursor > before_first && text.size() + line.size() > budget) {
      more = true;
      break;
    }
    text += line;
    ++cursor;
  }
  if (!follow.running() && follow.error()) {
    text += "(the device's log stream ended: " + follow.error_detail() +
            "; the next call starts it again)\n";
  }
  text += "cursor: " + std::to_string(cursor) +
          (more ? " (more lines wait: call again now with this cursor)"
                : " (call again with this cursor for the lines that come next)");
  return Reply::text(std::move(text));
}

}  // namespace adbwire::verbs::handlers
