// adbwire.Forwarder: adb forward and adb reverse over a Device's own connection.
#include "adbwire/forward.hpp"

#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "binding.hpp"
#include "interrupt.hpp"

namespace adbwire::python {
namespace {

// The Forwarder and the connection it uses, kept alive together; close() ends it early. It
// counts as a call on the Device while open, so Page(dev) cannot move the Device it refers to.
// Made and closed with the GIL held.
class ForwarderBox {
 public:
  explicit ForwarderBox(std::shared_ptr<DeviceBox> box)
      : box_(std::move(box)), device_(box_->device) {
    forwarder_ = std::make_unique<Forwarder>(*device_);
    ++box_->in_flight;
  }
  ~ForwarderBox() { close(); }
  ForwarderBox(const ForwarderBox&) = delete;
  ForwarderBox& operator=(const ForwarderBox&) = delete;

  Forwarder& get() {
    if (!forwarder_) throw Error(errc::closed, "this Forwarder was closed");
    return *forwarder_;
  }
  void close() {
    if (!forwarder_) return;
    std::unique_ptr<Forwarder> ending = std::move(forwarder_);
    --box_->in_flight;
    // The destructor removes the forward rules and joins the Forwarder's threads.
    py::gil_scoped_release release;
    ending.reset();
  }

 private:
  std::shared_ptr<DeviceBox> box_;
  std::shared_ptr<Device> device_;
  std::unique_ptr<Forwarder> forwarder_;
};

py::list rules(const std::vector<ForwardRule>& list) {
  py::list out;
  for (const ForwardRule& rule : list)
    out.append(py::make_tuple(text(rule.local), text(rule.remote)));
  return out;
}

}  // namespace

void bind_forward(py::module_& module) {
  using Box = std::shared_ptr<ForwarderBox>;
  py::class_<ForwarderBox, Box>(
      module, "Forwarder",
      "Port forwarding both ways over a Device's connection, as `adb forward` and `adb "
      "reverse` (no adb server). Each bridged connection is one device stream; memory stays "
      "bounded. close() (or the end of a with block) removes the forward rules; reverse rules "
      "live on the device until removed or the connection ends. Thread safe.")
      .def(py::init([](std::shared_ptr<DeviceBox> device) {
             return std::make_shared<ForwarderBox>(std::move(device));
           }),
           py::arg("device"),
           "A Forwarder over device's connection; it also accepts the device's connections for "
           "reverse rules.")
      .def(
          "forward",
          [](ForwarderBox& self, const std::string& local, const std::string& remote,
             bool no_rebind) {
            Forwarder& forwarder = self.get();
            py::gil_scoped_release release;
            return forwarder.forward(local, remote, no_rebind);
          },
          py::arg("local"), py::arg("remote"), py::arg("no_rebind") = false,
          "Listens on local (\"tcp:PORT\" on 127.0.0.1; \"tcp:0\" picks a free port) and "
          "opens remote on the device (\"tcp:5000\", \"localabstract:NAME\", \"jdwp:PID\") for "
          "each connection. Returns local with the bound port (\"tcp:41234\"). "
          "InvalidArgumentError, BusyError (port taken, or no_rebind and a rule exists).")
      .def(
          "forward_list", [](ForwarderBox& self) { return rules(self.get().list()); },
          "The forward rules as (local, remote) pairs, in the order made.")
      .def(
          "remove",
          [](ForwarderBox& self, const std::string& local) {
            Forwarder& forwarder = self.get();
            py::gil_scoped_release release;
            forwarder.remove(local);
          },
          py::arg("local"), "Stops listening on local and ends its connections. NotFoundError.")
      .def(
          "reverse",
          [](ForwarderBox& self, const std::string& device_side, const std::string& host_side,
             bool no_rebind, const std::optional<double>& timeout) {
            Forwarder& forwarder = self.get();
            const Deadline deadline = deadline_from(timeout);
            return text(interruptible(
                [&] { return forwarder.reverse(device_side, host_side, no_rebind, deadline); }));
          },
          py::arg("device_side"), py::arg("host_side"), py::arg("no_rebind") = false,
          py::arg("timeout") = py::none(),
          "Has the device listen on device_side (\"tcp:PORT\", \"localabstract:NAME\"; "
          "\"tcp:0\": the device picks) and open host_side (\"tcp:PORT\" on 127.0.0.1 here) "
          "for each connection. Returns the device's extra answer (the port it picked for tcp:0 "
          "where it says one; usually \"\"). "
          "NotSupportedError through an adb server (it carries reverse itself), "
          "CommandFailedError with the device's refusal.")
      .def(
          "reverse_list",
          [](ForwarderBox& self, const std::optional<double>& timeout) {
            Forwarder& forwarder = self.get();
            const Deadline deadline = deadline_from(timeout);
            return rules(interruptible([&] { return forwarder.reverse_list(deadline); }));
          },
          py::arg("timeout") = py::none(),
          "The device's reverse rules as (device side, host side) pairs.")
      .def(
          "reverse_remove",
          [](ForwarderBox& self, const std::string& device_side,
             const std::optional<double>& timeout) {
            Forwarder& forwarder = self.get();
            const Deadline deadline = deadline_from(timeout);
            interruptible([&] { forwarder.reverse_remove(device_side, deadline); });
          },
          py::arg("device_side"), py::arg("timeout") = py::none(),
          "Removes one reverse rule. CommandFailedError when the device has none such.")
      .def(
          "reverse_remove_all",
          [](ForwarderBox& self, const std::optional<double>& timeout) {
            Forwarder& forwarder = self.get();
            const Deadline deadline = deadline_from(timeout);
            interruptible([&] { forwarder.reverse_remove_all(deadline); });
          },
          py::arg("timeout") = py::none(), "Removes every reverse rule on the device.")
      .def("close", &ForwarderBox::close,
           "Removes the forward rules and ends their connections. Idempotent.")
      .def("__enter__", [](const Box& self) { return self; })
      .def("__exit__", [](ForwarderBox& self, const py::args&) { self.close(); });
}

}  // namespace adbwire::python
