// `adbwire pair --qr`: Android Studio's QR pairing without Studio. The host makes a service name
// ("studio-" and 10 random characters, as Studio names it) and a password, shows
// "WIFI:T:ADB;S:NAME;P:PASSWORD;;" as a QR code; the phone (Wireless debugging → Pair device
// with QR code) starts a pairing service advertised by mDNS under NAME; the host finds it, pairs
// with PASSWORD, then finds the phone's connect port by its GUID and connects.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

#include "adbwire/pairing.hpp"

namespace adbwire::cli {

struct QrPairing {
  std::string name;      // the pairing service's instance name the phone is asked to use
  std::string password;  // the pairing code the phone takes from the QR code
  std::string payload() const { return "WIFI:T:ADB;S:" + name + ";P:" + password + ";;"; }
};

// A fresh name and password from the kernel's random source. Throws Error(io_error) when it
// cannot be read.
QrPairing make_qr_pairing();

// payload as a QR code (libqrencode, error correction M) in text: two module rows per line with
// Unicode half blocks, light modules drawn (for dark terminals, as `qrencode -t UTF8`), a quiet
// zone of 4 modules. Throws Error(invalid_argument) when the text does not fit a QR code.
std::string qr_text(const std::string& payload);

// Shows the code (cli::print), waits up to `wait` for the phone's pairing service, pairs, then
// waits up to options.timeout for its connect port and connects with TLS. Prints adb's success line
// and the connect address. Throws Error: timeout (no phone scanned in time), the errors of pair()
// and Device::connect.
int pair_by_qr(const PairOptions& options, std::chrono::milliseconds wait);

}  // namespace adbwire::cli
