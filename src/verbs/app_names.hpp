// Open by name: which installed app a label, a description or a package name means. Labels come
// from the on-device dumper where it runs, otherwise from each app's APK read on the host
// (services/apk_label.hpp), cached per package and versionCode in the private runtime folder.
// Internal to the verbs layer.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "adbwire/deadline.hpp"

namespace adbwire {
class Device;
}

namespace adbwire::verbs {

// Bound on an APK pulled whole to read a label, which happens only on a device whose dd reads no
// ranges: a larger one is left unread there (its package name still matches) and named in the
// notes. Read by ranges, an APK of any size costs at most detail::kMaxApkRangeBytes.
inline constexpr std::uint64_t kMaxApkBytes = 256ull * 1024 * 1024;

// Labels of the apps the user installed, read from their base APKs: the apps and their
// versionCodes from one `pm list packages -3 --show-versioncode` (Android 9+; an older device
// lists them without it and answers each versionCode through `dumpsys package`), then for each
// label not cached yet `pm path`, a sync stat, and only the parts of the APK the label needs
// read by ranges through `dd` (services/apk_ranges.hpp; bounded by detail::kMaxApkRangeBytes).
// A device whose dd answers the first range with nothing gets the APK pulled whole instead, to a
// private temporary file removed once read, and a note saying so; ranges are not tried again in
// that call. A package whose label cannot be read is left out, with a sentence in notes saying
// why; a label read once is kept under runtime/app-labels/PACKAGE-VERSIONCODE and not read
// again. Errors: those of Device::shell (timeout, device_offline, closed) and of the
// private folder (permission_denied, io_error), thrown as adbwire::Error.
std::map<std::string, std::string> apk_labels(Device& device, Deadline deadline,
                                              std::vector<std::string>& notes);

// The package `query` names among apps (package -> label, "" for none): an exact label or
// package name first, then a label or package that holds every word of the query, then one
// within a few typing errors. Case and punctuation are ignored. Errors (adbwire::Error):
// invalid_argument when several apps match equally well (the message lists them with their
// packages), not_found when none is close (the message names the nearest).
std::string match_app(std::string_view query, const std::map<std::string, std::string>& apps);

}  // namespace adbwire::verbs
