// Fuzzes the `logcat -B` decoder: whole versus byte-split feeding must agree on the records
// and the verdict; nothing is held back beyond one entry (header + LOGGER_ENTRY_MAX_LEN).
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "adbwire/logcat.hpp"

namespace {

using adbwire::LogcatDecoder;
using adbwire::LogRecord;

bool same(const std::vector<LogRecord>& a, const std::vector<LogRecord>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].tag != b[i].tag || a[i].message != b[i].message || a[i].pid != b[i].pid ||
        a[i].tid != b[i].tid || a[i].level != b[i].level || a[i].time != b[i].time) {
      return false;
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> input(data, size);
  LogcatDecoder whole;
  std::vector<LogRecord> whole_records;
  std::error_code whole_error;
  whole.feed(input, whole_records, whole_error);

  LogcatDecoder split;
  std::vector<LogRecord> split_records;
  std::error_code split_error;
  for (std::size_t at = 0; at < size && !split_error; ++at) {
    split.feed(input.subspan(at, 1), split_records, split_error);
    if (split.buffered() > 256 + 5 * 1024) std::abort();
  }
  if (static_cast<bool>(whole_error) != static_cast<bool>(split_error)) std::abort();
  if (!whole_error && !same(whole_records, split_records)) std::abort();
  return 0;
}
