// bugreportz (Android 7+: a zipped bug report, its progress on stdout) and the plain-text
// bugreport every Android has, as small as a test needs.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "vdevice/shell_job.hpp"

namespace adbwire::vdevice {

// `bugreportz -v` (its version on stderr), `bugreportz -p` (BEGIN:, PROGRESS:, OK:PATH or FAIL:)
// and `bugreportz` (OK:/FAIL: only). The zip is written under the shell app's bugreports folder.
std::unique_ptr<Job> make_bugreportz(std::vector<std::string> argv);
// `bugreport`: the report as text on stdout.
std::unique_ptr<Job> make_bugreport(std::vector<std::string> argv);

}  // namespace adbwire::vdevice
