// A program outside the adbwire tree: uses the installed headers and libraries.
#include <adbwire/error.hpp>
#include <adbwire/protocol/message.hpp>
#include <cstdio>
#include <vector>

int main() {
  std::vector<std::uint8_t> wire;
  adbwire::protocol::append_message(wire, adbwire::protocol::kCommandOkay, 1, 2, {}, false);
  std::vector<adbwire::protocol::Message> messages;
  adbwire::protocol::MessageReader reader;
  if (reader.feed(wire, messages) || messages.size() != 1) return 1;
  const std::error_code code = adbwire::errc::stale_ref;
  std::printf("consumer: %s, %s\n",
              std::string(adbwire::protocol::command_name(messages[0].command)).c_str(),
              code.message().c_str());
  return messages[0].arg1 == 2 && code.category().name() == std::string("adbwire") ? 0 : 1;
}
