// The tools of `adbwire mcp` (tool_catalog.hpp describes them) run on Pages: one Page per
// device, connected on first use and kept open, so a step costs a round trip, not a
// connection. Failures come back as tool results with isError and a message that says what
// to do next (a stale ref: take a new snapshot); only an unknown tool is a JSON-RPC error.
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "adbwire/connect_options.hpp"
#include "adbwire/page.hpp"
#include "mcp/server.hpp"

namespace adbwire::mcp {

struct DeviceToolsOptions {
  std::string target;  // the device when a call names none; "" = $ANDROID_SERIAL
  ConnectOptions connect;
  PageOptions page;
  bool allow_shell = false;    // offer the shell tool
  bool auto_snapshot = false;  // actions append the snapshot taken `settle` after them
  std::chrono::milliseconds settle{500};
  // A snapshot longer than this (about 4 characters a token) is saved to a file under
  // snapshot_dir and the reply carries its path and a shortened view.
  std::size_t max_snapshot_chars = 30000;
  // "" = mcp-<pid> in the private runtime folder ($XDG_RUNTIME_DIR/adbwire, else
  // /tmp/adbwire-UID), 0700; a folder given here must be this user's and not writable by others.
  std::filesystem::path snapshot_dir;
  // Screenshot bytes before base64: 768 KiB keeps the encoded image under 1 MiB.
  std::size_t max_image_bytes = 768 * 1024;
  // Where progress notes go (connections made and lost); empty: nowhere.
  std::function<void(std::string_view)> log;
};

// Not thread safe: the Server calls it from its one worker thread.
class DeviceTools : public Toolset {
 public:
  explicit DeviceTools(DeviceToolsOptions options);
  ~DeviceTools() override;

  Json list() const override;
  Json call(const std::string& name, const Json& arguments, const CancelToken& cancel) override;

 private:
  class Call;
  friend class Call;

  Page& page(const std::string& device);
  void forget(const std::string& device);
  std::string save_snapshot(std::string_view text);

  DeviceToolsOptions options_;
  Json definitions_;
  std::map<std::string, std::unique_ptr<Page>> pages_;
  std::uint64_t saved_snapshots_ = 0;
  bool own_snapshot_dir_ = false;  // snapshot_dir was made here: held to FolderTrust::own
};

}  // namespace adbwire::mcp
