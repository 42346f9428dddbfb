#include "unit/auth/auth_test_support.hpp"

#include <fcntl.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>

extern char** environ;

namespace adbwire::auth::test {

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "adbwire-auth-XXXXXX").string();
  if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const std::filesystem::path& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << contents;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

std::vector<std::string> list_dir(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

unsigned file_mode(const std::filesystem::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw std::runtime_error("cannot stat " + path.string());
  return st.st_mode & 07777;
}

ProcessResult run_process(const std::vector<std::string>& argv,
                          const std::vector<std::string>& env_overrides) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    const bool replaced =
        std::any_of(env_overrides.begin(), env_overrides.end(),
                    [&](const std::string& o) { return o.starts_with(name + "="); });
    if (!replaced) env.push_back(entry);
  }
  env.insert(env.end(), env_overrides.begin(), env_overrides.end());

  std::vector<char*> argv_c;
  for (const auto& a : argv) argv_c.push_back(const_cast<char*>(a.c_str()));
  argv_c.push_back(nullptr);
  std::vector<char*> env_c;
  for (const auto& e : env) env_c.push_back(const_cast<char*>(e.c_str()));
  env_c.push_back(nullptr);

  int out_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  pid_t pid = -1;
  const int spawn_error =
      ::posix_spawnp(&pid, argv_c[0], &actions, nullptr, argv_c.data(), env_c.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(out_pipe[1]);

  ProcessResult result;
  if (spawn_error == 0) {
    char buffer[4096];
    for (ssize_t n; (n = ::read(out_pipe[0], buffer, sizeof buffer)) != 0;) {
      if (n < 0) {
        if (errno == EINTR) continue;
        break;
      }
      result.out.append(buffer, static_cast<std::size_t>(n));
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  ::close(out_pipe[0]);
  return result;
}

std::filesystem::path find_adb() {
  const char* path_env = std::getenv("PATH");
  std::string dirs = path_env ? path_env : "/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const auto colon = dirs.find(':', start);
    const std::string dir = dirs.substr(start, colon - start);
    const std::filesystem::path candidate = std::filesystem::path(dir.empty() ? "." : dir) / "adb";
    if (::access(candidate.c_str(), X_OK) == 0) return std::filesystem::absolute(candidate);
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return {};
}

namespace {

struct BioDeleter {
  void operator()(BIO* bio) const { BIO_free_all(bio); }
};
using TestBio = std::unique_ptr<BIO, BioDeleter>;

struct CtxDeleter {
  void operator()(EVP_PKEY_CTX* ctx) const { EVP_PKEY_CTX_free(ctx); }
};
using TestCtx = std::unique_ptr<EVP_PKEY_CTX, CtxDeleter>;

}  // namespace

TestPkey openssl_read_private_key(const std::filesystem::path& pem_file) {
  const std::string pem = read_file(pem_file);
  TestBio bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  TestPkey key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  if (!key) throw std::runtime_error("OpenSSL cannot read " + pem_file.string());
  return key;
}

TestPkey openssl_generate_rsa(std::size_t bits) {
  TestPkey key(EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", bits));
  if (!key) throw std::runtime_error("OpenSSL RSA keygen failed");
  return key;
}

TestPkey openssl_generate_ec() {
  TestPkey key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
  if (!key) throw std::runtime_error("OpenSSL EC keygen failed");
  return key;
}

std::string openssl_pem(EVP_PKEY* key, PemKind kind) {
  TestBio bio(BIO_new(BIO_s_mem()));
  int ok = 0;
  switch (kind) {
    case PemKind::pkcs8:
      ok = PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr);
      break;
    case PemKind::traditional:
      ok = PEM_write_bio_PrivateKey_traditional(bio.get(), key, nullptr, nullptr, 0, nullptr,
                                                nullptr);
      break;
    case PemKind::encrypted: {
      static char passphrase[] = "secret";
      ok = PEM_write_bio_PKCS8PrivateKey(bio.get(), key, EVP_aes_128_cbc(), passphrase,
                                         sizeof passphrase - 1, nullptr, nullptr);
      break;
    }
  }
  if (ok != 1) throw std::runtime_error("OpenSSL PEM write failed");
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(size));
}

std::vector<std::uint8_t> openssl_recover(EVP_PKEY* key, const std::vector<std::uint8_t>& sig) {
  TestCtx ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, key, nullptr));
  std::vector<std::uint8_t> out(EVP_PKEY_get_size(key));
  std::size_t size = out.size();
  if (!ctx || EVP_PKEY_verify_recover_init(ctx.get()) != 1 ||
      EVP_PKEY_CTX_set_rsa_padding(ctx.get(), RSA_PKCS1_PADDING) != 1 ||
      EVP_PKEY_verify_recover(ctx.get(), out.data(), &size, sig.data(), sig.size()) != 1) {
    return {};
  }
  out.resize(size);
  return out;
}

std::vector<std::uint8_t> random_bytes(std::size_t count) {
  std::vector<std::uint8_t> bytes(count);
  if (RAND_bytes(bytes.data(), static_cast<int>(count)) != 1) {
    throw std::runtime_error("RAND_bytes failed");
  }
  return bytes;
}

}  // namespace adbwire::auth::test
