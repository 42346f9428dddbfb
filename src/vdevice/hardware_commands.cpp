#include "vdevice/hardware_commands.hpp"

#include <turbojpeg.h>

#include <cstdio>
#include <ctime>
#include <fstream>
#include <memory>

#include "vdevice/device_context.hpp"
#include "vdevice/screencap_frames.hpp"
#include "vdevice/shell_parser.hpp"

namespace adbwire::vdevice {
namespace {

using Argv = std::vector<std::string>;

constexpr const char* kCameraFolder = "/sdcard/DCIM/Camera";

struct FakeSensor {
  int handle;
  const char* name;
  const char* vendor;
  const char* type;
  int type_id;
  const char* mode;
};

// A phone's usual set (names and vendors as a Pixel 7 lists them).
constexpr FakeSensor kSensors[] = {
    {0x00, "LSM6DSV Accelerometer", "STMicro", "android.sensor.accelerometer", 1, "continuous"},
    {0x02, "MMC56X3X Magnetometer", "memsic", "android.sensor.magnetic_field", 2, "continuous"},
    {0x04, "LSM6DSV Gyroscope", "STMicro", "android.sensor.gyroscope", 4, "continuous"},
    {0x05, "TMD3719 Ambient Light Sensor", "AMS", "android.sensor.light", 5, "on-change"},
    {0x06, "ICP20100 Pressure Sensor", "TDK-Invensense", "android.sensor.pressure", 6,
     "continuous"},
    {0x08, "TMD3719 Proximity Sensor", "AMS", "android.sensor.proximity", 8, "on-change"},
    {0x09, "Gravity Sensor", "Google", "android.sensor.gravity", 9, "continuous"},
    {0x0b, "Rotation Vector", "Google", "android.sensor.rotation_vector", 11, "continuous"},
    {0x13, "Step Counter", "Google", "android.sensor.step_counter", 19, "on-change"},
};

int run_battery(JobIo& io) {
  // Android 14's BatteryService dump; older releases print a subset of these lines.
  io.out(
      "Current Battery Service state:\n"
      "  AC powered: false\n"
      "  USB powered: true\n"
      "  Wireless powered: false\n"
      "  Dock powered: false\n"
      "  Max charging current: 1500000\n"
      "  Max charging voltage: 5000000\n"
      "  Charge counter: 3754000\n"
      "  status: 2\n"
      "  health: 2\n"
      "  present: true\n"
      "  level: 87\n"
      "  scale: 100\n"
      "  voltage: 4312\n"
      "  temperature: 301\n");
  io.out("  technology: " +
         std::string(io.device().hostile_output() == HostileOutput::escapes ? kHostileText
                                                                            : "Li-ion") +
         "\n  Charging state: 1\n  Charging policy: 1\n  Capacity level: 3\n");
  return 0;
}

int run_sensorservice(JobIo& io) {
  const bool hostile = io.device().hostile_output() == HostileOutput::escapes;
  std::string out =
      "Captured at: 10:41:07.318\n"
      "Sensor Device:\n"
      "Total " +
      std::to_string(std::size(kSensors)) + " h/w sensors, " + std::to_string(std::size(kSensors)) +
      " running 0 disabled clients:\n"
      "Sensor List:\n";
  for (const FakeSensor& s : kSensors) {
    char line[512];
    std::snprintf(line, sizeof line,
                  "%#010x) %-25s | %-15s | ver: 1 | type: %20s(%d) | perm: n/a | flags: "
                  "0x00000000\n\t%s | minRate=1.00Hz | maxRate=200.00Hz | no batching | "
                  "non-wakeUp | \n",
                  s.handle, s.name, hostile ? std::string(kHostileText).c_str() : s.vendor, s.type,
                  s.type_id, s.mode);
    out += line;
  }
  out +=
      "Fusion States:\n"
      "9-axis fusion disabled (0 clients), gyro-rate= 200.00Hz, q=< 0, 0, 0, 0 > (0), b=< 0, 0, "
      "0 >\n"
      "Recent Sensor events:\n";
  io.out(out);
  return 0;
}

bool wifi_on(DeviceContext& device) {
  const std::string value = device.setting("global", "wifi_on").value_or("0");
  return value == "1" || value == "2";
}

// Airplane mode as the system applies it: Wi-Fi goes off and comes back with it (wifi_on 3:
// off for airplane mode, back on after; WifiSettingsStore's values).
void set_airplane(DeviceContext& device, bool on) {
  device.put_setting("global", "airplane_mode_on", on ? "1" : "0");
  const std::string wifi = device.setting("global", "wifi_on").value_or("0");
  if (on && wifi == "1") device.put_setting("global", "wifi_on", "3");
  if (!on && wifi == "3") device.put_setting("global", "wifi_on", "1");
}

std::vector<std::uint8_t> photo_jpeg(unsigned seed) {
  constexpr int kWidth = 640;
  constexpr int kHeight = 480;
  std::vector<std::uint8_t> rgb(std::size_t{kWidth} * kHeight * 3);
  for (int y = 0; y < kHeight; ++y) {
    for (int x = 0; x < kWidth; ++x) {
      std::uint8_t* p = &rgb[(std::size_t(y) * kWidth + std::size_t(x)) * 3];
      p[0] = static_cast<std::uint8_t>(x * 255 / kWidth);
      p[1] = static_cast<std::uint8_t>(y * 255 / kHeight);
      p[2] = static_cast<std::uint8_t>(seed * 40);
    }
  }
  std::unique_ptr<void, decltype(&tjDestroy)> tj(tjInitCompress(), tjDestroy);
  unsigned char* out = nullptr;
  unsigned long size = 0;
  if (!tj || tjCompress2(tj.get(), rgb.data(), kWidth, 0, kHeight, TJPF_RGB, &out, &size,
                         TJSAMP_420, 85, 0) != 0) {
    tjFree(out);
    return {};
  }
  std::vector<std::uint8_t> jpeg(out, out + size);
  tjFree(out);
  return jpeg;
}

// Writes a new photo as a camera app names it (IMG_YYYYMMDD_HHMMSS[_N].jpg); with
// HostileOutput::escapes, as a hostile app could: IMG_<kHostileText>YYYYMMDD_HHMMSS[_N].jpg.
void take_photo(JobIo& io) {
  std::error_code error;
  const std::filesystem::path folder = io.device().resolve(kCameraFolder, error);
  if (error) return;
  std::filesystem::create_directories(folder, error);
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d_%H%M%S", &local);
  const std::string name =
      "IMG_" +
      std::string(io.device().hostile_output() == HostileOutput::escapes ? kHostileText : "") +
      stamp;
  std::filesystem::path path = folder / (name + ".jpg");
  unsigned n = 0;
  while (std::filesystem::exists(path, error))
    path = folder / (name + "_" + std::to_string(++n) + ".jpg");
  const std::vector<std::uint8_t> jpeg = photo_jpeg(n);
  std::ofstream file(path, std::ios::binary);
  file.write(reinterpret_cast<const char*>(jpeg.data()), static_cast<std::streamsize>(jpeg.size()));
  io.device().log_event("camera: saved " + std::string(kCameraFolder) + "/" +
                        path.filename().string());
}

}  // namespace

bool run_hardware_dumpsys(const std::string& service, JobIo& io) {
  if (service == "battery") return run_battery(io) == 0;
  if (service == "sensorservice") return run_sensorservice(io) == 0;
  return false;
}

int run_svc(const Argv& argv, JobIo& io) {
  const bool known = argv.size() == 3 && (argv[1] == "wifi" || argv[1] == "data") &&
                     (argv[2] == "enable" || argv[2] == "disable");
  if (!known) {
    io.err(
        "Available commands:\n"
        "    wifi    Control the Wi-Fi manager\n"
        "    data    Control mobile data connectivity\n");
    return argv.size() < 2 ? 0 : 1;
  }
  io.device().log_event(join_argv(argv));
  if (io.device().radios_locked()) return 0;
  const std::string value = argv[2] == "enable" ? "1" : "0";
  if (argv[1] == "data") {
    io.device().put_setting("global", "mobile_data", value);
  } else if (value == "1" || wifi_on(io.device())) {
    io.device().put_setting("global", "wifi_on", value);
  }
  return 0;
}

int run_cmd_connectivity(const Argv& argv, JobIo& io) {
  if (argv.size() < 3 || argv[2] != "airplane-mode" || api_level(io.device()) < 30) {
    io.err("Unknown command: " + (argv.size() < 3 ? std::string() : argv[2]) + "\n");
    return 255;
  }
  if (argv.size() == 3) {
    io.out(io.device().setting("global", "airplane_mode_on").value_or("0") == "1" ? "enabled\n"
                                                                                  : "disabled\n");
    return 0;
  }
  if (argv.size() != 4 || (argv[3] != "enable" && argv[3] != "disable")) {
    io.err("Error: unknown value " + (argv.size() > 3 ? argv[3] : std::string()) + "\n");
    return 255;
  }
  if (!io.device().radios_locked()) set_airplane(io.device(), argv[3] == "enable");
  return 0;
}

void open_camera(JobIo& io) {
  if (!io.device().camera_app()) {
    io.err(
        "Error: Activity not started, unable to resolve Intent { "
        "act=android.media.action.STILL_IMAGE_CAMERA flg=0x10000000 }\n");
    return;
  }
  io.device().set_camera_open(true);
}

void camera_key(const std::string& key, JobIo& io) {
  if (!io.device().camera_open()) return;
  if (key == "27" || key == "KEYCODE_CAMERA" || key == "25" || key == "KEYCODE_VOLUME_DOWN") {
    take_photo(io);
  } else if (key == "3" || key == "4" || key == "KEYCODE_HOME" || key == "KEYCODE_BACK") {
    io.device().set_camera_open(false);
  }
}

}  // namespace adbwire::vdevice
