// mDNS discovery end to end on loopback: the virtual device advertises as a phone in Wireless
// debugging (adbd's TXT, none, or a broken one), adbwire's querier finds it, connects by GUID
// over TLS, sees its goodbye; python-zeroconf (Debian's python3-zeroconf) as an independent
// querier and responder on the same wire; an adb server's host:mdns:services played by a scripted
// smart-socket peer (Debian's adb 29 has no mDNS), and the real adb 29 not getting in the way.
#include "adbwire/mdns.hpp"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <random>
#include <string>
#include <thread>

#include "adbwire/adb_server.hpp"
#include "adbwire/device.hpp"
#include "adbwire/error.hpp"
#include "adbwire/error_detail.hpp"
#include "adbwire/pairing.hpp"
#include "adbwire/testing/vdevice.hpp"
#include "integration/adb_server.hpp"
#include "integration/temp_dir.hpp"

namespace adbwire {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using test::TempDir;

constexpr const char* kPython = "/usr/bin/python3";  // Debian's, where python3-zeroconf is

// A serial no other test run shares, so parallel runs on the same loopback tell devices apart.
std::string unique_serial() {
  std::random_device random;
  return "MDNS" + std::to_string(random() % 1000000000);
}

VirtualDeviceOptions phone(const fs::path& dir, MdnsTxt txt = MdnsTxt::normal) {
  VirtualDeviceOptions options;
  options.tls = true;
  options.keys_file = dir / "adb_keys";
  options.pairing_code = "482915";
  options.serial = unique_serial();
  options.mdns = true;
  options.mdns_txt = txt;
  return options;
}

MdnsOptions own_only(std::chrono::milliseconds listen = 1500ms) {
  MdnsOptions options;
  options.ask_adb_server = false;
  options.listen = listen;
  return options;
}

const MdnsService* find(const std::vector<MdnsService>& services, std::string_view type,
                        std::string_view instance) {
  for (const MdnsService& s : services) {
    if (s.service == type && s.instance == instance) return &s;
  }
  return nullptr;
}

TEST(Mdns, FindsBothServicesOfAPhoneOnLoopbackWithAdbdsTxt) {
  TempDir dir;
  VirtualDevice device(phone(dir.path()));
  device.start();
  const auto services = mdns_services(own_only());
  const MdnsService* connect = find(services, kAdbTlsConnectService, device.guid());
  const MdnsService* pairing = find(services, kAdbTlsPairingService, device.guid());
  ASSERT_NE(connect, nullptr) << services.size() << " services heard";
  ASSERT_NE(pairing, nullptr);
  EXPECT_EQ(connect->host, "127.0.0.1");
  EXPECT_EQ(connect->port, device.port());
  EXPECT_EQ(pairing->port, device.pairing_port());
  EXPECT_EQ(connect->txt, (std::vector<std::string>{"api=34", "name=adbwire_virtual", "v=1"}));
  EXPECT_FALSE(connect->from_adb_server);
}

class MdnsTxtRecords : public ::testing::TestWithParam<MdnsTxt> {};

TEST_P(MdnsTxtRecords, AMissingOrBrokenTxtStillListsTheService) {
  TempDir dir;
  VirtualDevice device(phone(dir.path(), GetParam()));
  device.start();
  const auto services = mdns_services(own_only());
  const MdnsService* connect = find(services, kAdbTlsConnectService, device.guid());
  ASSERT_NE(connect, nullptr);
  EXPECT_EQ(connect->port, device.port());
  EXPECT_TRUE(connect->txt.empty());
}

INSTANTIATE_TEST_SUITE_P(Kinds, MdnsTxtRecords, ::testing::Values(MdnsTxt::none, MdnsTxt::broken));

TEST(Mdns, APairedPhoneIsConnectedByGuidOverTls) {
  TempDir dir;
  VirtualDevice device(phone(dir.path()));
  device.start();
  PairOptions pairing;
  pairing.keys.android_dir = dir.path() / "home/.android";
  pairing.keys.vendor_keys = {dir.path() / "no-vendor-keys"};
  fs::create_directories(pairing.keys.android_dir);
  const PairResult paired =
      pair("127.0.0.1:" + std::to_string(device.pairing_port()), "482915", pairing);
  EXPECT_TRUE(is_known_host(load_known_hosts(pairing.keys), device.guid()));

  ConnectOptions options;
  options.keys = pairing.keys;
  for (const std::string& target :
       {paired.guid, "mdns:" + paired.guid, paired.guid + "._adb-tls-connect._tcp",
        paired.guid + "._adb-tls-connect._tcp.local."}) {
    Device phone_device = Device::connect(target, options);
    EXPECT_TRUE(phone_device.connection_info().tls) << target;
    EXPECT_EQ(phone_device.shell("echo by-name").out, "by-name\n") << target;
  }
}

TEST(Mdns, AnUnknownNameIsNotFoundAtTheDeadlineAndSaysWhereToLook) {
  const auto start = std::chrono::steady_clock::now();
  std::error_code error;
  resolve_mdns_service(kAdbTlsConnectService, "adb-NOSUCHPHONE-zzzzzz", deadline_after(1500ms),
                       own_only(), error);
  EXPECT_EQ(error, make_error_code(errc::not_found));
  EXPECT_NE(last_error_detail().find("adbwire mdns services"), std::string::npos)
      << last_error_detail();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 4s);

  ConnectOptions options;
  options.connect_timeout = 1500ms;
  Device::connect("adb-NOSUCHPHONE-zzzzzz", options, error);
  EXPECT_EQ(error, make_error_code(errc::not_found));
}

TEST(Mdns, AStoppedPhonesGoodbyeRemovesItsServices) {
  TempDir dir;
  auto device = std::make_unique<VirtualDevice>(phone(dir.path()));
  device->start();
  const std::string guid = device->guid();
  MdnsBrowser browser(own_only());
  const Deadline heard_by = deadline_after(3s);
  while (find(browser.services(), kAdbTlsConnectService, guid) == nullptr &&
         Clock::now() < heard_by) {
    browser.poll(heard_by);
  }
  ASSERT_NE(find(browser.services(), kAdbTlsConnectService, guid), nullptr);
  device.reset();
  const Deadline gone_by = deadline_after(3s);
  while (find(browser.services(), kAdbTlsConnectService, guid) != nullptr &&
         Clock::now() < gone_by) {
    browser.poll(gone_by);
  }
  EXPECT_EQ(find(browser.services(), kAdbTlsConnectService, guid), nullptr)
      << "the TTL-0 goodbye must remove it long before its 120 s TTL";
  EXPECT_EQ(find(browser.services(), kAdbTlsPairingService, guid), nullptr);
}

// python-zeroconf, an independent implementation, resolves the virtual device's service with its
// own questions (SRV, TXT, A for the instance), and our querier finds a service it registers
// (its answers compress names).
TEST(Mdns, PythonZeroconfAndAdbwireUnderstandEachOther) {
  TempDir dir;
  VirtualDevice device(phone(dir.path()));
  device.start();
  const std::string browse = R"(
import sys
from zeroconf import Zeroconf, IPVersion
zc = Zeroconf(interfaces=["127.0.0.1"], ip_version=IPVersion.V4Only)
kind = "_adb-tls-connect._tcp.local."
info = zc.get_service_info(kind, sys.argv[1] + "." + kind, timeout=5000)
if info is None:
    print("not found")
else:
    print(info.port, info.parsed_addresses()[0], info.properties.get(b"v"), info.properties.get(b"name"))
zc.close()
)";
  const auto found = test::run_process({kPython, "-c", browse, device.guid()}, {}, {}, 20s);
  ASSERT_EQ(found.exit_code, 0) << found.err << "\n(install: apt-get install python3-zeroconf)";
  EXPECT_EQ(found.out, std::to_string(device.port()) + " 127.0.0.1 b'1' b'adbwire_virtual'\n");

  const std::string name = "zc-" + unique_serial();
  const std::string serve = R"(
import socket, sys, time
from zeroconf import Zeroconf, ServiceInfo, IPVersion
zc = Zeroconf(interfaces=["127.0.0.1"], ip_version=IPVersion.V4Only)
kind = "_adb-tls-pairing._tcp.local."
info = ServiceInfo(kind, sys.argv[1] + "." + kind, addresses=[socket.inet_aton("127.0.0.1")],
                   port=40404, properties={"v": "1"}, server="zeroconf-peer.local.")
zc.register_service(info)
print("registered", flush=True)
time.sleep(float(sys.argv[2]))
zc.unregister_service(info)
zc.close()
)";
  std::thread peer([&] { test::run_process({kPython, "-c", serve, name, "6"}, {}, {}, 30s); });
  std::error_code error;
  const MdnsService service =
      resolve_mdns_service(kAdbTlsPairingService, name, deadline_after(6s), own_only(), error);
  peer.join();
  ASSERT_FALSE(error) << last_error_detail();
  EXPECT_EQ(service.instance, name);
  EXPECT_EQ(service.address(), "127.0.0.1:40404");
  EXPECT_EQ(service.txt, std::vector<std::string>{"v=1"});
}

// A peer that answers host:mdns:services (and FAILs anything else) as an adb server 30+ does.
class ScriptedServer {
 public:
  explicit ScriptedServer(std::string services) : services_(std::move(services)) {
    fd_ = test::listen_loopback(port_);
    EXPECT_GE(fd_, 0);
    thread_ = std::thread([this] { serve(); });
  }
  ~ScriptedServer() {
    ::shutdown(fd_, SHUT_RDWR);
    thread_.join();
    ::close(fd_);
  }
  std::uint16_t port() const { return port_; }
  std::vector<std::string> requests() const {
    const std::lock_guard lock(mutex_);
    return requests_;
  }

 private:
  void serve() {
    for (;;) {
      const int client = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (client < 0) return;
      char header[5] = {};
      std::string request;
      if (::recv(client, header, 4, MSG_WAITALL) == 4) {
        request.resize(std::stoul(header, nullptr, 16));
        ::recv(client, request.data(), request.size(), MSG_WAITALL);
      }
      {
        const std::lock_guard lock(mutex_);
        requests_.push_back(request);
      }
      const std::string body = request == "host:mdns:services" ? services_ : "unknown host service";
      char length[5];
      std::snprintf(length, sizeof length, "%04zx", body.size());
      const std::string reply =
          (request == "host:mdns:services" ? "OKAY" : "FAIL") + std::string(length) + body;
      ::send(client, reply.data(), reply.size(), MSG_NOSIGNAL);
      ::close(client);
    }
  }

  std::string services_;
  int fd_ = -1;
  std::uint16_t port_ = 0;
  mutable std::mutex mutex_;
  std::vector<std::string> requests_;
  std::thread thread_;
};

TEST(MdnsAdbServer, WhatTheServerHeardIsAddedAndResolvesNames) {
  TempDir dir;
  VirtualDevice device(phone(dir.path()));
  device.start();
  // The server knows the phone too (not listed twice), a phone we cannot hear, a type we did not
  // ask for, and lists no more than that.
  ScriptedServer server(device.guid() +
                        "\t_adb-tls-connect._tcp\t127.0.0.1:" + std::to_string(device.port()) +
                        "\n"
                        "adb-FARAWAY-AbCdEf\t_adb-tls-connect._tcp\t192.0.2.7:37099\n"
                        "printer\t_ipp._tcp\t192.0.2.8:631\n");
  MdnsOptions options = own_only();
  options.ask_adb_server = true;
  options.adb_server = {"127.0.0.1", server.port()};
  const auto services = mdns_services(options);
  const MdnsService* heard = find(services, kAdbTlsConnectService, device.guid());
  ASSERT_NE(heard, nullptr);
  EXPECT_FALSE(heard->from_adb_server) << "what we heard ourselves wins";
  const MdnsService* relayed = find(services, kAdbTlsConnectService, "adb-FARAWAY-AbCdEf");
  ASSERT_NE(relayed, nullptr);
  EXPECT_TRUE(relayed->from_adb_server);
  EXPECT_EQ(relayed->address(), "192.0.2.7:37099");
  EXPECT_EQ(std::count_if(services.begin(), services.end(),
                          [](const MdnsService& s) { return s.service == "_ipp._tcp"; }),
            0);

  const MdnsService far =
      resolve_mdns_service(kAdbTlsConnectService, "adb-FARAWAY", deadline_after(4s), options);
  EXPECT_EQ(far.address(), "192.0.2.7:37099");
  const auto requests = server.requests();
  EXPECT_NE(std::find(requests.begin(), requests.end(), "host:mdns:services"), requests.end());
}

TEST(MdnsAdbServer, AnAdbServerWithoutMdnsIsSkippedQuietly) {
  test::AdbServerProcess server;
  ASSERT_EQ(server.start(), "");
  TempDir dir;
  VirtualDevice device(phone(dir.path()));
  device.start();
  MdnsOptions options = own_only();
  options.ask_adb_server = true;
  options.adb_server = {"127.0.0.1", server.port()};
  std::error_code error;
  AdbServer(options.adb_server).mdns_services(kDefaultDeadline, error);
  EXPECT_EQ(error, make_error_code(errc::not_supported)) << "Debian's adb 29 has no mDNS";
  const auto services = mdns_services(options);
  EXPECT_NE(find(services, kAdbTlsConnectService, device.guid()), nullptr);
}

}  // namespace
}  // namespace adbwire
