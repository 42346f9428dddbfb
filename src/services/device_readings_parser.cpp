#include "services/device_readings_parser.hpp"

#include <algorithm>
#include <vector>

#include "base/number.hpp"

namespace adbwire::detail {
namespace {

std::string_view strip(std::string_view text) {
  const std::size_t start = text.find_first_not_of(" \t\r");
  if (start == std::string_view::npos) return {};
  const std::size_t end = text.find_last_not_of(" \t\r");
  return text.substr(start, end - start + 1);
}

std::string kept(std::string_view text) { return std::string(text.substr(0, kMaxNameBytes)); }

// Calls on_line with each line of text, without its '\n'; stops when it returns false.
template <class F>
void each_line(std::string_view text, F on_line) {
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    if (!on_line(line)) return;
    if (end == std::string_view::npos) return;
    text.remove_prefix(end + 1);
  }
}

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  while (true) {
    const std::size_t bar = line.find('|');
    fields.push_back(strip(line.substr(0, bar)));
    if (bar == std::string_view::npos) return fields;
    line.remove_prefix(bar + 1);
  }
}

BatteryStatus status_of(int value) {
  switch (value) {
    case 2:
      return BatteryStatus::charging;
    case 3:
      return BatteryStatus::discharging;
    case 4:
      return BatteryStatus::not_charging;
    case 5:
      return BatteryStatus::full;
    default:
      return BatteryStatus::unknown;
  }
}

// One sensor line: "[0xHANDLE) ]NAME | VENDOR | ver: N | type: STRING(N) | …" (Android 7+) or
// "NAME | VENDOR | version=N | STRING | 0xHANDLE | …" (Android 4.4 to 6).
std::optional<Sensor> parse_sensor(std::string_view line) {
  std::vector<std::string_view> fields = split_fields(line);
  if (fields.size() < 3) return std::nullopt;
  std::string_view name = fields[0];
  // The handle, "%#010x)": "0x0000000b)", and "0000000000)" for handle 0 (printf writes no 0x
  // for a zero).
  const std::size_t paren = name.find(')');
  if (paren != std::string_view::npos && paren > 0 &&
      name.substr(0, paren).find_first_not_of("0123456789abcdefABCDEFx") ==
          std::string_view::npos) {
    name = strip(name.substr(paren + 1));
  }
  if (name.empty()) return std::nullopt;
  Sensor sensor;
  sensor.name = kept(name);
  sensor.vendor = kept(fields[1]);
  for (std::size_t i = 2; i < fields.size(); ++i) {
    const std::string_view field = fields[i];
    if (field.starts_with("ver: ")) {
      sensor.version = parse_number<int>(strip(field.substr(5)));
    } else if (field.starts_with("version=")) {
      sensor.version = parse_number<int>(strip(field.substr(8)));
    } else if (field.starts_with("type: ")) {
      std::string_view type = strip(field.substr(6));
      const std::size_t open = type.rfind('(');
      if (open != std::string_view::npos && type.ends_with(')')) {
        sensor.type_id = parse_number<int>(type.substr(open + 1, type.size() - open - 2));
        type = type.substr(0, open);
      }
      sensor.type = kept(type);
    } else if (field.starts_with("type=")) {
      sensor.type_id = parse_number<int>(strip(field.substr(5)));
    } else if (sensor.type.empty() && field.find('.') != std::string_view::npos &&
               field.find(' ') == std::string_view::npos && !field.starts_with("0x")) {
      sensor.type = kept(field);
    }
  }
  return sensor;
}

}  // namespace

std::optional<BatteryState> parse_battery(std::string_view dump) {
  BatteryState state;
  std::optional<int> level;
  std::optional<int> scale;
  bool have_status = false;
  std::vector<std::string> plugged;
  each_line(dump, [&](std::string_view line) {
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) return true;
    const std::string_view key = strip(line.substr(0, colon));
    const std::string_view value = strip(line.substr(colon + 1));
    const std::optional<int> number = parse_number<int>(value);
    if (key == "level" && number && !level) {
      level = number;
    } else if (key == "scale" && number && !scale) {
      scale = number;
    } else if (key == "status" && number && !have_status) {
      state.status = status_of(*number);
      have_status = true;
    } else if (key == "temperature" && number && !state.temperature_c) {
      state.temperature_c = *number / 10.0;
    } else if (key == "voltage" && number && !state.voltage_mv) {
      state.voltage_mv = number;
    } else if (key == "technology" && state.technology.empty()) {
      state.technology = std::string(value.substr(0, 64));
    } else if (value == "true" && plugged.size() < 4) {
      if (key == "AC powered") plugged.emplace_back("AC");
      if (key == "USB powered") plugged.emplace_back("USB");
      if (key == "Wireless powered") plugged.emplace_back("wireless");
      if (key == "Dock powered") plugged.emplace_back("dock");
    }
    return true;
  });
  if (!level && !have_status) return std::nullopt;
  if (level && *level >= 0) {
    const int of = scale && *scale > 0 ? *scale : 100;
    state.level = static_cast<int>(std::min<long long>(100, *level * 100LL / of));
  }
  for (const std::string& source : plugged)
    state.plugged += (state.plugged.empty() ? "" : "+") + source;
  return state;
}

std::optional<SensorList> parse_sensors(std::string_view dump) {
  std::optional<SensorList> list;
  bool in_list = false;
  each_line(dump, [&](std::string_view line) {
    if (!in_list) {
      if (strip(line) == "Sensor List:") {
        in_list = true;
        list.emplace();
      }
      return true;
    }
    // Detail lines of a sensor (rates, FIFO, wake-up) are indented; the section ends at the
    // first line that is neither a sensor nor its detail ("Fusion States:", a blank line).
    if (line.starts_with('\t') || line.starts_with(' ')) return true;
    std::optional<Sensor> sensor = parse_sensor(line);
    if (!sensor) return false;
    if (list->sensors.size() < kMaxSensors) {
      list->sensors.push_back(std::move(*sensor));
    } else {
      ++list->left_out;
    }
    return true;
  });
  return list;
}

}  // namespace adbwire::detail
