// adbwire against the real AOSP adb host binary (Debian package `adb`): adb's own keygen
// output is read back byte for byte, and adb reads the keys adbwire writes.
#include <gtest/gtest.h>

#include <array>
#include <cctype>

#include "adbwire/keys.hpp"
#include "unit/auth/auth_test_support.hpp"

namespace adbwire {
namespace {

using auth::test::TempDir;

constexpr const char* kLogname = "adbwire-tester";
constexpr const char* kHostname = "interop-host";
constexpr std::array<std::uint8_t, 15> kSha1DigestInfo = {
    0x30, 0x21, 0x30, 0x09, 0x06, 0x05, 0x2b, 0x0e, 0x03, 0x02, 0x1a, 0x05, 0x00, 0x04, 0x14};

class AdbInteropTest : public ::testing::Test {
 protected:
  void SetUp() override {
    adb_ = auth::test::find_adb();
    ASSERT_FALSE(adb_.empty()) << "the real adb is needed for this test: "
                               << auth::test::kInstallAdb;
  }

  // Runs adb with HOME in the temp dir (so ~/.android is never touched) and a fixed
  // user@host, since adb writes $LOGNAME@$HOSTNAME after the key.
  auth::test::ProcessResult adb(const std::vector<std::string>& args) const {
    std::vector<std::string> argv = {adb_.string()};
    argv.insert(argv.end(), args.begin(), args.end());
    return auth::test::run_process(
        argv, {"HOME=" + dir_.path().string(), std::string("LOGNAME=") + kLogname,
               std::string("HOSTNAME=") + kHostname});
  }

  std::string comment() const { return std::string(kLogname) + "@" + kHostname; }

  std::filesystem::path adb_;
  TempDir dir_;
};

TEST_F(AdbInteropTest, AdbKeygenPairIsReadByteForByte) {
  const auto key_path = dir_ / "adbkey";
  ASSERT_EQ(adb({"keygen", key_path.string()}).exit_code, 0);
  const std::string pub_file = auth::test::read_file(dir_ / "adbkey.pub");

  const PrivateKey key = PrivateKey::load(key_path);
  const std::string line = key.public_key_line(comment());
  // adb writes the line with no trailing newline; the whole file must match.
  EXPECT_EQ(line, pub_file);
  EXPECT_EQ(line.substr(0, line.find(' ')), pub_file.substr(0, pub_file.find(' ')));

  const PublicKey adb_public = PublicKey::parse(pub_file);
  EXPECT_EQ(adb_public.android_public_key(), key.android_public_key());
  EXPECT_EQ(adb_public.fingerprint(), key.fingerprint());
}

TEST_F(AdbInteropTest, SignatureOverAdbKeyVerifiesWithAdbPubAndWithOpenSsl) {
  const auto key_path = dir_ / "adbkey";
  ASSERT_EQ(adb({"keygen", key_path.string()}).exit_code, 0);
  const PrivateKey key = PrivateKey::load(key_path);
  const PublicKey adb_public = PublicKey::parse(auth::test::read_file(dir_ / "adbkey.pub"));

  for (int i = 0; i < 4; ++i) {
    const auto token = auth::test::random_bytes(20);
    const auto signature = key.sign_token(token);
    ASSERT_EQ(signature.size(), 256u);
    EXPECT_TRUE(adb_public.verify_token(token, signature));

    const auto openssl_key = auth::test::openssl_read_private_key(key_path);
    std::vector<std::uint8_t> expected(kSha1DigestInfo.begin(), kSha1DigestInfo.end());
    expected.insert(expected.end(), token.begin(), token.end());
    EXPECT_EQ(auth::test::openssl_recover(openssl_key.get(), signature), expected);
  }
}

TEST_F(AdbInteropTest, AdbReadsKeysAdbwireWrites) {
  const PrivateKey key = PrivateKey::generate();
  const auto key_path = dir_ / "adbkey";
  key.save(key_path, comment());
  // `adb pubkey FILE` loads the private key with adb's own reader and prints its line.
  const auto result = adb({"pubkey", key_path.string()});
  ASSERT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.out, key.public_key_line(comment()) + "\n");
  EXPECT_EQ(result.out, auth::test::read_file(dir_ / "adbkey.pub") + "\n");
}

TEST_F(AdbInteropTest, AdbAndAdbwireAgreeOnTraditionalPem) {
  const auto openssl_key = auth::test::openssl_generate_rsa(2048);
  const auto path = dir_ / "traditional.pem";
  auth::test::write_file(
      path, auth::test::openssl_pem(openssl_key.get(), auth::test::PemKind::traditional));
  const auto result = adb({"pubkey", path.string()});
  ASSERT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.out, PrivateKey::load(path).public_key_line(comment()) + "\n");
}

TEST_F(AdbInteropTest, FingerprintIsMd5OfTheDecodedPubKey) {
  const auto key_path = dir_ / "adbkey";
  ASSERT_EQ(adb({"keygen", key_path.string()}).exit_code, 0);
  // coreutils computes the dialog's fingerprint independently of OpenSSL.
  const auto md5 = auth::test::run_process(
      {"sh", "-c", "cut -d' ' -f1 \"$0\" | base64 -d | md5sum", (dir_ / "adbkey.pub").string()});
  ASSERT_EQ(md5.exit_code, 0);
  ASSERT_GE(md5.out.size(), 32u) << md5.out;
  std::string expected;
  for (std::size_t i = 0; i < 32; i += 2) {
    if (i != 0) expected += ':';
    expected += static_cast<char>(std::toupper(md5.out[i]));
    expected += static_cast<char>(std::toupper(md5.out[i + 1]));
  }
  EXPECT_EQ(PrivateKey::load(key_path).fingerprint(), expected);
}

}  // namespace
}  // namespace adbwire
