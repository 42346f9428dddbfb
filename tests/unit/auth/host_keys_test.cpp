// load_host_keys() and its defaults, always in private temporary directories: the real
// ~/.android is never read or written (HOME is pointed at a temp dir where a test needs it).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <map>
#include <optional>

#include "adbwire/error.hpp"
#include "adbwire/error_detail.hpp"
#include "adbwire/keys.hpp"
#include "unit/auth/auth_test_support.hpp"

namespace adbwire {
namespace {

using auth::test::TempDir;

// Sets environment variables for one test and restores them afterwards.
class ScopedEnv {
 public:
  ScopedEnv() = default;
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  ~ScopedEnv() {
    for (const auto& [name, value] : saved_) {
      if (value) {
        ::setenv(name.c_str(), value->c_str(), 1);
      } else {
        ::unsetenv(name.c_str());
      }
    }
  }
  void set(const std::string& name, const std::optional<std::string>& value) {
    if (!saved_.contains(name)) {
      const char* old = std::getenv(name.c_str());
      saved_[name] = old ? std::optional<std::string>(old) : std::nullopt;
    }
    if (value) {
      ::setenv(name.c_str(), value->c_str(), 1);
    } else {
      ::unsetenv(name.c_str());
    }
  }

 private:
  std::map<std::string, std::optional<std::string>> saved_;
};

mode_t current_umask() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return mask;
}

class HostKeysTest : public ::testing::Test {
 protected:
  void SetUp() override {
    env_.set("ADB_VENDOR_KEYS", std::nullopt);
    env_.set("HOME", (dir_ / "home").string());
    options_.android_dir = dir_ / "android";
  }

  // Saves a fresh key at `path` and returns its public struct.
  static std::vector<std::uint8_t> make_key(const std::filesystem::path& path) {
    const PrivateKey key = PrivateKey::generate();
    key.save(path, "vendor@test");
    return key.android_public_key();
  }

  static std::vector<std::vector<std::uint8_t>> publics(const std::vector<PrivateKey>& keys) {
    std::vector<std::vector<std::uint8_t>> result;
    for (const auto& key : keys) result.push_back(key.android_public_key());
    return result;
  }

  TempDir dir_;
  ScopedEnv env_;
  KeyOptions options_;
};

TEST_F(HostKeysTest, GeneratesAdbkeyPairInAMissingDirectoryLikeAdb) {
  env_.set("LOGNAME", "tester");
  env_.set("HOSTNAME", "rig-7");
  const auto keys = load_host_keys(options_);
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_EQ(auth::test::file_mode(options_.android_dir), 0700u & ~current_umask());
  EXPECT_EQ(auth::test::list_dir(options_.android_dir),
            (std::vector<std::string>{"adbkey", "adbkey.pub"}));
  EXPECT_EQ(auth::test::file_mode(options_.android_dir / "adbkey"), 0600u);
  EXPECT_EQ(auth::test::read_file(options_.android_dir / "adbkey.pub"),
            keys[0].public_key_line("tester@rig-7"));

  // The second start reads the same key instead of making another.
  const auto again = load_host_keys(options_);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].android_public_key(), keys[0].android_public_key());
}

TEST_F(HostKeysTest, MissingKeyWithoutGenerationIsNotFoundAndCreatesNothing) {
  options_.generate_if_missing = false;
  std::error_code error;
  EXPECT_TRUE(load_host_keys(options_, error).empty());
  EXPECT_EQ(error, errc::not_found);
  EXPECT_FALSE(std::filesystem::exists(options_.android_dir));
  try {
    load_host_keys(options_);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("adb keygen"), std::string::npos) << e.what();
  }
}

TEST_F(HostKeysTest, DamagedAdbkeyIsAParseErrorNotReplaced) {
  std::filesystem::create_directory(options_.android_dir);
  auth::test::write_file(options_.android_dir / "adbkey", "damaged\n");
  std::error_code error;
  EXPECT_TRUE(load_host_keys(options_, error).empty());
  EXPECT_EQ(error, errc::parse_error);
  EXPECT_EQ(auth::test::read_file(options_.android_dir / "adbkey"), "damaged\n");
}

TEST_F(HostKeysTest, MissingParentOfKeyDirectoryIsNotFound) {
  options_.android_dir = dir_ / "no" / "such" / "dir";
  std::error_code error;
  load_host_keys(options_, error);
  EXPECT_EQ(error, errc::not_found);
  // The sentence comes with the code, as from the throwing call.
  EXPECT_NE(last_error_detail().find("cannot create the adb key directory " +
                                     options_.android_dir.string()),
            std::string::npos)
      << last_error_detail();
}

TEST_F(HostKeysTest, VendorKeysFollowAdbkeyInOrderEachOnce) {
  std::filesystem::create_directory(options_.android_dir);
  const auto user = make_key(options_.android_dir / "adbkey");
  const auto single = make_key(dir_ / "single.pem");
  const auto vendor_dir = dir_ / "vendor";
  std::filesystem::create_directory(vendor_dir);
  const auto b = make_key(vendor_dir / "b.adb_key");
  const auto a = make_key(vendor_dir / "a.adb_key");
  make_key(vendor_dir / "ignored.pem");  // not named *.adb_key, so adb ignores it
  std::filesystem::copy_file(options_.android_dir / "adbkey", vendor_dir / "dup.adb_key");
  auth::test::write_file(vendor_dir / "broken.adb_key", "garbage");
  std::filesystem::create_directory(vendor_dir / "nested");
  make_key(vendor_dir / "nested" / "deep.adb_key");

  options_.vendor_keys = {dir_ / "single.pem", dir_ / "missing.pem", vendor_dir,
                          dir_ / "single.pem"};
  const auto keys = load_host_keys(options_);
  EXPECT_EQ(publics(keys), (std::vector<std::vector<std::uint8_t>>{user, single, a, b}));
}

TEST_F(HostKeysTest, VendorKeysComeFromTheEnvironmentOnlyWhenOptionsHaveNone) {
  std::filesystem::create_directory(options_.android_dir);
  const auto user = make_key(options_.android_dir / "adbkey");
  const auto first = make_key(dir_ / "first.pem");
  const auto second = make_key(dir_ / "second.pem");
  env_.set("ADB_VENDOR_KEYS",
           ":" + (dir_ / "second.pem").string() + "::" + (dir_ / "first.pem").string() + ":");
  EXPECT_EQ(publics(load_host_keys(options_)),
            (std::vector<std::vector<std::uint8_t>>{user, second, first}));

  options_.vendor_keys = {dir_ / "first.pem"};
  EXPECT_EQ(publics(load_host_keys(options_)),
            (std::vector<std::vector<std::uint8_t>>{user, first}));
}

TEST_F(HostKeysTest, DefaultDirectoryIsHomeDotAndroid) {
  EXPECT_EQ(default_key_path(options_), options_.android_dir / "adbkey");
  EXPECT_EQ(default_key_path(KeyOptions{}), dir_ / "home" / ".android" / "adbkey");

  // ANDROID_USER_HOME is an SDK tools variable that adb ignores; so do we.
  env_.set("ANDROID_USER_HOME", (dir_ / "elsewhere").string());
  EXPECT_EQ(default_key_path(KeyOptions{}), dir_ / "home" / ".android" / "adbkey");

  std::filesystem::create_directory(dir_ / "home");
  const auto keys = load_host_keys(KeyOptions{});
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_TRUE(std::filesystem::is_regular_file(dir_ / "home" / ".android" / "adbkey"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "elsewhere"));
}

TEST_F(HostKeysTest, CommentPrefersLognameAndHostnameLikeAdb) {
  env_.set("LOGNAME", "alice");
  env_.set("HOSTNAME", "box");
  EXPECT_EQ(default_key_comment(), "alice@box");

  env_.set("LOGNAME", std::nullopt);
  env_.set("HOSTNAME", std::nullopt);
  const std::string comment = default_key_comment();
  const auto at = comment.find('@');
  ASSERT_NE(at, std::string::npos) << comment;
  EXPECT_GT(at, 0u) << comment;
  EXPECT_LT(at + 1, comment.size()) << comment;
  // With the variables unset the host part comes from the kernel's host name.
  const auto uname = auth::test::run_process({"uname", "-n"});
  ASSERT_EQ(uname.exit_code, 0);
  EXPECT_EQ(comment.substr(at + 1) + "\n", uname.out);
}

}  // namespace
}  // namespace adbwire
