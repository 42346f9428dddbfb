#include "agent/uiautomator_reader.hpp"

#include <utility>

#include "agent/dump.hpp"
#include "connection/collected_output.hpp"

namespace adbwire::agent {

UiautomatorReader::UiautomatorReader(Device& device, PageOptions::DumpMethod method,
                                     std::string path)
    : device_(device), method_(method), path_(std::move(path)) {}

std::string UiautomatorReader::read(Deadline deadline, detail::Failure& failure) {
  using Method = PageOptions::DumpMethod;
  for (;;) {
    const Method now = method_ == Method::file ? Method::file : Method::tty;
    std::string output = detail::exec_output(device_, dump_command(now, path_),
                                             &OutputLimits::ui_dump, deadline, failure);
    if (failure) return {};
    const DumpFailure dumped = classify_dump_output(output);
    if (method_ == Method::automatic && dumped == DumpFailure::none) method_ = Method::tty;
    if (method_ == Method::automatic && dumped == DumpFailure::no_xml) {
      // /dev/tty gave nothing usable (API 35+): the file method from now on, at once.
      method_ = Method::file;
      continue;
    }
    return output;
  }
}

}  // namespace adbwire::agent
