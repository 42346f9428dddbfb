// The tools of `adbwire mcp` are the agent verbs (verbs/verb.hpp), served on Pages: one Page per
// device, connected on first use and kept open, so a step costs a round trip, not a connection.
// Failures come back as tool results with isError and a message that says what to do next (a
// stale ref: take a new snapshot); only an unknown tool is a JSON-RPC error.
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "adbwire/connect_options.hpp"
#include "adbwire/page.hpp"
#include "mcp/server.hpp"
#include "verbs/call.hpp"
#include "verbs/saved_files.hpp"

namespace adbwire::mcp {

struct DeviceToolsOptions {
  std::string target;  // the device when a call names none; "" = $ANDROID_SERIAL
  ConnectOptions connect;
  PageOptions page;
  // What the verbs may do and how large their replies may be (shell, auto-snapshot, the
  // snapshot and image budgets); a snapshot over the budget is saved under snapshot_dir. Its
  // adb_server is connect.server's.
  verbs::Options verbs;
  // "" = mcp-<pid> in the private runtime folder ($XDG_RUNTIME_DIR/adbwire, else
  // /tmp/adbwire-UID), 0700; a folder given here must be this user's and not writable by others.
  std::filesystem::path snapshot_dir;
  // Where progress notes go (connections made and lost); empty: nowhere.
  std::function<void(std::string_view)> log;
  // How a Page's Device is reached: empty, Device::connect(target, connect); the CLI daemon hands
  // out the devices it holds. on_note takes what the source has to say with the next reply (it
  // reconnected); a failure sets error, its sentence in last_error_detail().
  std::function<Device(const std::string& target, std::function<void(std::string_view)> on_note,
                       std::error_code& error)>
      device_source;
};

// An MCP CallToolResult from a verb's reply: text as text, images as base64 image content.
Json to_tool_result(const verbs::Reply& reply);

// Not thread safe: the Server calls it from its one worker thread.
class DeviceTools : public Toolset, public verbs::Host {
 public:
  explicit DeviceTools(DeviceToolsOptions options);
  ~DeviceTools() override;

  // Toolset
  Json list() const override;
  Json call(const std::string& name, const Json& arguments, const CancelToken& cancel) override;

  // verbs::Host
  Page& page(const std::string& device) override;
  void forget(const std::string& device) override;
  std::vector<std::string> connected() const override;
  const std::string& default_device() const override { return options_.target; }
  std::string save(std::string_view suggested_name, std::string_view bytes) override;
  std::filesystem::path reserve(std::string_view suggested_name) override {
    return saved_.reserve(suggested_name);
  }
  verbs::Recordings& recordings() override { return recordings_; }
  verbs::LogFollows& log_follows() override { return log_follows_; }
  detail::SecretMask& secret_mask() override { return secret_mask_; }
  const verbs::Options& options() const override { return options_.verbs; }
  void log(std::string_view message) override;

 private:
  DeviceToolsOptions options_;
  std::map<std::string, std::unique_ptr<Page>> pages_;
  std::vector<std::string> lost_;   // targets whose connection dropped: the next call reconnects
  std::vector<std::string> notes_;  // said once, with the next reply (reconnects, fallbacks)
  verbs::SavedFiles saved_;
  // After pages_: destroyed first, so a recording ends before the Device it records goes.
  verbs::Recordings recordings_;
  verbs::LogFollows log_follows_;  // likewise
  detail::SecretMask secret_mask_;
};

}  // namespace adbwire::mcp
