#include "mcp/device_tools.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "adbwire/error.hpp"
#include "adbwire/error_detail.hpp"
#include "adbwire/keys.hpp"
#include "adbwire/target.hpp"
#include "base/base64.hpp"
#include "base/private_files.hpp"
#include "verbs/verb.hpp"

namespace adbwire::mcp {

Json to_tool_result(const verbs::Reply& reply) {
  Json content = Json::array();
  for (const verbs::Block& block : reply.blocks) {
    if (block.kind == verbs::Block::Kind::image) {
      content.push_back({{"type", "image"},
                         {"data", detail::base64_encode(block.bytes)},
                         {"mimeType", block.mime}});
    } else {
      content.push_back({{"type", "text"}, {"text", block.text}});
    }
  }
  Json result = {{"content", std::move(content)}, {"isError", reply.is_error}};
  // The error's code for clients that act on it (the CLI's message and exit status).
  if (reply.is_error && reply.error.category() == error_category())
    result["_meta"] = {{"adbwire/errc", reply.error.value()}};
  return result;
}

DeviceTools::DeviceTools(DeviceToolsOptions options)
    : options_(std::move(options)),
      saved_(options_.snapshot_dir, "mcp-" + std::to_string(::getpid()),
             "pass --snapshot-dir to a folder of yours, or use interactive, compact or max_depth") {
  options_.verbs.adb_server = options_.connect.server;
  options_.verbs.keys = options_.connect.keys;
  // Whatever folder install is allowed, nothing holding keys or adbwire's files is read.
  std::vector<std::filesystem::path>& off_limits = options_.verbs.host_files.off_limits;
  off_limits.push_back(default_key_path(options_.connect.keys).parent_path());
  const auto vendor = options_.connect.keys.vendor_keys;
  off_limits.insert(off_limits.end(), vendor.begin(), vendor.end());
  if (const char* keys = std::getenv("ADB_VENDOR_KEYS")) {
    for (std::string_view rest = keys; !rest.empty();) {
      const std::size_t colon = std::min(rest.find(':'), rest.size());
      if (colon > 0) off_limits.emplace_back(rest.substr(0, colon));
      rest.remove_prefix(std::min(colon + 1, rest.size()));
    }
  }
  off_limits.push_back(detail::runtime_folder_path());
  if (!options_.snapshot_dir.empty()) off_limits.push_back(options_.snapshot_dir);
}

DeviceTools::~DeviceTools() = default;

Json DeviceTools::list() const {
  // The default device's capabilities once a call has opened it (listing never connects);
  // before that, what the server's own options rule out.
  const Capabilities* caps = nullptr;
  if (const auto it = pages_.find(options_.target); it != pages_.end()) {
    std::error_code error;
    const Capabilities& probed = it->second->capabilities(kDefaultDeadline, error);
    if (!error) caps = &probed;
  }
  const bool helper_off = options_.page.helper == PageOptions::Helper::off;
  Json tools = Json::array();
  for (const verbs::Verb& verb : verbs::all()) {
    if (!verbs::offered(verb, options_.verbs)) continue;
    Json tool = verbs::tool_definition(verb);
    if (const std::string why = verbs::unavailable_because(verb, helper_off, caps); !why.empty())
      tool["description"] = "Unavailable on the default device: " + why + ". " +
                            tool["description"].get<std::string>();
    tools.push_back(std::move(tool));
  }
  return tools;
}

Json DeviceTools::call(const std::string& name, const Json& arguments, const CancelToken& cancel) {
  const verbs::Verb* verb = verbs::find(name);
  if (verb == nullptr || !verbs::offered(*verb, options_.verbs)) {
    throw RpcError(kInvalidParams,
                   name == "shell"  ? "the shell tool is off: start the server with --allow-shell "
                                      "to offer it"
                   : name == "pair" ? "the pair tool is off: start the server with --allow-pair to "
                                      "offer it (pairing gives this computer lasting access)"
                                    : "unknown tool '" + name + "'; tools/list names the tools");
  }
  Json result = to_tool_result(verbs::run(*this, name, arguments, cancel));
  for (std::string& note : notes_)
    result["content"].push_back({{"type", "text"}, {"text", "Note: " + std::move(note)}});
  notes_.clear();
  return result;
}

Page& DeviceTools::page(const std::string& device) {
  const std::string& target = device.empty() ? options_.target : device;
  if (const auto it = pages_.find(target); it != pages_.end()) return *it->second;
  if (target.empty() && default_serial().empty()) {
    throw Error(errc::invalid_argument,
                "no device given: pass `device` (the devices tool lists them), or start the server "
                "with a default one, e.g. `adbwire mcp tcp:HOST:PORT`, or with $ANDROID_SERIAL "
                "or $ADB_SERIAL set");
  }
  const std::string name = target.empty() ? std::string("$ANDROID_SERIAL") : target;
  PageOptions page_options = options_.page;
  if (!page_options.on_warning) {
    page_options.on_warning = [this](std::string_view message) { notes_.emplace_back(message); };
  }
  std::error_code error;
  Device connected =
      options_.device_source
          ? options_.device_source(
                target, [this](std::string_view note) { notes_.emplace_back(note); }, error)
          : Device::connect(target, options_.connect, error);
  if (error) throw Error(error, "cannot connect to " + name + ": " + last_error_detail());
  log("connected to " + name);
  if (const auto it = std::find(lost_.begin(), lost_.end(), target); it != lost_.end()) {
    lost_.erase(it);
    // A device source says itself when it connected again.
    if (!options_.device_source) {
      notes_.push_back("the connection to " + name +
                       " had dropped; it was connected again for this call.");
    }
  }
  return *pages_
              .emplace(target,
                       std::make_unique<Page>(std::move(connected), std::move(page_options)))
              .first->second;
}

void DeviceTools::forget(const std::string& device) {
  const std::string& target = device.empty() ? options_.target : device;
  recordings_.drop(target);  // before its Page: the recording uses the Page's Device
  log_follows_.drop(target);
  if (pages_.erase(target) > 0) {
    log("lost the connection to " + target);
    lost_.push_back(target);
  }
}

std::vector<std::string> DeviceTools::connected() const {
  std::vector<std::string> targets;
  for (const auto& [target, page] : pages_) {
    const std::string_view model = page->device().banner().property("ro.product.model");
    targets.push_back((target.empty() ? std::string("$ANDROID_SERIAL") : target) +
                      (model.empty() ? "" : "  model:" + std::string(model)));
  }
  return targets;
}

void DeviceTools::log(std::string_view message) {
  if (options_.log) options_.log(message);
}

std::string DeviceTools::save(std::string_view suggested_name, std::string_view bytes) {
  return saved_.save(suggested_name,
                     secret_mask_.empty() ? std::string(bytes) : secret_mask_.apply(bytes));
}

}  // namespace adbwire::mcp
