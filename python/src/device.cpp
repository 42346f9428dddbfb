// adbwire.Device: one connection, commands as streams over it (shell, exec, exec_stream, push,
// pull, install), and the small types its calls return.
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <algorithm>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "adbwire/error.hpp"
#include "adbwire/install.hpp"
#include "adbwire/shell_options.hpp"
#include "adbwire/shell_stream.hpp"
#include "adbwire/sync.hpp"
#include "base/shell_quote.hpp"
#include "binding.hpp"
#include "connection/stream_opener.hpp"
#include "interrupt.hpp"

namespace adbwire::python {
namespace {

// Largest chunk ExecStream hands out: one read of what the device sent (a WRTE payload is at
// most 1 MiB; most are 64 KiB or less), so memory stays bounded whatever the output's size.
constexpr std::size_t kChunk = 256 * 1024;

py::bytes to_bytes(const std::string& data) { return py::bytes(data.data(), data.size()); }

SyncCompression compression_from(const std::string& text) {
  SyncCompression compression = SyncCompression::any;
  if (!parse_sync_compression(text, compression)) {
    throw Error(errc::invalid_argument,
                "compression \"" + text + "\" is not one of any, none, brotli, lz4, zstd");
  }
  return compression;
}

// Progress handlers call back into Python on the calling thread (on_caller: the main thread's
// calls run on a helper), which holds no GIL during the transfer. They refer to the
// caller's function rather than copy it: the library may copy and destroy handlers while the GIL is
// released, and a py::function must not be.
SyncProgressHandler sync_progress(const std::optional<py::function>& callback) {
  if (!callback) return {};
  return [&function = *callback](const SyncProgress& progress) {
    on_caller([&] {
      py::gil_scoped_acquire gil;
      function(progress.total_bytes, progress.total_size);
    });
  };
}

InstallProgressHandler install_progress(const std::optional<py::function>& callback) {
  if (!callback) return {};
  return [&function = *callback](std::uint64_t sent, std::uint64_t total) {
    on_caller([&] {
      py::gil_scoped_acquire gil;
      function(sent, total);
    });
  };
}

// A new connection to what box was connected to, with the same options (Ctrl-C leaves the
// handshake to end by its own deadline).
Device connect_again(const DeviceBox& box) {
  return cancellable(interruptible_or_left(
      [target = box.target, options = box.options] { return Device::connect(target, options); }));
}

// A command as Python callers give it: one shell line, or arguments to quote.
using Command = std::variant<std::string, std::vector<std::string>>;

std::string command_line(const Command& command) {
  if (const auto* line = std::get_if<std::string>(&command)) return *line;
  std::string joined;
  for (const std::string& arg : std::get<std::vector<std::string>>(command))
    joined += (joined.empty() ? "" : " ") + detail::shell_quote(arg);
  return joined;
}

// Device::shell with input: the command reads `input`, then the end of its stdin.
ShellResult shell_with_stdin(Device& device, const std::string& command, const std::string& input,
                             Deadline deadline) {
  if (!device.has_feature("shell_v2")) {
    throw Error(errc::not_supported,
                "the device lacks shell_v2, without which a command's stdin cannot be ended "
                "(its reader would wait forever): pipe the input in the command instead");
  }
  const Deadline resolved = device.resolve(deadline);
  ShellOptions options;
  options.command = command;
  ShellStream shell = ShellStream::open(device, options, resolved);
  ShellResult result;
  // The device may answer before it has read everything: its output is collected meanwhile.
  std::exception_ptr writing_error;
  std::thread writer([&] {
    try {
      shell.write_stdin(
          std::span(reinterpret_cast<const std::uint8_t*>(input.data()), input.size()), resolved);
      shell.close_stdin(resolved);
    } catch (...) {
      writing_error = std::current_exception();
    }
  });
  const auto append = [](std::string& to) {
    return [&to](std::span<const std::uint8_t> data) {
      to.append(reinterpret_cast<const char*>(data.data()), data.size());
    };
  };
  std::error_code error;
  result.exit_code = shell.wait(append(result.out), append(result.err), resolved, error);
  shell.close();  // the command has ended (or failed): a writer still blocked wakes
  writer.join();
  throw_if_error(error, "running `" + command + "` with input");
  // A command that exits without reading all of its input is no error (head -1).
  if (writing_error && result.exit_code < 0) std::rethrow_exception(writing_error);
  return result;
}

constexpr Names<InstallMethod> kInstallMethods[] = {{"automatic", InstallMethod::automatic},
                                                    {"streamed", InstallMethod::streamed},
                                                    {"push", InstallMethod::push}};

// The output of `exec:COMMAND` as an iterator of bytes: each next() is Stream::read_some, and
// the device is acknowledged only as chunks are taken, so a slow consumer slows the device
// rather than filling memory. The wait is cut into slices so that Ctrl-C (any Python signal
// handler) is seen within kSignalCheck even when it waits as long as it takes.
class ExecStream {
 public:
  ExecStream(std::shared_ptr<DeviceBox> device, Stream stream, std::string command,
             std::optional<double> timeout)
      : device_(std::move(device)),
        stream_(std::move(stream)),
        command_(std::move(command)),
        timeout_(timeout),
        buffer_(kChunk) {}

  py::bytes next() {
    const Deadline deadline =
        timeout_ ? deadline_from(timeout_) : deadline_after(device_->command_timeout);
    std::unique_lock<std::mutex> lock(mutex_, std::defer_lock);
    std::size_t n = 0;
    std::error_code error;
    for (;;) {
      {
        py::gil_scoped_release release;
        // One reader at a time (Stream allows one); the mutex is taken without the GIL.
        if (!lock.owns_lock()) lock.lock();
        if (!ended_)
          n = stream_.read_some(buffer_, std::min(deadline, Clock::now() + kSignalCheck), error);
      }
      if (error != errc::timeout || Clock::now() >= deadline) break;
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    }
    if (error == errc::timeout) {
      throw Error(error, "no output from `" + command_ +
                             "` within the timeout (the stream stays usable: call next() again)");
    }
    throw_if_error(error, "reading the output of `" + command_ + "`");
    if (n == 0) {
      ended_ = true;
      throw py::stop_iteration();
    }
    // Still under the mutex: no other reader overwrites the buffer before it is copied.
    return py::bytes(reinterpret_cast<const char*>(buffer_.data()), n);
  }

  // Never blocks; wakes a reader blocked in next() (it then raises ClosedError).
  void close() noexcept { stream_.close(); }

 private:
  static constexpr std::chrono::milliseconds kSignalCheck{100};

  std::shared_ptr<DeviceBox> device_;  // keeps the connection open while the stream is read
  std::mutex mutex_;
  Stream stream_;
  std::string command_;
  std::optional<double> timeout_;
  std::vector<std::uint8_t> buffer_;
  bool ended_ = false;
};

void bind_results(py::module_& module) {
  py::class_<ShellResult>(module, "ShellResult",
                          "What Device.shell() collected: stdout, stderr and the exit code.")
      .def_property_readonly(
          "out", [](const ShellResult& r) { return text(r.out); },
          "stdout as text (UTF-8; undecodable bytes become U+FFFD). With stderr merged in when "
          "the device lacks shell_v2.")
      .def_property_readonly(
          "err", [](const ShellResult& r) { return text(r.err); },
          "stderr as text; \"\" without shell_v2.")
      .def_property_readonly(
          "out_bytes", [](const ShellResult& r) { return to_bytes(r.out); }, "stdout, as sent.")
      .def_property_readonly(
          "err_bytes", [](const ShellResult& r) { return to_bytes(r.err); }, "stderr, as sent.")
      .def_readonly("exit_code", &ShellResult::exit_code,
                    "The exit status 0..255; -1 when the device lacks shell_v2 (shell "
                    "protocol v1 reports none).")
      .def("__repr__", [](const ShellResult& r) {
        return "ShellResult(exit_code=" + std::to_string(r.exit_code) +
               ", out=" + py::repr(text(r.out)).cast<std::string>() +
               ", err=" + py::repr(text(r.err)).cast<std::string>() + ")";
      });

  py::class_<TransferStats>(module, "TransferStats", "What a push or pull moved.")
      .def_readonly("files", &TransferStats::files, "Files transferred.")
      .def_readonly("skipped", &TransferStats::skipped,
                    "Entries that are neither files, folders nor links to files.")
      .def_readonly("bytes", &TransferStats::bytes, "File content moved.")
      .def_readonly("wire_bytes", &TransferStats::wire_bytes,
                    "Of which on the wire (compressed or not).")
      .def_property_readonly(
          "compression",
          [](const TransferStats& s) { return std::string(to_string(s.compression)); },
          "What was used: \"none\" (plain), \"brotli\", \"lz4\" or \"zstd\".")
      .def_property_readonly(
          "elapsed",
          [](const TransferStats& s) { return std::chrono::duration<double>(s.elapsed).count(); },
          "Seconds the transfer took.")
      .def("__repr__", [](const TransferStats& s) {
        return "TransferStats(files=" + std::to_string(s.files) +
               ", bytes=" + std::to_string(s.bytes) + ")";
      });

  py::class_<ExecStream>(module, "ExecStream",
                         "The output of Device.exec_stream(): iterate to get bytes chunks as "
                         "the device sends them (memory stays bounded). Usable as a context "
                         "manager; close() ends the command early.")
      .def("__iter__", [](ExecStream& self) -> ExecStream& { return self; })
      .def("__next__", &ExecStream::next,
           "The next chunk; StopIteration once the command ended. TimeoutError when nothing "
           "arrived within the timeout (the stream stays usable), DeviceOfflineError, "
           "ClosedError after close().")
      .def("close", &ExecStream::close, "Ends the command; never blocks. Idempotent.")
      .def("__enter__", [](ExecStream& self) -> ExecStream& { return self; })
      .def("__exit__", [](ExecStream& self, const py::args&) { self.close(); });
}

void bind_device_class(py::module_& module) {
  using Box = std::shared_ptr<DeviceBox>;
  py::class_<DeviceBox, Box> cls(
      module, "Device",
      "One connection to one Android device; each call opens its own ADB stream over it (one "
      "round trip, no process spawned). Thread safe: any number of threads may call at once, "
      "and every blocking call releases the GIL. Every call ends by its timeout (seconds; None = "
      "ConnectOptions.command_timeout; math.inf = none) with TimeoutError; a dropped "
      "connection gives DeviceOfflineError (connect again to recover).");

  cls.def_static(
      "connect",
      [](const std::string& target, const std::optional<ConnectOptions>& options, bool reconnect) {
        auto box = std::make_shared<DeviceBox>();
        box->target = target;
        box->options = options.value_or(ConnectOptions{});
        box->command_timeout = box->options.command_timeout;
        box->reconnect = reconnect;
        box->device = std::make_shared<Device>(connect_again(*box));
        return box;
      },
      py::arg("target") = "", py::arg("options") = py::none(), py::kw_only(),
      py::arg("reconnect") = false,
      "Connects and completes the handshake. target: \"tcp:HOST[:PORT]\", \"HOST:PORT\", "
      "\"usb:[SERIAL]\", \"server:[HOST:PORT/]SERIAL\", a serial (through the adb server), or "
      "\"\" for $ANDROID_SERIAL, else $ADB_SERIAL. reconnect=True: a call that finds the "
      "connection dropped (the device rebooted, adbd restarted, the network went away) "
      "connects again first, to the "
      "same target with the same options; the call that met the drop still raises "
      "DeviceOfflineError (its command may or may not have run). Errors: InvalidArgumentError, "
      "ConnectionRefusedError, TimeoutError, UnauthorizedError (confirm the prompt on the "
      "phone), DeviceOfflineError, ProtocolError, NotSupportedError (usb: in a build without "
      "USB), IoError (keys).");

  cls.def(
      "reconnect", [](DeviceBox& box) { reconnect_now(box); },
      "Drops the connection and connects again to the target and with the options connect() "
      "was given; calls running on the old connection fail with ClosedError. A Device a Page "
      "holds (Page.device, or dev after Page(dev)) cannot: NotSupportedError. Errors: those of "
      "connect().");
  cls.def_property_readonly(
      "connected",
      [](DeviceBox& box) {
        const DeviceUse device(box, false);
        const auto& opener = device->opener();
        return opener != nullptr && opener->connected();
      },
      "False once the connection dropped or was closed (a call then raises DeviceOfflineError "
      "or ClosedError, unless connect(reconnect=True) was asked).");

  cls.def(
      "shell",
      [](DeviceBox& box, const Command& argv, const std::optional<double>& timeout,
         const std::optional<std::variant<py::bytes, std::string>>& stdin_data) {
        const std::string command = command_line(argv);
        const Deadline deadline = deadline_from(timeout);
        const DeviceUse device(box);
        if (!stdin_data) return interruptible([&] { return device->shell(command, deadline); });
        const std::string input = std::visit(
            [](const auto& data) { return static_cast<std::string>(data); }, *stdin_data);
        return interruptible([&] { return shell_with_stdin(*device, command, input, deadline); });
      },
      py::arg("command"), py::arg("timeout") = py::none(), py::arg("stdin") = py::none(),
      "Runs command through the device's shell (sh -c) and collects stdout, stderr and the "
      "exit code (shell protocol v2; v1 devices merge stderr and report exit_code -1). A "
      "non-zero exit code is not an error. command: a string, or a list of arguments each "
      "shell-quoted (no word splitting or globbing on the device). stdin: bytes or text sent "
      "to the command's stdin, then its end (needs shell_v2: NotSupportedError without it). "
      "The timeout covers the whole command (it is then closed on the device).");

  cls.def(
      "exec",
      [](DeviceBox& box, const Command& argv, const std::optional<double>& timeout) {
        const std::string command = command_line(argv);
        const Deadline deadline = deadline_from(timeout);
        std::string out;
        {
          const DeviceUse device(box);
          out = interruptible([&] { return device->exec(command, deadline); });
        }
        return to_bytes(out);
      },
      py::arg("command"), py::arg("timeout") = py::none(),
      "Runs command with exec: (no PTY, no shell protocol) and returns its output as bytes, "
      "unchanged (binary safe: screencap -p), stderr merged in as adbd does. The whole output "
      "is held in memory: exec_stream() for output of unknown size.");

  cls.def(
      "exec_stream",
      [](const Box& box, const std::string& command, const std::optional<double>& timeout) {
        deadline_from(timeout);  // an unusable timeout fails here, not at the first chunk
        std::optional<Stream> stream;
        {
          const DeviceUse device(*box);
          try {
            interruptible([&] { stream.emplace(device->open("exec:" + command)); });
          } catch (const Error& error) {
            if (error.code() != errc::not_supported) throw;
            throw Error(errc::not_supported,
                        detail_of(error) +
                            " (a device without exec:, Android before 5.0: Device.exec() runs "
                            "the command through the shell there)");
          }
        }
        return std::make_unique<ExecStream>(box, std::move(*stream), command, timeout);
      },
      py::arg("command"), py::arg("timeout") = py::none(),
      "Starts command with exec: and returns an ExecStream that yields its output in chunks as "
      "the device sends them; the device waits while chunks are not taken, so memory stays "
      "bounded (logcat, a large file). timeout bounds each wait for the next chunk "
      "(math.inf: wait as long as it takes; Ctrl-C still interrupts it). NotSupportedError on "
      "devices without exec:.");

  cls.def(
      "push",
      [](DeviceBox& box, const std::filesystem::path& local, const std::string& remote,
         const std::optional<py::function>& progress, const std::optional<double>& timeout,
         const std::string& compression) {
        PushOptions options;
        options.progress = sync_progress(progress);
        options.deadline = deadline_from(timeout);
        options.compression = compression_from(compression);
        const DeviceUse device(box);
        return interruptible([&] { return adbwire::push(*device, local, remote, options); });
      },
      py::arg("local"), py::arg("remote"), py::arg("progress") = py::none(),
      py::arg("timeout") = py::none(), py::arg("compression") = "any",
      "Copies a local file or folder (recursively) to the device, like adb push: files keep "
      "their permission bits and mtime. progress(done, total) is called with bytes after each "
      "chunk (on the calling thread; an exception from it stops the transfer and "
      "propagates). "
      "timeout=None bounds each wait for the device, a number the whole call. compression: "
      "\"any\" (the best the device offers), \"none\", \"brotli\", \"lz4\", \"zstd\". Errors "
      "also: NotFoundError (no such local path), CommandFailedError (the device's refusal), "
      "IoError.");

  cls.def(
      "pull",
      [](DeviceBox& box, const std::string& remote, const std::filesystem::path& local,
         const std::optional<py::function>& progress, const std::optional<double>& timeout,
         const std::string& compression, bool keep_attributes) {
        PullOptions options;
        options.progress = sync_progress(progress);
        options.deadline = deadline_from(timeout);
        options.compression = compression_from(compression);
        options.keep_attributes = keep_attributes;
        const DeviceUse device(box);
        return interruptible([&] { return adbwire::pull(*device, remote, local, options); });
      },
      py::arg("remote"), py::arg("local"), py::arg("progress") = py::none(),
      py::arg("timeout") = py::none(), py::arg("compression") = "any",
      py::arg("keep_attributes") = true,
      "Copies a remote file or folder (recursively) to local, like adb pull. Nothing is lost: "
      "a file is written under a hidden temporary name and renamed only once complete. "
      "progress, timeout and compression as push(). Errors also: NotFoundError (no such "
      "remote path), CommandFailedError, IoError (local disk).");

  cls.def(
      "install",
      [](DeviceBox& box, const std::vector<std::filesystem::path>& apks, bool replace,
         bool downgrade, bool grant_permissions, bool allow_test, const std::string& method,
         const std::vector<std::string>& extra_args, const std::optional<py::function>& progress,
         const std::optional<double>& timeout) {
        InstallOptions options;
        options.replace = replace;
        options.downgrade = downgrade;
        options.grant_permissions = grant_permissions;
        options.allow_test = allow_test;
        options.method = parse_name(method, kInstallMethods, "method");
        options.extra_args = extra_args;
        const InstallProgressHandler handler = install_progress(progress);
        const Deadline deadline = deadline_from(timeout);
        std::string answer;
        {
          const DeviceUse device(box);
          answer = interruptible(
              [&] { return adbwire::install(*device, apks, options, handler, deadline); });
        }
        return text(answer);
      },
      py::arg("apks"), py::kw_only(), py::arg("replace") = true, py::arg("downgrade") = false,
      py::arg("grant_permissions") = false, py::arg("allow_test") = false,
      py::arg("method") = "automatic", py::arg("extra_args") = std::vector<std::string>{},
      py::arg("progress") = py::none(), py::arg("timeout") = py::none(),
      "Installs one APK, or the split APKs of one app (a list), streaming each from the host "
      "file. Returns the package manager's answer (\"Success\\n\"). progress(sent, total) in "
      "bytes. method: \"automatic\", \"streamed\" (cmd package install -S) or \"push\" (push "
      "then pm install). Errors also: CommandFailedError (the package manager's Failure "
      "[...] word for word), NotFoundError (an APK cannot be read), InvalidArgumentError.");
  cls.def(
      "install",
      [](const py::object& self, const std::filesystem::path& apk, const py::kwargs& kwargs) {
        return self.attr("install")(std::vector<std::filesystem::path>{apk}, **kwargs);
      },
      py::arg("apk"), "Installs one APK (a path); keywords as for a list of APKs.");

  cls.def(
      "uninstall",
      [](DeviceBox& box, const std::string& package, bool keep_data,
         const std::optional<double>& timeout) {
        const Deadline deadline = deadline_from(timeout);
        std::string answer;
        {
          const DeviceUse device(box);
          answer = interruptible(
              [&] { return adbwire::uninstall(*device, package, keep_data, deadline); });
        }
        return text(answer);
      },
      py::arg("package"), py::arg("keep_data") = false, py::arg("timeout") = py::none(),
      "pm uninstall [-k] PACKAGE; returns the answer (\"Success\\n\"). CommandFailedError "
      "with the package manager's words otherwise.");

  cls.def_property_readonly(
      "serial", [](DeviceBox& box) { return text(DeviceUse(box)->serial()); },
      "What adb would list as this device's serial (\"HOST:PORT\" for TCP targets).");
  cls.def_property_readonly(
      "target", [](DeviceBox& box) { return text(DeviceUse(box)->connection_info().target); },
      "The canonical target this Device connected to (\"tcp:127.0.0.1:5555\").");
  cls.def_property_readonly(
      "features", [](DeviceBox& box) { return texts(DeviceUse(box)->banner().features); },
      "The features the device's banner lists (shell_v2, cmd, stat_v2, ...).");
  cls.def(
      "has_feature",
      [](DeviceBox& box, const std::string& feature) {
        return DeviceUse(box)->has_feature(feature);
      },
      py::arg("feature"), "True when the device lists the feature and adbwire implements it.");
  cls.def(
      "close",
      [](DeviceBox& box) {
        box.closed = true;
        const DeviceUse device(box, false);
        py::gil_scoped_release release;
        device->close();
      },
      "Closes the connection: calls waiting on it fail with ClosedError, later calls too. "
      "Idempotent; closes the connection of a Page made from this Device as well.");
  cls.def("__enter__", [](const Box& box) { return box; });
  cls.def("__exit__", [](DeviceBox& box, const py::args&) {
    box.closed = true;
    const DeviceUse device(box, false);
    py::gil_scoped_release release;
    device->close();
  });
  cls.def("__repr__", [](DeviceBox& box) {
    return py::str("<adbwire.Device {}>")
        .format(text(DeviceUse(box, false)->connection_info().target));
  });
}

}  // namespace

void reconnect_now(DeviceBox& box) {
  if (box.owned_by_page) {
    throw Error(errc::not_supported,
                "this Device's connection belongs to a Page, which cannot change it: make a new "
                "Page with Page.connect(target) instead");
  }
  const std::shared_ptr<Device> seen = box.device;
  {
    py::gil_scoped_release release;
    seen->close();
  }
  auto fresh = std::make_shared<Device>(connect_again(box));
  // Readers copy box.device with the GIL held, as this assignment is made.
  box.device = std::move(fresh);
  box.closed = false;
}

void reconnect_if_dropped(DeviceBox& box) {
  if (!box.reconnect || box.owned_by_page || box.closed) return;
  const std::shared_ptr<Device> seen = box.device;
  const auto& opener = seen->opener();
  if (opener != nullptr && opener->connected()) return;
  auto fresh = std::make_shared<Device>(connect_again(box));
  // Another thread may have reconnected while the GIL was released here: keep its connection
  // (fresh closes as it goes).
  if (box.device == seen) box.device = std::move(fresh);
}

std::shared_ptr<DeviceBox> device_of(const std::shared_ptr<PageBox>& page) {
  auto box = std::make_shared<DeviceBox>();
  box->device = std::shared_ptr<Device>(page, &page->page.device());
  box->owned_by_page = true;
  box->command_timeout = page->command_timeout;
  return box;
}

void bind_device(py::module_& module) {
  bind_results(module);
  bind_device_class(module);
}

}  // namespace adbwire::python
