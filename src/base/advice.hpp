// Advice in the words of whoever reads the library's messages. An error's advice names what
// changes the outcome; the C++ API and the CLI spell an option their way (PageOptions::helper,
// --helper auto), the Python package its own (PageOptions(helper="auto")), and a Python user
// must not be told of options that do not exist in Python. The Python module says so when it
// loads; programs keep the default. Internal; any thread.
#pragma once

#include <string_view>

namespace adbwire::detail {

enum class Audience { cpp_and_cli, python };

// Process-wide, set once before calls are made (by adbwire._adbwire's init).
void set_audience(Audience audience) noexcept;

Audience audience() noexcept;

// library_words for C++ and CLI readers, python_words once set_audience(python) was called.
// Both are string literals (or outlive the message being built).
std::string_view advice(std::string_view library_words, std::string_view python_words) noexcept;

}  // namespace adbwire::detail
