// One run of a verb: its checked arguments, the Page of the device it acts on, the surface's
// options, and the reply it builds. Internal.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "adbwire/page.hpp"
#include "adbwire/server_address.hpp"
#include "base/cancel_token.hpp"
#include "base/secret_mask.hpp"
#include "verbs/host_file.hpp"
#include "verbs/log_follow.hpp"
#include "verbs/recording.hpp"
#include "verbs/secrets.hpp"
#include "verbs/verb.hpp"

namespace adbwire::verbs {

// One piece of a reply.
struct Block {
  enum class Kind { text, image, file } kind = Kind::text;
  std::string text;                 // text; a file's suggested name ("snapshot.yml")
  std::vector<std::uint8_t> bytes;  // image or file content
  std::string mime;                 // image/png, image/jpeg, application/xml, video/mp4 …
};

struct Reply {
  std::vector<Block> blocks;
  bool is_error = false;
  std::error_code error;  // what failed, for an error reply (the CLI's exit and message)
  static Reply text(std::string text, bool is_error = false);
};

// What a surface (MCP server, CLI session, Python) gives its verbs.
struct Options {
  bool allow_shell = false;    // offer shell
  bool allow_pair = false;     // offer pair (Wireless debugging pairing grants lasting access)
  bool auto_snapshot = false;  // actions append the snapshot taken `settle` after them
  std::chrono::milliseconds settle{500};
  // A snapshot longer than this (about 4 characters a token) is saved to a file and the reply
  // carries its path and a shortened view.
  std::size_t max_snapshot_chars = 30000;
  // Screenshots: at most this many bytes (768 KiB keeps base64 under 1 MiB) and pixels a side,
  // unless a call asks for less; 0: no limit (the CLI saves files).
  std::size_t max_image_bytes = 768 * 1024;
  std::uint32_t max_image_side = 2000;
  // The adb server the devices verb asks (ConnectOptions::server).
  ServerAddress adb_server;
  // The host key pair hands a phone (ConnectOptions::keys).
  KeyOptions keys;
  // What install may read of this computer (verbs/host_file.hpp): nothing unless a folder is
  // allowed.
  HostFileRules host_files;
  // The memory database of remember, recall and forget (verbs/memory_store.hpp); empty: its
  // default ($ADBWIRE_MEMORY_DB, else the user's private data folder).
  std::filesystem::path memory_db;
  // Feed the observation cache of memory_db: every screen a verb saw and every action done on
  // one, with what followed (verbs/observer.hpp). Off: nothing of a screen is written to disk.
  bool observe = false;
  // Where type --secret reads secrets (verbs/secrets.hpp).
  SecretSources secrets = SecretSources::from_environment();
};

// The devices a surface drives: one Page per device, connected on first use and kept.
class Host {
 public:
  virtual ~Host() = default;
  // The Page of `device` ("" = the default device), connecting it on first use. Throws
  // Error (invalid_argument when no device is known, the connection's errors otherwise).
  virtual Page& page(const std::string& device) = 0;
  // Drops the Page of a device whose connection was lost, so the next call reconnects.
  virtual void forget(const std::string& device) = 0;
  // The devices connected now, with their targets.
  virtual std::vector<std::string> connected() const = 0;
  // The target a call without `device` uses ("" = $ANDROID_SERIAL, else $ADB_SERIAL).
  virtual const std::string& default_device() const = 0;
  // Saves bytes (a snapshot too large for a reply, a page source, a recording) privately and
  // returns the path. Throws Error (io_error, permission_denied).
  virtual std::string save(std::string_view suggested_name, std::string_view bytes) = 0;
  // A private path for a file a verb writes itself (a pulled recording); as save.
  virtual std::filesystem::path reserve(std::string_view suggested_name) = 0;
  // The screen recordings running (record_start … record_stop), kept between calls.
  virtual Recordings& recordings() = 0;
  // The device logs followed (logs with follow), kept between calls.
  virtual LogFollows& log_follows() = 0;
  // The secrets typed so far, hidden from every reply (run) and saved file (save).
  virtual detail::SecretMask& secret_mask() = 0;
  virtual const Options& options() const = 0;
  // Where connections made and lost are told (stderr of the server); may do nothing.
  virtual void log(std::string_view message) = 0;
};

// Argument errors are Error(invalid_argument) naming the argument and what it should be.
class Call {
 public:
  // Checks arguments against the verb's parameters (unknown names, types, ranges, choices,
  // required ones) before anything runs.
  Call(const Verb& verb, Host& host, const Json& arguments, const detail::CancelToken& cancel);

  const Verb& verb() const noexcept { return verb_; }
  Host& host() noexcept { return host_; }
  const Options& options() const { return host_.options(); }
  const detail::CancelToken& cancel() const noexcept { return cancel_; }
  const std::string& device() const noexcept { return device_; }
  void set_device(std::string device) { device_ = std::move(device); }
  Page& page() { return host_.page(device_); }
  // The arguments as checked.
  const Json& arguments() const noexcept { return arguments_; }

  std::optional<std::string> string(std::string_view name) const;
  std::string required_string(std::string_view name) const;
  std::optional<std::int64_t> integer(std::string_view name) const;
  std::optional<double> number(std::string_view name) const;
  double required_number(std::string_view name) const;
  bool flag(std::string_view name) const;
  bool has(std::string_view name) const;
  // ref (from the latest snapshot) and the point x, y (+ normalized); each nullopt when absent.
  std::optional<std::uint32_t> ref() const;
  std::optional<ScreenPoint> point(std::string_view x = "x", std::string_view y = "y") const;
  // The point (x, y) in the space the call names: normalized, or space = "screen",
  // "normalized" or "screenshot" (the last screenshot's pixels).
  ScreenPoint at(double x, double y) const;

 private:
  const Json* find(std::string_view name) const;

  const Verb& verb_;
  Host& host_;
  Json arguments_;
  const detail::CancelToken& cancel_;
  std::string device_;
};

// Runs a verb: checks its arguments, runs it, and turns a failure into an error reply whose
// message says what to do next (a stale ref: take a new snapshot); a lost connection is
// forgotten so the next call reconnects. Throws Error(not_found) only for an unknown verb or
// one the options do not offer (shell without allow_shell).
Reply run(Host& host, std::string_view name, const Json& arguments,
          const detail::CancelToken& cancel);

}  // namespace adbwire::verbs
