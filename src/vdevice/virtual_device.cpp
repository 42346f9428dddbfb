#include <unistd.h>

#include <algorithm>
#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/post.hpp>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <future>
#include <optional>
#include <random>
#include <thread>
#include <utility>

#include "adbwire/error.hpp"
#include "adbwire/mdns.hpp"
#include "adbwire/testing/vdevice.hpp"
#include "capture/capture_recorder.hpp"
#include "compression/sync_compression.hpp"
#include "transport/close_on_exec.hpp"
#include "vdevice/auth_keys.hpp"
#include "vdevice/connection.hpp"
#include "vdevice/device_context.hpp"
#include "vdevice/mdns_responder.hpp"
#include "vdevice/pairing_service.hpp"
#include "vdevice/reverse_rules.hpp"
#include "vdevice/screen_graph.hpp"

namespace adbwire {
namespace {

namespace fs = std::filesystem;

// The folders every Android device has and hosts write to.
constexpr const char* kStandardFolders[] = {"sdcard", "data/local/tmp"};

// /proc/net/unix as the kernel prints it (the columns adb's and Chrome's DevTools discovery
// read: the last is the path, '@' for the abstract namespace) and /proc/PID/cmdline (the
// process name, NUL-terminated) for each DevTools socket.
void write_proc_files(const fs::path& root, const std::vector<DevtoolsSocket>& sockets,
                      std::error_code& error) {
  fs::create_directories(root / "proc/net", error);
  if (error) return;
  std::ofstream unix_sockets(root / "proc/net/unix", std::ios::trunc);
  unix_sockets << "Num       RefCount Protocol Flags    Type St Inode Path\n"
               << "0000000000000000: 00000002 00000000 00010000 0001 01 10240 /dev/socket/logdw\n";
  std::uint32_t inode = 20480;
  for (const DevtoolsSocket& socket : sockets) {
    unix_sockets << "0000000000000000: 00000002 00000000 00010000 0001 01 " << inode++ << " @"
                 << socket.name << "\n";
    fs::create_directories(root / "proc" / std::to_string(socket.pid), error);
    if (error) return;
    std::ofstream(root / "proc" / std::to_string(socket.pid) / "cmdline", std::ios::trunc)
        << socket.package << '\0';
  }
  if (!unix_sockets.flush()) error = make_error_code(std::errc::io_error);
}

// adbd's id for Wireless debugging: "adb-SERIAL-" and six random letters and digits.
std::string make_guid(const std::string& serial) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  std::random_device random;
  std::string guid = "adb-" + serial + "-";
  for (int i = 0; i < 6; ++i) guid += kAlphabet[random() % (sizeof kAlphabet - 1)];
  return guid;
}

// "WIFI:T:ADB;S:NAME;P:PASSWORD;;", what a host's QR code says; false for anything else.
bool parse_pairing_qr(std::string_view text, std::string& name, std::string& password) {
  constexpr std::string_view kStart = "WIFI:T:ADB;S:";
  if (!text.starts_with(kStart) || !text.ends_with(";;")) return false;
  text = text.substr(kStart.size(), text.size() - kStart.size() - 2);
  const auto split = text.find(";P:");
  if (split == std::string_view::npos || split == 0 || split + 3 == text.size()) return false;
  name = std::string(text.substr(0, split));
  password = std::string(text.substr(split + 3));
  return true;
}

fs::path make_temp_root(std::error_code& error) {
  std::string pattern = (fs::temp_directory_path(error) / "adbwire-vdevice-XXXXXX").string();
  if (error) return {};
  if (::mkdtemp(pattern.data()) == nullptr) {
    error = make_error_code(errc::io_error);
    return {};
  }
  return pattern;
}

}  // namespace

struct VirtualDevice::Impl {
  explicit Impl(VirtualDeviceOptions o)
      : options(std::move(o)), keys(options.keys_file, options.accept_new_keys) {}

  void accept() {
    acceptor->async_accept([this](std::error_code error, asio::ip::tcp::socket socket) {
      if (error) {
        if (error == asio::error::operation_aborted || !acceptor->is_open()) return;
        accept();
        return;
      }
      std::error_code ignored;
      transport::set_close_on_exec(socket, ignored);  // a fresh socket: fcntl cannot fail
      ++accepted;
      ConnectionFaultPlan fault = options.fault;
      if (fault.connections != 0 && accepted > fault.connections)
        fault.kind = ConnectionFault::none;
      CaptureWriterOptions link;
      const auto peer = socket.remote_endpoint(ignored);
      if (peer.address().is_v4()) link.host_address = peer.address().to_v4().to_bytes();
      link.host_port = peer.port();
      if (auto local = socket.local_endpoint(ignored); local.address().is_v4())
        link.device_address = local.address().to_v4().to_bytes();
      link.device_port = port;
      auto connection = std::make_shared<vdevice::Connection>(std::move(socket), session_options,
                                                              *device, keys, fault);
      if (recorder) connection->record_to(recorder->add(link));
      if (tls) connection->use_tls(tls);
      std::erase_if(connections,
                    [](const std::weak_ptr<vdevice::Connection>& c) { return c.expired(); });
      connections.push_back(connection);
      connection->start();
      accept();
    });
  }

  // The pairing service and the mDNS responder of VirtualDeviceOptions; false with error (and
  // failure) set when one cannot start.
  bool start_wireless(std::error_code& error);

  VirtualDeviceOptions options;
  vdevice::AuthorizedKeys keys;
  protocol::SessionOptions session_options;
  fs::path root;
  bool temporary_root = false;
  // Declared before the io_context: connections and their handlers refer to it, and the
  // io_context destroys pending handlers when it goes.
  std::optional<vdevice::DeviceContext> device;
  asio::io_context io;
  std::optional<asio::ip::tcp::acceptor> acceptor;
  std::vector<std::weak_ptr<vdevice::Connection>> connections;
  std::vector<std::shared_ptr<void>> test_listeners;  // open_to_host(); I/O thread only
  std::thread thread;
  std::uint16_t port = 0;
  std::atomic<std::uint64_t> accepted{0};
  std::shared_ptr<capture::CaptureRecorder> recorder;  // VirtualDeviceOptions::record
  std::shared_ptr<const vdevice::TlsServer> tls;       // VirtualDeviceOptions::tls
  std::string guid;
  std::unique_ptr<vdevice::PairingService> pairing;   // VirtualDeviceOptions::pairing_code
  std::unique_ptr<vdevice::MdnsResponder> responder;  // VirtualDeviceOptions::mdns
  std::string failure;  // why start() failed, for the throwing overload's message
  bool started = false;
  bool stopped = false;
};

bool VirtualDevice::Impl::start_wireless(std::error_code& error) {
  Impl& d = *this;
  detail::Failure failure;
  if (!d.options.pairing_code.empty() && d.options.keys_file.empty()) {
    failure.set(errc::invalid_argument, "a pairing service needs keys_file to store paired keys");
  } else if (!d.options.pairing_code.empty()) {
    d.pairing = vdevice::PairingService::start(
        {d.options.address, d.options.pairing_port, d.options.pairing_code, d.guid,
         d.options.keys_file, d.options.pairing_fault},
        failure);
  }
  if (!failure && d.options.mdns) {
    // adbd advertises its TLS port; `adb tcpip` ports are _adb._tcp.
    vdevice::MdnsResponder::Options mdns{
        d.options.address, "vdevice-" + d.options.serial, {}, d.options.mdns_txt, {}};
    mdns.services.push_back(
        {d.options.tls ? std::string(kAdbTlsConnectService) : std::string(kAdbService), d.guid,
         d.port});
    if (d.pairing) {
      mdns.services.push_back({std::string(kAdbTlsPairingService), d.guid, d.pairing->port()});
    }
    // adbd's TXT attributes, in the order its std::map writes them.
    mdns.txt_strings = {"api=" + std::to_string(d.options.api_level),
                        "name=" + std::string(vdevice::kProductModel), "v=1"};
    d.responder = vdevice::MdnsResponder::start(std::move(mdns), failure);
    if (failure) d.pairing.reset();
  }
  if (failure) {
    error = failure.code;
    d.failure = failure.detail;
    return false;
  }
  return true;
}

VirtualDevice::VirtualDevice(VirtualDeviceOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {}

VirtualDevice::~VirtualDevice() { stop(); }

void VirtualDevice::start() {
  std::error_code error;
  start(error);
  throw_if_error(error, "starting the virtual device on " + impl_->options.address + ":" +
                            std::to_string(impl_->options.port) +
                            (impl_->failure.empty() ? "" : ": " + impl_->failure));
}

void VirtualDevice::start(std::error_code& error) {
  error.clear();
  Impl& d = *impl_;
  if (d.started) {
    error = make_error_code(errc::invalid_argument);
    return;
  }
  asio::ip::address address = asio::ip::make_address(d.options.address, error);
  if (error) {
    error = make_error_code(errc::invalid_argument);
    return;
  }

  std::unique_ptr<vdevice::ScreenGraph> screens;
  if (!d.options.screens.empty()) {
    screens = vdevice::ScreenGraph::load(d.options.screens, d.failure);
    if (!screens) {
      error = make_error_code(errc::parse_error);
      return;
    }
  }

  if (!d.options.record.empty()) {
    d.recorder = capture::CaptureRecorder::create(d.options.record, CaptureLink::tcp, error);
    if (!d.recorder) {
      d.failure = "cannot create the capture file " + d.options.record.string();
      return;
    }
  }
  if (d.options.tls) {
    detail::Failure why;
    d.tls = vdevice::TlsServer::create(d.options.keys_file, why);
    if (!d.tls) {
      error = why.code;
      d.failure = why.detail;
      return;
    }
  }
  d.root = d.options.root;
  if (d.root.empty()) {
    d.root = make_temp_root(error);
    if (error) {
      error = make_error_code(errc::io_error);
      return;
    }
    d.temporary_root = true;
  }
  for (const char* folder : kStandardFolders) fs::create_directories(d.root / folder, error);
  if (error) {
    error = make_error_code(errc::io_error);
    return;
  }
  d.device.emplace(d.root, d.options.serial, std::move(screens));
  d.device->set_drop_after_bytes(d.options.drop_after_bytes);
  d.device->set_hostile_sync(d.options.hostile_sync);
  d.device->set_hostile_output(d.options.hostile_output);
  d.device->set_legacy_pty(d.options.legacy_pty);
  d.device->set_auth_answers(d.options.auth_delay, d.options.hang_up_on_refused_key);
  d.device->set_refused_services(d.options.refused_services);
  d.device->set_missing(d.options.missing_commands, d.options.missing_services);
  d.device->set_hardware(d.options.radios_locked, d.options.camera_app);
  d.device->set_property("ro.build.version.sdk", std::to_string(d.options.api_level));
  d.device->set_displays(d.options.displays);
  d.device->set_event_listener(d.options.on_event);
  d.device->set_devtools(d.options.devtools);
  d.device->set_jdwp_pids(d.options.jdwp_pids);
  d.device->set_sideload(d.options.sideload);
  for (const InstalledApp& app : d.options.apps) {
    const fs::path folder = d.root / "data/app" / (app.package + "-1");
    fs::create_directories(folder, error);
    if (!error)
      fs::copy_file(app.apk, folder / "base.apk", fs::copy_options::overwrite_existing, error);
    if (error) {
      d.failure =
          "cannot install " + app.apk.string() + " on the virtual device: " + error.message();
      error = make_error_code(errc::io_error);
      return;
    }
    d.device->state().add_package(app.package, app.version_code);
    d.device->state().set_label(app.package, app.label);
  }
  write_proc_files(d.root, d.options.devtools, error);
  if (error) {
    d.failure = "cannot write the device's /proc files under " + (d.root / "proc").string() + ": " +
                error.message();
    error = make_error_code(errc::io_error);
    return;
  }

  protocol::SessionOptions& s = d.session_options;
  s.role = protocol::Role::device;
  s.banner.system_type = d.options.sideload == SideloadMode::off ? "device" : "sideload";
  s.banner.properties = {{"ro.product.name", std::string(vdevice::kProductName)},
                         {"ro.product.model", std::string(vdevice::kProductModel)},
                         {"ro.product.device", std::string(vdevice::kProductDevice)}};
  if (!d.options.no_features) {
    s.banner.features =
        d.options.features.empty() ? vdevice::implemented_features() : d.options.features;
  }
  s.max_payload = d.options.max_payload;
  s.version = d.options.protocol_version;
  s.auth_required = d.options.auth_required;
  s.tls = d.options.tls;
  const auto offers = [&](std::string_view feature) {
    return std::find(s.banner.features.begin(), s.banner.features.end(), feature) !=
           s.banner.features.end();
  };
  // Our window is one max payload: a host can't make us buffer more than that per stream.
  if (offers("delayed_ack")) s.delayed_ack_window = d.options.max_payload;
  std::uint32_t compression_flags = 0;
  using detail::SyncCodec;
  for (const SyncCodec codec : {SyncCodec::brotli, SyncCodec::lz4, SyncCodec::zstd}) {
    if (offers(detail::sync_codec_feature(codec)))
      compression_flags |= detail::sync_codec_flag(codec);
  }
  d.device->set_sync_compression(compression_flags, d.options.corrupt_compressed_sync);

  asio::ip::tcp::endpoint endpoint(address, d.options.port);
  d.acceptor.emplace(d.io);
  transport::open_close_on_exec(*d.acceptor, endpoint.protocol(), error);
  if (!error) d.acceptor->set_option(asio::ip::tcp::acceptor::reuse_address(true), error);
  if (!error) d.acceptor->bind(endpoint, error);
  if (!error) d.acceptor->listen(asio::socket_base::max_listen_connections, error);
  if (error) {
    error = error == asio::error::address_in_use ? make_error_code(errc::busy)
                                                 : make_error_code(errc::io_error);
    d.acceptor.reset();
    if (d.temporary_root) {
      std::error_code ignored;
      fs::remove_all(d.root, ignored);
    }
    return;
  }
  d.port = d.acceptor->local_endpoint().port();
  d.guid = d.options.guid.empty() ? make_guid(d.options.serial) : d.options.guid;
  if (!d.start_wireless(error)) {
    d.acceptor.reset();
    if (d.temporary_root) {
      std::error_code ignored;
      fs::remove_all(d.root, ignored);
    }
    return;
  }
  d.started = true;
  d.accept();
  d.thread = std::thread([&d] { d.io.run(); });
}

std::uint16_t VirtualDevice::port() const { return impl_->port; }

std::string VirtualDevice::target() const {
  return "tcp:" + impl_->options.address + ":" + std::to_string(impl_->port);
}

void VirtualDevice::stop() {
  Impl& d = *impl_;
  if (!d.started || d.stopped) return;
  d.stopped = true;
  asio::post(d.io, [&d] {
    std::error_code ignored;
    d.acceptor->close(ignored);
    for (auto& weak : d.connections) {
      if (auto connection = weak.lock()) connection->close();
    }
    d.test_listeners.clear();
    d.io.stop();
  });
  d.thread.join();
  d.responder.reset();
  d.pairing.reset();
  if (d.temporary_root) {
    std::error_code ignored;
    fs::remove_all(d.root, ignored);
  }
}

std::uint16_t VirtualDevice::pairing_port() const {
  return impl_->pairing ? impl_->pairing->port() : 0;
}

std::string VirtualDevice::guid() const { return impl_->guid; }

std::uint64_t VirtualDevice::hosts_paired() const {
  return impl_->pairing ? impl_->pairing->paired() : 0;
}

void VirtualDevice::scan_pairing_qr(std::string_view text) {
  std::string name;
  std::string password;
  if (!parse_pairing_qr(text, name, password)) {
    throw Error(errc::invalid_argument,
                "not an adb pairing QR code: want WIFI:T:ADB;S:NAME;P:PASSWORD;;");
  }
  if (!impl_->pairing)
    throw Error(errc::not_supported, "the virtual device has no pairing service");
  impl_->pairing->set_code(password);
  // The phone's pairing service now answers to the name the QR code asked for.
  if (impl_->responder) impl_->responder->rename(std::string(kAdbTlsPairingService), name);
}

std::vector<std::string> VirtualDevice::events() const {
  return impl_->device ? impl_->device->events() : std::vector<std::string>{};
}

std::vector<std::string> VirtualDevice::shell_syntax_errors() const {
  return impl_->device ? impl_->device->syntax_errors() : std::vector<std::string>{};
}

const std::filesystem::path& VirtualDevice::root() const { return impl_->root; }

std::uint64_t VirtualDevice::connections_accepted() const { return impl_->accepted.load(); }

void VirtualDevice::set_ui_dump_fault(UiDumpFault fault, std::uint32_t times) {
  if (impl_->device) impl_->device->screens().set_fault(fault, times);
}

void VirtualDevice::show_dump(const std::string& xml) {
  std::string message = "the virtual device is not started";
  if (!impl_->device || !impl_->device->screens().show(xml, message))
    throw Error(errc::parse_error, "show_dump: " + message);
}

void VirtualDevice::set_focus_delay(std::chrono::milliseconds delay) {
  if (impl_->device) impl_->device->screens().set_focus_delay(delay);
}

void VirtualDevice::scroll_after_next_dump(std::int32_t dy) {
  if (impl_->device) impl_->device->screens().scroll_after_next_dump(dy);
}

std::vector<std::string> VirtualDevice::touched() const {
  return impl_->device ? impl_->device->screens().touched() : std::vector<std::string>();
}

void VirtualDevice::set_field_quirks(const FieldQuirks& quirks) {
  if (impl_->device) impl_->device->screens().set_field_quirks(quirks);
}

void VirtualDevice::set_app_label(const std::string& package, const std::string& label) {
  if (impl_->device) impl_->device->state().set_label(package, label);
}

void VirtualDevice::set_dumper_fault(DumperFault fault, std::uint32_t after_requests) {
  if (impl_->device) impl_->device->set_dumper_fault(fault, after_requests);
}

namespace {

constexpr std::pair<HostileSync, std::string_view> kHostileSyncNames[] = {
    {HostileSync::none, "none"},
    {HostileSync::traversal_names, "traversal-names"},
    {HostileSync::climbing_folder, "climbing-folder"},
    {HostileSync::special_modes, "special-modes"},
    {HostileSync::endless_listing, "endless-listing"},
    {HostileSync::endless_long_names, "endless-long-names"},
    {HostileSync::endless_tree, "endless-tree"},
    {HostileSync::escape_names, "escape-names"},
    {HostileSync::bomb, "bomb"},
};

constexpr std::pair<HostileOutput, std::string_view> kHostileOutputNames[] = {
    {HostileOutput::none, "none"},
    {HostileOutput::endless, "endless"},
    {HostileOutput::escapes, "escapes"},
    {HostileOutput::short_ranges, "short-ranges"},
    {HostileOutput::long_ranges, "long-ranges"},
    {HostileOutput::shifted_ranges, "shifted-ranges"},
};

// The name of mode in a table of (mode, name); "?" when it is missing.
template <class Mode, std::size_t N>
std::string_view name_in(const std::pair<Mode, std::string_view> (&table)[N], Mode mode) {
  for (const auto& [value, name] : table) {
    if (value == mode) return name;
  }
  return "?";
}

// The mode named text in the table; false when none is.
template <class Mode, std::size_t N>
bool mode_in(const std::pair<Mode, std::string_view> (&table)[N], std::string_view text,
             Mode& out) {
  for (const auto& [value, name] : table) {
    if (name == text) {
      out = value;
      return true;
    }
  }
  return false;
}

}  // namespace

std::string_view to_string(HostileSync mode) noexcept { return name_in(kHostileSyncNames, mode); }

bool parse_hostile_sync(std::string_view text, HostileSync& out) noexcept {
  return mode_in(kHostileSyncNames, text, out);
}

std::string_view to_string(HostileOutput mode) noexcept {
  return name_in(kHostileOutputNames, mode);
}

bool parse_hostile_output(std::string_view text, HostileOutput& out) noexcept {
  return mode_in(kHostileOutputNames, text, out);
}

void VirtualDevice::log(char level, std::string tag, std::string message) {
  if (!impl_->device) return;
  static constexpr std::string_view kLevels = "VDIWEF";
  const std::size_t at =
      kLevels.find(static_cast<char>(std::toupper(static_cast<unsigned char>(level))));
  vdevice::LogRecord record;
  record.pid = 1000;
  record.tid = 1000;
  record.priority = static_cast<std::uint8_t>(at == std::string_view::npos ? 4 : at + 2);
  record.tag = std::move(tag);
  record.message = std::move(message);
  impl_->device->state().append_log(std::move(record));
}

std::uint16_t VirtualDevice::reverse_port(std::string_view device_local) const {
  return impl_->device ? impl_->device->state().reverse_port(device_local) : 0;
}

std::uint64_t VirtualDevice::reverse_refused() const {
  return impl_->device ? impl_->device->state().reverse_refused() : 0;
}

std::uint16_t VirtualDevice::open_to_host(std::string destination) {
  Impl& d = *impl_;
  if (!d.started || d.stopped) return 0;
  std::promise<std::uint16_t> done;
  asio::post(d.io, [&d, &done, destination = std::move(destination)] {
    std::shared_ptr<vdevice::Connection> newest;
    for (auto& weak : d.connections) {
      if (auto connection = weak.lock()) newest = connection;
    }
    std::uint16_t port = 0;
    if (newest) {
      if (auto listener = newest->reverse_rules().listen(destination, port))
        d.test_listeners.push_back(listener);
    }
    done.set_value(port);
  });
  return done.get_future().get();
}

}  // namespace adbwire
