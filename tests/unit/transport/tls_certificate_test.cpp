// ADB's TLS names for keys, checked by an independent decoder: the `openssl` command computes
// the SHA-256 of the key's SubjectPublicKeyInfo (AOSP's CA-list CN) and reads our client
// certificate's fields, so an error shared by adbwire's host and its virtual device (which
// use the same code) cannot pass unnoticed.
#include "transport/tls_certificate.hpp"

#include <gtest/gtest.h>
#include <openssl/pem.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

#include "adbwire/keys.hpp"
#include "auth/key_factory.hpp"
#include "integration/temp_dir.hpp"

namespace adbwire::transport {
namespace {

// stdout of a shell command; fails the test when it does not exit 0.
std::string run(const std::string& command) {
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) {
    ADD_FAILURE() << "cannot run " << command;
    return out;
  }
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
  EXPECT_EQ(::pclose(pipe), 0) << command << " (is `openssl` installed? apt-get install openssl)";
  return out;
}

class TlsNames : public ::testing::Test {
 protected:
  TlsNames() : key_(PrivateKey::generate()) { key_.save(dir_.path() / "adbkey", "test@host"); }

  EVP_PKEY* evp() const { return auth::KeyFactory::evp_key(key_); }

  test::TempDir dir_;
  PrivateKey key_;
};

TEST_F(TlsNames, KeyHashIsTheUpperCaseSha256OfTheSubjectPublicKeyInfo) {
  const std::string key_file = (dir_.path() / "adbkey").string();
  std::string expected =
      run("openssl pkey -in '" + key_file + "' -pubout -outform DER | openssl dgst -sha256 -r");
  expected = expected.substr(0, expected.find(' '));
  std::transform(expected.begin(), expected.end(), expected.begin(),
                 [](unsigned char c) { return std::toupper(c); });
  ASSERT_EQ(expected.size(), 64u);
  EXPECT_EQ(adb_key_hash(evp()), expected);
}

TEST_F(TlsNames, CaListEntryRoundTripsAndOtherNamesAreIgnored) {
  const std::string hash = adb_key_hash(evp());
  X509NamePtr name = adb_key_ca_name(hash);
  ASSERT_TRUE(name);
  EXPECT_EQ(hash_from_ca_name(name.get()), hash);
  X509NamePtr other(X509_NAME_new());
  X509_NAME_add_entry_by_txt(other.get(), "O", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("Some CA"), -1, -1, 0);
  X509_NAME_add_entry_by_txt(other.get(), "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(hash.c_str()), -1, -1, 0);
  EXPECT_EQ(hash_from_ca_name(other.get()), std::nullopt);
}

TEST_F(TlsNames, ClientCertificateHasAospsFields) {
  detail::Failure failure;
  X509Ptr certificate = self_signed_certificate(evp(), failure);
  ASSERT_TRUE(certificate) << failure.detail;
  const std::string pem_file = (dir_.path() / "cert.pem").string();
  {
    FILE* file = std::fopen(pem_file.c_str(), "w");
    ASSERT_NE(file, nullptr);
    PEM_write_X509(file, certificate.get());
    std::fclose(file);
  }
  const std::string text = run("openssl x509 -in '" + pem_file + "' -noout -text -nameopt oneline");
  EXPECT_NE(text.find("Version: 3"), std::string::npos) << text;
  EXPECT_NE(text.find("Serial Number: 1 (0x1)"), std::string::npos) << text;
  EXPECT_NE(text.find("Signature Algorithm: sha256WithRSAEncryption"), std::string::npos) << text;
  EXPECT_NE(text.find("Issuer: C = US, O = Android, CN = Adb"), std::string::npos) << text;
  EXPECT_NE(text.find("Subject: C = US, O = Android, CN = Adb"), std::string::npos) << text;
  EXPECT_NE(text.find("X509v3 Basic Constraints: critical\n                CA:TRUE"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Digital Signature, Certificate Sign, CRL Sign"), std::string::npos) << text;
  EXPECT_NE(text.find("X509v3 Subject Key Identifier"), std::string::npos) << text;
  // Its key is the adb key: the device compares nothing else.
  const std::string ours = run("openssl x509 -in '" + pem_file + "' -noout -pubkey");
  const std::string expected =
      run("openssl pkey -in '" + (dir_.path() / "adbkey").string() + "' -pubout");
  EXPECT_EQ(ours, expected);
}

}  // namespace
}  // namespace adbwire::transport
