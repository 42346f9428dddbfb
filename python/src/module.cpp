// The extension module adbwire._adbwire; the package adbwire re-exports it (python/adbwire).
#include "base/advice.hpp"
#include "binding.hpp"
#include "interrupt.hpp"

PYBIND11_MODULE(_adbwire, module) {
  module.doc() =
      "adbwire: control Android devices over the ADB wire protocol itself (TCP, USB, or "
      "through an adb server), with no process per command. Device runs commands and moves "
      "files; Page reads the screen as [ref=N] text and acts on refs.";
  module.attr("__version__") = ADBWIRE_VERSION;
  // The library's advice names Python's options from now on (PageOptions(helper="auto"), not
  // --helper auto).
  adbwire::detail::set_audience(adbwire::detail::Audience::python);
  adbwire::python::bind_errors(module);
  adbwire::python::bind_options(module);
  adbwire::python::bind_device(module);
  adbwire::python::bind_page(module);
  adbwire::python::bind_wireless(module);
  adbwire::python::bind_forward(module);
  adbwire::python::bind_interrupt(module);
}
