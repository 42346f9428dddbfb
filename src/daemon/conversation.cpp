#include "daemon/conversation.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <charconv>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "adbwire/error.hpp"
#include "adbwire/protocol/banner.hpp"
#include "adbwire/protocol/smart_socket.hpp"
#include "daemon/daemon_protocol.hpp"
#include "daemon/descriptor_transfers.hpp"
#include "daemon/relay.hpp"
#include "daemon/session_spec.hpp"
#include "daemon/unix_socket.hpp"

namespace adbwire::daemon {
namespace {

using namespace std::chrono_literals;

constexpr auto kRequestWait = 30s;  // for a client to say what it wants
// How often a track-devices or wait-for client is checked against the list: a connection can
// drop without anyone asking the registry, and only a look sees it.
constexpr auto kWatchEvery = 250ms;
// How long a device `connect`ed that waits for a person to accept our key stays listed
// unauthorized, its prompt up: adb's server waits as long as the connection lasts; a day bounds it.
constexpr std::chrono::milliseconds kUnauthorizedWait = 24h;

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& word : words) out += (out.empty() ? "" : ",") + word;
  return out;
}

std::optional<std::uint64_t> number(std::string_view text) {
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) return {};
  return value;
}

// A request to the host, split into whom it is about and what it asks.
struct HostRequest {
  std::optional<Selector> selector;  // host-serial:, host-transport-id:, host-usb:, host-local:
  std::string command;               // what follows: "version", "transport:SERIAL", …
};

bool is_device_command(std::string_view command) {
  return command == "get-state" || command == "get-serialno" || command == "get-devpath" ||
         command == "features" || command.starts_with("wait-for-") ||
         command.starts_with("forward:") || command.starts_with("killforward") ||
         command == "list-forward" || command == "reconnect";
}

// host-serial:SERIAL:COMMAND, where SERIAL may hold colons (HOST:PORT, tcp:HOST:PORT): the first
// colon after which a command starts ends it.
std::optional<HostRequest> parse_host_request(std::string_view request) {
  auto with = [](Selector selector, std::string_view command) {
    return HostRequest{std::move(selector), std::string(command)};
  };
  if (request.starts_with("host:")) return HostRequest{{}, std::string(request.substr(5))};
  if (request.starts_with("host-usb:"))
    return with({Selector::Kind::usb, {}, 0}, request.substr(9));
  if (request.starts_with("host-local:"))
    return with({Selector::Kind::local, {}, 0}, request.substr(11));
  if (request.starts_with("host-transport-id:")) {
    const std::string_view rest = request.substr(18);
    const std::size_t colon = rest.find(':');
    const auto id = number(rest.substr(0, colon));
    if (colon == std::string_view::npos || !id) return {};
    return with({Selector::Kind::transport_id, {}, *id}, rest.substr(colon + 1));
  }
  if (request.starts_with("host-serial:")) {
    const std::string_view rest = request.substr(12);
    for (std::size_t colon = rest.find(':'); colon != std::string_view::npos;
         colon = rest.find(':', colon + 1)) {
      if (colon > 0 && is_device_command(rest.substr(colon + 1)))
        return with({Selector::Kind::serial, std::string(rest.substr(0, colon)), 0},
                    rest.substr(colon + 1));
    }
    return {};
  }
  return {};
}

// "transport:S", "transport-id:N", "transport-any", "-usb", "-local" and their "tport:" forms.
std::optional<Selector> transport_selector(std::string_view command, bool& with_id) {
  with_id = command.starts_with("tport:");
  if (with_id) {
    command.remove_prefix(6);
    if (command.starts_with("serial:"))
      return Selector{Selector::Kind::serial, std::string(command.substr(7)), 0};
    if (command.starts_with("id:")) {
      const auto id = number(command.substr(3));
      if (!id) return {};
      return Selector{Selector::Kind::transport_id, {}, *id};
    }
    if (command == "any") return Selector{Selector::Kind::any, {}, 0};
    if (command == "usb") return Selector{Selector::Kind::usb, {}, 0};
    if (command == "local") return Selector{Selector::Kind::local, {}, 0};
    return {};
  }
  if (command.starts_with("transport:"))
    return Selector{Selector::Kind::serial, std::string(command.substr(10)), 0};
  if (command.starts_with("transport-id:")) {
    const auto id = number(command.substr(13));
    if (!id) return {};
    return Selector{Selector::Kind::transport_id, {}, *id};
  }
  if (command == "transport-any") return Selector{Selector::Kind::any, {}, 0};
  if (command == "transport-usb") return Selector{Selector::Kind::usb, {}, 0};
  if (command == "transport-local") return Selector{Selector::Kind::local, {}, 0};
  return {};
}

class Conversation {
 public:
  Conversation(DaemonState& state, int fd, bool local) : state_(state), fd_(fd), local_(local) {}
  ~Conversation() {
    if (passed_ >= 0) ::close(passed_);
  }
  Conversation(const Conversation&) = delete;
  Conversation& operator=(const Conversation&) = delete;

  void run() {
    for (;;) {
      std::string request;
      switch (reader_.next(request)) {
        case protocol::SmartRequestReader::Result::failed:
          fail(reader_.error_detail());
          return;
        case protocol::SmartRequestReader::Result::need_more:
          if (!receive()) return;
          continue;
        case protocol::SmartRequestReader::Result::ready:
          break;
      }
      if (!answer(request)) return;
    }
  }

 private:
  // Reads more of the client's requests; false when it closed or said nothing in time.
  bool receive() {
    std::array<std::uint8_t, 4096> buffer;
    detail::Failure failure;
    const long n =
        receive_with_descriptor(fd_, buffer, deadline_after(kRequestWait), passed_, failure);
    if (n <= 0) return false;
    reader_.feed(std::span(buffer.data(), static_cast<std::size_t>(n)));
    return true;
  }

  void send(const std::vector<std::uint8_t>& bytes) {
    detail::Failure gone;  // a client that went away has nothing left to be told
    send_all(fd_, bytes, deadline_after(kRequestWait), gone);
  }
  void okay() {
    std::vector<std::uint8_t> out;
    protocol::append_smart_okay(out);
    send(out);
  }
  void okay(std::string_view text) {
    std::vector<std::uint8_t> out;
    protocol::append_smart_okay(out);
    protocol::append_smart_string(out, text);
    send(out);
  }
  void fail(std::string_view message) {
    std::vector<std::uint8_t> out;
    protocol::append_smart_fail(out, message);
    send(out);
  }
  // adbwire's answers: the failure's code travels with its sentence.
  void fail_framed(const detail::Failure& failure) {
    std::vector<std::uint8_t> out;
    append_frame(out, FrameKind::fail, failure_payload(failure.code, failure.detail));
    send(out);
  }
  void reply_framed(std::string_view text, const Notes& notes = {}) {
    std::vector<std::uint8_t> out;
    for (const std::string& note : notes) append_frame(out, FrameKind::note, note);
    append_reply(out, text);
    send(out);
  }

  // True to read the next request on this connection.
  bool answer(const std::string& request) {
    if (const auto host = parse_host_request(request)) return answer_host(*host);
    if (request.starts_with("host")) {
      fail("unknown host service");
      return false;
    }
    open_stream(request);
    return false;
  }

  std::shared_ptr<HeldDevice> device_for(const std::optional<Selector>& selector,
                                         detail::Failure& failure) {
    if (!selector && device_) return device_;
    return state_.registry.select(selector.value_or(Selector{}), failure);
  }

  bool answer_host(const HostRequest& host) {
    const std::string& command = host.command;
    if (local_ && command.starts_with("adbwire-")) return answer_adbwire("host:" + command);
    if (command == "version") {
      okay(kServerVersion);
      return false;
    }
    if (command == "kill") {
      okay();
      state_.stop();
      return false;
    }
    if (command == "devices" || command == "devices-l") {
      okay(protocol::format_device_list(state_.registry.list(), command == "devices-l"));
      return false;
    }
    if (command == "track-devices" || command == "track-devices-l") {
      track(command == "track-devices-l");
      return false;
    }
    if (command == "host-features") {
      okay(joined(protocol::host_features()));
      return false;
    }
    if (command.starts_with("connect:")) {
      connect(command.substr(8));
      return false;
    }
    if (command.starts_with("disconnect:")) {
      disconnect(command.substr(11));
      return false;
    }
    if (command == "reconnect") {
      reconnect(host.selector);
      return false;
    }
    if (command == "reconnect-offline") {
      reconnect_offline();
      return false;
    }
    bool with_id = false;
    if (const auto selector = transport_selector(command, with_id)) {
      detail::Failure failure;
      device_ = state_.registry.select(*selector, failure);
      if (!device_) {
        fail(failure.detail);
        return false;
      }
      std::vector<std::uint8_t> out;
      protocol::append_smart_okay(out);
      if (with_id) protocol::append_transport_id(out, device_->transport_id());
      send(out);
      return true;
    }
    if (command.starts_with("wait-for-")) {
      wait_for(host.selector, command.substr(9));
      return false;
    }
    if (command.starts_with("forward:") || command.starts_with("killforward") ||
        command == "list-forward") {
      fail(
          "adbwire's server keeps no forward rules: run `adbwire forward LOCAL REMOTE` (a process "
          "of its own) instead");
      return false;
    }
    if (command == "get-state" || command == "get-serialno" || command == "get-devpath" ||
        command == "features") {
      detail::Failure failure;
      const auto device = device_for(host.selector, failure);
      if (!device) {
        fail(failure.detail);
      } else if (command == "get-state") {
        okay(device->entry().state_text);
      } else if (command == "get-serialno") {
        okay(device->entry().serial);
      } else if (command == "get-devpath") {
        okay("unknown");
      } else {
        okay(joined(device->record().features));
      }
      return false;
    }
    fail("unknown host service");
    return false;
  }

  // host:connect:HOST[:PORT]: adb's answers, all OKAY + a sentence the client reads, naming the
  // device as adb does (HOST:PORT, port 5555 when none was given).
  void connect(std::string_view address) {
    if (address.empty()) {
      okay("empty address");
      return;
    }
    const std::string target = address.starts_with("tcp:") || address.starts_with("usb:")
                                   ? std::string(address)
                                   : "tcp:" + std::string(address);
    // Held, or kept waiting for a person to accept our key: adb says "already connected" to both.
    const bool held = [&] {
      detail::Failure why;
      return state_.registry.select({Selector::Kind::serial, target, 0}, why) != nullptr ||
             why.code == errc::unauthorized;
    }();
    Notes notes;
    detail::Failure failure;
    // As adb's server: a device that asks for a person to accept our key is answered at once and
    // kept, listed unauthorized, until the person does (or it hangs up, or is disconnected).
    ConnectOptions options;
    options.auth_timeout = kUnauthorizedWait;
    const auto device = state_.registry.attach(target, options, true, notes, failure, false);
    if (!device && failure.code == errc::unauthorized) {
      okay((held ? "already connected to " : "failed to authenticate to ") + tcp_serial(address));
      return;
    }
    if (!device) {
      okay("failed to connect to '" + tcp_serial(address) + "': " + failure.detail);
      return;
    }
    okay((held ? "already connected to " : "connected to ") + device->entry().serial);
  }

  // host:disconnect:[ADDRESS], as adb's server answers it: OKAY "disconnected ADDRESS" (as
  // given) or FAIL "no such device 'HOST:PORT'".
  void disconnect(std::string_view address) {
    if (address.empty()) {
      state_.registry.disconnect_all();
      okay("disconnected everything");
      return;
    }
    const std::string serial(address);
    if (state_.registry.disconnect(serial) ||
        (!serial.starts_with("tcp:") && state_.registry.disconnect("tcp:" + serial))) {
      okay("disconnected " + serial);
      return;
    }
    fail("no such device '" + tcp_serial(address) + "'");
  }

  // reconnect (host:, host-serial:…): the selected device's connection dropped and made again,
  // answered as adb's server does, OKAY and "reconnecting SERIAL [STATE]" or why not. A target
  // the daemon does not hold yet is connected.
  void reconnect(const std::optional<Selector>& selector) {
    detail::Failure failure;
    auto device = device_for(selector, failure);
    if (!device && selector && selector->kind == Selector::Kind::serial) {
      Notes ignored;
      failure = {};
      device = state_.registry.attach(selector->serial, ConnectOptions{}, false, ignored, failure);
    }
    if (!device) {
      okay(failure.detail);
      return;
    }
    Notes ignored;
    if (!device->connect_again(ignored, failure)) {
      okay("reconnecting " + device->serial() + " failed: " + failure.detail);
      return;
    }
    okay("reconnecting " + device->serial() + " [" + device->entry().state_text + "]\n");
  }

  // host:reconnect-offline: every held device whose connection dropped, connected again.
  void reconnect_offline() {
    std::string response;
    for (const protocol::DeviceEntry& entry : state_.registry.list()) {
      if (entry.state_text == "device") continue;
      detail::Failure failure;
      const auto device =
          state_.registry.select({Selector::Kind::serial, entry.serial, 0}, failure);
      Notes ignored;
      if (device && device->connect_again(ignored, failure))
        response += "reconnecting " + entry.serial + "\n";
    }
    if (!response.empty()) response.pop_back();
    okay(response);
  }

  // True while the client has not closed its side (it sends nothing while it waits).
  bool client_waiting() {
    if (state_.stopping) return false;
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 0) <= 0) return true;
    std::uint8_t byte;
    return ::recv(fd_, &byte, 1, MSG_PEEK | MSG_DONTWAIT) > 0;
  }

  // host:track-devices(-l): the list now, then again whenever it changes.
  void track(bool long_format) {
    okay();
    std::string last;
    bool first = true;
    while (client_waiting()) {
      const std::uint64_t seen = state_.registry.generation();
      const std::string list = protocol::format_device_list(state_.registry.list(), long_format);
      if (first || list != last) {
        std::vector<std::uint8_t> out;
        protocol::append_smart_string(out, list);
        detail::Failure gone;
        if (!send_all(fd_, out, deadline_after(kRequestWait), gone)) return;
        last = list;
        first = false;
      }
      state_.registry.wait_change(seen, deadline_after(kWatchEvery));
    }
  }

  // wait-for-TYPE-STATE (TYPE any, usb, local; STATE device, disconnect, any, …): OKAY at once,
  // then OKAY again once a device of that kind (the one selected, if any) is in that state.
  void wait_for(const std::optional<Selector>& selector, std::string_view what) {
    const std::size_t dash = what.find('-');
    if (dash == std::string_view::npos) {
      fail("bad wait-for request: wait-for-TYPE-STATE");
      return;
    }
    const std::string_view type = what.substr(0, dash);
    const std::string_view state = what.substr(dash + 1);
    Selector which = selector.value_or(Selector{});
    if (!selector && type == "usb") which.kind = Selector::Kind::usb;
    if (!selector && type == "local") which.kind = Selector::Kind::local;
    const std::uint64_t id = device_ ? device_->transport_id() : 0;
    if (!selector && device_) which = {Selector::Kind::transport_id, {}, id};
    okay();
    while (client_waiting()) {
      const std::uint64_t seen = state_.registry.generation();
      detail::Failure ignored;
      const auto device = state_.registry.select(which, ignored);
      const bool done = state == "disconnect" ? !device || !device->connected()
                        : state == "any"      ? device != nullptr
                        : state == "device"   ? device && device->connected()
                                              : false;
      if (done) {
        okay();
        return;
      }
      state_.registry.wait_change(seen, deadline_after(kWatchEvery));
    }
  }

  // A device service: on the selected device, else the only one.
  void open_stream(const std::string& service) {
    detail::Failure failure;
    const auto device = device_for({}, failure);
    if (!device) {
      if (framed_) {
        fail_framed(failure);
      } else {
        fail(failure.detail);
      }
      return;
    }
    const auto use = device->use();
    Notes notes;
    auto backend = device->open(service, deadline_after(state_.open_wait), notes, failure);
    std::vector<std::uint8_t> out;
    if (framed_) {
      for (const std::string& note : notes) append_frame(out, FrameKind::note, note);
    }
    if (!backend) {
      if (framed_) {
        append_frame(out, FrameKind::fail, failure_payload(failure.code, failure.detail));
      } else {
        protocol::append_smart_fail(out, failure.detail);
      }
      send(out);
      return;
    }
    protocol::append_smart_okay(out);
    send(out);
    Stream stream(std::move(backend), state_.open_wait);
    const auto early = reader_.unread();
    state_.relayed_bytes +=
        relay(stream, fd_, early, framed_ ? RelayFraming::framed : RelayFraming::raw);
  }

  // adbwire's requests (daemon_protocol.hpp).
  bool answer_adbwire(const std::string& request) {
    detail::Failure failure;
    std::string target;
    std::chrono::milliseconds auth{0};
    if (parse_device_request(request, target, auth)) {
      ConnectOptions options;
      options.auth_timeout = auth;
      Notes notes;
      device_ = state_.registry.attach(target, options, false, notes, failure);
      if (!device_) {
        fail_framed(failure);
        return false;
      }
      framed_ = true;
      reply_framed(format_banner_record(device_->record()), notes);
      return true;
    }
    if (request.starts_with(kPullIntoRequest) || request.starts_with(kPushFromRequest))
      return transfer_file(request);
    if (request.starts_with(kSessionRequest)) {
      state_.sessions.serve(std::string_view(request).substr(kSessionRequest.size()), fd_,
                            reader_.unread(), failure);
      if (failure) fail_framed(failure);
      return false;
    }
    if (request.starts_with(kOpenRequest)) {
      SessionSpec spec;
      std::string detail;
      if (const std::error_code error = parse_session_spec(
              std::string_view(request).substr(kOpenRequest.size()), spec, detail)) {
        failure.set(error, detail);
        fail_framed(failure);
        return false;
      }
      const std::string opened = state_.sessions.open(spec, failure);
      if (failure) {
        fail_framed(failure);
      } else {
        reply_framed(opened);
      }
      return false;
    }
    if (request.starts_with(kCloseRequest)) {
      const std::string name = request.substr(kCloseRequest.size());
      if (state_.sessions.close(name)) {
        reply_framed({});
      } else {
        failure.set(
            errc::not_found,
            "no adbwire session" + (name.empty() ? std::string() : " '" + name + "'") + " is open");
        fail_framed(failure);
      }
      return false;
    }
    if (request == kStatusRequest) {
      reply_framed(nlohmann::json{{"relayed_bytes", state_.relayed_bytes.load()},
                                  {"pulled_into_files", state_.pulled_into_files.load()},
                                  {"pulled_into_bytes", state_.pulled_into_bytes.load()},
                                  {"pushed_from_files", state_.pushed_from_files.load()},
                                  {"pushed_from_bytes", state_.pushed_from_bytes.load()}}
                       .dump());
      return false;
    }
    if (request == kSessionsRequest) {
      nlohmann::json list = nlohmann::json::array();
      for (const SessionInfo& session : state_.sessions.list()) {
        list.push_back({{"name", session.name},
                        {"target", session.target},
                        {"pid", static_cast<long>(::getpid())}});
      }
      reply_framed(list.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
      return false;
    }
    failure.set(errc::invalid_argument, "the adbwire daemon knows no request '" + request + "'");
    fail_framed(failure);
    return false;
  }

  // kPullIntoRequest and kPushFromRequest: the file goes into, or comes from, the descriptor that
  // came with the request, which is closed after (the client keeps its own).
  bool transfer_file(const std::string& request) {
    detail::Failure failure;
    const int file = std::exchange(passed_, -1);
    const bool pushing = request.starts_with(kPushFromRequest);
    const std::string what = pushing ? "a push from a file" : "a pull into a file";
    PullInto pull;
    PushFrom push;
    std::string answer;
    if (!device_) {
      failure.set(errc::invalid_argument, what + " needs the device request first");
    } else if (file < 0) {
      failure.set(errc::invalid_argument, what + " came without the file");
    } else if (pushing ? bool(parse_push_from(request, push))
                       : bool(parse_pull_into(request, pull))) {
      failure.set(errc::parse_error, "a malformed " + what.substr(2));
    } else {
      if (!transfers_) transfers_ = std::make_unique<DescriptorTransfers>(device_, fd_);
      const auto use = device_->use();
      std::uint64_t bytes = 0;
      if (pushing && transfers_->push(push, file, bytes, answer, failure)) {
        ++state_.pushed_from_files;
        state_.pushed_from_bytes += bytes;
      } else if (!pushing && transfers_->pull(pull, file, bytes, answer, failure)) {
        ++state_.pulled_into_files;
        state_.pulled_into_bytes += bytes;
      }
    }
    if (file >= 0) ::close(file);
    if (failure) {
      fail_framed(failure);
    } else {
      reply_framed(answer);
    }
    return true;
  }

  DaemonState& state_;
  const int fd_;
  const bool local_;
  protocol::SmartRequestReader reader_;
  std::shared_ptr<HeldDevice> device_;  // after a transport switch
  bool framed_ = false;                 // after adbwire's device request
  int passed_ = -1;                     // a descriptor the client sent, not used yet
  std::unique_ptr<DescriptorTransfers> transfers_;
};

}  // namespace

void converse(DaemonState& state, int fd, bool local) { Conversation(state, fd, local).run(); }

}  // namespace adbwire::daemon
