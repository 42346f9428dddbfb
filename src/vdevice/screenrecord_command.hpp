// `screenrecord [--time-limit S] [--bit-rate B] [--size WxH] FILE` as the virtual device plays
// it: a long-lived process that ends at its time limit or when pkill interrupts it, then writes
// FILE as a small MP4 of a known shape (see screenrecord_command.cpp), so hosts can test start,
// stop and the bytes they pull.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "vdevice/shell_job.hpp"

namespace adbwire::vdevice {

std::unique_ptr<Job> make_screenrecord(std::vector<std::string> argv);

}  // namespace adbwire::vdevice
