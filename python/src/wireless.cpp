// Finding devices from Python: pair() as `adb pair`, the phones mDNS finds, and devices() as
// `adb devices -l`.
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "adbwire/adb_server.hpp"
#include "adbwire/mdns.hpp"
#include "adbwire/pairing.hpp"
#include "binding.hpp"
#include "interrupt.hpp"

namespace adbwire::python {

void bind_wireless(py::module_& module) {
  py::class_<PairResult>(module, "PairResult", "A phone that pair() paired with.")
      .def_readonly("guid", &PairResult::guid,
                    "The phone's Wireless debugging id, adb-SERIAL-xxxxxx: Device.connect(guid) "
                    "finds it by mDNS.")
      .def_readonly("address", &PairResult::address, "The pairing address, as given.")
      .def("__repr__", [](const PairResult& r) {
        return py::str("PairResult(guid={!r}, address={!r})").format(r.guid, r.address);
      });
  module.def(
      "pair",
      [](const std::string& address, const std::string& code,
         const std::optional<ConnectOptions>& options, double timeout) {
        PairOptions pair_options;
        if (options) pair_options.keys = options->keys;
        pair_options.timeout = milliseconds_from(timeout, "timeout");
        return interruptible_or_left(
            [address, code, pair_options] { return pair(address, code, pair_options); });
      },
      py::arg("address"), py::arg("code"), py::arg("options") = py::none(),
      py::arg("timeout") = 15.0,
      "Pair with a phone's Wireless debugging (adb pair): address is HOST:PORT and code the "
      "digits its \"Pair device with pairing code\" dialog shows. The phone then trusts this "
      "computer's adbkey (options.android_dir, else ~/.android) for good. UnauthorizedError for a "
      "wrong code; ConnectionRefusedError, TimeoutError, ProtocolError as the message says.");

  py::class_<MdnsService>(module, "MdnsService", "A service a phone advertises by mDNS.")
      .def_readonly("instance", &MdnsService::instance,
                    "adb-SERIAL-xxxxxx (its GUID), or a "
                    "QR code's studio-… name.")
      .def_readonly("service", &MdnsService::service,
                    "_adb-tls-connect._tcp, _adb-tls-pairing._tcp or _adb._tcp.")
      .def_readonly("host", &MdnsService::host, "IPv4 address.")
      .def_readonly("port", &MdnsService::port, "TCP port.")
      .def_readonly("txt", &MdnsService::txt, "TXT strings (\"v=1\", \"name=…\"); may be empty.")
      .def_readonly("from_adb_server", &MdnsService::from_adb_server,
                    "Learned from an adb server's list rather than heard.")
      .def_property_readonly("address", &MdnsService::address, "\"HOST:PORT\".")
      .def("__repr__", [](const MdnsService& s) {
        return py::str("MdnsService(instance={!r}, service={!r}, address={!r})")
            .format(s.instance, s.service, s.address());
      });
  module.def(
      "mdns_services",
      [](double listen, const std::optional<ConnectOptions>& options) {
        MdnsOptions mdns;
        mdns.listen = milliseconds_from(listen, "listen");
        if (options) mdns.adb_server = options->server;
        return interruptible_or_left([mdns] { return mdns_services(mdns); });
      },
      py::arg("listen") = 1.0, py::arg("options") = py::none(),
      "The Wireless debugging services mDNS finds in `listen` seconds (adb mdns services), plus "
      "those a running adb server (options.server) heard.");

  py::class_<protocol::DeviceEntry>(module, "DeviceEntry",
                                    "A device an adb server lists (adb devices -l).")
      .def_property_readonly(
          "serial", [](const protocol::DeviceEntry& e) { return text(e.serial); },
          "What Device.connect(\"server:SERIAL\") takes.")
      .def_property_readonly(
          "state", [](const protocol::DeviceEntry& e) { return text(e.state_text); },
          "\"device\", \"unauthorized\", \"offline\", ... as the server wrote it.")
      .def_property_readonly(
          "product", [](const protocol::DeviceEntry& e) { return text(e.product); },
          "ro.product.name (\"sdk_gphone64_x86_64\"); -l listings only.")
      .def_property_readonly(
          "model", [](const protocol::DeviceEntry& e) { return text(e.model); },
          "ro.product.model with spaces as _ (\"Pixel_8\").")
      .def_property_readonly(
          "device", [](const protocol::DeviceEntry& e) { return text(e.device); },
          "ro.product.device (\"husky\").")
      .def_property_readonly(
          "devpath", [](const protocol::DeviceEntry& e) { return text(e.devpath); },
          "usb:1-1 and the like; \"\" for TCP devices.")
      .def_readonly("transport_id", &protocol::DeviceEntry::transport_id,
                    "The server's transport id, or None.")
      .def("__repr__", [](const protocol::DeviceEntry& e) {
        return py::str("DeviceEntry(serial={!r}, state={!r}, model={!r})")
            .format(text(e.serial), text(e.state_text), text(e.model));
      });
  module.def(
      "devices",
      [](const std::optional<ConnectOptions>& options, const std::optional<double>& timeout) {
        const ServerAddress address = options ? options->server : ServerAddress{};
        const Deadline deadline = deadline_from(timeout);
        return interruptible_or_left(
            [address, deadline] { return AdbServer(address).devices(true, deadline); });
      },
      py::arg("options") = py::none(), py::arg("timeout") = py::none(),
      "The devices the adb server (options.server, else $ADB_SERVER_SOCKET / "
      "$ANDROID_ADB_SERVER_PORT / localhost:5037) lists, as `adb devices -l`. adbwire starts no "
      "server: ConnectionRefusedError when none runs (`adb start-server`).");
}

}  // namespace adbwire::python
