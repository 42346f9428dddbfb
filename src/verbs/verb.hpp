// The agent verbs, defined once: name, description, parameters with their constraints (the JSON
// schema and the CLI's parsers are made from them), hints; the handler that runs each on a Page is
// handlers.hpp's, apart, so the table alone is data (adbwire_verb_table) the lean CLI links.
// The MCP server (src/mcp), the CLI session daemon (src/cli) and the Python package serve this
// table, so a verb added here appears on every surface with the same validation and errors.
// Internal (the program layers and the Python binding use it).
#pragma once

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "adbwire/page.hpp"

namespace adbwire::verbs {

using Json = nlohmann::json;

enum class ParamType { string, integer, number, boolean };

struct Param {
  std::string_view name;
  ParamType type = ParamType::string;
  std::string_view description;
  bool required = false;
  // Integers: the accepted range.
  std::int64_t minimum = std::numeric_limits<std::int64_t>::min();
  std::int64_t maximum = std::numeric_limits<std::int64_t>::max();
  // Strings: the accepted values ("" = any).
  std::vector<std::string_view> choices = {};
};

// MCP's tool annotations.
struct Hints {
  bool read_only = false;
  bool destructive = false;
  bool idempotent = false;
  bool open_world = false;
};

struct Verb {
  std::string_view name;         // snake_case; the MCP tool name and the CLI subcommand
  std::string_view title;        // a few words
  std::string_view description;  // what it does and when to use it, for an agent
  std::vector<Param> params;
  Hints hints;
  // Parameters the CLI takes without --name, in this order (`adbwire tap 5`, `type 2 hello`).
  std::vector<std::string_view> positional = {};
  // Takes the per-call `device` parameter (MCP), which names the device to act on.
  bool per_device = true;
  // Offered only when the server allows shell commands (adbwire mcp --allow-shell).
  bool needs_shell = false;
  // The CLI saves the reply's first text block to a file of this extension under .adbwire/ and
  // prints its path (with --print also the text), as agents reading files expect. "": print.
  std::string_view cli_file = {};
  // A capability the verb cannot work without (Page::capabilities); tools/list marks the verb
  // when the device lacks it, so an agent does not plan with it.
  std::optional<Capability> needs = std::nullopt;
  // Grants a device lasting access to nothing, but this computer lasting access to a device
  // (pair): offered only when the server allows it (adbwire mcp --allow-pair).
  bool needs_pair = false;
};

// Whether options offer verb (shell needs allow_shell, pair allow_pair).
struct Options;
bool offered(const Verb& verb, const Options& options) noexcept;

// Why the verb cannot work on a device with these capabilities ("" when it can). helper_off:
// the Page runs without the on-device dumper, which serves multi_touch, clipboard and
// app_labels, so those are missing whatever the device is. caps: the device's, or nullptr when
// not probed yet.
std::string unavailable_because(const Verb& verb, bool helper_off, const Capabilities* caps);

// Appends the trajectory verbs (record_trajectory_start, record_trajectory_stop,
// replay_trajectory) to the table being made; table_trajectory.cpp.
void add_trajectory_verbs(std::vector<Verb>& table);

// Every verb, in the order tools/list and `adbwire --help` show them.
std::span<const Verb> all() noexcept;
// The verb named name, or nullptr.
const Verb* find(std::string_view name) noexcept;

// The MCP tool definition of a verb: name, title, description, inputSchema (with `device` for a
// per-device verb), annotations.
Json tool_definition(const Verb& verb);
// The catalog the CLI front is built from: per verb its name, description, parameters (type,
// description, required, range, choices), positional order and cli_file.
Json cli_catalog();

}  // namespace adbwire::verbs
