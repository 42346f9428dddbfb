// A device's output gathered into memory up to the bound of its kind (adbwire/output_limits.hpp).
// Internal: every library call that keeps a device's whole output gathers it through here.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "adbwire/output_limits.hpp"
#include "base/failure.hpp"

namespace adbwire::detail {

// Which field of OutputLimits bounds an output.
using OutputBound = std::size_t OutputLimits::*;

// The detail of limit_exceeded for `what` ("`getprop`", "the framebuffer: image") passing the
// bound: how much, the field, and the options that raise it.
std::string over_limit_detail(std::string_view what, const OutputLimits& limits, OutputBound bound);

// Appends output to a string while it stays within limits.*bound bytes.
class BoundedOutput {
 public:
  BoundedOutput(std::string& out, const OutputLimits& limits, OutputBound bound,
                std::string_view what)
      : out_(out), limits_(limits), bound_(bound), what_(what) {}

  // Appends data; false, with failure set to limit_exceeded and nothing appended, when it
  // would pass the bound. The caller then stops reading and closes the stream.
  bool append(std::span<const std::uint8_t> data, Failure& failure) {
    if (data.size() > limits_.*bound_ - std::min(out_.size(), limits_.*bound_)) {
      failure.set(errc::limit_exceeded, over_limit_detail(what_, limits_, bound_));
      return false;
    }
    out_.append(reinterpret_cast<const char*>(data.data()), data.size());
    return true;
  }

 private:
  std::string& out_;
  const OutputLimits& limits_;
  OutputBound bound_;
  std::string_view what_;
};

}  // namespace adbwire::detail
