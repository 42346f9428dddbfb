#include "agent/web/devtools_client.hpp"

#include <algorithm>
#include <boost/asio/buffer.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <charconv>
#include <optional>
#include <utility>

#include "adbwire/error.hpp"
#include "adbwire/stream.hpp"

namespace adbwire::agent::web {
namespace {

namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace websocket = boost::beast::websocket;

// Longest HTTP answer or CDP message taken: a DOM snapshot of a large page is a few MB.
constexpr std::size_t kMaxMessage = 64 * 1024 * 1024;

// An adbwire::Stream as Beast's SyncReadStream / SyncWriteStream. Every read and write ends
// by the deadline set last; the adbwire error behind a Beast error is kept for the caller.
class AdbSyncStream {
 public:
  // Beast's websocket::stream names its next layer's executor type; no operation here is
  // asynchronous, so this io_context never runs.
  using executor_type = boost::asio::io_context::executor_type;

  explicit AdbSyncStream(Stream stream) : stream_(std::move(stream)) {}

  executor_type get_executor() noexcept { return io_.get_executor(); }
  void set_deadline(Deadline deadline) noexcept { deadline_ = deadline; }
  const std::error_code& last_error() const noexcept { return last_error_; }
  void close() noexcept { stream_.close(); }

  template <class MutableBuffers>
  std::size_t read_some(const MutableBuffers& buffers, boost::system::error_code& ec) {
    ec = {};
    for (auto it = boost::asio::buffer_sequence_begin(buffers);
         it != boost::asio::buffer_sequence_end(buffers); ++it) {
      const boost::asio::mutable_buffer buffer = *it;
      if (buffer.size() == 0) continue;
      std::error_code error;
      const std::size_t n = stream_.read_some(
          {static_cast<std::uint8_t*>(buffer.data()), buffer.size()}, deadline_, error);
      if (error == errc::closed || (!error && n == 0)) {
        ec = boost::asio::error::eof;
      } else if (error) {
        fail(error, ec);
      }
      return ec ? 0 : n;
    }
    return 0;
  }

  template <class MutableBuffers>
  std::size_t read_some(const MutableBuffers& buffers) {
    boost::system::error_code ec;
    const std::size_t n = read_some(buffers, ec);
    if (ec) throw boost::system::system_error(ec);
    return n;
  }

  template <class ConstBuffers>
  std::size_t write_some(const ConstBuffers& buffers, boost::system::error_code& ec) {
    ec = {};
    for (auto it = boost::asio::buffer_sequence_begin(buffers);
         it != boost::asio::buffer_sequence_end(buffers); ++it) {
      const boost::asio::const_buffer buffer = *it;
      if (buffer.size() == 0) continue;
      std::error_code error;
      stream_.write({static_cast<const std::uint8_t*>(buffer.data()), buffer.size()}, deadline_,
                    error);
      if (error) {
        fail(error, ec);
        return 0;
      }
      return buffer.size();
    }
    return 0;
  }

  template <class ConstBuffers>
  std::size_t write_some(const ConstBuffers& buffers) {
    boost::system::error_code ec;
    const std::size_t n = write_some(buffers, ec);
    if (ec) throw boost::system::system_error(ec);
    return n;
  }

 private:
  void fail(const std::error_code& error, boost::system::error_code& ec) {
    // The app ended the stream (page closed, WebView gone): that socket's end, not the
    // device's. `closed` must not reach callers, who take it for a lost connection.
    if (error == errc::closed) {
      ec = boost::asio::error::eof;
      return;
    }
    last_error_ = error;
    ec = error == errc::timeout ? boost::system::error_code(beast::error::timeout)
                                : boost::system::error_code(boost::asio::error::connection_reset);
  }

  boost::asio::io_context io_;
  Stream stream_;
  Deadline deadline_ = kNoDeadline;
  std::error_code last_error_;
};

// Closing a WebSocket ends the ADB stream (Beast's teardown customization point, by ADL).
[[maybe_unused]] void teardown(beast::role_type, AdbSyncStream& stream,
                               boost::system::error_code& ec) {
  stream.close();
  ec = {};
}

Stream open_socket(Device& device, const std::string& socket, Deadline deadline,
                   detail::Failure& failure) {
  std::error_code error;
  Stream stream = device.open("localabstract:" + socket, deadline, error);
  if (error == errc::not_supported) {
    failure.set(errc::not_found,
                "the DevTools socket @" + socket +
                    " is gone (its app exited, or the WebView is no longer debuggable)");
  } else if (error) {
    failure.set(error, "opening the DevTools socket @" + socket);
  }
  return stream;
}

// The adbwire error behind a Beast failure on the stream, else protocol_error.
void fail_with(const AdbSyncStream& stream, const boost::system::error_code& ec,
               const std::string& what, detail::Failure& failure) {
  if (stream.last_error()) {
    failure.set(stream.last_error(), what + ": " + stream.last_error().message());
  } else if (ec == boost::asio::error::eof || ec == websocket::error::closed) {
    failure.set(errc::protocol_error, what + ": the socket closed (the page or the app went away)");
  } else {
    failure.set(errc::protocol_error, what + ": " + ec.message());
  }
}

std::string quote(std::string_view text) {
  std::string out;
  for (const char c : text.substr(0, 160)) out += (c >= 0x20 && c < 0x7f) ? c : '.';
  return "\"" + out + (text.size() > 160 ? "…\"" : "\"");
}

std::string string_field(const Json& object, const char* name) {
  const auto it = object.find(name);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Android WebView describes itself in /json/list as a JSON string: attached, visible, and
// its place on the screen in pixels.
void read_description(const std::string& description, WebViewPage& page) {
  const Json parsed = Json::parse(description, nullptr, false);
  if (!parsed.is_object()) return;
  // Fields of another type than WebView writes are ignored, not thrown.
  const auto boolean = [&parsed](const char* key, bool otherwise) {
    const auto it = parsed.find(key);
    return it != parsed.end() && it->is_boolean() ? it->get<bool>() : otherwise;
  };
  page.visible = boolean("visible", false) && boolean("attached", true);
  if (parsed.contains("screenX") && parsed.contains("screenY") && parsed.contains("width") &&
      parsed.contains("height") && parsed["width"].is_number() && parsed["height"].is_number() &&
      parsed["screenX"].is_number() && parsed["screenY"].is_number()) {
    const auto pixels = [&parsed](const char* key) {
      return static_cast<std::int32_t>(std::clamp(parsed[key].get<double>(), -1e6, 1e6));
    };
    page.has_screen_rect = true;
    page.screen_x = pixels("screenX");
    page.screen_y = pixels("screenY");
    page.width = pixels("width");
    page.height = pixels("height");
  }
}

std::optional<std::uint32_t> trailing_pid(std::string_view name) {
  const std::size_t underscore = name.rfind('_');
  if (underscore == std::string_view::npos || underscore + 1 == name.size()) return std::nullopt;
  std::uint32_t pid = 0;
  const std::string_view digits = name.substr(underscore + 1);
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), pid);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return pid;
}

}  // namespace

std::vector<DevtoolsSocket> parse_devtools_sockets(std::string_view text) {
  std::vector<DevtoolsSocket> sockets;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    // The path is the last column; '@' marks the abstract namespace.
    const std::size_t space = line.rfind(' ');
    if (space == std::string_view::npos || line.size() < space + 2 || line[space + 1] != '@')
      continue;
    const std::string_view name = line.substr(space + 2);
    if (name.find("devtools_remote") == std::string_view::npos) continue;
    if (std::any_of(sockets.begin(), sockets.end(),
                    [&](const DevtoolsSocket& s) { return s.name == name; }))
      continue;
    DevtoolsSocket socket;
    socket.name = std::string(name);
    if (name.starts_with("webview_devtools_remote")) {
      socket.pid = trailing_pid(name).value_or(0);
    } else if (name.starts_with("chrome_devtools_remote")) {
      socket.package = "com.android.chrome";
      socket.pid = trailing_pid(name).value_or(0);
    } else if (const std::size_t suffix = name.find("_devtools_remote");
               suffix != std::string_view::npos && suffix != 0) {
      socket.package = std::string(name.substr(0, suffix));
      socket.pid = trailing_pid(name.substr(suffix + 1)).value_or(0);
    }
    sockets.push_back(std::move(socket));
  }
  return sockets;
}

std::vector<DevtoolsSocket> find_devtools_sockets(Device& device, Deadline deadline,
                                                  detail::Failure& failure) {
  std::error_code read_error;
  const std::string table = device.exec("cat /proc/net/unix", deadline, read_error);
  if (read_error) {
    failure = detail::reported(read_error);
    return {};
  }
  std::vector<DevtoolsSocket> sockets = parse_devtools_sockets(table);
  for (DevtoolsSocket& socket : sockets) {
    if (!socket.package.empty() || socket.pid == 0) continue;
    std::error_code error;
    std::string name =
        device.exec("cat /proc/" + std::to_string(socket.pid) + "/cmdline", deadline, error);
    if (error) continue;
    // A secondary process is named "<package>:<name>"; the package is what the dump shows.
    name = name.substr(0, std::min(name.find('\0'), name.find(':')));
    // "No such file or directory": the app exited since /proc/net/unix was read.
    if (name.find(' ') == std::string::npos && !name.empty()) socket.package = std::move(name);
  }
  return sockets;
}

std::vector<WebViewPage> list_pages(Device& device, const DevtoolsSocket& socket, Deadline deadline,
                                    detail::Failure& failure) {
  Stream opened = open_socket(device, socket.name, deadline, failure);
  if (failure) return {};
  AdbSyncStream stream(std::move(opened));
  stream.set_deadline(deadline);
  http::request<http::empty_body> request{http::verb::get, "/json/list", 11};
  // DevTools accepts only a loopback Host (DNS rebinding protection).
  request.set(http::field::host, "localhost");
  request.set(http::field::connection, "close");
  boost::system::error_code ec;
  http::write(stream, request, ec);
  if (ec) {
    fail_with(stream, ec, "sending GET /json/list to @" + socket.name, failure);
    return {};
  }
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(kMaxMessage);
  http::read(stream, buffer, parser, ec);
  if (ec) {
    fail_with(stream, ec, "reading the answer to GET /json/list from @" + socket.name, failure);
    return {};
  }
  const auto& response = parser.get();
  if (response.result() != http::status::ok) {
    failure.set(errc::protocol_error, "@" + socket.name + " answered GET /json/list with HTTP " +
                                          std::to_string(response.result_int()) + ": " +
                                          quote(response.body()));
    return {};
  }
  const Json list = Json::parse(response.body(), nullptr, false);
  if (!list.is_array()) {
    failure.set(errc::protocol_error,
                "@" + socket.name +
                    " answered GET /json/list with something that is not a JSON list: " +
                    quote(response.body()));
    return {};
  }
  std::vector<WebViewPage> pages;
  for (const Json& target : list) {
    if (!target.is_object() || string_field(target, "id").empty()) continue;
    WebViewPage page;
    page.socket = socket.name;
    page.pid = socket.pid;
    page.package = socket.package;
    page.id = string_field(target, "id");
    page.type = string_field(target, "type");
    page.url = string_field(target, "url");
    page.title = string_field(target, "title");
    read_description(string_field(target, "description"), page);
    pages.push_back(std::move(page));
  }
  return pages;
}

struct CdpSession::Impl {
  explicit Impl(Stream stream) : ws(std::move(stream)) {}
  websocket::stream<AdbSyncStream> ws;
  std::string socket;
  std::int64_t next_id = 0;
};

CdpSession::CdpSession(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CdpSession::CdpSession(CdpSession&&) noexcept = default;
CdpSession& CdpSession::operator=(CdpSession&&) noexcept = default;
CdpSession::~CdpSession() = default;

CdpSession CdpSession::connect(Device& device, const std::string& socket,
                               const std::string& page_id, Deadline deadline,
                               detail::Failure& failure) {
  Stream stream = open_socket(device, socket, deadline, failure);
  if (failure) return CdpSession(nullptr);
  auto impl = std::make_unique<Impl>(std::move(stream));
  impl->socket = socket;
  impl->ws.next_layer().set_deadline(deadline);
  impl->ws.read_message_max(kMaxMessage);
  boost::system::error_code ec;
  impl->ws.handshake("localhost", "/devtools/page/" + page_id, ec);
  if (ec) {
    if (impl->ws.next_layer().last_error()) {
      fail_with(impl->ws.next_layer(), ec, "the WebSocket handshake with @" + socket, failure);
    } else {
      failure.set(errc::protocol_error, "the WebSocket handshake with page " + page_id + " on @" +
                                            socket + " failed (" + ec.message() +
                                            "): the socket closed or is not a DevTools endpoint");
    }
    return CdpSession(nullptr);
  }
  return CdpSession(std::move(impl));
}

Json CdpSession::call(std::string_view method, const Json& params, Deadline deadline,
                      detail::Failure& failure) {
  if (!impl_) {
    failure.set(errc::closed, "no DevTools session is open");
    return {};
  }
  Impl& d = *impl_;
  d.ws.next_layer().set_deadline(deadline);
  const std::int64_t id = ++d.next_id;
  const std::string request = Json{{"id", id}, {"method", method}, {"params", params}}.dump();
  boost::system::error_code ec;
  d.ws.text(true);
  d.ws.write(boost::asio::buffer(request), ec);
  if (ec) {
    fail_with(d.ws.next_layer(), ec, "sending " + std::string(method) + " to @" + d.socket,
              failure);
    return {};
  }
  for (;;) {
    beast::flat_buffer buffer;
    d.ws.read(buffer, ec);
    if (ec) {
      fail_with(d.ws.next_layer(), ec,
                "waiting for the answer to " + std::string(method) + " from @" + d.socket, failure);
      return {};
    }
    const std::string_view text(static_cast<const char*>(buffer.data().data()), buffer.size());
    Json message = Json::parse(text, nullptr, false);
    if (!message.is_object()) {
      failure.set(errc::protocol_error,
                  "@" + d.socket + " answered " + std::string(method) +
                      " with something that is not a CDP message: " + quote(text));
      return {};
    }
    const auto reply_id = message.find("id");
    if (reply_id == message.end()) continue;  // an event
    if (!reply_id->is_number_integer() || reply_id->get<std::int64_t>() != id) continue;
    if (const auto error = message.find("error"); error != message.end()) {
      const auto text = error->is_object() ? error->find("message") : error->end();
      failure.set(errc::command_failed,
                  std::string(method) + " failed on @" + d.socket + ": " +
                      (text != error->end() && text->is_string() ? text->get<std::string>()
                                                                 : error->dump()));
      return {};
    }
    const auto result = message.find("result");
    if (result == message.end() || !result->is_object()) {
      failure.set(errc::protocol_error, "@" + d.socket + " answered " + std::string(method) +
                                            " without a result: " + quote(text));
      return {};
    }
    return std::move(*result);
  }
}

}  // namespace adbwire::agent::web
