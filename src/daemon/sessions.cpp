#include "daemon/sessions.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "adbwire/error.hpp"
#include "base/base64.hpp"
#include "base/private_files.hpp"
#include "daemon/daemon_protocol.hpp"
#include "daemon/unix_socket.hpp"
#include "mcp/device_tools.hpp"
#include "mcp/json_rpc.hpp"
#include "mcp/server.hpp"
#include "verbs/verb.hpp"

namespace adbwire::daemon {
namespace {

namespace fs = std::filesystem;
using mcp::Json;

// How long a client may take to send its request line once connected.
constexpr int kRequestTimeoutMs = 10000;

std::string session_name(std::string_view name) {
  return name.empty() ? std::string("the default session") : "session '" + std::string(name) + "'";
}

// The verbs of one session. A CLI call's arguments may hold "_cli": {"dir": "/abs/.adbwire",
// "print": bool} to have snapshots and images saved as files there (the reply then gives their
// paths; with print, the snapshot's text too): DIR/snapshot-N.yml (or .json), DIR/screenshot-N.png.
// A named session writes in DIR/session-NAME, so sessions sharing a working folder never write
// each other's files.
class SessionTools final : public mcp::DeviceTools {
 public:
  SessionTools(mcp::DeviceToolsOptions options, const std::string& name)
      : DeviceTools(std::move(options)), folder_(name.empty() ? "" : "session-" + name) {}

  Json call(const std::string& name, const Json& arguments,
            const mcp::CancelToken& cancel) override {
    Json args = arguments.is_object() ? arguments : Json::object();
    Json cli = args.contains("_cli") ? args["_cli"] : Json();
    args.erase("_cli");
    Json result = DeviceTools::call(name, args, cancel);
    if (!cli.is_object() || result.value("isError", false)) return result;
    const fs::path base = cli.value("dir", std::string(".adbwire"));
    const fs::path dir = folder_.empty() ? base : base / folder_;
    const verbs::Verb* verb = verbs::find(name);
    Json content = Json::array();
    bool first_text = true;
    for (Json& block : result["content"]) {
      const std::string type = block.value("type", std::string());
      if (type == "image") {
        const std::string mime = block.value("mimeType", std::string());
        const auto bytes = detail::base64_decode(block.value("data", std::string()));
        content.push_back(
            text(save_cli_file(dir, std::string(name), mime == "image/jpeg" ? ".jpg" : ".png",
                               bytes ? std::string(bytes->begin(), bytes->end()) : "")));
      } else if (type == "text" && first_text && verb != nullptr && !verb->cli_file.empty()) {
        first_text = false;
        const std::string body = block.value("text", std::string());
        const std::string extension =
            "." + std::string(args.value("json", false) ? "json" : verb->cli_file);
        std::string out = save_cli_file(dir, std::string(name), extension, body);
        if (cli.value("print", false)) out += "\n" + body;
        content.push_back(text(std::move(out)));
      } else if (type == "text" && block.value("text", std::string()).starts_with("Screenshot ")) {
        // The image's summary: the path says it.
      } else {
        content.push_back(std::move(block));
      }
    }
    result["content"] = std::move(content);
    return result;
  }

 private:
  static Json text(std::string body) { return {{"type", "text"}, {"text", std::move(body)}}; }

  // DIR/STEM-N.EXT, private (0600, never through a link), N counted per stem in this session
  // and passing names already there: a path once printed keeps its content.
  std::string save_cli_file(const fs::path& dir, const std::string& stem,
                            const std::string& extension, std::string_view bytes) {
    constexpr int kNamesTried = 10000;
    std::string file = stem + "-" + std::to_string(++counts_[stem]) + extension;
    detail::Failure failure;
    const detail::FolderFd folder =
        detail::open_private_folder(dir, detail::FolderTrust::chosen, failure);
    for (int tried = 0; folder && tried < kNamesTried; ++tried) {
      failure = {};
      if (detail::write_private_file(folder.get(), file, bytes, failure, detail::Existing::keep))
        return (dir / file).string();
      if (failure.code != errc::busy) break;
      file = stem + "-" + std::to_string(++counts_[stem]) + extension;
    }
    failure.throw_if_failed();
    return {};
  }

  std::string folder_;
  std::map<std::string, std::uint64_t> counts_;
};

void send_line(int fd, std::string_view line) {
  detail::Failure gone;  // a client that went away has nothing left to be told
  send_all(fd, std::span(reinterpret_cast<const std::uint8_t*>(line.data()), line.size()),
           kNoDeadline, gone);
}

}  // namespace

struct Sessions::Session {
  Session(std::string session_name, std::string session_target, std::chrono::seconds session_idle,
          mcp::DeviceToolsOptions options)
      : name(std::move(session_name)),
        target(std::move(session_target)),
        idle(session_idle),
        tools(std::move(options), name) {}

  const std::string name;
  const std::string target;
  const std::chrono::seconds idle;
  detail::Mutex calls;  // one client's calls at a time
  SessionTools tools ADBWIRE_GUARDED_BY(calls);
  std::atomic<Clock::rep> last_used{Clock::now().time_since_epoch().count()};
  std::atomic<int> serving{0};

  Clock::duration idle_for() const {
    if (serving > 0) return Clock::duration::zero();
    return Clock::now() - Clock::time_point(Clock::duration(last_used.load()));
  }
  void touch() { last_used = Clock::now().time_since_epoch().count(); }
};

Sessions::Sessions(Registry& registry) : registry_(registry) {}

Sessions::~Sessions() {
  std::map<std::string, std::shared_ptr<Session>> gone;
  detail::MutexLock lock(mutex_);
  gone.swap(sessions_);
  lock.unlock();
}

std::string Sessions::open(const SessionSpec& spec, detail::Failure& failure) {
  if (!valid_session_name(spec.name)) {
    failure.set(errc::invalid_argument,
                "a session name is letters, digits, '-', '_' and '.', not '" + spec.name + "'");
    return {};
  }
  {
    detail::MutexLock lock(mutex_);
    if (const auto it = sessions_.find(spec.name); it != sessions_.end()) {
      failure.set(errc::busy, "the " + session_name(spec.name) + " is already open (" +
                                  it->second->target + "); close it first (`adbwire" +
                                  (spec.name.empty() ? std::string() : " --session " + spec.name) +
                                  " close`), or open another with --session NAME");
      return {};
    }
  }
  mcp::DeviceToolsOptions options;
  options.target = spec.target;
  options.connect.auth_timeout = spec.auth_timeout;
  options.connect.limits = spec.limits;
  options.page = spec.page;
  options.verbs.memory_db = spec.memory_db;
  options.verbs.observe = spec.observe;
  // The CLI saves images as files: full size, as the device shows them.
  options.verbs.max_image_bytes = 0;
  options.verbs.max_image_side = 0;
  const ConnectOptions connect = options.connect;
  options.device_source = [this, connect](const std::string& target,
                                          std::function<void(std::string_view)> on_note,
                                          std::error_code& error) {
    Notes notes;
    detail::Failure why;
    auto held = registry_.attach(target, connect, false, notes, why);
    for (const std::string& note : notes) on_note(note);
    if (!held) {
      detail::report(std::move(why), error);
      return Device(nullptr, {});
    }
    error.clear();
    return held->share(std::move(on_note), connect.limits);
  };
  auto session = std::make_shared<Session>(spec.name, spec.target, spec.idle, std::move(options));
  {
    detail::MutexLock calls(session->calls);
    try {
      session->tools.page("");  // connect now: open reports a target that does not answer
    } catch (const Error& e) {
      failure.set(e.code(), e.detail());
      return {};
    }
  }
  detail::MutexLock lock(mutex_);
  if (sessions_.contains(spec.name)) {
    failure.set(errc::busy, "the " + session_name(spec.name) + " was opened meanwhile");
    return {};
  }
  sessions_.emplace(spec.name, session);
  return spec.target;
}

bool Sessions::close(std::string_view name) {
  std::shared_ptr<Session> session;
  {
    detail::MutexLock lock(mutex_);
    const auto it = sessions_.find(std::string(name));
    if (it == sessions_.end()) return false;
    session = it->second;
    sessions_.erase(it);
  }
  return true;
}

std::vector<SessionInfo> Sessions::list() const {
  detail::MutexLock lock(mutex_);
  std::vector<SessionInfo> out;
  for (const auto& [name, session] : sessions_) out.push_back({name, session->target});
  return out;  // the map orders "" (the default session) first
}

bool Sessions::empty() const {
  detail::MutexLock lock(mutex_);
  return sessions_.empty();
}

std::shared_ptr<Sessions::Session> Sessions::find(std::string_view name,
                                                  detail::Failure& failure) const {
  detail::MutexLock lock(mutex_);
  if (const auto it = sessions_.find(std::string(name)); it != sessions_.end()) return it->second;
  if (name.empty() && sessions_.size() == 1) return sessions_.begin()->second;
  if (name.empty() && sessions_.size() > 1) {
    std::string open;
    for (const auto& [named, session] : sessions_)
      open += (open.empty() ? "" : ", ") + named + " (" + session->target + ")";
    failure.set(errc::invalid_argument, std::to_string(sessions_.size()) + " sessions are open: " +
                                            open + "; name one with --session NAME");
    return nullptr;
  }
  failure.set(
      errc::not_found,
      "no adbwire session" + (name.empty() ? std::string() : " '" + std::string(name) + "'") +
          " is running; start one with `adbwire open" +
          (name.empty() ? std::string() : " --session " + std::string(name)) + " [TARGET]`");
  return nullptr;
}

void Sessions::serve(std::string_view name, int fd, std::span<const std::uint8_t> early,
                     detail::Failure& failure) {
  const std::shared_ptr<Session> session = find(name, failure);
  if (!session) return;
  std::vector<std::uint8_t> okay;
  append_frame(okay, FrameKind::okay);
  send_line(fd, std::string_view(reinterpret_cast<const char*>(okay.data()), okay.size()));
  ++session->serving;
  detail::MutexLock calls(session->calls);
  {
    mcp::Server server(session->tools, {}, [fd](std::string_view line) { send_line(fd, line); });
    std::string pending(early.begin(), early.end());
    char buffer[65536];
    for (;;) {
      for (std::size_t end; (end = pending.find('\n')) != std::string::npos;) {
        server.handle_line(std::string_view(pending).substr(0, end));
        pending.erase(0, end + 1);
      }
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, kRequestTimeoutMs) <= 0) break;
      const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      pending.append(buffer, static_cast<std::size_t>(n));
    }
    server.finish();
  }
  session->touch();
  --session->serving;
}

void Sessions::sweep() {
  std::vector<std::shared_ptr<Session>> gone;
  {
    detail::MutexLock lock(mutex_);
    for (auto it = sessions_.begin(); it != sessions_.end();) {
      if (it->second->idle_for() >= it->second->idle) {
        gone.push_back(it->second);
        it = sessions_.erase(it);
      } else {
        ++it;
      }
    }
  }
}

}  // namespace adbwire::daemon
