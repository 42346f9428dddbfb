// Fuzzes the label read from an APK's binary manifest and resources.arsc (services/apk_label):
// the input's first two bytes say how much of the rest is the manifest, the remainder is the
// table. Then the rest read whole as an APK through the range source (what a device's ranges
// give libzip). Any input gives the label (bounded) or a typed error; never a crash, an
// unbounded allocation or a read outside the input.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "services/apk_label.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::size_t split = std::min<std::size_t>((data[0] << 8 | data[1]), size - 2);
  const std::string_view rest(reinterpret_cast<const char*>(data + 2), size - 2);
  adbwire::detail::Failure failure;
  const std::string label =
      adbwire::detail::label_from_resources(rest.substr(0, split), rest.substr(split), failure);
  if (label.size() > adbwire::detail::kMaxLabelBytes) std::abort();
  if (failure && failure.code != adbwire::make_error_code(adbwire::errc::parse_error) &&
      failure.code != adbwire::make_error_code(adbwire::errc::not_found)) {
    std::abort();
  }
  adbwire::detail::Failure archive_failure;
  const std::string archive_label = adbwire::detail::apk_label(
      rest.size(),
      [&](std::uint64_t offset, std::span<std::uint8_t> into, adbwire::detail::Failure&) {
        if (offset > rest.size() || into.size() > rest.size() - offset) std::abort();
        std::memcpy(into.data(), rest.data() + offset, into.size());
        return true;
      },
      archive_failure);
  if (archive_label.size() > adbwire::detail::kMaxLabelBytes) std::abort();
  if (archive_failure &&
      archive_failure.code != adbwire::make_error_code(adbwire::errc::parse_error) &&
      archive_failure.code != adbwire::make_error_code(adbwire::errc::not_found) &&
      archive_failure.code != adbwire::make_error_code(adbwire::errc::limit_exceeded)) {
    std::abort();
  }
  return 0;
}
