// A reading with the content of debuggable WebViews added under their nodes (PageOptions::web):
// a decorator over another ScreenReader. Internal to the library.
#pragma once

#include <chrono>
#include <string>

#include "adbwire/device.hpp"
#include "agent/screen_reader.hpp"
#include "agent/web/web_snapshot.hpp"

namespace adbwire::agent::web {

// Not thread safe: one per Page.
class WebMergeReader final : public ScreenReader {
 public:
  // device and inner must outlive the reader. enabled false: inner's reading unchanged. timeout
  // bounds the WebView part of one reading (all its DevTools round trips).
  WebMergeReader(Device& device, ScreenReader& inner, bool enabled,
                 std::chrono::milliseconds timeout);

  // inner's reading, then merge_webviews over it within min(deadline, now + timeout). Fails only
  // as inner does, or when the connection is lost during the merge.
  std::string read(Deadline deadline, detail::Failure& failure) override;

  // What the last read's merge did (all zero when disabled or before the first read).
  const MergeReport& last_report() const noexcept { return report_; }

 private:
  Device& device_;
  ScreenReader& inner_;
  bool enabled_;
  std::chrono::milliseconds timeout_;
  MergeReport report_;
};

}  // namespace adbwire::agent::web
