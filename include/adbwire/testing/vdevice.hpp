// A virtual Android device: the device side of ADB on a loopback TCP port, accepted by the
// real AOSP `adb` host. It is adbwire's built-in default target and the device every
// integration test talks to. It answers shell/exec services with a small shell whose file
// system is a host folder (served to pull/push/stat/ls by sync: too), renders a bundled demo
// screen for screencap and uiautomator, and records input/am/monkey/cmd command lines so a
// test can check what a host asked for.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "adbwire/protocol/constants.hpp"

namespace adbwire {

// A failure `uiautomator dump` can be made to report, with the text and exit status the
// real tool gives, so hosts' handling of each is tested against a device.
enum class UiDumpFault {
  none,
  idle_state,          // "ERROR: could not get idle state." on stdout, exit 0, no file
  null_root,           // "ERROR: null root node returned by UiTestAutomationBridge.", exit 0
  already_registered,  // IllegalStateException "UiAutomationService … already registered!"
  killed,              // "Killed" (the process was killed), exit 137
  empty_file,          // reports success but leaves an empty file
};

// How the emulated on-device dumper (`app_process … com.adbwire.Dumper`, see
// src/agent/dumper/README.md) misbehaves, so the host's restart and fallback are tested.
enum class DumperFault {
  none,
  die_after,           // exits without a reply at dump request number after_requests + 1
  never_answer,        // reads requests and never replies
  garbage,             // answers every request with bytes that are no reply frame
  already_registered,  // connecting UiAutomation fails: "UiAutomationService … already registered"
  crash_at_start,      // a Java error on stderr and exit 1 before the first reply (an API the
                       // dumper calls is missing on this Android version)
  refuses_input,       // injectInputEvent refuses event number after_requests of each gesture
                       // (0: the first, as a build that forbids injection from shell does)
  no_labels,           // PackageManager cannot be reached: 'L' answers failed with the exception
  no_gestures,         // the phone's verifier rejected the Gesture class: every 'M', even an
                       // empty one, answers failed at event 0 with the VerifyError
};

// How a host connection to the virtual device misbehaves (VirtualDeviceOptions::fault), so every
// host-side failure path is tested against a device that really misbehaves on a real socket.
enum class ConnectionFault {
  none,
  drop,            // closes the socket once after_bytes bytes were sent (a pulled cable)
  stall,           // after after_bytes bytes sent, stops reading and writing; socket stays open
  corrupt_header,  // flips the magic of the message numbered after_messages (0 = the CNXN)
  slow,            // waits `delay` before every write
  refuse_auth,     // never accepts a signature or an offered key (needs auth_required)
  close_streams,   // accepts every OPEN and closes the stream at once (CLSE right after OKAY)
  silent,          // once its CNXN is sent, stops reading and writing; the socket stays open (a
                   // phone gone to sleep, a link that stalls without closing)
  long_banner,     // its CNXN banner carries a property of after_bytes bytes more: adbd keeps
                   // banners under 4 KiB, a hostile device need not
};

// A device answering sync with crafted data (VirtualDeviceOptions::hostile_sync), as a broken
// or hostile device on a shared network or a device farm could, so a host's pull is tested
// against each way a listing can try to make it write outside its destination, hold unbounded
// memory or reach the terminal. A RECV of a path that does not exist then serves
// "pwned by a hostile device\n" instead of failing, so a host that did follow a crafted name
// would write something.
enum class HostileSync {
  none,
  traversal_names,  // each listing adds files "../escape.txt", "sub/../../escape.txt" and
                    // "/tmp/adbwire-absolute.txt"
  climbing_folder,  // each listing adds a folder "../../somedir" with mode 0777
  special_modes,    // files are reported with setuid, setgid and 0777 (06777), folders with the
                    // sticky bit and 0777 (01777)
  endless_listing,  // a listing never ends: files "f0000000", "f0000001", … (flow control kept)
  endless_long_names,  // the same with names of 255 bytes (NAME_MAX), each entry far larger
  endless_tree,        // each listing adds a folder "d", so the tree has no bottom
  escape_names,        // each listing adds a file whose name holds terminal escape sequences
                       // (set the window title, clear the screen)
  bomb,                // stat and listings announce every file as 10 bytes; a pull of one gets
                       // 4 GiB of zeros, compressed when the host asks (zstd, lz4, brotli), so a
                       // few KB on the wire expand without end: a decompression bomb
};

// How the virtual device's pairing service misbehaves (VirtualDeviceOptions::pairing_fault) after
// the TLS handshake, so each way a pairing can fail is tested against a real socket.
enum class PairingFault {
  none,
  stall,            // says nothing more, connection held open
  bad_version,      // its first pairing header has version 2
  oversized_frame,  // its first pairing header announces 16385 bytes (adb allows 16384)
};

// The TXT records of the virtual device's mDNS services (VirtualDeviceOptions::mdns_txt).
enum class MdnsTxt {
  normal,  // adbd's: "api=API", "name=MODEL", "v=1"
  none,    // no TXT record at all (they are optional)
  broken,  // "v=1" without its length byte, so the byte 'v' announces 118 bytes in 3
};

// "none", "traversal-names", "climbing-folder", "special-modes", "endless-listing",
// "endless-long-names", "endless-tree", "escape-names", "bomb".
std::string_view to_string(HostileSync mode) noexcept;
// The inverse of to_string; false for anything else.
bool parse_hostile_sync(std::string_view text, HostileSync& out) noexcept;

// A device whose commands answer with crafted output (VirtualDeviceOptions::hostile_output), as a
// broken or hostile device could, so a host's memory and its terminal are tested against it.
enum class HostileOutput {
  none,
  endless,  // the commands a host gathers whole never stop printing (flow control kept):
            // `uiautomator dump`, getprop, dumpsys, `pm list` and `cmd package list`, and
            // `logcat -d` (binary records with -B); other commands (echo, input) work as usual
  escapes,  // device text holds terminal escapes (window title, clear screen, OSC 52 clipboard),
            // C1 controls and a bidi override (kHostileText): getprop values, the resumed
            // activity's package, a package in `pm list packages`, every `settings get` value,
            // the battery's technology, sensors' vendors and the name the camera app gives a
            // photo
  // `dd` (how hosts read a range of a file) answers wrongly; other commands work as usual:
  short_ranges,    // one byte less than the range
  long_ranges,     // the range, then zeros without end
  shifted_ranges,  // the range one block (bs) further on in the file
};

// What HostileOutput::escapes puts into device text.
inline constexpr std::string_view kHostileText =
    "\x1b]0;pwned\x07\x1b[2J\x1b]52;c;cHduZWQ=\x07\x7f\xc2\x9b"
    "31m\xe2\x80\xae"
    "evil";

// "none", "endless", "escapes", "short-ranges", "long-ranges", "shifted-ranges".
std::string_view to_string(HostileOutput mode) noexcept;
// The inverse of to_string; false for anything else.
bool parse_hostile_output(std::string_view text, HostileOutput& out) noexcept;

// A fault and where it strikes. It applies to the first `connections` host connections (0 = every
// one), so a test can show that connecting again recovers.
struct ConnectionFaultPlan {
  ConnectionFault kind = ConnectionFault::none;
  std::uint64_t after_bytes = 0;
  std::uint32_t after_messages = 0;
  std::chrono::milliseconds delay{0};
  std::uint32_t connections = 1;
};

// How the virtual device's text fields take typed text (VirtualDevice::set_field_quirks), as
// real apps' fields do: each quirk applies to every field.
struct FieldQuirks {
  // Typed text shows in dumps only this long after it arrived (a field that updates late).
  std::chrono::milliseconds show_delay{0};
  // The field formats what it holds as a phone number: its digits as "(555) 123-4567".
  bool phone_format = false;
  // Every Nth character `input text` types is lost (a keyboard that was busy); 0: none.
  std::uint32_t drop_every = 0;
};

// A debuggable WebView or browser of the virtual device: its DevTools socket
// `localabstract:NAME` is served by a DevTools endpoint on the host's loopback (a headless
// Chromium started with --remote-debugging-port, say), and the device lists it as a real one
// does, in /proc/net/unix, with /proc/PID/cmdline naming the app's package.
struct DevtoolsSocket {
  std::string name;        // "webview_devtools_remote_4321", "chrome_devtools_remote", …
  std::uint16_t port = 0;  // 127.0.0.1:port serves it
  std::uint32_t pid = 0;
  std::string package;  // what /proc/PID/cmdline says
};

// Recovery's sideload mode, as minadbd plays it (VirtualDeviceOptions::sideload).
enum class SideloadMode {
  off,       // a booted device: sideload-host: is refused, as adbd refuses it
  on,        // the banner says sideload; sideload-host:SIZE:BLOCKSIZE asks for every block in
             // order, keeps the package as /sideload/package.zip, then sends DONEDONE
  past_end,  // test-only: as on, but asks for the block after the last one first (a hostile
             // device: the host must refuse, not read past its file)
};

// An app installed from a real APK file (VirtualDeviceOptions::apps): `pm list packages` names
// it, `pm path` answers /data/app/PACKAGE-1/base.apk (a copy of the file made at start(), read
// over sync), `dumpsys package` its versionCode, and the on-device dumper its label. The APK's
// own manifest is not read by the device: package, version_code and label say what it holds.
struct InstalledApp {
  std::string package;
  std::uint64_t version_code = 1;
  std::string label;
  std::filesystem::path apk;
};

struct VirtualDeviceOptions {
  // Where to listen: an IPv4 or IPv6 address literal. port 0 picks a free port; port()
  // says which.
  std::string address = "127.0.0.1";
  std::uint16_t port = 0;
  // What `getprop ro.serialno` prints.
  std::string serial = "adbwire-vdevice";
  // Answer CNXN with AUTH TOKEN and accept only signatures of keys in keys_file.
  bool auth_required = false;
  // adb_keys-style: one adbkey.pub line ("<base64> user@host") per accepted key. Read at
  // every signature check, so keys appended meanwhile count. May be absent (no keys).
  std::filesystem::path keys_file;
  // A public key offered by a host is appended to keys_file and accepted (the phone user
  // clicking "Always allow"). Otherwise the host stays unauthorized, like a phone whose
  // user has not answered the dialog.
  bool accept_new_keys = false;
  // How long the device takes to answer a signature or an offered key (a phone's prompt
  // answered a moment later, a bridge checking the key with its server). 0: at once.
  std::chrono::milliseconds auth_delay{0};
  // An offered key the device does not accept makes it hang up at once (a bridge refusing
  // the host, a user tapping "Deny" where the device then drops the link), instead of leaving
  // the host waiting as a phone with an unanswered prompt does.
  bool hang_up_on_refused_key = false;
  // A Wireless debugging (Android 11+) port: answer CNXN with STLS and run TLS 1.3 with a
  // server certificate made at start(); only hosts whose key is in keys_file get in (the
  // keys of paired hosts), others get a TLS alert. auth_required and accept_new_keys do not
  // apply. adb hosts older than 30 cannot connect (they do not know STLS).
  bool tls = false;
  // Wireless debugging's pairing service ("Pair device with pairing code"): when the code is
  // not empty, start() also listens on pairing_port (0: a free one; pairing_port() says which)
  // for adb's pairing exchange (TLS 1.3, SPAKE2) with that code. A host that pairs gets its key
  // appended to keys_file (which must be set), so with tls set it then connects with no prompt.
  std::string pairing_code;
  std::uint16_t pairing_port = 0;
  PairingFault pairing_fault = PairingFault::none;
  // The device's Wireless debugging id (what pairing hands the host). Empty: "adb-SERIAL-" and six
  // random letters and digits, as adbd makes it.
  std::string guid;
  // Advertise by multicast DNS, as a phone in Wireless debugging does: the port as
  // _adb-tls-connect._tcp (with tls; _adb._tcp without) and the pairing service as
  // _adb-tls-pairing._tcp, each under the GUID as instance name, on the interfaces that have
  // `address` (every one for 0.0.0.0; loopback included). Needs an IPv4 address; port 5353 is
  // shared with any other mDNS stack. start() fails with not_supported or busy when it cannot.
  bool mdns = false;
  MdnsTxt mdns_txt = MdnsTxt::normal;
  // Host folder backing the device file system ("/sdcard/x" is root/sdcard/x).
  // Empty: a fresh temporary folder, removed by stop().
  std::filesystem::path root;
  // CNXN features. Empty: what the virtual device implements (shell_v2, cmd, stat_v2, ls_v2,
  // sendrecv_v2, sendrecv_v2_brotli, sendrecv_v2_lz4, sendrecv_v2_zstd). Leaving out
  // stat_v2/ls_v2/sendrecv_v2 makes hosts use sync v1; a sync transfer asking for a
  // compression whose sendrecv_v2_<algorithm> is left out gets a FAIL, so tests can check
  // that hosts fall back to plain.
  std::vector<std::string> features;
  // Offer no features at all, as adbd before Android 7.0 (`features` is then ignored): hosts
  // fall back to shell protocol v1, sync v1 and `pm`.
  bool no_features = false;
  // CNXN version. 0x01000000 is what adbd before Android 9 speaks: every message carries the
  // byte sum of its payload (data_check), computed when sent and verified when received, a
  // mismatch dropping the connection. The connection uses min(this, host's).
  std::uint32_t protocol_version = protocol::kVersion;
  // Services refused as an older adbd refuses them, by prefix of the OPEN's destination
  // ("exec:" before Android 5.0).
  std::vector<std::string> refused_services;
  // "shell:COMMAND" (no shell protocol) gives the command a PTY that translates output, every
  // "\n" arriving as "\r\n", as adbd before Android 7.0 did (later ones make that PTY raw).
  // The PTY's input side (echo, line editing) applies too.
  bool legacy_pty = false;
  // Largest payload accepted and sent; the connection uses min(this, host's).
  std::uint32_t max_payload = protocol::kMaxPayload;
  // A screen graph folder (screens.xml, see src/vdevice/screen_graph.hpp) that taps, keys
  // and text move through; src/vdevice/screens/demo is a bundled 3-screen app. Empty: the
  // bundled single sample screen. start() fails with parse_error when it cannot be loaded.
  std::filesystem::path screens;
  // Test-only fault: a sync stream that has sent (RECV) or received (SEND) this many bytes of
  // file content drops its whole connection at once, as a pulled cable would; what was not
  // yet on the socket is lost. Each sync stream counts from 0. 0: never.
  std::uint64_t drop_after_bytes = 0;
  // Test-only fault: a compressed pull (RCV2 with a compression flag) gets garbage instead of
  // the compressed stream (every byte 0xA5, as many as the real stream has), then DONE.
  bool corrupt_compressed_sync = false;
  // Test-only: a device that answers sync with crafted data (see HostileSync).
  HostileSync hostile_sync = HostileSync::none;
  // Test-only: a device whose commands print without end or print escapes (see HostileOutput).
  HostileOutput hostile_output = HostileOutput::none;
  // Test-only: a misbehaving connection (see ConnectionFault).
  ConnectionFaultPlan fault;
  // Android API level (ro.build.version.sdk). Raw `screencap` writes a 12-byte header below 29
  // and 16 bytes (with the colour space) from 29 on; `framebuffer:` sends header version 1 / 2.
  std::uint32_t api_level = 34;
  // 2 adds a 720x1280 secondary display, id 4619827259835644673 (the main one is
  // 4619827259835644672), for `screencap -d`; with two displays `screencap` without -d first
  // prints Android 12's multiple-displays warning, which exec: merges into the output.
  std::uint32_t displays = 1;
  // Called with each input/am/monkey/cmd command line the device runs, as events() records it,
  // from the device's I/O thread (keep it short; it must not throw). `adbwire vdevice
  // --print-events` prints them, so a test in another process can see what an agent did.
  std::function<void(std::string_view)> on_event;
  // DevTools sockets of debuggable WebViews (see DevtoolsSocket); /proc/net/unix and
  // /proc/PID/cmdline are written under root at start().
  std::vector<DevtoolsSocket> devtools;
  // Processes hosting a JDWP transport (debuggable apps), by pid: what the `jdwp` service lists,
  // one per line, as adbd does.
  std::vector<std::uint32_t> jdwp_pids = {4242, 4317};
  SideloadMode sideload = SideloadMode::off;
  // Commands the device lacks (a stripped build, an old Android): running one prints
  // "/system/bin/sh: NAME: inaccessible or not found" and exits 127, as a real shell does.
  std::vector<std::string> missing_commands;
  // Services `dumpsys` cannot find ("activity", "window"): it prints "Can't find service: NAME"
  // for them, as a device whose services are hidden from the shell does.
  std::vector<std::string> missing_services;
  // The radios and camera (src/vdevice/hardware_commands.cpp): with radios_locked, `svc wifi`,
  // `svc data` and `cmd connectivity airplane-mode` answer as usual but change nothing, as under
  // a device policy; without camera_app, no app answers the still-image intent.
  bool radios_locked = false;
  bool camera_app = true;
  // Apps installed besides the demo app, each with its APK (see InstalledApp). start() fails
  // with io_error when an APK cannot be copied.
  std::vector<InstalledApp> apps;
  // When set, start() creates this pcapng file and every host connection records the ADB
  // bytes it receives and sends there (each as its own TCP connection, flushed per message);
  // how captures/ is made from the real adb host. start() fails with io_error if it cannot.
  std::filesystem::path record;
};

// A kind of device the virtual device plays (apply_profile, `adbwire vdevice --profile NAME`).
struct VirtualDeviceProfile {
  std::string_view name;
  std::string_view description;  // what it changes, one line
};

// Every profile, "default" first: default, checksum (protocol 0x01000000), payload-4k,
// payload-256k, no-features, no-shell-v2, no-exec, no-sync-v2, no-cmd, android-4 (all the old
// ones at once, as a KitKat phone), sideload (recovery's sideload mode). Valid for the program's
// lifetime.
std::span<const VirtualDeviceProfile> virtual_device_profiles() noexcept;

// Sets what profile `name` changes (protocol_version, max_payload, features, no_features,
// refused_services, legacy_pty, api_level, sideload); other fields keep their values. Throws
// Error(invalid_argument) naming the known profiles for an unknown name.
void apply_profile(VirtualDeviceOptions& options, std::string_view name);

// One virtual device: a listening socket and one I/O thread serving any number of host
// connections, each with its own protocol session. A broken host only loses its own
// connection (logged to stderr in one line).
//
// Thread safety: start(), stop() and the destructor must not race each other; port(),
// target(), root() and events() may be called from any thread once start() returned.
class VirtualDevice {
 public:
  explicit VirtualDevice(VirtualDeviceOptions options = {});

  // Creates the root folder (when options.root is empty), binds, listens and starts the
  // I/O thread. Call once. Errors: busy (address in use), invalid_argument (bad address or
  // already started), io_error (root folder can't be created, other socket failures).
  void start();
  void start(std::error_code& error);

  // The bound port (0 before start()).
  std::uint16_t port() const;
  // The pairing service's port (0 when there is none).
  std::uint16_t pairing_port() const;
  // The Wireless debugging id (VirtualDeviceOptions::guid, or the one start() made).
  std::string guid() const;
  // Hosts that paired so far. Thread safe.
  std::uint64_t hosts_paired() const;
  // The phone scanned a host's QR code "WIFI:T:ADB;S:NAME;P:PASSWORD;;": its pairing service
  // takes PASSWORD from now on, and with mdns is advertised as NAME (the host waits for it).
  // invalid_argument for text of another shape, not_supported without a pairing service. Thread
  // safe.
  void scan_pairing_qr(std::string_view text);

  // "tcp:ADDRESS:PORT", the target adbwire clients connect to.
  std::string target() const;

  // Closes the listener and every connection, joins the I/O thread and removes a temporary
  // root. Idempotent; blocks only for handlers already running (they are short).
  void stop();

  ~VirtualDevice();
  VirtualDevice(const VirtualDevice&) = delete;
  VirtualDevice& operator=(const VirtualDevice&) = delete;

  // The input/am/monkey/cmd command lines run so far, oldest first, arguments joined by one
  // space ("input tap 10 20"). Returns a copy.
  std::vector<std::string> events() const;

  // The command lines the device's shell could not parse, oldest first (an unbalanced quote, a
  // command substitution): what a host sends when it forgot to quote an argument. Thread safe.
  std::vector<std::string> shell_syntax_errors() const;

  // Host connections accepted since start(). Thread safe.
  std::uint64_t connections_accepted() const;

  // Makes the next `times` `uiautomator dump` runs fail with fault. Thread safe; call after
  // start().
  void set_ui_dump_fault(UiDumpFault fault, std::uint32_t times = 1);

  // Test hook: the screen changes by itself, as an async load, a dialog or a list that re-lays
  // out does: the current screen shows `xml` (a uiautomator dump) until input moves the screen
  // graph. Throws Error(parse_error) for malformed xml. Thread safe; call after start().
  void show_dump(const std::string& xml);
  // Test hook: a phone slow to focus a text field (busy bringing the keyboard up): a tap on a
  // field focuses it only `delay` later; until then dumps show it unfocused and `input text`
  // is lost. Thread safe; call after start().
  void set_focus_delay(std::chrono::milliseconds delay);

  // Test hook: a list that scrolls by itself between a snapshot and the action that follows
  // (a feed loading posts above, a list still flinging): right after the next dump, the current
  // screen's first scrollable (in document order) moves its content by dy pixels (dy < 0: up).
  // From the call on, dumps show that list cut to its bounds, leaving out the nodes outside it
  // as uiautomator leaves out what is not visible, so a screen can hold rows below the list that
  // scroll in. show_dump() ends it. Thread safe; call after start().
  void scroll_after_next_dump(std::int32_t dy);
  // What each `input tap` so far landed on, oldest first, in the screen as it was at that moment:
  // the deepest node under the point with a text or desc, as "\"LABEL\"", followed by
  // ` in row "LABELS"` (the other texts and descs of the list row holding it, joined by " / ")
  // when it lies inside a row of a scrollable; "nothing" when no labelled node is there.
  // Thread safe.
  std::vector<std::string> touched() const;
  // Test hook: how text fields take typed text from now on (see FieldQuirks). Thread safe; call
  // after start().
  void set_field_quirks(const FieldQuirks& quirks);

  // Makes every dumper process started from now on misbehave with fault (after_requests:
  // see DumperFault::die_after). Thread safe; call after start().
  void set_dumper_fault(DumperFault fault, std::uint32_t after_requests = 0);

  // Test hook: the label PackageManager gives `package` (installed or not), any bytes, as a
  // hostile app may name itself. Thread safe; call after start().
  void set_app_label(const std::string& package, const std::string& label);

  // The host folder that backs the device file system; valid from start() until stop() (a
  // temporary root is deleted by stop()).
  const std::filesystem::path& root() const;

  // Appends a record to the device's logcat ring (pid 1000, now): level is V D I W E F.
  // Records also come from the device's own events (input, am, cmd …, tag "adbwire").
  // Thread safe; call after start().
  void log(char level, std::string tag, std::string message);

  // The loopback port serving the device side of the reverse rule `device_local` ("tcp:6000")
  // a host registered (its socket is a loopback listener on a port of its own: the virtual
  // device shares the host's network); 0 when there is no such rule. Thread safe.
  std::uint16_t reverse_port(std::string_view device_local) const;

  // Test hook: a loopback port where each accepted TCP connection makes the device OPEN
  // `destination` on its newest host connection, as a reverse rule's socket does, whether or
  // not the host registered a rule for it (a refused OPEN closes the TCP connection). 0 when
  // no host is connected. Thread safe; blocks until the listener is up.
  std::uint16_t open_to_host(std::string destination);

  // Device-initiated OPENs the hosts refused so far. Thread safe.
  std::uint64_t reverse_refused() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace adbwire
