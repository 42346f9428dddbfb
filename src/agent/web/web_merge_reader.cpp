#include "agent/web/web_merge_reader.hpp"

#include <algorithm>
#include <utility>

namespace adbwire::agent::web {

WebMergeReader::WebMergeReader(Device& device, ScreenReader& inner, bool enabled,
                               std::chrono::milliseconds timeout)
    : device_(device), inner_(inner), enabled_(enabled), timeout_(timeout) {}

std::string WebMergeReader::read(Deadline deadline, detail::Failure& failure) {
  report_ = {};
  std::string output = inner_.read(deadline, failure);
  if (failure || !enabled_) return output;
  std::string merged = merge_webviews(
      device_, std::move(output), std::min(deadline, deadline_after(timeout_)), report_, failure);
  return failure ? std::string() : merged;
}

}  // namespace adbwire::agent::web
