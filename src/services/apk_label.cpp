#include "services/apk_label.hpp"

#include <android-base/logging.h>
#include <android/log.h>
#include <androidfw/LoadedArsc.h>
#include <androidfw/ResourceTypes.h>
#include <androidfw/ResourceUtils.h>
#include <utils/String8.h>
#include <zip.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

namespace adbwire::detail {
namespace {

// android:label's resource id in every framework (android.R.attr.label).
constexpr std::uint32_t kLabelAttr = 0x01010001;
constexpr char16_t kApplication[] = u"application";
constexpr char16_t kLabel[] = u"label";
constexpr char16_t kAndroidNs[] = u"http://schemas.android.com/apk/res/android";
// References followed from the label to its string (Android's own limit is 20).
constexpr int kMaxReferenceHops = 20;

// libandroidfw reports a malformed chunk through liblog and libbase's LOG, which on a host write
// to stderr: the file's text would reach the terminal. The reason is ours to say, in the Failure.
void silence_logs() {
  static std::once_flag once;
  std::call_once(once, [] {
    __android_log_set_logger([](const __android_logger_data*, const char*) {});
    android::base::SetLogger([](android::base::LogId, android::base::LogSeverity, const char*,
                                const char*, unsigned int, const char*) {});
  });
}

bool equals(const char16_t* text, std::size_t length, std::u16string_view expected) {
  return text != nullptr && std::u16string_view(text, length) == expected;
}

std::string utf8(const char16_t* text, std::size_t length) {
  if (text == nullptr) return {};
  const android::String8 converted(text, length);
  std::string out(converted.string(), converted.size());
  if (out.size() > kMaxLabelBytes) out.resize(kMaxLabelBytes);
  return out;
}

// The index of <application>'s android:label (by resource id, else by name in the android
// namespace, as aapt without a framework leaves it), or -1.
ssize_t label_attribute(const android::ResXMLTree& tree) {
  for (std::size_t i = 0; i < tree.getAttributeCount(); ++i) {
    if (tree.getAttributeNameResID(i) == kLabelAttr) return static_cast<ssize_t>(i);
  }
  for (std::size_t i = 0; i < tree.getAttributeCount(); ++i) {
    std::size_t name_length = 0;
    std::size_t ns_length = 0;
    const char16_t* name = tree.getAttributeName(i, &name_length);
    const char16_t* ns = tree.getAttributeNamespace(i, &ns_length);
    if (equals(name, name_length, kLabel) && equals(ns, ns_length, kAndroidNs))
      return static_cast<ssize_t>(i);
  }
  return -1;
}

// The entry of resid in the type chunk whose configuration suits an English-speaking phone best
// (the default resources when nothing more specific is given, as PackageManager picks), or null.
const android::Res_value* find_value(const android::LoadedArsc& table, std::uint32_t resid) {
  const std::uint8_t type_id = android::get_type_id(resid);
  const android::LoadedPackage* package = table.GetPackageById(android::get_package_id(resid));
  if (package == nullptr || type_id == 0) return nullptr;
  const android::TypeSpec* spec = package->GetTypeSpecByTypeIndex(type_id - 1);
  if (spec == nullptr) return nullptr;
  android::ResTable_config wanted{};
  wanted.packLanguage("en");
  const android::ResTable_entry* best = nullptr;
  android::ResTable_config best_config{};
  for (std::size_t i = 0; i < spec->type_count; ++i) {
    const android::ResTable_type* type = spec->types[i];
    android::ResTable_config config;
    config.copyFromDtoH(type->config);
    if (!config.match(wanted) || (best != nullptr && !config.isBetterThan(best_config, &wanted)))
      continue;
    const android::ResTable_entry* entry =
        android::LoadedPackage::GetEntry(type, android::get_entry_id(resid));
    if (entry == nullptr) continue;
    best = entry;
    best_config = config;
  }
  // A bag (style, plural) is no single value; the table's loader checked the entry's bounds.
  if (best == nullptr || (dtohs(best->flags) & android::ResTable_entry::FLAG_COMPLEX) != 0)
    return nullptr;
  return reinterpret_cast<const android::Res_value*>(reinterpret_cast<const std::uint8_t*>(best) +
                                                     dtohs(best->size));
}

std::string resolve(std::uint32_t reference, std::string_view arsc, Failure& failure) {
  if (arsc.empty()) {
    failure.set(errc::not_found, "the label is a resource but the APK has no resources.arsc");
    return {};
  }
  // The loader reserves room for as many packages as the header announces before it checks
  // them: a count no table of this size can hold would have a device choose our allocation.
  android::ResTable_header header{};
  if (arsc.size() >= sizeof header) std::memcpy(&header, arsc.data(), sizeof header);
  if (dtohl(header.packageCount) > arsc.size() / sizeof(android::ResTable_package)) {
    failure.set(errc::parse_error,
                "resources.arsc announces " + std::to_string(dtohl(header.packageCount)) +
                    " packages, more than its " + std::to_string(arsc.size()) + " bytes hold");
    return {};
  }
  std::unique_ptr<const android::LoadedArsc> table;
  try {
    table = android::LoadedArsc::Load(android::StringPiece(arsc.data(), arsc.size()));
  } catch (const std::bad_alloc&) {
    // The loader's own allocation failed: the verdict of a rejected table, below.
  }
  if (!table) {
    failure.set(errc::parse_error, "resources.arsc is malformed (libandroidfw rejected it)");
    return {};
  }
  std::uint32_t resid = reference;
  for (int hop = 0;; ++hop) {
    const android::Res_value* value = find_value(*table, resid);
    if (value == nullptr) {
      char id[16];
      std::snprintf(id, sizeof id, "0x%08x", resid);
      failure.set(errc::not_found, std::string("resources.arsc has no value for resource ") + id +
                                       ", the app's label");
      return {};
    }
    if (value->dataType == android::Res_value::TYPE_STRING) {
      std::size_t length = 0;
      const char16_t* text = table->GetStringPool()->stringAt(dtohl(value->data), &length);
      if (text == nullptr) break;
      return utf8(text, length);
    }
    if (value->dataType != android::Res_value::TYPE_REFERENCE) break;
    if (hop == kMaxReferenceHops) {
      failure.set(errc::parse_error, "the label's resource references go round in a loop");
      return {};
    }
    resid = dtohl(value->data);
  }
  failure.set(errc::parse_error, "the label's resource is not a string of the table");
  return {};
}

}  // namespace

std::string label_from_resources(std::string_view manifest, std::string_view arsc,
                                 Failure& failure) {
  silence_logs();
  android::ResXMLTree tree;
  if (tree.setTo(manifest.data(), manifest.size(), true) != android::NO_ERROR) {
    failure.set(errc::parse_error,
                "AndroidManifest.xml is not valid binary XML (libandroidfw rejected it)");
    return {};
  }
  int depth = 0;
  for (;;) {
    const android::ResXMLParser::event_code_t code = tree.next();
    if (code == android::ResXMLParser::END_DOCUMENT || code == android::ResXMLParser::BAD_DOCUMENT)
      break;
    if (code == android::ResXMLParser::END_TAG) --depth;
    if (code != android::ResXMLParser::START_TAG) continue;
    ++depth;
    std::size_t length = 0;
    const char16_t* name = tree.getElementName(&length);
    if (depth != 2 || !equals(name, length, kApplication)) continue;
    const ssize_t index = label_attribute(tree);
    if (index < 0) return {};
    android::Res_value value;
    if (tree.getAttributeValue(static_cast<std::size_t>(index), &value) < 0) break;
    if (value.dataType == android::Res_value::TYPE_STRING) {
      std::size_t text_length = 0;
      const char16_t* text =
          tree.getAttributeStringValue(static_cast<std::size_t>(index), &text_length);
      if (text != nullptr) return utf8(text, text_length);
      break;
    }
    if (value.dataType == android::Res_value::TYPE_REFERENCE)
      return resolve(value.data, arsc, failure);
    failure.set(errc::parse_error,
                "the manifest's android:label is neither a string nor a "
                "reference to one");
    return {};
  }
  failure.set(errc::parse_error, "AndroidManifest.xml has no <application> element");
  return {};
}

namespace {

struct ZipCloser {
  void operator()(zip_t* archive) const { zip_discard(archive); }
};
struct ZipFileCloser {
  void operator()(zip_file_t* file) const { zip_fclose(file); }
};

// Reads the entry `name` whole, at most `bound` bytes; "" when the entry is absent and optional.
std::string read_entry(zip_t* archive, const char* name, std::size_t bound, bool required,
                       Failure& failure) {
  zip_stat_t stat;
  zip_stat_init(&stat);
  if (zip_stat(archive, name, 0, &stat) != 0 || (stat.valid & ZIP_STAT_SIZE) == 0) {
    if (required) failure.set(errc::parse_error, std::string("the APK has no ") + name);
    return {};
  }
  if (stat.size > bound) {
    failure.set(errc::limit_exceeded, std::string("the APK's ") + name + " holds " +
                                          std::to_string(stat.size) + " bytes, past the " +
                                          std::to_string(bound) + " adbwire reads");
    return {};
  }
  const std::unique_ptr<zip_file_t, ZipFileCloser> file(zip_fopen(archive, name, 0));
  std::string bytes(static_cast<std::size_t>(stat.size), '\0');
  // One byte more than announced is asked for, so an entry longer than its size shows.
  char extra = 0;
  if (!file ||
      zip_fread(file.get(), bytes.data(), stat.size) != static_cast<zip_int64_t>(stat.size) ||
      zip_fread(file.get(), &extra, 1) != 0) {
    failure.set(errc::parse_error, std::string("the APK's ") + name +
                                       " cannot be read (corrupt data or a wrong checksum)");
    return {};
  }
  return bytes;
}

// The two entries of an open archive, and the label they give.
std::string label_of_archive(zip_t* archive, Failure& failure) {
  const std::string manifest =
      read_entry(archive, "AndroidManifest.xml", kMaxManifestBytes, true, failure);
  if (failure) return {};
  const std::string arsc = read_entry(archive, "resources.arsc", kMaxArscBytes, false, failure);
  if (failure) return {};
  return label_from_resources(manifest, arsc, failure);
}

// A read-only, seekable libzip source whose bytes come from an ApkRangeReader.
struct RangeSource {
  std::uint64_t size = 0;
  std::uint64_t position = 0;
  const ApkRangeReader* read = nullptr;
  Failure failure;  // the reader's, kept so it is the one reported
  zip_error_t error{};
};

zip_int64_t range_source(void* state, void* data, zip_uint64_t length, zip_source_cmd_t command) {
  auto& source = *static_cast<RangeSource*>(state);
  switch (command) {
    case ZIP_SOURCE_OPEN:
      source.position = 0;
      return 0;
    case ZIP_SOURCE_READ: {
      const std::uint64_t n = std::min<std::uint64_t>(length, source.size - source.position);
      if (n == 0) return 0;
      if (source.failure ||
          !(*source.read)(source.position,
                          std::span<std::uint8_t>(static_cast<std::uint8_t*>(data), n),
                          source.failure)) {
        zip_error_set(&source.error, ZIP_ER_READ, EIO);
        return -1;
      }
      source.position += n;
      return static_cast<zip_int64_t>(n);
    }
    case ZIP_SOURCE_CLOSE:
    case ZIP_SOURCE_FREE:
      return 0;
    case ZIP_SOURCE_STAT: {
      if (length < sizeof(zip_stat_t)) {
        zip_error_set(&source.error, ZIP_ER_INVAL, 0);
        return -1;
      }
      auto* stat = static_cast<zip_stat_t*>(data);
      zip_stat_init(stat);
      stat->size = source.size;
      stat->valid |= ZIP_STAT_SIZE;
      return sizeof(zip_stat_t);
    }
    case ZIP_SOURCE_ERROR:
      return zip_error_to_data(&source.error, data, length);
    case ZIP_SOURCE_SEEK: {
      const zip_int64_t to =
          zip_source_seek_compute_offset(source.position, source.size, data, length, &source.error);
      if (to < 0) return -1;
      source.position = static_cast<std::uint64_t>(to);
      return 0;
    }
    case ZIP_SOURCE_TELL:
      return static_cast<zip_int64_t>(source.position);
    case ZIP_SOURCE_SUPPORTS:
      return zip_source_make_command_bitmap(
          ZIP_SOURCE_OPEN, ZIP_SOURCE_READ, ZIP_SOURCE_CLOSE, ZIP_SOURCE_STAT, ZIP_SOURCE_ERROR,
          ZIP_SOURCE_FREE, ZIP_SOURCE_SEEK, ZIP_SOURCE_TELL, ZIP_SOURCE_SUPPORTS, -1);
    default:
      zip_error_set(&source.error, ZIP_ER_OPNOTSUPP, 0);
      return -1;
  }
}

std::uint64_t little_endian(const std::uint8_t* bytes, std::size_t width) {
  std::uint64_t value = 0;
  for (std::size_t i = width; i-- > 0;) value = value << 8 | bytes[i];
  return value;
}

// libzip allocates a record for every entry a ZIP64 end of central directory announces before it
// reads the directory, so the announcement is checked first. libzip tries every end record in the
// archive's last 65,577 bytes (the longest comment, the end record and the ZIP64 locator), and
// reads the ZIP64 record of each one a locator precedes: each of them is checked here.
bool directory_within_bounds(std::uint64_t size, const ApkRangeReader& read, Failure& failure) {
  constexpr std::size_t kEndBytes = 22;
  constexpr std::size_t kLocatorBytes = 20;
  constexpr std::size_t kEnd64Bytes = 56;
  constexpr std::uint64_t kWindow = 65535 + kEndBytes + kLocatorBytes;
  constexpr std::uint8_t kEnd[] = {'P', 'K', 5, 6};
  constexpr std::uint8_t kLocator[] = {'P', 'K', 6, 7};
  constexpr std::uint8_t kEnd64[] = {'P', 'K', 6, 6};
  std::vector<std::uint8_t> tail(static_cast<std::size_t>(std::min(size, kWindow)));
  if (tail.empty()) return true;
  if (!read(size - tail.size(), tail, failure)) return false;
  for (std::size_t at = kLocatorBytes; at + kEndBytes <= tail.size(); ++at) {
    if (std::memcmp(&tail[at], kEnd, sizeof kEnd) != 0 ||
        std::memcmp(&tail[at - kLocatorBytes], kLocator, sizeof kLocator) != 0)
      continue;
    const std::uint64_t end64 = little_endian(&tail[at - kLocatorBytes + 8], 8);
    if (end64 > size || size - end64 < kEnd64Bytes) continue;  // libzip cannot read it either
    std::array<std::uint8_t, kEnd64Bytes> record{};
    if (!read(end64, record, failure)) return false;
    if (std::memcmp(record.data(), kEnd64, sizeof kEnd64) != 0) continue;
    const std::uint64_t entries =
        std::max(little_endian(&record[24], 8), little_endian(&record[32], 8));
    const std::uint64_t bytes = little_endian(&record[40], 8);
    if (entries > kMaxDirectoryEntries || bytes > kMaxDirectoryBytes) {
      failure.set(errc::limit_exceeded,
                  "the APK's ZIP64 end of central directory announces " + std::to_string(entries) +
                      " entries in " + std::to_string(bytes) + " bytes, past the " +
                      std::to_string(kMaxDirectoryEntries) + " entries and " +
                      std::to_string(kMaxDirectoryBytes) + " bytes adbwire reads");
      return false;
    }
  }
  return true;
}

}  // namespace

std::string apk_label(const std::filesystem::path& apk, Failure& failure) {
  std::error_code error;
  const std::uintmax_t size = std::filesystem::file_size(apk, error);
  std::ifstream file(apk, std::ios::binary);
  if (error || !file) {
    failure.set(errc::io_error, "the pulled APK cannot be read: " +
                                    (error ? error.message() : std::strerror(errno)));
    return {};
  }
  const ApkRangeReader read_file = [&file](std::uint64_t offset, std::span<std::uint8_t> into,
                                           Failure& read_failure) {
    file.seekg(static_cast<std::streamoff>(offset));
    file.read(reinterpret_cast<char*>(into.data()), static_cast<std::streamsize>(into.size()));
    if (file.gcount() == static_cast<std::streamsize>(into.size())) return true;
    file.clear();
    read_failure.set(errc::io_error, "the pulled APK ended before its announced size");
    return false;
  };
  if (!directory_within_bounds(size, read_file, failure)) return {};
  int code = 0;
  const std::unique_ptr<zip_t, ZipCloser> archive(zip_open(apk.c_str(), ZIP_RDONLY, &code));
  if (!archive) {
    failure.set(errc::parse_error,
                "the APK is not a ZIP archive (libzip error " + std::to_string(code) + ")");
    return {};
  }
  return label_of_archive(archive.get(), failure);
}

std::string apk_label(std::uint64_t size, const ApkRangeReader& read, Failure& failure) {
  if (!directory_within_bounds(size, read, failure)) return {};
  RangeSource state;
  state.size = size;
  state.read = &read;
  zip_error_init(&state.error);
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* source = zip_source_function_create(range_source, &state, &error);
  if (source == nullptr) {
    zip_error_fini(&error);
    zip_error_fini(&state.error);
    failure.set(errc::io_error, "libzip cannot make a source");
    return {};
  }
  std::string label;
  {
    const std::unique_ptr<zip_t, ZipCloser> archive(
        zip_open_from_source(source, ZIP_RDONLY, &error));
    if (!archive) {
      zip_source_free(source);  // not taken by a failed open
      if (!state.failure)
        failure.set(errc::parse_error, "the APK is not a ZIP archive (libzip error " +
                                           std::to_string(zip_error_code_zip(&error)) + ")");
    } else {
      Failure read_failure;
      label = label_of_archive(archive.get(), read_failure);
      if (!state.failure && read_failure) failure = read_failure;
    }
  }
  zip_error_fini(&error);
  zip_error_fini(&state.error);
  if (state.failure) {
    failure = state.failure;
    return {};
  }
  return failure ? std::string() : label;
}

}  // namespace adbwire::detail
