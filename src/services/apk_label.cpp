#include "services/apk_label.hpp"

#include <android/log.h>
#include <androidfw/ResourceTypes.h>
#include <utils/String8.h>
#include <zip.h>

#include <memory>
#include <mutex>

namespace adbwire::detail {
namespace {

// android:label's resource id in every framework (android.R.attr.label).
constexpr std::uint32_t kLabelAttr = 0x01010001;
constexpr char16_t kApplication[] = u"application";
constexpr char16_t kLabel[] = u"label";
constexpr char16_t kAndroidNs[] = u"http://schemas.android.com/apk/res/android";
// References followed from the label to its string (Android's own limit is 20).
constexpr int kMaxReferenceHops = 20;

// libandroidfw reports a malformed chunk through liblog, which on a host writes to stderr: the
// text would reach the terminal. The reason is ours to say, in the Failure.
void silence_liblog() {
  static std::once_flag once;
  std::call_once(
      once, [] { __android_log_set_logger([](const __android_logger_data*, const char*) {}); });
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

std::string resolve(std::uint32_t reference, std::string_view arsc, Failure& failure) {
  if (arsc.empty()) {
    failure.set(errc::not_found, "the label is a resource but the APK has no resources.arsc");
    return {};
  }
  android::ResTable table;
  if (table.add(arsc.data(), arsc.size(), -1, true) != android::NO_ERROR) {
    failure.set(errc::parse_error, "resources.arsc is malformed (libandroidfw rejected it)");
    return {};
  }
  android::Res_value value;
  std::uint32_t flags = 0;
  ssize_t block = table.getResource(reference, &value, false, 0, &flags, nullptr);
  for (int hop = 0; block >= 0 && value.dataType == android::Res_value::TYPE_REFERENCE; ++hop) {
    if (hop == kMaxReferenceHops) {
      failure.set(errc::parse_error, "the label's resource references go round in a loop");
      return {};
    }
    block = table.getResource(value.data, &value, false, 0, &flags, nullptr);
  }
  if (block < 0) {
    char id[16];
    std::snprintf(id, sizeof id, "0x%08x", reference);
    failure.set(errc::not_found, std::string("resources.arsc has no resource ") + id +
                                     " for the label (or none for the default configuration)");
    return {};
  }
  if (value.dataType != android::Res_value::TYPE_STRING) {
    failure.set(errc::parse_error, "the label's resource is not a string");
    return {};
  }
  const android::ResStringPool* pool = table.getTableStringBlock(static_cast<std::size_t>(block));
  std::size_t length = 0;
  const char16_t* text = pool == nullptr ? nullptr : pool->stringAt(value.data, &length);
  if (text == nullptr) {
    failure.set(errc::parse_error, "the label's string is outside the table's string pool");
    return {};
  }
  return utf8(text, length);
}

}  // namespace

std::string label_from_resources(std::string_view manifest, std::string_view arsc,
                                 Failure& failure) {
  silence_liblog();
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

}  // namespace

std::string apk_label(const std::filesystem::path& apk, Failure& failure) {
  int code = 0;
  const std::unique_ptr<zip_t, ZipCloser> archive(zip_open(apk.c_str(), ZIP_RDONLY, &code));
  if (!archive) {
    failure.set(errc::parse_error,
                "the APK is not a ZIP archive (libzip error " + std::to_string(code) + ")");
    return {};
  }
  const std::string manifest =
      read_entry(archive.get(), "AndroidManifest.xml", kMaxManifestBytes, true, failure);
  if (failure) return {};
  const std::string arsc =
      read_entry(archive.get(), "resources.arsc", kMaxArscBytes, false, failure);
  if (failure) return {};
  return label_from_resources(manifest, arsc, failure);
}

}  // namespace adbwire::detail
