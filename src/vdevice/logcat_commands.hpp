// `logcat` of the virtual device: serves the DeviceStateStore ring as liblog's binary
// entries (-B, logger_entry v4) or `-v threadtime` text, with filterspecs (TAG:LEVEL, -s),
// -d (dump and exit), -c (clear), -t/-T N (last N); without -d it follows new records.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "vdevice/shell_job.hpp"

namespace adbwire::vdevice {

std::unique_ptr<Job> make_logcat(std::vector<std::string> argv);

}  // namespace adbwire::vdevice
