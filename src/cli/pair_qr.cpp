#include "cli/pair_qr.hpp"

#include <qrencode.h>
#include <sys/random.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "adbwire/device.hpp"
#include "adbwire/error.hpp"
#include "adbwire/error_detail.hpp"
#include "adbwire/mdns.hpp"
#include "cli/terminal_text.hpp"

namespace adbwire::cli {
namespace {

// Letters and digits: nothing the WIFI: syntax would need to escape (; , : \ ").
std::string random_text(std::size_t size) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  std::string text;
  while (text.size() < size) {
    unsigned char byte = 0;
    if (::getrandom(&byte, 1, 0) != 1) {
      if (errno == EINTR) continue;
      throw Error(errc::io_error, std::string("cannot read random bytes: ") + std::strerror(errno));
    }
    // 62 × 4 = 248: bytes above it would favour some characters.
    if (byte < 248) text += kAlphabet[byte % 62];
  }
  return text;
}

}  // namespace

QrPairing make_qr_pairing() { return {"studio-" + random_text(10), random_text(12)}; }

std::string qr_text(const std::string& payload) {
  const std::unique_ptr<QRcode, void (*)(QRcode*)> code(
      QRcode_encodeString(payload.c_str(), 0, QR_ECLEVEL_M, QR_MODE_8, 1), QRcode_free);
  if (!code) throw Error(errc::invalid_argument, "the pairing text does not fit a QR code");
  constexpr int kQuiet = 4;  // the quiet zone the QR standard asks for
  const int width = code->width;
  const auto dark = [&](int x, int y) {
    if (x < 0 || y < 0 || x >= width || y >= width) return false;
    return (code->data[y * width + x] & 1) != 0;
  };
  std::string text;
  for (int y = -kQuiet; y < width + kQuiet; y += 2) {
    for (int x = -kQuiet; x < width + kQuiet; ++x) {
      const bool top = !dark(x, y);
      const bool bottom = y + 1 >= width + kQuiet || !dark(x, y + 1);
      text += top && bottom ? "\u2588" : top ? "\u2580" : bottom ? "\u2584" : " ";
    }
    text += '\n';
  }
  return text;
}

int pair_by_qr(const PairOptions& options, std::chrono::milliseconds wait) {
  const QrPairing qr = make_qr_pairing();
  print(
      "On the phone: Settings > Developer options > Wireless debugging > Pair device with QR "
      "code, and scan:\n\n" +
      qr_text(qr.payload()) + "\nWaiting up to " + std::to_string(wait.count() / 1000) +
      " s for the phone to offer pairing as " + qr.name + " (mDNS)...\n");
  std::error_code error;
  const MdnsService pairing = resolve_mdns_service(kAdbTlsPairingService, qr.name,
                                                   deadline_after(wait), MdnsOptions{}, error);
  if (error == errc::not_found) {
    throw Error(errc::timeout, "no phone offered pairing as " + qr.name + " within " +
                                   std::to_string(wait.count() / 1000) +
                                   " s: was the code scanned under Wireless debugging > Pair "
                                   "device with QR code, on a phone on this network?");
  }
  if (error) throw Error(error, last_error_detail());
  const PairResult paired = pair(pairing.address(), qr.password, options);
  print("Successfully paired to " + paired.address + " [guid=" + paired.guid + "]\n");
  // The phone advertised its connect port before pairing began (AOSP's adb connects the same way
  // right after pairing, as no new announcement comes).
  const MdnsService connect =
      resolve_mdns_service(kAdbTlsConnectService, paired.guid, deadline_after(options.timeout));
  ConnectOptions connect_options;
  connect_options.keys = options.keys;
  const Device device = Device::connect("tcp:" + connect.address(), connect_options);
  return print("connected to " + connect.address() +
               (device.connection_info().tls ? " (TLS)" : "") + "\nNext: adbwire -s " +
               paired.guid + " shell\n")
             ? 0
             : 1;
}

}  // namespace adbwire::cli
