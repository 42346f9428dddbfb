#include "cli/terminal_text.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>

#include "adbwire/protocol/printable.hpp"

namespace adbwire::cli {
namespace {

bool write(std::FILE* file, std::string_view text) {
  return std::fwrite(text.data(), 1, text.size(), file) == text.size() && std::fflush(file) == 0;
}

}  // namespace

std::string shown(std::string_view text) {
  std::string out;
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    if (start != 0) out += '\n';
    out += protocol::printable(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::string format(const char* pattern, ...) {
  std::va_list args;
  va_start(args, pattern);
  std::va_list again;
  va_copy(again, args);
  const int size = std::vsnprintf(nullptr, 0, pattern, args);
  va_end(args);
  std::string out(size > 0 ? static_cast<std::size_t>(size) : 0, '\0');
  if (size > 0) std::vsnprintf(out.data(), out.size() + 1, pattern, again);
  va_end(again);
  return out;
}

bool print(std::string_view text) { return write(stdout, shown(text)); }

void print_error(std::string_view text) { write(stderr, shown(text) + "\n"); }

bool print_fields(std::initializer_list<std::string_view> fields) {
  std::string line;
  bool first = true;
  for (const std::string_view field : fields) {
    if (!first) line += '\t';
    first = false;
    line += protocol::printable(field);
  }
  return write(stdout, line + "\n");
}

void progress(std::string_view text) { write(stderr, "\r\x1b[K" + shown(text)); }

void end_progress() { write(stderr, "\r\x1b[K"); }

void disconnected_line() { write(stderr, "\r\n[ disconnected ]\r\n"); }

}  // namespace adbwire::cli
