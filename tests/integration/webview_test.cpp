// The WebView bridge against a real browser: Debian's Chromium, headless on loopback with
// remote debugging, shows a small local page; the virtual device exposes that DevTools
// endpoint as localabstract:webview_devtools_remote_4321 (listed in its /proc/net/unix) and
// shows a native screen with a WebView node. The snapshot must show the page's elements with
// refs, a tap must land on the element's screen point, and a CDP click must change the page.
// Broken DevTools endpoints (one that hangs up, one that answers nonsense) are played by a
// small Beast server in this file; each must leave the native snapshot intact.
#include "adbwire/webview.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "adbwire/error.hpp"
#include "adbwire/page.hpp"
#include "adbwire/testing/vdevice.hpp"
#include "base/mutex.hpp"
#include "integration/temp_dir.hpp"

namespace adbwire {
namespace {

namespace fs = std::filesystem;
namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace websocket = boost::beast::websocket;
using tcp = boost::asio::ip::tcp;
using namespace std::chrono_literals;

constexpr const char* kInstallChromium =
    "chromium is missing: install it with `apt-get install chromium`";
constexpr std::uint32_t kWebViewPid = 4321;
constexpr const char* kSocket = "webview_devtools_remote_4321";

// 800 CSS px wide in a WebView 1080 px wide at [0,200]: 1.35 screen pixels per CSS pixel.
constexpr const char* kPage = R"(<!doctype html><html><head><title>Web form</title><style>
body{margin:0} #go{position:absolute;left:100px;top:200px;width:200px;height:50px}
#name{position:absolute;left:100px;top:300px;width:300px;height:40px;box-sizing:border-box}
#far{position:absolute;left:0;top:5000px}</style></head><body>
<h1 style="position:absolute;left:0;top:0;margin:0;height:60px">Checkout</h1>
<button id="go" onclick="document.getElementById('out').textContent='Clicked'">Pay now</button>
<input id="name" aria-label="Your name" value="">
<p id="out" style="position:absolute;left:0;top:400px;margin:0">Not yet</p>
<button id="far">Far below</button></body></html>)";

constexpr const char* kNativeDump =
    R"(<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0"><node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.example.shop" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,0][1080,2400]"><node index="0" text="Shop" resource-id="com.example.shop:id/title" class="android.widget.TextView" package="com.example.shop" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,60][1080,200]" /><node index="1" text="" resource-id="com.example.shop:id/web" class="android.webkit.WebView" package="com.example.shop" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="true" focused="false" scrollable="true" long-clickable="false" password="false" selected="false" bounds="[0,200][1080,1550]" /><node index="2" text="Back" resource-id="com.example.shop:id/back" class="android.widget.Button" package="com.example.shop" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,2200][1080,2400]" /></node></hierarchy>)";

// A headless Chromium showing kPage, for the whole suite (it takes a second to start).
class Chromium {
 public:
  void start(const fs::path& folder) {
    std::ofstream(folder / "page.html") << kPage;
    const fs::path profile = folder / "profile";
    pid_ = ::fork();
    if (pid_ == 0) {
      ::setpgid(0, 0);
      const std::string data_dir = "--user-data-dir=" + profile.string();
      const std::string url = "file://" + (folder / "page.html").string();
      // As the workplace's notes say: no sandbox as root, no GPU, and no background
      // networking (this machine's closed network refuses it).
      ::execlp("chromium", "chromium", "--headless=new", "--no-sandbox", "--disable-gpu",
               "--disable-quic", "--no-first-run", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--hide-scrollbars",
               "--window-size=800,1000", "--remote-debugging-port=0", data_dir.c_str(), url.c_str(),
               static_cast<char*>(nullptr));
      ::_exit(127);
    }
    for (int i = 0; i < 300 && port_ == 0; ++i) {
      std::ifstream active(profile / "DevToolsActivePort");
      int port = 0;
      if (active >> port && port > 0) port_ = static_cast<std::uint16_t>(port);
      if (port_ == 0) std::this_thread::sleep_for(100ms);
    }
    // The port opens before the page has loaded: wait until /json/list shows its title.
    for (int i = 0; i < 300 && port_ != 0 && target_list().find("Web form") == std::string::npos;
         ++i) {
      std::this_thread::sleep_for(100ms);
    }
  }
  void stop() {
    if (pid_ > 0) {
      ::kill(-pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
  }
  std::uint16_t port() const { return port_; }

 private:
  // GET /json/list straight from Chromium (not through adbwire), "" on any failure.
  std::string target_list() const {
    boost::asio::io_context io;
    tcp::socket socket(io);
    boost::system::error_code ec;
    socket.connect({boost::asio::ip::address_v4::loopback(), port_}, ec);
    if (ec) return {};
    http::request<http::empty_body> request{http::verb::get, "/json/list", 11};
    request.set(http::field::host, "localhost");
    http::write(socket, request, ec);
    beast::flat_buffer buffer;
    http::response<http::string_body> response;
    if (!ec) http::read(socket, buffer, response, ec);
    return ec ? std::string() : response.body();
  }

  pid_t pid_ = -1;
  std::uint16_t port_ = 0;
};

bool have_chromium() { return std::system("command -v chromium > /dev/null 2>&1") == 0; }

// The phone's touch and keyboard reaching the page, as on a device: the virtual device's
// `input tap` and `input text` lines (its on_event) are replayed into Chromium over its own CDP
// connection, in order, by a thread of their own: a tap as a click at the point mapped into the
// page (the WebView at [0,200] on the screen, 1.35 screen pixels per CSS pixel), text with
// Input.insertText.
class PageInput {
 public:
  explicit PageInput(std::uint16_t port) : socket_(io_) {
    boost::system::error_code ec;
    tcp::socket http_socket(io_);
    http_socket.connect({boost::asio::ip::address_v4::loopback(), port}, ec);
    http::request<http::empty_body> request{http::verb::get, "/json/list", 11};
    request.set(http::field::host, "localhost");
    if (!ec) http::write(http_socket, request, ec);
    beast::flat_buffer buffer;
    http::response<http::string_body> response;
    if (!ec) http::read(http_socket, buffer, response, ec);
    std::string path;
    for (const nlohmann::json& target : nlohmann::json::parse(response.body(), nullptr, false)) {
      const std::string url = target.value("webSocketDebuggerUrl", "");
      if (target.value("url", "").ends_with("page.html") && url.find("/devtools/") != url.npos)
        path = url.substr(url.find("/devtools/"));
    }
    socket_.next_layer().connect({boost::asio::ip::address_v4::loopback(), port}, ec);
    if (!ec && !path.empty()) socket_.handshake("127.0.0.1:" + std::to_string(port), path, ec);
    connected_ = !ec && !path.empty();
    thread_ = std::thread([this] { run(); });
  }
  ~PageInput() {
    {
      detail::MutexLock lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }
  bool connected() const { return connected_; }
  // VirtualDeviceOptions::on_event.
  void on_event(std::string_view line) {
    {
      detail::MutexLock lock(mutex_);
      lines_.emplace_back(line);
    }
    wake_.notify_one();
  }
  // Runs a script in the page, now.
  void evaluate(const std::string& script) { send("Runtime.evaluate", {{"expression", script}}); }

 private:
  void run() {
    for (;;) {
      std::string line;
      {
        detail::MutexLock lock(mutex_);
        wake_.wait(lock.native(),
                   [this]() ADBWIRE_REQUIRES(mutex_) { return stopping_ || !lines_.empty(); });
        if (lines_.empty()) return;
        line = std::move(lines_.front());
        lines_.pop_front();
      }
      int x = 0;
      int y = 0;
      if (std::sscanf(line.c_str(), "input tap %d %d", &x, &y) == 2) {
        const double css_x = x / 1.35;
        const double css_y = (y - 200) / 1.35;
        for (const char* type : {"mousePressed", "mouseReleased"}) {
          send("Input.dispatchMouseEvent",
               {{"type", type}, {"x", css_x}, {"y", css_y}, {"button", "left"}, {"clickCount", 1}});
        }
      } else if (line.starts_with("input text ")) {
        send("Input.insertText",
             {{"text", std::regex_replace(line.substr(11), std::regex("%s"), " ")}});
      } else if (line == "input keyevent 62") {
        send("Input.insertText", {{"text", " "}});
      }
    }
  }
  // One CDP call, its answer awaited (events in between are skipped).
  void send(const std::string& method, const nlohmann::json& params) {
    detail::MutexLock lock(send_mutex_);
    if (!connected_) return;
    const int id = ++id_;
    boost::system::error_code ec;
    socket_.write(boost::asio::buffer(
                      nlohmann::json{{"id", id}, {"method", method}, {"params", params}}.dump()),
                  ec);
    while (!ec) {
      beast::flat_buffer buffer;
      socket_.read(buffer, ec);
      if (!ec && nlohmann::json::parse(beast::buffers_to_string(buffer.data()), nullptr, false)
                         .value("id", 0) == id)
        return;
    }
  }

  boost::asio::io_context io_;
  websocket::stream<tcp::socket> socket_;
  bool connected_ = false;
  int id_ = 0;
  detail::Mutex send_mutex_;
  detail::Mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::string> lines_ ADBWIRE_GUARDED_BY(mutex_);
  bool stopping_ ADBWIRE_GUARDED_BY(mutex_) = false;
  std::thread thread_;
};

// One native screen with a WebView, as a screen graph folder.
fs::path write_screen(const fs::path& folder) {
  const fs::path screens = folder / "screens";
  fs::create_directories(screens);
  std::ofstream(screens / "shop.xml") << kNativeDump;
  std::ofstream(screens / "screens.xml")
      << R"(<screens start="shop"><screen name="shop" dump="shop.xml" activity="com.example.shop/.Main"/></screens>)";
  return screens;
}

int ref_of(const std::string& text, const std::string& line_start) {
  std::smatch match;
  if (!std::regex_search(text, match, std::regex(line_start + R"( \[ref=(\d+)\])"))) return 0;
  return std::stoi(match[1]);
}

class WebViewTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    folder_ = new test::TempDir();
    if (!have_chromium()) return;
    chromium_ = new Chromium();
    chromium_->start(folder_->path());
  }
  static void TearDownTestSuite() {
    if (chromium_ != nullptr) chromium_->stop();
    delete chromium_;
    delete folder_;
    chromium_ = nullptr;
    folder_ = nullptr;
  }
  void SetUp() override {
    ASSERT_TRUE(have_chromium()) << kInstallChromium;
    ASSERT_NE(chromium_->port(), 0) << "chromium did not open its DevTools port";
  }

  // A way for the device's input to reach the page, with the page's name field emptied.
  static std::unique_ptr<PageInput> page_input() {
    auto input = std::make_unique<PageInput>(chromium_->port());
    EXPECT_TRUE(input->connected());
    input->evaluate("document.getElementById('name').value = ''");
    return input;
  }

  // The device; with input, its taps and typing reach the page as on a phone.
  VirtualDeviceOptions device_options(std::uint16_t devtools_port,
                                      PageInput* input = nullptr) const {
    VirtualDeviceOptions options;
    options.screens = write_screen(folder_->path());
    if (devtools_port != 0)
      options.devtools = {{kSocket, devtools_port, kWebViewPid, "com.example.shop"}};
    if (input != nullptr) options.on_event = [input](std::string_view e) { input->on_event(e); };
    return options;
  }

  static test::TempDir* folder_;
  static Chromium* chromium_;
};

test::TempDir* WebViewTest::folder_ = nullptr;
Chromium* WebViewTest::chromium_ = nullptr;

TEST_F(WebViewTest, PageElementsGetRefsUnderTheWebViewAndATapLandsOnTheirScreenPoint) {
  const std::unique_ptr<PageInput> input = page_input();
  VirtualDevice vd(device_options(chromium_->port(), input.get()));
  vd.start();
  Page page = Page::connect(vd.target());
  const std::string text = page.snapshot().to_text();
  EXPECT_EQ(page.web_status().problem, "");
  EXPECT_EQ(page.web_status().pages, 1u);
  EXPECT_NE(text.find("WebPage \"Web form\" (file://"), std::string::npos) << text;
  EXPECT_NE(text.find("Heading \"Checkout\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"Not yet\""), std::string::npos) << text;
  EXPECT_EQ(text.find("Far below"), std::string::npos) << "an element scrolled away is not shown\n"
                                                       << text;
  const int button = ref_of(text, "- Button");
  const int field = ref_of(text, "- TextInput");
  ASSERT_GT(button, 0) << text;
  ASSERT_GT(field, 0) << text;
  EXPECT_NE(text.find("TextInput [ref=" + std::to_string(field) + "] \"\" (Your name)"),
            std::string::npos)
      << text;
  // Web refs share the native numbering in document order: the native Back button after the
  // WebView comes after them.
  std::smatch match;
  ASSERT_TRUE(std::regex_search(text, match, std::regex(R"(Button \[ref=(\d+)\] "Back")"))) << text;
  EXPECT_GT(std::stoi(match[1]), std::max(button, field)) << text;

  // "Pay now" is 200x50 CSS px at (100, 200): on the screen [135,470][405,538], centre (270, 504).
  page.tap(static_cast<std::uint32_t>(button));
  ASSERT_FALSE(vd.events().empty());
  EXPECT_EQ(vd.events().back(), "input tap 270 504");

  // Typing goes through the same input path as a native field: focus tap, then input text.
  page.type(static_cast<std::uint32_t>(field), "Ada");
  const auto events = vd.events();
  ASSERT_GE(events.size(), 2u);
  // The field is 300x40 CSS px at (100, 300): on the screen [135,605][540,659], centre (337, 632).
  EXPECT_EQ(events[events.size() - 2], "input tap 337 632");
  EXPECT_EQ(events.back(), "input text Ada");
}

// A web field is read back through CDP, with the page's own value: text that reached the page
// is seen there, text that did not is an error (a native dump does not hold the field at all).
TEST_F(WebViewTest, TypingIntoAWebFieldIsReadBackThroughCdp) {
  const std::unique_ptr<PageInput> input = page_input();
  {
    VirtualDevice vd(device_options(chromium_->port(), input.get()));
    vd.start();
    Page page = Page::connect(vd.target());
    const int field = ref_of(page.snapshot().to_text(), "- TextInput");
    ASSERT_GT(field, 0);
    const TypeResult typed = page.type(static_cast<std::uint32_t>(field), "Grace Hopper");
    EXPECT_EQ(typed.check, TypeResult::Check::as_typed);
    EXPECT_EQ(typed.reads, "Grace Hopper");
  }
  input->evaluate("document.getElementById('name').value = ''");
  VirtualDevice deaf(device_options(chromium_->port()));  // nothing typed reaches the page
  deaf.start();
  Page page = Page::connect(deaf.target());
  const int field = ref_of(page.snapshot().to_text(), "- TextInput");
  ASSERT_GT(field, 0);
  try {
    page.type(static_cast<std::uint32_t>(field), "Ada");
    ADD_FAILURE() << "text that never reached the page was reported typed";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::command_failed);
    EXPECT_NE(std::string(e.what()).find("nothing arrived: the field now reads \"\""),
              std::string::npos)
        << e.what();
  }
}

TEST_F(WebViewTest, CdpClickChangesThePage) {
  VirtualDevice vd(device_options(chromium_->port()));
  vd.start();
  PageOptions options;
  options.web_input = PageOptions::WebInput::cdp;
  Page page = Page::connect(vd.target(), options);
  const std::string before = page.snapshot().to_text();
  const int button = ref_of(before, "- Button");
  ASSERT_GT(button, 0) << before;
  const std::size_t events = vd.events().size();
  page.tap(static_cast<std::uint32_t>(button));
  EXPECT_EQ(vd.events().size(), events) << "the click went through CDP, not `input tap`";
  // The page's own handler ran: read back through CDP in the next snapshot.
  const std::string after = page.snapshot().to_text();
  EXPECT_NE(after.find("\"Clicked\""), std::string::npos) << after;
}

TEST_F(WebViewTest, ListWebviewsNamesTheSocketPackageAndPage) {
  VirtualDevice vd(device_options(chromium_->port()));
  vd.start();
  Device device = Device::connect(vd.target());
  const std::vector<WebViewPage> pages = list_webviews(device);
  const auto page = std::find_if(pages.begin(), pages.end(), [](const WebViewPage& p) {
    return p.type == "page" && p.url.ends_with("page.html");
  });
  ASSERT_NE(page, pages.end());
  EXPECT_EQ(page->socket, kSocket);
  EXPECT_EQ(page->pid, kWebViewPid);
  EXPECT_EQ(page->package, "com.example.shop");
  EXPECT_FALSE(page->id.empty());
}

TEST_F(WebViewTest, CliListsThePageAndSnapshotsWithAndWithoutIt) {
  VirtualDevice vd(device_options(chromium_->port()));
  vd.start();
  const auto run = [&vd](const std::string& args) {
    std::string out;
    FILE* pipe = ::popen(
        (std::string(ADBWIRE_CLI_PATH) + " -s " + vd.target() + " " + args + " 2>&1").c_str(), "r");
    char buffer[4096];
    for (std::size_t n; pipe != nullptr && (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
      out.append(buffer, n);
    EXPECT_EQ(pipe != nullptr ? ::pclose(pipe) : -1, 0) << out;
    return out;
  };
  const std::string listed = run("webviews");
  EXPECT_NE(listed.find(std::string("@") + kSocket + "  com.example.shop  page"), std::string::npos)
      << listed;
  EXPECT_NE(listed.find("page.html"), std::string::npos) << listed;
  EXPECT_NE(run("snapshot").find("Button [ref=2] \"Pay now\""), std::string::npos);
  EXPECT_EQ(run("snapshot --no-web").find("Pay now"), std::string::npos);
}

TEST_F(WebViewTest, WithoutWebTheSnapshotIsNativeOnly) {
  VirtualDevice vd(device_options(chromium_->port()));
  vd.start();
  PageOptions options;
  options.web = false;
  Page page = Page::connect(vd.target(), options);
  const std::string text = page.snapshot().to_text();
  EXPECT_EQ(text.find("Pay now"), std::string::npos) << text;
  EXPECT_NE(text.find("\"Shop\""), std::string::npos) << text;
}

// ---- DevTools endpoints that misbehave: the native snapshot must survive each.

enum class Misbehaviour {
  not_debuggable,
  hang_up_during_http,
  hang_up_during_handshake,
  malformed_cdp_reply,
  never_answers,
  closes_the_session,    // accepts the WebSocket, then closes it (the page went away)
  dies_after_one_reply,  // answers the first CDP call, then drops the connection
};

// Serves one misbehaviour on a loopback port until destroyed.
class BrokenDevtools {
 public:
  explicit BrokenDevtools(Misbehaviour mode)
      : acceptor_(io_, {boost::asio::ip::address_v4::loopback(), 0}), mode_(mode) {
    thread_ = std::thread([this] { serve(); });
  }
  ~BrokenDevtools() {
    stopping_ = true;
    boost::system::error_code ignored;
    tcp::socket poke(io_);
    poke.connect(acceptor_.local_endpoint(), ignored);
    thread_.join();
  }
  std::uint16_t port() const { return acceptor_.local_endpoint().port(); }

 private:
  void serve() {
    while (!stopping_) {
      tcp::socket socket(io_);
      boost::system::error_code ec;
      acceptor_.accept(socket, ec);
      if (ec || stopping_) return;
      beast::flat_buffer buffer;
      http::request<http::string_body> request;
      http::read(socket, buffer, request, ec);
      if (ec || mode_ == Misbehaviour::hang_up_during_http) continue;  // closes the socket
      if (mode_ == Misbehaviour::never_answers) {
        while (!stopping_) std::this_thread::sleep_for(10ms);
        return;
      }
      if (!websocket::is_upgrade(request)) {
        http::response<http::string_body> list{http::status::ok, 11};
        list.set(http::field::content_type, "application/json");
        list.body() = R"([{"id":"P1","type":"page","url":"https://shop.example/","title":"Shop"}])";
        list.prepare_payload();
        http::write(socket, list, ec);
        continue;
      }
      if (mode_ == Misbehaviour::hang_up_during_handshake) continue;
      websocket::stream<tcp::socket> ws(std::move(socket));
      ws.accept(request, ec);
      if (ec) continue;
      if (mode_ == Misbehaviour::closes_the_session) {
        ws.close(websocket::close_code::going_away, ec);
        continue;
      }
      if (mode_ == Misbehaviour::dies_after_one_reply) {
        beast::flat_buffer first;
        ws.read(first, ec);
        if (ec) continue;
        const auto call = nlohmann::json::parse(beast::buffers_to_string(first.data()));
        ws.text(true);
        ws.write(boost::asio::buffer(nlohmann::json{
                     {"id", call["id"]}, {"result", {{"nodes", nlohmann::json::array()}}}}
                                         .dump()),
                 ec);
        ws.next_layer().close(ec);  // no close frame: the app's process is gone
        std::this_thread::sleep_for(50ms);
        continue;
      }
      beast::flat_buffer message;
      ws.read(message, ec);
      if (ec) continue;
      ws.text(true);
      ws.write(boost::asio::buffer(std::string("<html>this is no CDP</html>")), ec);
      ws.close(websocket::close_code::normal, ec);
    }
  }

  boost::asio::io_context io_;
  tcp::acceptor acceptor_;
  Misbehaviour mode_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

// A DevTools endpoint that answers with canned CDP results (method -> result, or an error for
// methods in `errors`), as a WebView of a real app would describe itself in /json/list.
class ScriptedDevtools {
 public:
  ScriptedDevtools(std::string description, std::map<std::string, nlohmann::json> results,
                   std::set<std::string> errors = {})
      : acceptor_(io_, {boost::asio::ip::address_v4::loopback(), 0}),
        description_(std::move(description)),
        results_(std::move(results)),
        errors_(std::move(errors)) {
    thread_ = std::thread([this] { serve(); });
  }
  ~ScriptedDevtools() {
    stopping_ = true;
    boost::system::error_code ignored;
    tcp::socket poke(io_);
    poke.connect(acceptor_.local_endpoint(), ignored);
    thread_.join();
  }
  std::uint16_t port() const { return acceptor_.local_endpoint().port(); }
  std::vector<std::string> methods() {
    detail::MutexLock lock(mutex_);
    return methods_;
  }

 private:
  void serve() {
    while (!stopping_) {
      tcp::socket socket(io_);
      boost::system::error_code ec;
      acceptor_.accept(socket, ec);
      if (ec || stopping_) return;
      beast::flat_buffer buffer;
      http::request<http::string_body> request;
      http::read(socket, buffer, request, ec);
      if (ec) continue;
      if (!websocket::is_upgrade(request)) {
        const nlohmann::json list = nlohmann::json::array({{{"id", "W1"},
                                                            {"type", "page"},
                                                            {"url", "https://app.example/"},
                                                            {"title", "App"},
                                                            {"description", description_}}});
        http::response<http::string_body> answer{http::status::ok, 11};
        answer.body() = list.dump();
        answer.prepare_payload();
        http::write(socket, answer, ec);
        continue;
      }
      websocket::stream<tcp::socket> ws(std::move(socket));
      ws.accept(request, ec);
      while (!ec) {
        beast::flat_buffer message;
        ws.read(message, ec);
        if (ec) break;
        const auto call = nlohmann::json::parse(beast::buffers_to_string(message.data()));
        const std::string method = call["method"];
        {
          detail::MutexLock lock(mutex_);
          methods_.push_back(method);
        }
        nlohmann::json reply = {{"id", call["id"]}};
        if (errors_.contains(method)) {
          reply["error"] = {{"code", -32601}, {"message", "'" + method + "' wasn't found"}};
        } else {
          const auto it = results_.find(method);
          reply["result"] = it != results_.end() ? it->second : nlohmann::json::object();
        }
        ws.text(true);
        ws.write(boost::asio::buffer(reply.dump()), ec);
      }
    }
  }

  boost::asio::io_context io_;
  tcp::acceptor acceptor_;
  std::string description_;
  std::map<std::string, nlohmann::json> results_;
  std::set<std::string> errors_;
  detail::Mutex mutex_;
  std::vector<std::string> methods_ ADBWIRE_GUARDED_BY(mutex_);
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

// One button 100x50 CSS px at (0, 600) in a page 1080 CSS px wide (scale 1).
std::map<std::string, nlohmann::json> one_button_page() {
  return {
      {"Accessibility.getFullAXTree", nlohmann::json::parse(R"({"nodes":[
             {"nodeId":"1","ignored":false,"role":{"value":"RootWebArea"},"name":{"value":"App"},"childIds":["2"],"backendDOMNodeId":1},
             {"nodeId":"2","parentId":"1","ignored":false,"role":{"value":"button"},"name":{"value":"Go"},"childIds":[],"backendDOMNodeId":2}]})")},
      {"DOMSnapshot.captureSnapshot",
       nlohmann::json::parse(R"({"documents":[{"nodes":{"backendNodeId":[1,2]},
             "layout":{"nodeIndex":[0,1],"bounds":[[0,0,1080,2000],[0,600,100,50]]}}],"strings":[]})")},
      {"Page.getLayoutMetrics",
       nlohmann::json::parse(
           R"({"cssVisualViewport":{"pageX":0,"pageY":0,"clientWidth":1080,"clientHeight":2000}})")},
      {"DOM.getBoxModel",
       nlohmann::json::parse(R"({"model":{"content":[0,600,100,600,100,650,0,650]}})")}};
}

VirtualDeviceOptions scripted_device(const fs::path& folder, std::uint16_t port,
                                     const std::string& package) {
  VirtualDeviceOptions options;
  options.screens = write_screen(folder);
  options.devtools = {{kSocket, port, kWebViewPid, package}};
  return options;
}

// A WebView scrolled partly off the top of the screen: uiautomator's bounds are its visible
// part ([0,200][1080,1550]), its own description says it starts at y = -200. Boxes follow the
// description; the visible part only clips. A secondary process (":sandboxed") is the app's.
TEST(WebViewScripted, BoxesFollowTheWebViewsOwnRectangleNotItsVisiblePart) {
  test::TempDir folder;
  ScriptedDevtools server(
      R"({"attached":true,"visible":true,"screenX":0,"screenY":-200,"width":1080,"height":2000})",
      one_button_page());
  VirtualDevice vd(scripted_device(folder.path(), server.port(), "com.example.shop:sandboxed"));
  vd.start();
  Page page = Page::connect(vd.target());
  const std::string text = page.snapshot().to_text();
  ASSERT_EQ(page.web_status().problem, "") << text;
  const int go = ref_of(text, "- Button");
  ASSERT_GT(go, 0) << text;
  page.tap(static_cast<std::uint32_t>(go));
  EXPECT_EQ(vd.events().back(), "input tap 50 425");  // y: -200 + 600 .. 650, centre 425
}

TEST(WebViewScripted, AnEmptyTreeKeepsTheNativeContentAndSaysSo) {
  test::TempDir folder;
  auto results = one_button_page();
  results["Accessibility.getFullAXTree"] = nlohmann::json::parse(R"({"nodes":[]})");
  ScriptedDevtools server("", results);
  VirtualDevice vd(scripted_device(folder.path(), server.port(), "com.example.shop"));
  vd.start();
  Page page = Page::connect(vd.target());
  const std::string text = page.snapshot().to_text();
  EXPECT_EQ(page.web_status().pages, 0u);
  EXPECT_NE(page.web_status().problem.find("no accessibility tree"), std::string::npos)
      << page.web_status().problem;
  EXPECT_NE(text.find("WebView"), std::string::npos) << text;
}

TEST(WebViewScripted, CdpClickGoesOnWhereScrollIntoViewIsUnknown) {
  test::TempDir folder;
  ScriptedDevtools server("", one_button_page(), {"DOM.scrollIntoViewIfNeeded"});
  VirtualDevice vd(scripted_device(folder.path(), server.port(), "com.example.shop"));
  vd.start();
  PageOptions options;
  options.web_input = PageOptions::WebInput::cdp;
  Page page = Page::connect(vd.target(), options);
  const int go = ref_of(page.snapshot().to_text(), "- Button");
  ASSERT_GT(go, 0);
  page.tap(static_cast<std::uint32_t>(go));
  const std::vector<std::string> methods = server.methods();
  EXPECT_EQ(std::count(methods.begin(), methods.end(), "Input.dispatchMouseEvent"), 2);
}

class WebViewFailure : public ::testing::TestWithParam<std::pair<Misbehaviour, const char*>> {};

TEST_P(WebViewFailure, LeavesTheNativeSnapshotAndSaysWhy) {
  const auto [mode, why] = GetParam();
  test::TempDir folder;
  VirtualDeviceOptions options;
  options.screens = write_screen(folder.path());
  std::optional<BrokenDevtools> server;
  if (mode != Misbehaviour::not_debuggable) {
    server.emplace(mode);
    options.devtools = {{kSocket, server->port(), kWebViewPid, "com.example.shop"}};
  }
  VirtualDevice vd(options);
  vd.start();
  PageOptions page_options;
  page_options.web_timeout = 500ms;  // what a hung endpoint may cost the snapshot
  Page page = Page::connect(vd.target(), page_options);
  const auto started = std::chrono::steady_clock::now();
  const std::string text = page.snapshot().to_text();
  // Generous bound: only that the snapshot does not wait for its whole 30 s deadline.
  EXPECT_LT(std::chrono::steady_clock::now() - started, 20s);
  EXPECT_NE(text.find("\"Shop\""), std::string::npos) << text;
  EXPECT_NE(text.find("WebView"), std::string::npos) << text;
  EXPECT_NE(text.find("Button [ref="), std::string::npos) << text;  // the native Back button
  EXPECT_EQ(page.web_status().pages, 0u);
  EXPECT_NE(page.web_status().problem.find(why), std::string::npos) << page.web_status().problem;
  // The connection is fine afterwards.
  EXPECT_EQ(Device::connect(vd.target()).shell("echo ok").out, "ok\n");
}

INSTANTIATE_TEST_SUITE_P(
    Endpoints, WebViewFailure,
    ::testing::Values(std::pair{Misbehaviour::not_debuggable, "debuggable"},
                      std::pair{Misbehaviour::hang_up_during_http, "GET /json/list"},
                      std::pair{Misbehaviour::hang_up_during_handshake, "handshake"},
                      std::pair{Misbehaviour::malformed_cdp_reply, "not a CDP message"},
                      std::pair{Misbehaviour::never_answers, "timed out"},
                      std::pair{Misbehaviour::closes_the_session, "socket closed"},
                      std::pair{Misbehaviour::dies_after_one_reply, "socket closed"}),
    [](const auto& info) {
      switch (info.param.first) {
        case Misbehaviour::not_debuggable:
          return std::string("not_debuggable");
        case Misbehaviour::hang_up_during_http:
          return std::string("hang_up_during_http");
        case Misbehaviour::hang_up_during_handshake:
          return std::string("hang_up_during_handshake");
        case Misbehaviour::malformed_cdp_reply:
          return std::string("malformed_cdp_reply");
        case Misbehaviour::never_answers:
          return std::string("never_answers");
        case Misbehaviour::closes_the_session:
          return std::string("closes_the_session");
        case Misbehaviour::dies_after_one_reply:
          return std::string("dies_after_one_reply");
      }
      return std::string();
    });

}  // namespace
}  // namespace adbwire
