#include "mcp/stdio.hpp"

#include <unistd.h>

#include <cerrno>
#include <string>
#include <utility>

namespace adbwire::mcp {
namespace {

void write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the client is gone; its next read of stdin ends us
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

}  // namespace

int serve_stdio(Toolset& tools, ServerInfo info) {
  Server server(tools, std::move(info),
                [](std::string_view line) { write_all(STDOUT_FILENO, line); });
  std::string pending;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    pending.append(buffer, static_cast<std::size_t>(n));
    std::size_t start = 0;
    for (std::size_t end; (end = pending.find('\n', start)) != std::string::npos; start = end + 1)
      server.handle_line(std::string_view(pending).substr(start, end - start));
    pending.erase(0, start);
  }
  // A last line without '\n' still counts: `printf '{…}' | adbwire mcp` gets its answer.
  if (!pending.empty()) server.handle_line(pending);
  server.finish();
  return 0;
}

}  // namespace adbwire::mcp
