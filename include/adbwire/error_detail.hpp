// The detail of the last failure, for callers of the std::error_code overloads.
//
// Every public blocking call comes twice, as in asio: `op(args)` throws adbwire::Error, whose
// detail() says what was being done ("pulling /sdcard/x: the device ended the sync stream"), and
// `op(args, std::error_code&)` sets the code only. The detail of that failure is kept here, per
// thread, so an error_code caller can show the same sentence a throwing caller would: every
// error_code overload sets it when it fails and clears it when it succeeds.
#pragma once

#include <string>

namespace adbwire {

// The detail of the last error_code overload that ran on this thread ("" after a success).
// The reference stays valid until the next adbwire call on this thread.
const std::string& last_error_detail() noexcept;

}  // namespace adbwire
