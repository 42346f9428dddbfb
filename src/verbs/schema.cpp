// The verb table as the surfaces present it: MCP tool definitions with JSON schemas, the catalog
// Python lists, and why a verb cannot work on a device.
#include <limits>

#include "base/advice.hpp"
#include "verbs/call.hpp"
#include "verbs/verb.hpp"

namespace adbwire::verbs {
namespace {

Json schema_of(const Param& p) {
  Json schema;
  switch (p.type) {
    case ParamType::string:
      schema["type"] = "string";
      if (!p.choices.empty()) {
        schema["enum"] = Json::array();
        for (const std::string_view c : p.choices) schema["enum"].push_back(std::string(c));
      }
      break;
    case ParamType::integer:
      schema["type"] = "integer";
      if (p.minimum != std::numeric_limits<std::int64_t>::min()) schema["minimum"] = p.minimum;
      if (p.maximum != std::numeric_limits<std::int64_t>::max()) schema["maximum"] = p.maximum;
      break;
    case ParamType::number:
      schema["type"] = "number";
      break;
    case ParamType::boolean:
      schema["type"] = "boolean";
      break;
  }
  schema["description"] = std::string(p.description);
  return schema;
}

}  // namespace

bool offered(const Verb& verb, const Options& options) noexcept {
  return (!verb.needs_shell || options.allow_shell) && (!verb.needs_pair || options.allow_pair);
}

std::string unavailable_because(const Verb& verb, bool helper_off, const Capabilities* caps) {
  if (!verb.needs) return {};
  const Capability c = *verb.needs;
  const bool helper_serves =
      c == Capability::multi_touch || c == Capability::clipboard || c == Capability::app_labels;
  if (helper_off && helper_serves)
    return "it needs adbwire's on-device dumper, which is off (" +
           std::string(detail::advice("--helper auto", "PageOptions(helper=\"auto\")")) +
           " turns it on)";
  if (caps != nullptr && !caps->has(c))
    return "this device lacks " + std::string(to_string(c)) + " (the capabilities verb says why)";
  return {};
}

Json tool_definition(const Verb& verb) {
  Json properties = Json::object();
  Json required = Json::array();
  for (const Param& p : verb.params) {
    properties[std::string(p.name)] = schema_of(p);
    if (p.required) required.push_back(std::string(p.name));
  }
  if (verb.per_device) {
    properties["device"] = {
        {"type", "string"},
        {"description",
         "Which device: a target such as tcp:HOST:PORT, HOST:PORT or an adb serial (the devices "
         "verb lists them). Omit it for the default device."}};
  }
  Json schema = {
      {"type", "object"}, {"properties", std::move(properties)}, {"additionalProperties", false}};
  if (!required.empty()) schema["required"] = std::move(required);
  return {{"name", std::string(verb.name)},
          {"title", std::string(verb.title)},
          {"description", std::string(verb.description)},
          {"inputSchema", std::move(schema)},
          {"annotations",
           {{"title", std::string(verb.title)},
            {"readOnlyHint", verb.hints.read_only},
            {"destructiveHint", verb.hints.destructive},
            {"idempotentHint", verb.hints.idempotent},
            {"openWorldHint", verb.hints.open_world}}}};
}

Json cli_catalog() {
  Json verbs = Json::array();
  for (const Verb& verb : all()) {
    Json entry = tool_definition(verb);
    entry.erase("annotations");
    entry["positional"] = Json::array();
    for (const std::string_view name : verb.positional)
      entry["positional"].push_back(std::string(name));
    entry["cli_file"] = std::string(verb.cli_file);
    entry["needs_shell"] = verb.needs_shell;
    entry["needs_pair"] = verb.needs_pair;
    verbs.push_back(std::move(entry));
  }
  return verbs;
}

}  // namespace adbwire::verbs
