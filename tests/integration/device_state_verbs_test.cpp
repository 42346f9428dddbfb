// The device-state verbs (battery, sensors, wifi, data, airplane, camera) through the MCP tools
// on virtual devices that emulate what each command touches (src/vdevice/hardware_commands.cpp):
// the dumps in a phone's format, radios kept in the global settings, a device whose policy holds
// the radios, old releases' airplane-mode path, and a camera app writing into DCIM/Camera.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "adbwire/camera.hpp"
#include "adbwire/device.hpp"
#include "adbwire/error.hpp"
#include "adbwire/error_detail.hpp"
#include "adbwire/testing/vdevice.hpp"
#include "base/base64.hpp"
#include "integration/temp_dir.hpp"
#include "integration/tools_fixture.hpp"

namespace adbwire::mcp {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

using testing_tools::text_of;

bool sent(const VirtualDevice& device, const std::string& line) {
  const auto events = device.events();
  return std::find(events.begin(), events.end(), line) != events.end();
}

using DeviceStateVerbs = testing_tools::ToolsTest;

TEST_F(DeviceStateVerbs, BatteryReadsLevelStatusAndTemperature) {
  VirtualDevice device{VirtualDeviceOptions{}};
  device.start();
  DeviceTools tools(options_for(device));
  const Json result = call(tools, "battery");
  ASSERT_FALSE(result["isError"].get<bool>()) << text_of(result);
  EXPECT_EQ(text_of(result), "Battery: 87%, charging (USB powered), 30.1 °C, 4312 mV, Li-ion.\n");
}

TEST_F(DeviceStateVerbs, SensorsListsNameVendorAndTypeAndFilters) {
  VirtualDevice device{VirtualDeviceOptions{}};
  device.start();
  DeviceTools tools(options_for(device));
  const std::string all = text_of(call(tools, "sensors"));
  EXPECT_TRUE(all.starts_with("9 sensors:\n")) << all;
  EXPECT_NE(all.find("- LSM6DSV Accelerometer (STMicro): android.sensor.accelerometer [1]\n"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("- Step Counter (Google): android.sensor.step_counter [19]\n"),
            std::string::npos)
      << all;
  const std::string gyro = text_of(call(tools, "sensors", {{"filter", "gyro"}}));
  EXPECT_EQ(gyro,
            "1 sensor matching \"gyro\":\n- LSM6DSV Gyroscope (STMicro): android.sensor.gyroscope "
            "[4]\n\n");
}

TEST_F(DeviceStateVerbs, AHostileDevicesWordsAreEscaped) {
  VirtualDeviceOptions hostile;
  hostile.hostile_output = HostileOutput::escapes;
  VirtualDevice device(hostile);
  device.start();
  DeviceTools tools(options_for(device));
  for (const char* verb : {"battery", "sensors"}) {
    const Json result = call(tools, verb);
    ASSERT_FALSE(result["isError"].get<bool>()) << text_of(result);
    const std::string text = text_of(result);
    EXPECT_EQ(text.find('\x1b'), std::string::npos) << verb << ": " << text;
    EXPECT_EQ(text.find("\xc2\x9b"), std::string::npos) << verb;
    EXPECT_NE(text.find("evil"), std::string::npos) << verb << ": " << text;
  }
}

TEST_F(DeviceStateVerbs, AnEndlessDumpIsCutAtItsBound) {
  VirtualDeviceOptions endless;
  endless.hostile_output = HostileOutput::endless;
  VirtualDevice device(endless);
  device.start();
  DeviceToolsOptions o = options_for(device);
  o.connect.limits.dumpsys = 256 * 1024;
  DeviceTools tools(o);
  const Json result = call(tools, "battery");
  EXPECT_TRUE(result["isError"].get<bool>());
  EXPECT_NE(text_of(result).find("limit"), std::string::npos) << text_of(result);
  // dumpsys sensorservice is gathered under the same bound.
  const Json sensors = call(tools, "sensors");
  EXPECT_TRUE(sensors["isError"].get<bool>());
  EXPECT_EQ(sensors["_meta"]["adbwire/errc"], static_cast<int>(errc::limit_exceeded))
      << text_of(sensors);
}

// Escapes in what the radio verbs read back (every `settings get` value) and in the name the
// camera app gives its photo never reach a reply raw, and a photo's name never decides where it
// is saved on the host.
TEST_F(DeviceStateVerbs, HostileTextInRadioSettingsAndPhotoNamesIsEscaped) {
  VirtualDeviceOptions hostile;
  hostile.hostile_output = HostileOutput::escapes;
  VirtualDevice device(hostile);
  device.start();
  DeviceTools tools(options_for(device));
  const auto clean = [](const std::string& text) {
    return text.find('\x1b') == std::string::npos && text.find('\x07') == std::string::npos &&
           text.find("\xc2\x9b") == std::string::npos;
  };
  for (const char* verb : {"wifi", "data", "airplane"}) {
    for (const Json& arguments : {Json::object(), Json{{"state", "on"}, {"timeout_ms", 600}}}) {
      const std::string text = text_of(call(tools, verb, arguments));
      EXPECT_TRUE(clean(text)) << verb << " " << arguments << ": " << text;
    }
  }
  const Json photo = call(tools, "camera");
  ASSERT_FALSE(photo["isError"].get<bool>()) << text_of(photo);
  const std::string text = text_of(photo);
  EXPECT_TRUE(clean(text)) << text;
  EXPECT_NE(text.find("evil"), std::string::npos) << "the photo's name is shown, escaped: " << text;
  std::smatch saved;
  ASSERT_TRUE(std::regex_search(text, saved, std::regex("saved to (\\S+)\\.( |$)"))) << text;
  const fs::path local = saved[1].str();
  EXPECT_TRUE(clean(local.string())) << local;
  EXPECT_TRUE(local.string().starts_with((work_.path() / "saved").string() + "/")) << local;
  EXPECT_TRUE(fs::is_regular_file(local)) << local;
}

// A camera folder that lies: a photo announced as 10 bytes that sends 4 GiB (a bomb), and a
// listing without end. The pull stops at its bound and leaves nothing; the listing at its own.
TEST_F(DeviceStateVerbs, ACameraFolderThatLiesIsBoundedAndLeavesNoFile) {
  std::vector<std::unique_ptr<VirtualDevice>> devices;
  // The camera verb's error on a new device answering sync in mode.
  const auto camera_on = [&](HostileSync mode) {
    VirtualDeviceOptions options;
    options.hostile_sync = mode;
    devices.push_back(std::make_unique<VirtualDevice>(options));
    devices.back()->start();
    DeviceTools tools(options_for(*devices.back()));
    const Json result = call(tools, "camera");
    EXPECT_TRUE(result["isError"].get<bool>()) << text_of(result);
    return result;
  };
  const Json result = camera_on(HostileSync::bomb);
  const VirtualDevice& bombing = *devices.back();
  EXPECT_EQ(text_of(result).find('\x1b'), std::string::npos);
  std::uintmax_t kept = 0;
  std::error_code ignored;
  for (const auto& entry : fs::recursive_directory_iterator(work_.path() / "saved", ignored)) {
    if (entry.is_regular_file()) kept += entry.file_size();
  }
  EXPECT_EQ(kept, 0u) << "a photo that failed left bytes behind";
  // Under a bound below the file slack, the camera's own bound stops the pull as the bytes come.
  Device device = Device::connect(bombing.target(), options_for(bombing).connect);
  CameraOptions small;
  small.max_bytes = 4096;
  small.shot_wait = 5s;
  const fs::path local = work_.path() / "small" / "photo.jpg";
  fs::create_directories(local.parent_path());
  std::error_code error;
  take_photo(device, local, small, kDefaultDeadline, error);
  EXPECT_EQ(error, errc::limit_exceeded) << error.message() << ": " << last_error_detail();
  EXPECT_NE(last_error_detail().find("grew past CameraOptions::max_bytes (4096)"),
            std::string::npos)
      << last_error_detail();
  EXPECT_TRUE(fs::is_empty(local.parent_path())) << "a stopped pull left a file";

  const Json listed = camera_on(HostileSync::endless_listing);
  EXPECT_EQ(listed["_meta"]["adbwire/errc"], static_cast<int>(errc::limit_exceeded))
      << text_of(listed);
}

TEST_F(DeviceStateVerbs, WifiAndDataSwitchAndReadBack) {
  VirtualDevice device{VirtualDeviceOptions{}};
  device.start();
  DeviceTools tools(options_for(device));
  EXPECT_EQ(text_of(call(tools, "wifi")),
            "Wi-Fi is on (the global setting the system keeps for it).\n");
  const Json off = call(tools, "wifi", {{"state", "off"}});
  ASSERT_FALSE(off["isError"].get<bool>()) << text_of(off);
  EXPECT_NE(text_of(off).find("Turned Wi-Fi off; the device reads back off."), std::string::npos);
  EXPECT_TRUE(sent(device, "svc wifi disable"));
  EXPECT_EQ(text_of(call(tools, "wifi")),
            "Wi-Fi is off (the global setting the system keeps for it).\n");
  const std::size_t before = device.events().size();
  EXPECT_EQ(text_of(call(tools, "wifi", {{"state", "off"}})),
            "Wi-Fi is already off; nothing was sent.\n");
  EXPECT_EQ(device.events().size(), before);
  ASSERT_FALSE(call(tools, "wifi", {{"state", "on"}})["isError"].get<bool>());
  EXPECT_TRUE(sent(device, "svc wifi enable"));

  const Json data_off = call(tools, "data", {{"state", "off"}});
  ASSERT_FALSE(data_off["isError"].get<bool>()) << text_of(data_off);
  EXPECT_TRUE(sent(device, "svc data disable"));
  EXPECT_EQ(text_of(call(tools, "data")),
            "mobile data is off (the global setting the system keeps for it).\n");
  const Json bad = call(tools, "data", {{"state", "maybe"}});
  EXPECT_TRUE(bad["isError"].get<bool>());
}

TEST_F(DeviceStateVerbs, AirplaneModeTakesWifiWithItAndGivesItBack) {
  VirtualDevice device{VirtualDeviceOptions{}};
  device.start();
  DeviceTools tools(options_for(device));
  const Json on = call(tools, "airplane", {{"state", "on"}});
  ASSERT_FALSE(on["isError"].get<bool>()) << text_of(on);
  EXPECT_TRUE(sent(device, "cmd connectivity airplane-mode enable"));
  EXPECT_NE(text_of(call(tools, "wifi")).find("Wi-Fi is off"), std::string::npos);
  ASSERT_FALSE(call(tools, "airplane", {{"state", "off"}})["isError"].get<bool>());
  EXPECT_NE(text_of(call(tools, "wifi")).find("Wi-Fi is on"), std::string::npos);
}

TEST_F(DeviceStateVerbs, AirplaneModeOnOldReleasesUsesTheSettingAndItsBroadcast) {
  // Android 6: the setting and the broadcast do it.
  VirtualDeviceOptions marshmallow;
  marshmallow.api_level = 23;
  VirtualDevice old(marshmallow);
  old.start();
  DeviceTools old_tools(options_for(old));
  const Json on = call(old_tools, "airplane", {{"state", "on"}});
  ASSERT_FALSE(on["isError"].get<bool>()) << text_of(on);
  EXPECT_NE(text_of(call(old_tools, "airplane")).find("airplane mode is on"), std::string::npos);

  // Android 10: no airplane-mode command, and the broadcast is refused to the shell.
  VirtualDeviceOptions q;
  q.api_level = 29;
  VirtualDevice refusing(q);
  refusing.start();
  DeviceTools tools(options_for(refusing));
  const Json refused = call(tools, "airplane", {{"state", "on"}});
  EXPECT_TRUE(refused["isError"].get<bool>());
  EXPECT_NE(text_of(refused).find("refuse this broadcast from the shell"), std::string::npos)
      << text_of(refused);
}

TEST_F(DeviceStateVerbs, ADeviceThatHoldsItsRadiosIsAnError) {
  VirtualDeviceOptions locked;
  locked.radios_locked = true;
  VirtualDevice device(locked);
  device.start();
  DeviceTools tools(options_for(device));
  for (const char* verb : {"wifi", "data", "airplane"}) {
    const Json result =
        call(tools, verb,
             {{"state", std::string(verb) == "airplane" ? "on" : "off"}, {"timeout_ms", 600}});
    EXPECT_TRUE(result["isError"].get<bool>()) << verb;
    EXPECT_NE(text_of(result).find("the device took"), std::string::npos) << text_of(result);
    EXPECT_NE(text_of(result).find(std::string(verb) == "airplane" ? "still off" : "still on"),
              std::string::npos)
        << text_of(result);
  }
}

TEST_F(DeviceStateVerbs, CameraPullsTheNewPhotoPrivatelyAndShowsIt) {
  VirtualDevice device{VirtualDeviceOptions{}};
  device.start();
  DeviceTools tools(options_for(device));
  std::vector<std::string> paths;
  for (int shot = 0; shot < 2; ++shot) {
    const Json result = call(tools, "camera");
    ASSERT_FALSE(result["isError"].get<bool>()) << text_of(result);
    const std::string text = text_of(result);
    std::smatch match;
    ASSERT_TRUE(std::regex_search(
        text, match,
        std::regex("Took a photo: /sdcard/DCIM/Camera/IMG_\\d{8}_\\d{6}(_1)?\\.jpg on the device "
                   "\\(\\d+ KiB\\), saved to (\\S+)\\.")))
        << text;
    paths.push_back(match[2]);
    struct stat st {};
    ASSERT_EQ(::stat(paths.back().c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    std::ifstream photo(paths.back(), std::ios::binary);
    char head[3] = {};
    photo.read(head, 3);
    EXPECT_EQ(std::string(head, 3), "\xff\xd8\xff");
    ASSERT_EQ(result["content"][0]["type"], "image");
    EXPECT_EQ(result["content"][0]["mimeType"], "image/jpeg");
    const auto inline_bytes =
        detail::base64_decode(result["content"][0]["data"].get<std::string>());
    ASSERT_TRUE(inline_bytes);
    EXPECT_EQ((*inline_bytes)[0], 0xff);
  }
  EXPECT_NE(paths[0], paths[1]);
  EXPECT_TRUE(sent(device, "am start -a android.media.action.STILL_IMAGE_CAMERA"));
  EXPECT_TRUE(sent(device, "input keyevent 27"));
  // The folder holds nothing of it but the photo: no half file beside it.
  for (const auto& entry : fs::directory_iterator(fs::path(paths[0]).parent_path()))
    EXPECT_EQ(entry.path().string().find(".tmp"), std::string::npos) << entry.path();
}

TEST_F(DeviceStateVerbs, CameraWithoutACameraAppSaysSo) {
  VirtualDeviceOptions none;
  none.camera_app = false;
  VirtualDevice device(none);
  device.start();
  DeviceTools tools(options_for(device));
  const Json result = call(tools, "camera");
  EXPECT_TRUE(result["isError"].get<bool>());
  EXPECT_NE(text_of(result).find("no camera app opened"), std::string::npos) << text_of(result);
  EXPECT_FALSE(sent(device, "input keyevent 27")) << "the shutter was pressed with no camera";
}

}  // namespace
}  // namespace adbwire::mcp
