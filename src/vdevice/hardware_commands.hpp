// The virtual device's hardware as the shell tools show it: `dumpsys battery` and `dumpsys
// sensorservice` in a phone's format, the radios (`svc wifi|data`, `cmd connectivity
// airplane-mode`) kept in the global settings a phone keeps them in, and a camera app that the
// still-image intent opens and the camera key fires, writing a JPEG into /sdcard/DCIM/Camera.
#pragma once

#include <string>
#include <vector>

#include "vdevice/shell_job.hpp"

namespace adbwire::vdevice {

// `dumpsys SERVICE` for battery and sensorservice; false for another service.
bool run_hardware_dumpsys(const std::string& service, JobIo& io);

// `svc wifi|data enable|disable` (and `svc power|usb|nfc`: usage only).
int run_svc(const std::vector<std::string>& argv, JobIo& io);

// `cmd connectivity airplane-mode [enable|disable]` (Android 11+; before, "Unknown command").
int run_cmd_connectivity(const std::vector<std::string>& argv, JobIo& io);

// `am start -a android.media.action.STILL_IMAGE_CAMERA`: opens the camera app, or prints am's
// error when the device has none (VirtualDeviceOptions::camera_app).
void open_camera(JobIo& io);
// `input keyevent KEY`: the camera and volume keys take a photo while the camera app is open;
// home and back close it.
void camera_key(const std::string& key, JobIo& io);

}  // namespace adbwire::vdevice
