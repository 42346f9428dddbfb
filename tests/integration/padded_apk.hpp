// A large APK for tests of reading only what a label needs: a copy of a real one (aapt's, from
// tests/data/apk) with a stored entry of `padding` zero bytes added, as an app's big uncompressed
// asset sits between its manifest and its central directory.
#pragma once

#include <zip.h>

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <vector>

namespace adbwire::test {

inline void pad_apk(const std::filesystem::path& from, const std::filesystem::path& to,
                    std::uint64_t padding) {
  std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing);
  int code = 0;
  zip_t* archive = zip_open(to.c_str(), 0, &code);
  if (archive == nullptr) throw std::runtime_error("libzip cannot open " + to.string());
  const std::vector<char> zeros(padding, '\0');
  zip_source_t* source = zip_source_buffer(archive, zeros.data(), zeros.size(), 0);
  const zip_int64_t index =
      source == nullptr ? -1 : zip_file_add(archive, "assets/padding.bin", source, 0);
  if (index < 0 ||
      zip_set_file_compression(archive, static_cast<zip_uint64_t>(index), ZIP_CM_STORE, 0) != 0 ||
      zip_close(archive) != 0) {
    if (index < 0 && source != nullptr) zip_source_free(source);
    zip_discard(archive);
    throw std::runtime_error("libzip cannot pad " + to.string());
  }
}

}  // namespace adbwire::test
