#include "adbwire/protocol/banner.hpp"

#include <gtest/gtest.h>

namespace adbwire::protocol {
namespace {

TEST(Banner, ParsesAHostBanner) {
  const Banner b = parse_banner("host::features=shell_v2,cmd,stat_v2");
  EXPECT_EQ(b.system_type, "host");
  EXPECT_EQ(b.serial, "");
  EXPECT_TRUE(b.properties.empty());
  EXPECT_EQ(b.features, (std::vector<std::string>{"shell_v2", "cmd", "stat_v2"}));
  EXPECT_TRUE(b.has_feature("cmd"));
  EXPECT_FALSE(b.has_feature("abb"));
}

TEST(Banner, ParsesADeviceBannerWithTrailingNul) {
  using namespace std::string_view_literals;
  const Banner b = parse_banner(
      "device::ro.product.name=sdk_gphone64;ro.product.model=Pixel 7;ro.product.device=panther;"
      "features=sendrecv_v2,delayed_ack\0"sv);
  EXPECT_EQ(b.system_type, "device");
  EXPECT_EQ(b.property("ro.product.name"), "sdk_gphone64");
  EXPECT_EQ(b.property("ro.product.model"), "Pixel 7");
  EXPECT_EQ(b.property("ro.product.device"), "panther");
  EXPECT_EQ(b.property("ro.missing"), "");
  EXPECT_EQ(b.features, (std::vector<std::string>{"sendrecv_v2", "delayed_ack"}));
  ASSERT_EQ(b.properties.size(), 3u);
  EXPECT_EQ(b.properties[0].first, "ro.product.name");
}

TEST(Banner, NoColonIsAllSystemType) {
  const Banner b = parse_banner("bootloader");
  EXPECT_EQ(b.system_type, "bootloader");
  EXPECT_EQ(b.serial, "");
  EXPECT_TRUE(b.features.empty());
}

TEST(Banner, KeepsSerialUnknownPiecesAndSkipsEmptyItems) {
  const Banner b = parse_banner("recovery:ABC123:;;odd;k=v=w;features=,a,,b,;");
  EXPECT_EQ(b.system_type, "recovery");
  EXPECT_EQ(b.serial, "ABC123");
  ASSERT_EQ(b.properties.size(), 2u);
  EXPECT_EQ(b.properties[0], (std::pair<std::string, std::string>{"odd", ""}));
  EXPECT_EQ(b.properties[1], (std::pair<std::string, std::string>{"k", "v=w"}));
  EXPECT_EQ(b.features, (std::vector<std::string>{"a", "b"}));
}

TEST(Banner, FormatsLikeAosp) {
  Banner host;
  host.system_type = "host";
  host.features = {"shell_v2", "cmd"};
  EXPECT_EQ(format_banner(host), "host::features=shell_v2,cmd");

  Banner device;
  device.system_type = "device";
  device.properties = {
      {"ro.product.name", "X"}, {"ro.product.model", "Y"}, {"ro.product.device", "Z"}};
  device.features = {"shell_v2"};
  const std::string text = format_banner(device);
  EXPECT_EQ(text,
            "device::ro.product.name=X;ro.product.model=Y;ro.product.device=Z;features=shell_v2");
  const Banner back = parse_banner(text);
  EXPECT_EQ(back.properties, device.properties);
  EXPECT_EQ(back.features, device.features);

  Banner bare;
  bare.system_type = "sideload";
  EXPECT_EQ(format_banner(bare), "sideload::");
}

TEST(Banner, HostFeaturesAreExactlyWhatAdbwireImplements) {
  EXPECT_EQ(host_features(),
            (std::vector<std::string>{
                "shell_v2", "cmd", "stat_v2", "ls_v2", "fixed_push_mkdir", "apex", "abb",
                "fixed_push_symlink_timestamp", "abb_exec", "remount_shell", "track_app",
                "sendrecv_v2", "sendrecv_v2_brotli", "sendrecv_v2_lz4", "sendrecv_v2_zstd"}));
  Banner host;
  host.system_type = "host";
  host.features = host_features();
  EXPECT_LE(format_banner(host).size(), 4096u);
}

}  // namespace
}  // namespace adbwire::protocol
