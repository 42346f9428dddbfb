// How Page gets a uiautomator dump: the one exec command per method, and what to do with
// each failure uiautomator reports as text.
#pragma once

#include <string>
#include <string_view>

#include "adbwire/page.hpp"
#include "base/failure.hpp"

namespace adbwire::agent {

// The exec command for one dump. file: `rm -f P; uiautomator dump P 2>&1 && cat P 2>&1;
// rm -f P` (the old file is removed first so a failure that still exits 0 can't return a
// stale screen); tty: `uiautomator dump /dev/tty 2>&1`.
std::string dump_command(PageOptions::DumpMethod method, std::string_view path);

// True when failure may pass if the dump is simply taken again.
bool retryable(DumpFailure failure) noexcept;

// The failure of a dump that failed `attempts` times as `failure` says; output is quoted
// (shortened) for no_xml.
detail::Failure dump_error(DumpFailure failure, std::string_view output, std::uint32_t attempts);

}  // namespace adbwire::agent
