// The one seam between adbwire's USB logic and the USB stack. usb_libusb.cpp implements it
// with libusb; tests implement it with a simulated bus and bulk pipe (packet-size aware, can
// stall, can vanish), so endpoint selection, ZLP rules, framing and recovery run without
// hardware. Everything above this seam is plain C++ with no USB library in sight. Internal.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace adbwire::transport {

// Outcome of one backend call, in libusb's vocabulary (LIBUSB_ERROR_* names in comments).
enum class UsbStatus {
  ok,
  timeout,        // TIMEOUT: the slice ran out; `transferred` still counts what moved
  stall,          // PIPE: the endpoint is halted
  no_device,      // NO_DEVICE: unplugged or re-enumerated
  access,         // ACCESS: the device node is not ours (udev rules)
  busy,           // BUSY: another program (an adb server) claimed the interface
  overflow,       // OVERFLOW: the device sent more than the buffer holds
  not_supported,  // NOT_SUPPORTED: no USB on this system, or the call is not implemented
  io_error,       // anything else
};

// "permission denied", "stalled", … for messages.
const char* usb_status_text(UsbStatus status) noexcept;

inline constexpr std::uint8_t kUsbEndpointIn = 0x80;        // direction bit of bEndpointAddress
inline constexpr std::uint8_t kUsbTransferTypeMask = 0x03;  // of bmAttributes
inline constexpr std::uint8_t kUsbTransferTypeBulk = 0x02;

// The parts of the standard descriptors adbwire looks at.
struct UsbEndpointDescriptor {
  std::uint8_t address = 0;           // bEndpointAddress, 0x80 set for IN
  std::uint8_t attributes = 0;        // bmAttributes
  std::uint16_t max_packet_size = 0;  // wMaxPacketSize, bits 0..10 (the packet size proper)
};

struct UsbInterfaceDescriptor {
  std::uint8_t number = 0;             // bInterfaceNumber
  std::uint8_t alternate_setting = 0;  // bAlternateSetting
  std::uint8_t interface_class = 0;
  std::uint8_t interface_subclass = 0;
  std::uint8_t interface_protocol = 0;
  std::vector<UsbEndpointDescriptor> endpoints;
};

struct UsbConfigDescriptor {
  std::uint8_t value = 0;                          // bConfigurationValue
  std::vector<UsbInterfaceDescriptor> interfaces;  // every alternate setting of every interface
};

// One device on the bus, as enumerated (nothing opened yet).
struct UsbDeviceRecord {
  std::uint16_t vendor_id = 0;
  std::uint16_t product_id = 0;
  std::uint8_t bus = 0;
  std::uint8_t address = 0;
  std::string port_path;                  // "1-2.3": bus, then the hub ports (sysfs naming)
  std::uint8_t serial_index = 0;          // iSerialNumber; 0 = none
  std::string serial_from_sysfs;          // read without opening the node (Linux); may be empty
  std::uint8_t active_configuration = 0;  // 0 = unknown / unconfigured
  std::vector<UsbConfigDescriptor> configurations;
};

// An ADB function found on a device: the interface and its two bulk endpoints.
struct AdbInterfaceChoice {
  std::uint8_t configuration = 0;
  std::uint8_t interface_number = 0;
  std::uint8_t alternate_setting = 0;
  std::uint8_t endpoint_in = 0;
  std::uint8_t endpoint_out = 0;
  std::uint16_t max_packet_size = 0;  // of the OUT endpoint: what the ZLP rule uses
};

struct UsbTransferResult {
  UsbStatus status = UsbStatus::ok;
  std::size_t transferred = 0;  // bytes moved, also on timeout, stall and overflow
};

// A claimed ADB interface: synchronous bulk transfers on its two endpoints. One thread may
// read while another writes (libusb's synchronous API allows that); each direction is used by
// one thread at a time. Destroying it releases the interface and closes the device.
class BulkPipe {
 public:
  virtual ~BulkPipe() = default;

  // One bulk OUT transfer of all of data (empty data: a zero-length packet). Blocks up to
  // timeout.
  virtual UsbTransferResult bulk_out(std::span<const std::uint8_t> data,
                                     std::chrono::milliseconds timeout) = 0;
  // One bulk IN transfer of up to buffer.size() bytes; completes on a short packet or a full
  // buffer. buffer.size() should be a multiple of max_packet_size() (else: overflow).
  virtual UsbTransferResult bulk_in(std::span<std::uint8_t> buffer,
                                    std::chrono::milliseconds timeout) = 0;
  // Clears the halt of the IN (in = true) or OUT endpoint.
  virtual UsbStatus clear_halt(bool in) = 0;
  // Port reset: the device re-enumerates and its ADB session starts over.
  virtual UsbStatus reset() = 0;

  virtual std::uint16_t max_packet_size() const = 0;
};

// The USB stack: enumeration, opening, and change notification.
class UsbBackend {
 public:
  virtual ~UsbBackend() = default;

  // Every device on every bus, descriptors only. not_supported when no bus is visible.
  virtual UsbStatus enumerate(std::vector<UsbDeviceRecord>& out) = 0;

  // Opens the device and reads its serial string (no claim). ok, access, no_device, io_error.
  virtual UsbStatus read_serial(const UsbDeviceRecord& device, std::string& serial) = 0;

  // Opens the device, reads its serial string and checks that the interface can be claimed
  // (claims and releases it). ok, access, busy, no_device, io_error. serial is set when it
  // could be read.
  virtual UsbStatus probe(const UsbDeviceRecord& device, const AdbInterfaceChoice& choice,
                          std::string& serial) = 0;

  // Opens the device, reads its serial, selects the configuration if another is active and
  // claims the interface. On ok, pipe is set.
  virtual UsbStatus open(const UsbDeviceRecord& device, const AdbInterfaceChoice& choice,
                         std::string& serial, std::unique_ptr<BulkPipe>& pipe) = 0;

  // Calls changed() (from a backend thread) whenever a device arrives or leaves, until the
  // returned token is destroyed. nullptr when the platform has no hotplug events: then the
  // caller polls enumerate().
  virtual std::shared_ptr<void> watch(std::function<void()> changed) = 0;
};

// libusb behind the seam (usb_libusb.cpp). nullptr with detail set when libusb cannot start
// (no USB subsystem: containers, some VMs).
std::shared_ptr<UsbBackend> make_libusb_backend(std::string& detail);

}  // namespace adbwire::transport
