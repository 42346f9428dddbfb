// The UsbBackend on libusb-1.0: the only file of adbwire that calls libusb. It translates,
// nothing more; what to do with devices and transfers is decided above the seam.
#include <libusb.h>

#include <atomic>
#include <fstream>
#include <thread>

#include "transport/usb_backend.hpp"

namespace adbwire::transport {
namespace {

using Context = std::shared_ptr<libusb_context>;

UsbStatus to_status(int code) noexcept {
  switch (code) {
    case LIBUSB_SUCCESS:
      return UsbStatus::ok;
    case LIBUSB_ERROR_TIMEOUT:
      return UsbStatus::timeout;
    case LIBUSB_ERROR_PIPE:
      return UsbStatus::stall;
    case LIBUSB_ERROR_NO_DEVICE:
      return UsbStatus::no_device;
    case LIBUSB_ERROR_ACCESS:
      return UsbStatus::access;
    case LIBUSB_ERROR_BUSY:
      return UsbStatus::busy;
    case LIBUSB_ERROR_OVERFLOW:
      return UsbStatus::overflow;
    case LIBUSB_ERROR_NOT_SUPPORTED:
      return UsbStatus::not_supported;
    default:
      return UsbStatus::io_error;
  }
}

unsigned timeout_ms(std::chrono::milliseconds timeout) noexcept {
  // libusb reads 0 as "no timeout"; every caller here wants a bounded slice.
  return timeout.count() <= 0 ? 1u : static_cast<unsigned>(timeout.count());
}

// sysfs names a device by bus and hub ports ("1-2.3") and offers its serial without opening
// the device node, which is what a user without udev rules still can read (as AOSP's host).
std::string read_sysfs_serial(const std::string& port_path) {
  std::ifstream file("/sys/bus/usb/devices/" + port_path + "/serial");
  std::string serial;
  std::getline(file, serial);
  return serial;
}

struct DeviceList {
  explicit DeviceList(libusb_context* context) {
    const ssize_t n = libusb_get_device_list(context, &devices);
    count = n < 0 ? 0 : static_cast<std::size_t>(n);
    status = n < 0 ? to_status(static_cast<int>(n)) : UsbStatus::ok;
  }
  ~DeviceList() {
    if (devices != nullptr) libusb_free_device_list(devices, 1);
  }
  DeviceList(const DeviceList&) = delete;
  DeviceList& operator=(const DeviceList&) = delete;

  libusb_device** devices = nullptr;
  std::size_t count = 0;
  UsbStatus status;
};

std::string port_path_of(libusb_device* device) {
  std::uint8_t ports[8];
  const int n = libusb_get_port_numbers(device, ports, sizeof ports);
  std::string path = std::to_string(libusb_get_bus_number(device)) + "-";
  for (int i = 0; i < n; ++i) {
    if (i != 0) path += ".";
    path += std::to_string(ports[i]);
  }
  return n > 0 ? path : std::string();
}

UsbConfigDescriptor copy_config(const libusb_config_descriptor& config) {
  UsbConfigDescriptor out;
  out.value = config.bConfigurationValue;
  for (int i = 0; i < config.bNumInterfaces; ++i) {
    const libusb_interface& interface = config.interface[i];
    for (int a = 0; a < interface.num_altsetting; ++a) {
      const libusb_interface_descriptor& setting = interface.altsetting[a];
      UsbInterfaceDescriptor copy;
      copy.number = setting.bInterfaceNumber;
      copy.alternate_setting = setting.bAlternateSetting;
      copy.interface_class = setting.bInterfaceClass;
      copy.interface_subclass = setting.bInterfaceSubClass;
      copy.interface_protocol = setting.bInterfaceProtocol;
      for (int e = 0; e < setting.bNumEndpoints; ++e) {
        const libusb_endpoint_descriptor& endpoint = setting.endpoint[e];
        copy.endpoints.push_back({endpoint.bEndpointAddress, endpoint.bmAttributes,
                                  static_cast<std::uint16_t>(endpoint.wMaxPacketSize & 0x7ff)});
      }
      out.interfaces.push_back(std::move(copy));
    }
  }
  return out;
}

// An open device handle, closed on destruction.
struct Handle {
  Handle() = default;
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() {
    if (handle != nullptr) libusb_close(handle);
  }
  libusb_device_handle* handle = nullptr;
};

class LibusbPipe final : public BulkPipe {
 public:
  LibusbPipe(Context context, libusb_device_handle* handle, const AdbInterfaceChoice& choice)
      : context_(std::move(context)), handle_(handle), choice_(choice) {}

  ~LibusbPipe() override {
    libusb_release_interface(handle_, choice_.interface_number);
    libusb_close(handle_);
  }

  UsbTransferResult bulk_out(std::span<const std::uint8_t> data,
                             std::chrono::milliseconds timeout) override {
    int transferred = 0;
    // libusb takes a non-const buffer for both directions; OUT transfers only read it.
    const int code =
        libusb_bulk_transfer(handle_, choice_.endpoint_out, const_cast<std::uint8_t*>(data.data()),
                             static_cast<int>(data.size()), &transferred, timeout_ms(timeout));
    return {to_status(code), static_cast<std::size_t>(transferred)};
  }

  UsbTransferResult bulk_in(std::span<std::uint8_t> buffer,
                            std::chrono::milliseconds timeout) override {
    int transferred = 0;
    const int code =
        libusb_bulk_transfer(handle_, choice_.endpoint_in, buffer.data(),
                             static_cast<int>(buffer.size()), &transferred, timeout_ms(timeout));
    return {to_status(code), static_cast<std::size_t>(transferred)};
  }

  UsbStatus clear_halt(bool in) override {
    return to_status(libusb_clear_halt(handle_, in ? choice_.endpoint_in : choice_.endpoint_out));
  }

  UsbStatus reset() override { return to_status(libusb_reset_device(handle_)); }

  std::uint16_t max_packet_size() const override { return choice_.max_packet_size; }

 private:
  Context context_;
  libusb_device_handle* handle_;
  AdbInterfaceChoice choice_;
};

// Keeps a hotplug registration and the thread that dispatches its events.
class HotplugWatch {
 public:
  HotplugWatch(Context context, std::function<void()> changed)
      : context_(std::move(context)), changed_(std::move(changed)) {}

  bool start() {
    const int code = libusb_hotplug_register_callback(
        context_.get(),
        static_cast<libusb_hotplug_event>(LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED |
                                          LIBUSB_HOTPLUG_EVENT_DEVICE_LEFT),
        static_cast<libusb_hotplug_flag>(0), LIBUSB_HOTPLUG_MATCH_ANY, LIBUSB_HOTPLUG_MATCH_ANY,
        LIBUSB_HOTPLUG_MATCH_ANY, &HotplugWatch::on_event, this, &handle_);
    if (code != LIBUSB_SUCCESS) return false;
    thread_ = std::thread([this] {
      while (!stop_.load()) {
        timeval slice{0, 200'000};
        libusb_handle_events_timeout_completed(context_.get(), &slice, nullptr);
      }
    });
    return true;
  }

  ~HotplugWatch() {
    if (!thread_.joinable()) return;
    stop_.store(true);
    libusb_hotplug_deregister_callback(context_.get(), handle_);
    thread_.join();  // within one event slice
  }

  HotplugWatch(const HotplugWatch&) = delete;
  HotplugWatch& operator=(const HotplugWatch&) = delete;

 private:
  static int LIBUSB_CALL on_event(libusb_context*, libusb_device*, libusb_hotplug_event,
                                  void* self) {
    static_cast<HotplugWatch*>(self)->changed_();
    return 0;
  }

  Context context_;
  std::function<void()> changed_;
  libusb_hotplug_callback_handle handle_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

class LibusbBackend final : public UsbBackend {
 public:
  explicit LibusbBackend(Context context) : context_(std::move(context)) {}

  UsbStatus enumerate(std::vector<UsbDeviceRecord>& out) override {
    const DeviceList list(context_.get());
    if (list.status != UsbStatus::ok) return list.status;
    // Every USB controller lists its root hub, so an empty list means no bus at all
    // (containers without /dev/bus/usb, VMs without passthrough).
    if (list.count == 0) return UsbStatus::not_supported;
    for (std::size_t i = 0; i < list.count; ++i) {
      libusb_device* device = list.devices[i];
      libusb_device_descriptor descriptor{};
      if (libusb_get_device_descriptor(device, &descriptor) != LIBUSB_SUCCESS) continue;
      UsbDeviceRecord record;
      record.vendor_id = descriptor.idVendor;
      record.product_id = descriptor.idProduct;
      record.bus = libusb_get_bus_number(device);
      record.address = libusb_get_device_address(device);
      record.port_path = port_path_of(device);
      record.serial_index = descriptor.iSerialNumber;
      if (!record.port_path.empty()) record.serial_from_sysfs = read_sysfs_serial(record.port_path);
      libusb_config_descriptor* active = nullptr;
      if (libusb_get_active_config_descriptor(device, &active) == LIBUSB_SUCCESS) {
        record.active_configuration = active->bConfigurationValue;
        libusb_free_config_descriptor(active);
      }
      for (std::uint8_t c = 0; c < descriptor.bNumConfigurations; ++c) {
        libusb_config_descriptor* config = nullptr;
        if (libusb_get_config_descriptor(device, c, &config) != LIBUSB_SUCCESS) continue;
        record.configurations.push_back(copy_config(*config));
        libusb_free_config_descriptor(config);
      }
      out.push_back(std::move(record));
    }
    return UsbStatus::ok;
  }

  UsbStatus read_serial(const UsbDeviceRecord& record, std::string& serial) override {
    Handle handle;
    if (const UsbStatus status = open_handle(record, handle); status != UsbStatus::ok)
      return status;
    return read_serial_from(handle, record, serial);
  }

  UsbStatus probe(const UsbDeviceRecord& record, const AdbInterfaceChoice& choice,
                  std::string& serial) override {
    Handle handle;
    if (const UsbStatus status = open_handle(record, handle); status != UsbStatus::ok)
      return status;
    read_serial_from(handle, record, serial);
    const int code = libusb_claim_interface(handle.handle, choice.interface_number);
    if (code == LIBUSB_SUCCESS) libusb_release_interface(handle.handle, choice.interface_number);
    return to_status(code);
  }

  UsbStatus open(const UsbDeviceRecord& record, const AdbInterfaceChoice& choice,
                 std::string& serial, std::unique_ptr<BulkPipe>& pipe) override {
    Handle handle;
    if (const UsbStatus status = open_handle(record, handle); status != UsbStatus::ok)
      return status;
    read_serial_from(handle, record, serial);
    int active = 0;
    if (libusb_get_configuration(handle.handle, &active) == LIBUSB_SUCCESS &&
        active != choice.configuration) {
      if (const int code = libusb_set_configuration(handle.handle, choice.configuration);
          code != LIBUSB_SUCCESS) {
        return to_status(code);
      }
    }
    if (const int code = libusb_claim_interface(handle.handle, choice.interface_number);
        code != LIBUSB_SUCCESS) {
      return to_status(code);
    }
    if (choice.alternate_setting != 0) {
      if (const int code = libusb_set_interface_alt_setting(handle.handle, choice.interface_number,
                                                            choice.alternate_setting);
          code != LIBUSB_SUCCESS) {
        libusb_release_interface(handle.handle, choice.interface_number);
        return to_status(code);
      }
    }
    pipe = std::make_unique<LibusbPipe>(context_, handle.handle, choice);
    handle.handle = nullptr;
    return UsbStatus::ok;
  }

  std::shared_ptr<void> watch(std::function<void()> changed) override {
    if (libusb_has_capability(LIBUSB_CAP_HAS_HOTPLUG) == 0) return nullptr;
    auto watch = std::make_shared<HotplugWatch>(context_, std::move(changed));
    if (!watch->start()) return nullptr;
    return watch;
  }

 private:
  // Finds the record's device again (records hold no libusb pointers) and opens it.
  UsbStatus open_handle(const UsbDeviceRecord& record, Handle& handle) {
    const DeviceList list(context_.get());
    if (list.status != UsbStatus::ok) return list.status;
    for (std::size_t i = 0; i < list.count; ++i) {
      libusb_device* device = list.devices[i];
      if (libusb_get_bus_number(device) != record.bus ||
          libusb_get_device_address(device) != record.address) {
        continue;
      }
      return to_status(libusb_open(device, &handle.handle));
    }
    return UsbStatus::no_device;
  }

  static UsbStatus read_serial_from(const Handle& handle, const UsbDeviceRecord& record,
                                    std::string& serial) {
    if (record.serial_index == 0) return UsbStatus::ok;
    unsigned char text[256];
    const int n =
        libusb_get_string_descriptor_ascii(handle.handle, record.serial_index, text, sizeof text);
    if (n < 0) return to_status(n);
    serial.assign(reinterpret_cast<const char*>(text), static_cast<std::size_t>(n));
    return UsbStatus::ok;
  }

  Context context_;
};

}  // namespace

std::shared_ptr<UsbBackend> make_libusb_backend(std::string& detail) {
  libusb_context* raw = nullptr;
  const int code = libusb_init(&raw);
  if (code != LIBUSB_SUCCESS) {
    detail = std::string("libusb_init failed: ") + libusb_error_name(code);
    return nullptr;
  }
  return std::make_shared<LibusbBackend>(Context(raw, libusb_exit));
}

}  // namespace adbwire::transport
