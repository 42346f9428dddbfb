// The screen through `uiautomator dump`: to /dev/tty, or to a file that is then `cat` in the same
// exec stream (PageOptions::DumpMethod). Internal.
#pragma once

#include <string>

#include "adbwire/device.hpp"
#include "adbwire/page.hpp"
#include "agent/screen_reader.hpp"

namespace adbwire::agent {

// Not thread safe: one per Page.
class UiautomatorReader final : public ScreenReader {
 public:
  // device must outlive the reader. path is where the file method writes the dump.
  UiautomatorReader(Device& device, PageOptions::DumpMethod method, std::string path);

  // automatic starts with /dev/tty; when that yields no XML (API 35+ broke it) the file method is
  // taken at once and from then on; once /dev/tty gave a hierarchy it is kept.
  std::string read(Deadline deadline, detail::Failure& failure) override;

 private:
  Device& device_;
  PageOptions::DumpMethod method_;
  std::string path_;
};

}  // namespace adbwire::agent
