// What a device in a HostileOutput mode (VirtualDeviceOptions::hostile_output) runs instead of
// the commands a host reads whole: output without end, or device text holding escapes.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "vdevice/shell_job.hpp"

namespace adbwire::vdevice {

// The job that replaces the command argv in mode, or nullptr when argv runs as usual.
std::unique_ptr<Job> hostile_job(HostileOutput mode, const std::vector<std::string>& argv);

}  // namespace adbwire::vdevice
