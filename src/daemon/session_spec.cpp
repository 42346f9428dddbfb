#include "daemon/session_spec.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "adbwire/error.hpp"
#include "daemon/daemon_protocol.hpp"

namespace adbwire::daemon {
namespace {

using Json = nlohmann::json;

constexpr std::pair<PageOptions::Helper, std::string_view> kHelpers[] = {
    {PageOptions::Helper::automatic, "auto"},
    {PageOptions::Helper::on, "on"},
    {PageOptions::Helper::off, "off"},
};

// OutputLimits by kind name (output_limit_names()).
Json limits_json(const OutputLimits& limits) {
  Json out = Json::object();
  OutputLimits copy = limits;
  std::string_view names = output_limit_names();
  while (!names.empty()) {
    const std::size_t comma = std::min(names.find(", "), names.size());
    const std::string name(names.substr(0, comma));
    out[name] = *output_limit(copy, name);
    names.remove_prefix(std::min(comma + 2, names.size()));
  }
  return out;
}

}  // namespace

std::string format_session_spec(const SessionSpec& spec) {
  std::string helper = "off";
  for (const auto& [mode, name] : kHelpers) {
    if (mode == spec.page.helper) helper = name;
  }
  return Json{{"name", spec.name},
              {"target", spec.target},
              {"idle_s", spec.idle.count()},
              {"auth_ms", spec.auth_timeout.count()},
              {"limits", limits_json(spec.limits)},
              {"helper", helper},
              {"web", spec.page.web},
              {"ref_check", std::string(to_string(spec.page.ref_check))},
              {"stealth", spec.page.stealth.on},
              {"seed", spec.page.stealth.seed},
              {"memory_db", spec.memory_db.string()},
              {"observe", spec.observe}}
      .dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::error_code parse_session_spec(std::string_view text, SessionSpec& out, std::string& detail) {
  const Json json = Json::parse(text, nullptr, false);
  auto bad = [&detail](std::string why) {
    detail = "a session request the daemon cannot read: " + std::move(why);
    return make_error_code(errc::invalid_argument);
  };
  if (!json.is_object()) return bad("not a JSON object");
  const auto string_field = [&json](const char* key) -> const Json* {
    const auto it = json.find(key);
    return it != json.end() && it->is_string() ? &*it : nullptr;
  };
  const auto number_field = [&json](const char* key) -> const Json* {
    const auto it = json.find(key);
    return it != json.end() && it->is_number_integer() && it->get<std::int64_t>() >= 0 ? &*it
                                                                                       : nullptr;
  };
  const Json* name = string_field("name");
  const Json* target = string_field("target");
  const Json* helper = string_field("helper");
  const Json* ref_check = string_field("ref_check");
  const Json* idle = number_field("idle_s");
  const Json* auth = number_field("auth_ms");
  const auto web = json.find("web");
  if (name == nullptr || target == nullptr || helper == nullptr || ref_check == nullptr ||
      idle == nullptr || auth == nullptr || web == json.end() || !web->is_boolean()) {
    return bad("a field is missing or of the wrong type");
  }
  SessionSpec spec;
  spec.name = name->get<std::string>();
  if (!valid_session_name(spec.name)) {
    detail = "a session name is letters, digits, '-', '_' and '.', not '" + spec.name + "'";
    return make_error_code(errc::invalid_argument);
  }
  spec.target = target->get<std::string>();
  spec.idle = std::chrono::seconds(idle->get<std::int64_t>());
  spec.auth_timeout = std::chrono::milliseconds(auth->get<std::int64_t>());
  spec.page.web = web->get<bool>();
  bool known_helper = false;
  for (const auto& [mode, helper_name] : kHelpers) {
    if (helper_name == helper->get<std::string>()) {
      spec.page.helper = mode;
      known_helper = true;
    }
  }
  if (!known_helper || !parse_ref_check(ref_check->get<std::string>(), spec.page.ref_check))
    return bad("an unknown helper or ref_check");
  // Optional: a request from before stealth has neither.
  if (const auto stealth = json.find("stealth"); stealth != json.end()) {
    const auto seed = json.find("seed");
    if (!stealth->is_boolean() || seed == json.end() || !seed->is_number_unsigned())
      return bad("stealth or seed of the wrong type");
    spec.page.stealth = {.on = stealth->get<bool>(), .seed = seed->get<std::uint64_t>()};
  }
  // Optional: a request from before the memory options has neither.
  if (const auto db = json.find("memory_db"); db != json.end()) {
    const auto observe = json.find("observe");
    if (!db->is_string() || observe == json.end() || !observe->is_boolean())
      return bad("memory_db or observe of the wrong type");
    spec.memory_db = db->get<std::string>();
    if (!spec.memory_db.empty() && !spec.memory_db.is_absolute())
      return bad("memory_db is not an absolute path");
    spec.observe = observe->get<bool>();
  }
  if (const auto limits = json.find("limits"); limits != json.end()) {
    if (!limits->is_object()) return bad("limits is not an object");
    for (const auto& [kind, bytes] : limits->items()) {
      std::size_t* bound = output_limit(spec.limits, kind);
      if (bound == nullptr || !bytes.is_number_unsigned()) return bad("a limit it does not know");
      *bound = bytes.get<std::size_t>();
    }
  }
  out = std::move(spec);
  return {};
}

}  // namespace adbwire::daemon
