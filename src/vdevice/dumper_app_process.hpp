// `app_process` on the virtual device: runs adbwire's on-device dumper (com.adbwire.Dumper)
// by speaking its request/reply protocol (src/agent/dumper/README.md) and answering dumps
// from the current screen, as `uiautomator dump` would. Any other class fails as a missing
// one does on a phone.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "vdevice/shell_job.hpp"

namespace adbwire::vdevice {

// The job for argv ("app_process", VM options, parent dir, class). The dex named first in
// -Djava.class.path must exist in the device file system. Logs the command line as an event.
std::unique_ptr<Job> make_app_process(std::vector<std::string> argv);

}  // namespace adbwire::vdevice
