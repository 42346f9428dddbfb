#include "verbs/call.hpp"

#include <cmath>
#include <limits>

#include "adbwire/error.hpp"
#include "verbs/handlers.hpp"
#include "verbs/observer.hpp"
#include "verbs/reply_text.hpp"

namespace adbwire::verbs {
namespace {

std::string_view type_name(ParamType type) {
  switch (type) {
    case ParamType::string:
      return "a string";
    case ParamType::integer:
      return "an integer";
    case ParamType::number:
      return "a number";
    case ParamType::boolean:
      return "true or false";
  }
  return "?";
}

[[noreturn]] void bad(std::string_view name, const std::string& what) {
  throw Error(errc::invalid_argument, "argument '" + std::string(name) + "' must be " + what);
}

// A whole number sent as 5.0 (some clients do) counts as an integer.
std::optional<std::int64_t> as_integer(const Json& value) {
  if (value.is_number_unsigned()) {
    const auto n = value.get<std::uint64_t>();
    if (n > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return {};
    return static_cast<std::int64_t>(n);
  }
  if (value.is_number_integer()) return value.get<std::int64_t>();
  if (value.is_number_float()) {
    const double d = value.get<double>();
    if (d == std::floor(d) && std::abs(d) < 9e15) return static_cast<std::int64_t>(d);
  }
  return {};
}

void check(const Param& param, const Json& value) {
  switch (param.type) {
    case ParamType::string: {
      if (!value.is_string()) bad(param.name, "a string");
      if (param.choices.empty()) return;
      const auto text = value.get<std::string>();
      std::string list;
      for (const std::string_view choice : param.choices) {
        if (choice == text) return;
        list += (list.empty() ? "" : ", ") + std::string(choice);
      }
      bad(param.name, "one of " + list + ", not '" + text + "'");
    }
    case ParamType::integer: {
      const std::optional<std::int64_t> n = as_integer(value);
      if (!n || *n < param.minimum || *n > param.maximum) {
        std::string range = "an integer";
        if (param.minimum != std::numeric_limits<std::int64_t>::min())
          range += " from " + std::to_string(param.minimum);
        if (param.maximum != std::numeric_limits<std::int64_t>::max())
          range += " to " + std::to_string(param.maximum);
        bad(param.name, range);
      }
      return;
    }
    case ParamType::number:
      if (!value.is_number() || !std::isfinite(value.get<double>())) bad(param.name, "a number");
      return;
    case ParamType::boolean:
      if (!value.is_boolean()) bad(param.name, "true or false");
      return;
  }
}

}  // namespace

Reply Reply::text(std::string text, bool is_error) {
  Reply reply;
  reply.blocks.push_back({Block::Kind::text, std::move(text), {}, {}});
  reply.is_error = is_error;
  return reply;
}

Call::Call(const Verb& verb, Host& host, const Json& arguments, const detail::CancelToken& cancel)
    : verb_(verb),
      host_(host),
      arguments_(arguments.is_object() ? arguments : Json::object()),
      cancel_(cancel) {
  if (!arguments.is_null() && !arguments.is_object())
    throw Error(errc::invalid_argument, "the arguments must be a JSON object");
  for (const auto& [name, value] : arguments_.items()) {
    if (verb.per_device && name == "device") {
      if (!value.is_null() && !value.is_string()) bad("device", "a string");
      continue;
    }
    const Param* param = nullptr;
    for (const Param& p : verb.params) {
      if (p.name == name) param = &p;
    }
    if (param == nullptr) {
      std::string known;
      for (const Param& p : verb.params) known += (known.empty() ? "" : ", ") + std::string(p.name);
      throw Error(errc::invalid_argument,
                  "unknown argument '" + name + "'; " + std::string(verb.name) + " takes " +
                      (known.empty() ? std::string("no arguments") : known));
    }
    if (!value.is_null()) check(*param, value);
  }
  for (const Param& p : verb.params) {
    if (p.required && find(p.name) == nullptr)
      throw Error(errc::invalid_argument, "argument '" + std::string(p.name) + "' (" +
                                              std::string(type_name(p.type)) + ") is required");
  }
  if (verb.per_device) device_ = string("device").value_or("");
}

const Json* Call::find(std::string_view name) const {
  const auto it = arguments_.find(name);
  return it == arguments_.end() || it->is_null() ? nullptr : &*it;
}

bool Call::has(std::string_view name) const { return find(name) != nullptr; }

std::optional<std::string> Call::string(std::string_view name) const {
  const Json* value = find(name);
  if (value == nullptr || !value->is_string()) return std::nullopt;
  return value->get<std::string>();
}

std::string Call::required_string(std::string_view name) const {
  std::optional<std::string> value = string(name);
  if (!value)
    throw Error(errc::invalid_argument, "argument '" + std::string(name) + "' is required");
  return *value;
}

std::optional<std::int64_t> Call::integer(std::string_view name) const {
  const Json* value = find(name);
  return value == nullptr ? std::nullopt : as_integer(*value);
}

std::optional<double> Call::number(std::string_view name) const {
  const Json* value = find(name);
  if (value == nullptr || !value->is_number()) return std::nullopt;
  return value->get<double>();
}

double Call::required_number(std::string_view name) const {
  std::optional<double> value = number(name);
  if (!value)
    throw Error(errc::invalid_argument, "argument '" + std::string(name) + "' is required");
  return *value;
}

bool Call::flag(std::string_view name) const {
  const Json* value = find(name);
  return value != nullptr && value->is_boolean() && value->get<bool>();
}

std::optional<std::uint32_t> Call::ref() const {
  const std::optional<std::int64_t> n = integer("ref");
  if (!n) return std::nullopt;
  return static_cast<std::uint32_t>(*n);
}

std::optional<ScreenPoint> Call::point(std::string_view x, std::string_view y) const {
  const std::optional<double> px = number(x);
  const std::optional<double> py = number(y);
  if (!px && !py) return std::nullopt;
  if (!px || !py)
    throw Error(errc::invalid_argument,
                "give both " + std::string(x) + " and " + std::string(y) + " for a point");
  return at(*px, *py);
}

ScreenPoint Call::at(double x, double y) const {
  const std::string space = string("space").value_or("screen");
  return ScreenPoint{x, y, flag("normalized") || space == "normalized", space == "screenshot"};
}

Reply run(Host& host, std::string_view name, const Json& arguments,
          const detail::CancelToken& cancel) {
  const Verb* verb = find(name);
  if (verb == nullptr || !offered(*verb, host.options())) {
    throw Error(errc::not_found,
                name == "shell"  ? std::string("the shell verb is off: start the server with "
                                                "--allow-shell to offer it")
                : name == "pair" ? std::string("the pair verb is off: start the server with "
                                               "--allow-pair to offer it")
                                 : "unknown verb '" + std::string(name) + "'; the list names them");
  }
  std::string device;
  try {
    Call call(*verb, host, arguments, cancel);
    device = call.device();
    cancel.check();
    Observer observer(call);
    Reply reply;
    try {
      reply = handler_of(verb->name)(call);
    } catch (const Error& e) {
      observer.finished(call, advice(e, device.empty() ? host.default_device() : device));
      throw;
    }
    observer.finished(call, reply.is_error && !reply.blocks.empty()
                                ? std::optional<std::string>(reply.blocks.front().text)
                                : std::nullopt);
    device = call.device();
    // A screen may show a secret typed earlier (a field that is no password field): replies
    // never do.
    if (const detail::SecretMask& mask = host.secret_mask(); !mask.empty()) {
      for (Block& block : reply.blocks) {
        if (block.kind == Block::Kind::text) block.text = mask.apply(block.text);
        if (block.kind == Block::Kind::file && block.mime != "image/png" &&
            block.mime != "image/jpeg" && !block.mime.starts_with("video/")) {
          const std::string masked = mask.apply(std::string_view(
              reinterpret_cast<const char*>(block.bytes.data()), block.bytes.size()));
          block.bytes.assign(masked.begin(), masked.end());
        }
      }
    }
    return reply;
  } catch (const Error& e) {
    if (e.code() == errc::device_offline || e.code() == errc::closed) host.forget(device);
    Reply reply = Reply::text(advice(e, device.empty() ? host.default_device() : device), true);
    reply.error = e.code();
    return reply;
  } catch (const std::system_error& e) {
    Reply reply = Reply::text(e.what(), true);
    reply.error = e.code();
    return reply;
  }
}

}  // namespace adbwire::verbs
