// The parsers of `dumpsys battery` and `dumpsys sensorservice` (device_readings.hpp). Pure:
// tested on the forms real phones print (tests/unit/services/device_readings_parser_test.cpp).
// A dump is device text: every kept string is cut (kMaxNameBytes) and the sensor list is
// bounded (kMaxSensors). Internal.
#pragma once

#include <optional>
#include <string_view>

#include "adbwire/device_readings.hpp"

namespace adbwire::detail {

// Bytes kept of one name, vendor, type or technology string.
inline constexpr std::size_t kMaxNameBytes = 128;

// The battery of a `dumpsys battery` dump; nullopt when it holds neither a level nor a status.
std::optional<BatteryState> parse_battery(std::string_view dump);

// The "Sensor List:" section of a `dumpsys sensorservice` dump; nullopt when there is none.
std::optional<SensorList> parse_sensors(std::string_view dump);

}  // namespace adbwire::detail
