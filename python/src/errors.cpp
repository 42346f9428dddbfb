// adbwire.Error and one subclass per adbwire::errc code, each carrying the code and the detail.
#include <array>
#include <string>
#include <string_view>

#include "adbwire/error.hpp"
#include "binding.hpp"

namespace adbwire::python {
namespace {

struct ErrorClass {
  errc code;
  const char* name;  // of the code in adbwire.ErrorCode
  const char* class_name;
  const char* doc;
};

// In errc order; the ErrorCode values are errc's, so they may be logged and compared.
constexpr ErrorClass kErrorClasses[] = {
    {errc::connection_refused, "connection_refused", "ConnectionRefusedError",
     "Nothing listens at the target (or the adb server is not running)."},
    {errc::unauthorized, "unauthorized", "UnauthorizedError",
     "The device did not accept our key: confirm the prompt on the phone (the message names "
     "the key's fingerprint)."},
    {errc::device_offline, "device_offline", "DeviceOfflineError",
     "The connection to the device was lost (cable, adbd restart): connect again."},
    {errc::protocol_error, "protocol_error", "ProtocolError",
     "The peer broke the ADB wire protocol; the connection is unusable."},
    {errc::timeout, "timeout", "TimeoutError", "A deadline passed before the operation completed."},
    {errc::not_found, "not_found", "NotFoundError",
     "No such device, file, element, ref or service."},
    {errc::permission_denied, "permission_denied", "PermissionDeniedError",
     "The OS refused access (USB node without a udev rule, file mode)."},
    {errc::busy, "busy", "BusyError",
     "Someone else holds the resource (the adb server owns the USB device, another "
     "UiAutomation client holds the screen, a call is using the Device)."},
    {errc::stale_ref, "stale_ref", "StaleRefError",
     "A snapshot ref no longer matches the screen: take a new snapshot."},
    {errc::parse_error, "parse_error", "ParseError",
     "Malformed input from the device (XML, image, reply)."},
    {errc::not_supported, "not_supported", "NotSupportedError",
     "The device or this build lacks the feature."},
    {errc::closed, "closed", "ClosedError",
     "The stream or connection was closed (by us or by the peer)."},
    {errc::invalid_argument, "invalid_argument", "InvalidArgumentError",
     "The caller passed something unusable (the message says what and why)."},
    {errc::command_failed, "command_failed", "CommandFailedError",
     "The device ran the request and reported failure (the message quotes it)."},
    {errc::io_error, "io_error", "IoError", "Local file or socket I/O failed."},
    {errc::cancelled, "cancelled", "CancelledError", "The caller cancelled the operation."},
    {errc::limit_exceeded, "limit_exceeded", "LimitExceededError",
     "A bound on what a device may make the host hold was reached (the message names it and "
     "the option that raises it)."},
};
constexpr std::size_t kCodes = std::size(kErrorClasses);

// The classes live as long as the process: the translator may run during interpreter
// shutdown, so they are never released (a static py::object would be destroyed after the
// interpreter is gone).
PyObject* g_base = nullptr;
std::array<PyObject*, kCodes + 1> g_by_code{};  // indexed by the errc value
std::array<PyObject*, kCodes + 1> g_codes{};    // the ErrorCode members, the same way

void raise(const std::system_error& error) {
  const int value = error.code().value();
  const bool ours = error.code().category() == error_category();
  PyObject* cls = ours && value > 0 && static_cast<std::size_t>(value) <= kCodes
                      ? g_by_code[static_cast<std::size_t>(value)]
                      : g_base;
  py::object instance = py::handle(cls)(text(error.what()));
  instance.attr("code") =
      cls == g_base ? py::none()
                    : py::reinterpret_borrow<py::object>(g_codes[static_cast<std::size_t>(value)]);
  instance.attr("detail") = text(detail_of(error));
  PyErr_SetObject(cls, instance.ptr());
}

}  // namespace

py::str text(std::string_view utf8) {
  PyObject* decoded =
      PyUnicode_DecodeUTF8(utf8.data(), static_cast<Py_ssize_t>(utf8.size()), "replace");
  if (decoded == nullptr) throw py::error_already_set();  // out of memory
  return py::reinterpret_steal<py::str>(decoded);
}

py::list texts(const std::vector<std::string>& utf8) {
  py::list list;
  for (const std::string& item : utf8) list.append(text(item));
  return list;
}

std::string detail_of(const std::system_error& error) {
  std::string text = error.what();
  const std::string suffix = ": " + error.code().message();
  if (text.size() >= suffix.size() &&
      text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0) {
    text.resize(text.size() - suffix.size());
  }
  return text;
}

void bind_errors(py::module_& module) {
  // A real enum.IntEnum: compares with ints, iterates, pickles.
  py::list members;
  for (const ErrorClass& entry : kErrorClasses)
    members.append(py::make_tuple(entry.name, static_cast<int>(entry.code)));
  py::object codes = py::module_::import("enum").attr("IntEnum")("ErrorCode", members,
                                                                 py::arg("module") = "adbwire");
  codes.attr("__doc__") = "The adbwire::errc codes; Error.code holds one. Values are stable.";
  for (const ErrorClass& entry : kErrorClasses) {
    g_codes[static_cast<std::size_t>(entry.code)] =
        py::object(codes.attr(entry.name)).release().ptr();
  }
  module.add_object("ErrorCode", codes);

  g_base = PyErr_NewExceptionWithDoc(
      "adbwire.Error",
      "Base of every adbwire error. `code` is the adbwire.ErrorCode, `detail` what was being "
      "done (the target, the path, the ref); str(error) is the whole message.",
      PyExc_Exception, nullptr);
  if (g_base == nullptr) throw py::error_already_set();
  py::handle base(g_base);
  base.attr("code") = py::none();
  base.attr("detail") = "";
  module.add_object("Error", base);
  for (const ErrorClass& entry : kErrorClasses) {
    const std::string qualified = std::string("adbwire.") + entry.class_name;
    PyObject* cls = PyErr_NewExceptionWithDoc(qualified.c_str(), entry.doc, g_base, nullptr);
    if (cls == nullptr) throw py::error_already_set();
    py::handle handle(cls);
    handle.attr("code") = py::handle(g_codes[static_cast<std::size_t>(entry.code)]);
    g_by_code[static_cast<std::size_t>(entry.code)] = cls;
    module.add_object(entry.class_name, handle);
  }

  py::register_exception_translator([](std::exception_ptr pending) {
    try {
      if (pending) std::rethrow_exception(pending);
    } catch (const Error& error) {
      raise(error);
    }
  });
}

}  // namespace adbwire::python
