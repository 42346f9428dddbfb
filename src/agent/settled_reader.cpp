#include "agent/settled_reader.hpp"

#include <algorithm>
#include <thread>

#include "agent/dump.hpp"

namespace adbwire::agent {

SettledReader::SettledReader(ScreenReader& inner, std::uint32_t attempts,
                             std::chrono::milliseconds pause)
    : inner_(inner), attempts_(std::max<std::uint32_t>(1, attempts)), pause_(pause) {}

std::string SettledReader::read(Deadline deadline, detail::Failure& failure) {
  for (std::uint32_t attempt = 1;; ++attempt) {
    std::string output = inner_.read(deadline, failure);
    if (failure) return {};
    const DumpFailure dumped = classify_dump_output(output);
    if (dumped == DumpFailure::none) return output;
    if (!retryable(dumped) || attempt >= attempts_ || Clock::now() + pause_ >= deadline) {
      failure = dump_error(dumped, output, attempt);
      return {};
    }
    std::this_thread::sleep_for(pause_);
  }
}

}  // namespace adbwire::agent
