// PrivateKey and PublicKey: generation, PEM files in both formats, the AUTH signature
// scheme (checked with OpenSSL's raw recovery, not with adbwire's own verifier alone),
// public key lines, and every error the header promises.
#include "adbwire/keys.hpp"

#include <gtest/gtest.h>

#include <array>

#include "adbwire/error.hpp"
#include "auth/android_pubkey.hpp"
#include "base/base64.hpp"
#include "unit/auth/auth_test_support.hpp"

namespace adbwire {
namespace {

using auth::test::TempDir;

// SHA-1's DER DigestInfo prefix (RFC 8017 §9.2 note 1); the token follows it.
constexpr std::array<std::uint8_t, 15> kSha1DigestInfo = {
    0x30, 0x21, 0x30, 0x09, 0x06, 0x05, 0x2b, 0x0e, 0x03, 0x02, 0x1a, 0x05, 0x00, 0x04, 0x14};

std::string encode(const std::vector<std::uint8_t>& bytes) { return detail::base64_encode(bytes); }

// Runs f and returns the adbwire::Error it throws (failing the test if it throws nothing).
template <typename F>
Error thrown_error(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "no adbwire::Error thrown";
  return Error(errc::cancelled, "nothing thrown");
}

class KeysTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { key_ = new PrivateKey(PrivateKey::generate()); }
  static void TearDownTestSuite() {
    delete key_;
    key_ = nullptr;
  }
  static const PrivateKey& key() { return *key_; }

  TempDir dir_;

 private:
  static PrivateKey* key_;
};
PrivateKey* KeysTest::key_ = nullptr;

TEST_F(KeysTest, GeneratesDistinct2048BitKeysWithExponent65537) {
  const auto encoded = key().android_public_key();
  ASSERT_EQ(encoded.size(), 524u);
  EXPECT_EQ(encoded[8 + 255] & 0x80, 0x80) << "modulus is not 2048 bits";
  EXPECT_EQ((std::vector<std::uint8_t>(encoded.end() - 4, encoded.end())),
            (std::vector<std::uint8_t>{0x01, 0x00, 0x01, 0x00}));
  EXPECT_NE(PrivateKey::generate().android_public_key(), encoded);
}

TEST_F(KeysTest, SignatureIsPkcs1Sha1DigestInfoOverTheRawToken) {
  const auto token = auth::test::random_bytes(20);
  const auto signature = key().sign_token(token);
  ASSERT_EQ(signature.size(), 256u);

  const auto path = dir_ / "adbkey";
  key().save(path, "t@h");
  const auto openssl_key = auth::test::openssl_read_private_key(path);
  std::vector<std::uint8_t> expected(kSha1DigestInfo.begin(), kSha1DigestInfo.end());
  expected.insert(expected.end(), token.begin(), token.end());
  EXPECT_EQ(auth::test::openssl_recover(openssl_key.get(), signature), expected);
  // PKCS#1 v1.5 is deterministic: the same token gives the same signature.
  EXPECT_EQ(key().sign_token(token), signature);
}

TEST_F(KeysTest, SignTokenRejectsTokensThatAreNot20Bytes) {
  for (std::size_t size : {0u, 19u, 21u, 32u}) {
    const auto token = auth::test::random_bytes(size);
    const Error e = thrown_error([&] { key().sign_token(token); });
    EXPECT_EQ(e.code(), errc::invalid_argument) << size;
    EXPECT_NE(std::string(e.what()).find(std::to_string(size)), std::string::npos) << e.what();
  }
}

TEST_F(KeysTest, PublicKeyVerifiesOnlyTheMatchingTokenAndSignature) {
  const PublicKey pub = PublicKey::parse(key().public_key_line("me@box"));
  const auto token = auth::test::random_bytes(20);
  auto signature = key().sign_token(token);
  EXPECT_TRUE(pub.verify_token(token, signature));

  auto other_token = token;
  other_token[7] ^= 1;
  EXPECT_FALSE(pub.verify_token(other_token, signature));
  auto damaged = signature;
  damaged[100] ^= 0x40;
  EXPECT_FALSE(pub.verify_token(token, damaged));
  EXPECT_FALSE(pub.verify_token(std::span(token).first(19), signature));
  EXPECT_FALSE(pub.verify_token(token, std::span(signature).first(255)));
  EXPECT_FALSE(pub.verify_token(token, std::vector<std::uint8_t>(256, 0)));

  const PrivateKey other = PrivateKey::generate();
  EXPECT_FALSE(pub.verify_token(token, other.sign_token(token)));
}

TEST_F(KeysTest, PublicKeyLineIsBase64OfTheStructThenComment) {
  const std::string line = key().public_key_line("alice@laptop");
  const std::string encoded = encode(key().android_public_key());
  EXPECT_EQ(encoded.size(), 700u);
  EXPECT_EQ(line, encoded + " alice@laptop");
  EXPECT_EQ(line.find('\n'), std::string::npos);
}

TEST_F(KeysTest, ParseAcceptsWhatAdbAndAdbdPass) {
  const std::string encoded = encode(key().android_public_key());
  const auto expected = key().android_public_key();
  for (const std::string& line :
       {encoded, encoded + " user@host", encoded + " user@host\n", encoded + " user@host" + '\0',
        encoded + "\tcomment with spaces", encoded + "\r\n"}) {
    std::error_code error;
    const PublicKey pub = PublicKey::parse(line, error);
    ASSERT_FALSE(error) << error.message();
    EXPECT_EQ(pub.android_public_key(), expected);
    EXPECT_EQ(pub.fingerprint(), key().fingerprint());
  }
}

TEST_F(KeysTest, ParseReportsMalformedLines) {
  const auto good = key().android_public_key();
  auto short_struct = good;
  short_struct.resize(523);
  auto bad_words = good;
  bad_words[0] = 32;
  const std::string encoded = encode(good);
  for (const std::string& line :
       {std::string(), std::string(" user@host"), std::string("garbage"),
        encoded.substr(0, 699) + " x", "!" + encoded.substr(1), encode(short_struct),
        encode(bad_words), encode(std::vector<std::uint8_t>(524, 0))}) {
    std::error_code error;
    const PublicKey pub = PublicKey::parse(line, error);
    EXPECT_EQ(error, errc::parse_error) << line;
    EXPECT_FALSE(pub.verify_token(auth::test::random_bytes(20), std::vector<std::uint8_t>(256)));
    EXPECT_EQ(thrown_error([&] { PublicKey::parse(line); }).code(), errc::parse_error);
  }
}

TEST_F(KeysTest, SaveWritesPkcs8KeyMode0600AndTheExactPubLine) {
  const auto path = dir_ / "adbkey";
  key().save(path, "bob@desk");
  EXPECT_EQ(auth::test::file_mode(path), 0600u);
  const std::string pem = auth::test::read_file(path);
  EXPECT_TRUE(pem.starts_with("-----BEGIN PRIVATE KEY-----\n")) << pem.substr(0, 40);
  EXPECT_EQ(auth::test::read_file(dir_ / "adbkey.pub"), key().public_key_line("bob@desk"));
  EXPECT_EQ(auth::test::list_dir(dir_.path()), (std::vector<std::string>{"adbkey", "adbkey.pub"}));

  const PrivateKey loaded = PrivateKey::load(path);
  EXPECT_EQ(loaded.android_public_key(), key().android_public_key());
  const auto token = auth::test::random_bytes(20);
  EXPECT_EQ(loaded.sign_token(token), key().sign_token(token));
}

TEST_F(KeysTest, SaveReplacesAnExistingPairAndTightensTheMode) {
  const auto path = dir_ / "adbkey";
  auth::test::write_file(path, "old");
  ::chmod(path.c_str(), 0644);
  auth::test::write_file(dir_ / "adbkey.pub", "old");
  key().save(path, "c@d");
  EXPECT_EQ(auth::test::file_mode(path), 0600u);
  EXPECT_EQ(PrivateKey::load(path).android_public_key(), key().android_public_key());
  EXPECT_EQ(auth::test::read_file(dir_ / "adbkey.pub"), key().public_key_line("c@d"));
  EXPECT_EQ(auth::test::list_dir(dir_.path()), (std::vector<std::string>{"adbkey", "adbkey.pub"}));
}

TEST_F(KeysTest, SaveIntoAMissingDirectoryIsNotFoundAndLeavesNothing) {
  const auto path = dir_ / "missing" / "adbkey";
  std::error_code error;
  key().save(path, "a@b", error);
  EXPECT_EQ(error, errc::not_found);
  const Error e = thrown_error([&] { key().save(path, "a@b"); });
  EXPECT_EQ(e.code(), errc::not_found);
  EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
  EXPECT_TRUE(auth::test::list_dir(dir_.path()).empty());
}

TEST_F(KeysTest, SaveRefusesCommentsThatWouldBreakAdbKeys) {
  for (const std::string_view comment :
       {std::string_view("a\nb"), std::string_view("a\rb"), std::string_view("a\0b", 3)}) {
    std::error_code error;
    key().save(dir_ / "adbkey", comment, error);
    EXPECT_EQ(error, errc::invalid_argument);
  }
  EXPECT_TRUE(auth::test::list_dir(dir_.path()).empty());
}

TEST_F(KeysTest, LoadsTraditionalAndPkcs8PemFromOpenSsl) {
  const auto openssl_key = auth::test::openssl_generate_rsa(2048);
  const auto expected = auth::encode_android_public_key(*openssl_key);
  ASSERT_EQ(expected.size(), 524u);
  for (const auto kind : {auth::test::PemKind::traditional, auth::test::PemKind::pkcs8}) {
    const std::string pem = auth::test::openssl_pem(openssl_key.get(), kind);
    EXPECT_EQ(pem.starts_with("-----BEGIN RSA PRIVATE KEY-----"),
              kind == auth::test::PemKind::traditional);
    auth::test::write_file(dir_ / "key.pem", pem);
    EXPECT_EQ(PrivateKey::load(dir_ / "key.pem").android_public_key(), expected);
  }
}

TEST_F(KeysTest, LoadErrorsNameThePathAndTheProblem) {
  struct Case {
    std::string name;
    std::string contents;
    errc expected;
    std::string says;
  };
  const auto ec_key = auth::test::openssl_generate_ec();
  const auto small_key = auth::test::openssl_generate_rsa(1024);
  const auto rsa_key = auth::test::openssl_generate_rsa(2048);
  const Case cases[] = {
      {"garbage.pem", "not a key at all\n", errc::parse_error, "PEM"},
      {"empty.pem", "", errc::parse_error, "PEM"},
      {"public.pem", key().public_key_line("x@y"), errc::parse_error, "PEM"},
      {"ec.pem", auth::test::openssl_pem(ec_key.get(), auth::test::PemKind::pkcs8),
       errc::parse_error, "RSA"},
      {"small.pem", auth::test::openssl_pem(small_key.get(), auth::test::PemKind::pkcs8),
       errc::parse_error, "1024-bit"},
      {"encrypted.pem", auth::test::openssl_pem(rsa_key.get(), auth::test::PemKind::encrypted),
       errc::parse_error, "encrypted"},
  };
  for (const auto& c : cases) {
    const auto path = dir_ / c.name;
    auth::test::write_file(path, c.contents);
    std::error_code error;
    const PrivateKey empty = PrivateKey::load(path, error);
    EXPECT_EQ(error, c.expected) << c.name;
    EXPECT_EQ(thrown_error([&] { empty.android_public_key(); }).code(), errc::invalid_argument);
    const Error e = thrown_error([&] { PrivateKey::load(path); });
    EXPECT_EQ(e.code(), c.expected) << c.name;
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos) << e.what();
  }
}

TEST_F(KeysTest, LoadOfMissingFileOrDirectory) {
  const auto missing = dir_ / "nope" / "adbkey";
  std::error_code error;
  PrivateKey::load(missing, error);
  EXPECT_EQ(error, errc::not_found);
  const Error e = thrown_error([&] { PrivateKey::load(missing); });
  EXPECT_EQ(e.code(), errc::not_found);
  EXPECT_NE(std::string(e.what()).find(missing.string()), std::string::npos) << e.what();

  PrivateKey::load(dir_.path(), error);
  EXPECT_EQ(error, errc::io_error);
}

TEST_F(KeysTest, MovedFromKeysAreEmptyNotDangling) {
  PrivateKey a = PrivateKey::generate();
  const auto encoded = a.android_public_key();
  PrivateKey b = std::move(a);
  EXPECT_EQ(b.android_public_key(), encoded);
  EXPECT_EQ(thrown_error([&] { a.fingerprint(); }).code(), errc::invalid_argument);
}

}  // namespace
}  // namespace adbwire
