#include "vdevice/pty_discipline.hpp"

#include <charconv>
#include <string_view>

namespace adbwire::vdevice {
namespace {

constexpr std::uint8_t kInterrupt = 0x03;  // VINTR, Ctrl-C
constexpr std::uint8_t kEof = 0x04;        // VEOF, Ctrl-D
constexpr std::uint8_t kKill = 0x15;       // VKILL, Ctrl-U
constexpr std::uint8_t kErase = 0x7f;      // VERASE
constexpr std::uint8_t kBackspace = 0x08;

void append(std::vector<std::uint8_t>& out, std::string_view text) {
  out.insert(out.end(), text.begin(), text.end());
}

}  // namespace

void PtyDiscipline::feed(std::span<const std::uint8_t> typed, std::vector<std::uint8_t>& echo,
                         std::vector<Input>& input) {
  for (std::uint8_t byte : typed) {
    if (byte == '\r') byte = '\n';  // ICRNL
    switch (byte) {
      case '\n':
        line_ += '\n';
        append(echo, "\r\n");
        input.push_back({Input::Kind::data, std::move(line_)});
        line_.clear();
        break;
      case kInterrupt:
        line_.clear();
        append(echo, "^C");
        input.push_back({Input::Kind::interrupt, {}});
        break;
      case kEof:
        if (line_.empty()) {
          input.push_back({Input::Kind::eof, {}});
        } else {
          input.push_back({Input::Kind::data, std::move(line_)});
          line_.clear();
        }
        break;
      case kErase:
      case kBackspace:
        if (!line_.empty()) {
          line_.pop_back();
          append(echo, "\b \b");
        }
        break;
      case kKill:
        for (; !line_.empty(); line_.pop_back()) append(echo, "\b \b");
        break;
      default:
        if (line_.size() >= kMaxLine) break;
        line_ += static_cast<char>(byte);
        if (byte < 0x20 && byte != '\t') {  // ECHOCTL
          echo.push_back('^');
          echo.push_back(static_cast<std::uint8_t>(byte + 0x40));
        } else {
          echo.push_back(byte);
        }
        break;
    }
  }
}

void PtyDiscipline::translate_output(std::span<const std::uint8_t> bytes,
                                     std::vector<std::uint8_t>& out) {
  for (const std::uint8_t byte : bytes) {
    if (byte == '\n') out.push_back('\r');
    out.push_back(byte);
  }
}

bool PtyDiscipline::set_size(std::span<const std::uint8_t> text) {
  return protocol::parse_window_size(text, size_);
}

}  // namespace adbwire::vdevice
