// Files adbwire writes for itself: private folders and files, never through a planted link.
#include "base/private_files.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "integration/temp_dir.hpp"

namespace adbwire::detail {
namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

mode_t mode_of(const fs::path& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st.st_mode;
}

TEST(PrivateFolder, IsCreated0700WithItsParents) {
  test::TempDir temp;
  Failure failure;
  const FolderFd folder = open_private_folder(temp.path() / "a/b", FolderTrust::own, failure);
  ASSERT_TRUE(folder) << failure.detail;
  EXPECT_EQ(mode_of(temp.path() / "a/b") & 07777, 0700u);
}

TEST(PrivateFolder, ALinkIsRefusedNeverFollowed) {
  test::TempDir temp;
  fs::create_directories(temp.path() / "target");
  fs::create_directory_symlink(temp.path() / "target", temp.path() / "link");
  Failure failure;
  EXPECT_FALSE(open_private_folder(temp.path() / "link", FolderTrust::chosen, failure));
  EXPECT_EQ(failure.code, errc::permission_denied);
  EXPECT_NE(failure.detail.find("is a symbolic link"), std::string::npos) << failure.detail;
}

TEST(PrivateFolder, ModesOpenToOthersAreRefusedAsTrustSays) {
  test::TempDir temp;
  const fs::path folder = temp.path() / "f";
  fs::create_directories(folder);
  ::chmod(folder.c_str(), 0755);
  Failure failure;
  EXPECT_FALSE(open_private_folder(folder, FolderTrust::own, failure));
  EXPECT_NE(failure.detail.find("mode 0755"), std::string::npos) << failure.detail;
  failure = {};
  EXPECT_TRUE(open_private_folder(folder, FolderTrust::chosen, failure)) << failure.detail;
  ::chmod(folder.c_str(), 0775);
  EXPECT_FALSE(open_private_folder(folder, FolderTrust::chosen, failure));
  EXPECT_NE(failure.detail.find("others may write there"), std::string::npos) << failure.detail;
}

// Needs root (as CI runs): only root can make a folder that belongs to another user.
TEST(PrivateFolder, AFolderOfAnotherUserIsRefused) {
  ASSERT_EQ(::geteuid(), 0u) << "this test makes a folder owned by another user: run it as root";
  test::TempDir temp;
  const fs::path folder = temp.path() / "theirs";
  fs::create_directories(folder);
  ::chmod(folder.c_str(), 0700);
  ASSERT_EQ(::chown(folder.c_str(), 65534, 65534), 0);
  Failure failure;
  EXPECT_FALSE(open_private_folder(folder, FolderTrust::chosen, failure));
  EXPECT_EQ(failure.code, errc::permission_denied);
  EXPECT_NE(failure.detail.find("belongs to another user (uid 65534)"), std::string::npos)
      << failure.detail;
}

TEST(PrivateFile, IsWrittenWhole0600AndReplacesAPlantedLink) {
  test::TempDir temp;
  std::ofstream(temp.path() / "victim") << "victim";
  fs::create_symlink(temp.path() / "victim", temp.path() / "out.txt");
  Failure failure;
  const FolderFd folder = open_private_folder(temp.path(), FolderTrust::chosen, failure);
  ASSERT_TRUE(folder) << failure.detail;
  ASSERT_TRUE(write_private_file(folder.get(), "out.txt", "secret screen text", failure))
      << failure.detail;
  EXPECT_EQ(read_file(temp.path() / "victim"), "victim");
  EXPECT_EQ(read_file(temp.path() / "out.txt"), "secret screen text");
  EXPECT_TRUE(S_ISREG(mode_of(temp.path() / "out.txt")));
  EXPECT_EQ(mode_of(temp.path() / "out.txt") & 07777, 0600u);
  // No temporary left beside it.
  std::size_t count = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(temp.path())) ++count;
  EXPECT_EQ(count, 2u);
}

TEST(PrivateFile, AStreamedFileRefusesALinkAtItsName) {
  test::TempDir temp;
  std::ofstream(temp.path() / "victim") << "victim";
  fs::create_symlink(temp.path() / "victim", temp.path() / "rec.pcapng");
  Failure failure;
  EXPECT_EQ(create_private_file(temp.path() / "rec.pcapng", failure), -1);
  EXPECT_EQ(failure.code, errc::permission_denied);
  EXPECT_EQ(read_file(temp.path() / "victim"), "victim");
  failure = {};
  const int fd = create_private_file(temp.path() / "new.pcapng", failure);
  ASSERT_GE(fd, 0) << failure.detail;
  ::close(fd);
  EXPECT_EQ(mode_of(temp.path() / "new.pcapng") & 07777, 0600u);
}

TEST(RuntimeFolder, IsPrivateAndRefusedWhenOpenToOthers) {
  test::TempDir runtime;
  const char* old = std::getenv("XDG_RUNTIME_DIR");
  const std::string saved = old ? old : "";
  ::setenv("XDG_RUNTIME_DIR", runtime.path().c_str(), 1);
  Failure failure;
  const fs::path folder = private_runtime_folder(failure);
  EXPECT_EQ(folder, runtime.path() / "adbwire") << failure.detail;
  EXPECT_EQ(mode_of(folder) & 07777, 0700u);
  ::chmod(folder.c_str(), 0711);
  failure = {};
  EXPECT_TRUE(private_runtime_folder(failure).empty());
  EXPECT_NE(failure.detail.find("XDG_RUNTIME_DIR"), std::string::npos) << failure.detail;
  if (old) {
    ::setenv("XDG_RUNTIME_DIR", saved.c_str(), 1);
  } else {
    ::unsetenv("XDG_RUNTIME_DIR");
  }
}

}  // namespace
}  // namespace adbwire::detail
