// Verbs about apps: launch, stop, open (a URL or an intent), foreground, apps, install,
// uninstall.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>

#include "adbwire/apps.hpp"
#include "adbwire/error_detail.hpp"
#include "adbwire/install.hpp"
#include "adbwire/protocol/printable.hpp"
#include "base/advice.hpp"
#include "verbs/app_names.hpp"
#include "verbs/handlers.hpp"
#include "verbs/reply_text.hpp"

namespace adbwire::verbs::handlers {

namespace {

// Longest label a reply quotes, in bytes of the device's text.
constexpr std::size_t kMaxLabel = 100;
// Notes on unread labels an unmatched name quotes.
constexpr std::size_t kMaxNotes = 5;

// Letters, digits and '_' in at least two parts joined by '.': what a package name is.
bool looks_like_package(const std::string& name) {
  return name.find('.') != std::string::npos && name.front() != '.' && name.back() != '.' &&
         std::all_of(name.begin(), name.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_';
         });
}

// The installed package `name` means: itself when installed, else the app whose label or
// package matches it (app_names.hpp). Labels from the dumper where it runs, else from the APKs
// of the apps the user installed (system apps match by package name there).
std::string find_package(Page& page, const std::string& name, std::string& label) {
  const std::vector<std::string> packages = page.packages();
  if (std::find(packages.begin(), packages.end(), name) != packages.end()) return name;
  std::map<std::string, std::string> apps;
  for (const std::string& package : packages) apps.emplace(package, "");
  std::vector<std::string> notes;
  std::map<std::string, std::string> labels;
  if (page.capabilities().has(Capability::app_labels)) {
    labels = page.app_labels();
  } else {
    labels = apk_labels(page.device(), kDefaultDeadline, notes);
  }
  for (auto& [package, text] : labels) apps.insert_or_assign(package, std::move(text));
  try {
    const std::string package = match_app(name, apps);
    label = apps.at(package);
    return package;
  } catch (const Error& e) {
    if (e.code() != errc::not_found || notes.empty()) throw;
    std::string unread;
    for (std::size_t i = 0; i < notes.size() && i < kMaxNotes; ++i)
      unread += "; " + protocol::printable(notes[i], kMaxLabel);
    throw Error(errc::not_found, std::string(e.what()) + "; labels not read" + unread);
  }
}

}  // namespace

Reply launch(Call& call) {
  const std::string name = call.required_string("package");
  const std::string activity = call.string("activity").value_or("");
  // A package name is launched as given, as before names were taken: one shell command, and a
  // package `pm list packages` hides (another profile's) still starts. Only when the device
  // knows no such package is it taken as a name ("Booking.com" is a label).
  if (looks_like_package(name)) {
    std::error_code error;
    call.page().launch(name, activity, kDefaultDeadline, error);
    if (!error)
      return action_done(call, "Launched " + name + (activity.empty() ? "" : "/" + activity) + ".");
    if (error != errc::not_found) throw Error(error, last_error_detail());
  }
  std::string label;
  const std::string package = find_package(call.page(), name, label);
  call.page().launch(package, activity);
  const std::string shown =
      label.empty() ? package : protocol::printable(label, kMaxLabel) + " (" + package + ")";
  return action_done(call, "Launched " + shown + (activity.empty() ? "" : "/" + activity) + ".");
}

Reply stop(Call& call) {
  const std::string package = call.required_string("package");
  call.page().stop(package);
  return action_done(call, "Stopped " + package + " (force-stop: its activities and services).");
}

Reply open_url(Call& call) {
  Intent intent;
  if (const std::optional<std::string> url = call.string("url")) {
    if (call.has("action") || call.has("data"))
      throw Error(errc::invalid_argument, "give url, or an intent's action and data, not both");
    intent = view_intent(*url);
  } else {
    intent.action = call.string("action").value_or("");
    intent.data = call.string("data").value_or("");
  }
  intent.package = call.string("package").value_or("");
  intent.component = call.string("activity").value_or("");
  if (const std::optional<std::string> category = call.string("category"))
    intent.categories.push_back(*category);
  if (const std::optional<std::string> text = call.string("text"))
    intent.extras.emplace_back("android.intent.extra.TEXT", *text);
  const std::string took = start_intent(call.page().device(), intent);
  return action_done(call, "Opened " + (intent.data.empty() ? intent.action : intent.data) +
                               (took.empty() ? "." : " in " + took + "."));
}

Reply foreground(Call& call) {
  const ForegroundActivity now = call.page().foreground();
  return Reply::text("In the foreground: " + now.package +
                     (now.activity.empty()
                          ? " (activity unknown: the device named none, the screen's package "
                            "says which app)"
                          : " (activity " + now.activity + ")") +
                     ".");
}

Reply apps(Call& call) {
  Page& page = call.page();
  if (call.flag("system") && call.flag("third_party"))
    throw Error(errc::invalid_argument, "give system or third_party, not both");
  const PackageKind kind = call.flag("system")        ? PackageKind::system
                           : call.flag("third_party") ? PackageKind::third_party
                                                      : PackageKind::all;
  std::vector<std::string> packages = page.packages(kind);
  // Labels where the on-device dumper reads them; an app names itself, so a label is device
  // text: escaped and cut before it reaches the reply.
  std::map<std::string, std::string> labels;
  std::string labels_note;
  if (page.capabilities().has(Capability::app_labels)) {
    try {
      labels = page.app_labels();
    } catch (const Error& e) {
      labels_note = "Labels unavailable: " + std::string(e.what()) + "\n";
    }
  } else {
    labels_note = "Labels need the on-device dumper (open with " +
                  std::string(detail::advice("--helper auto", "PageOptions(helper=\"auto\")")) +
                  ").\n";
  }
  const std::string filter = call.string("filter").value_or("");
  const auto label_of_package = [&labels](const std::string& package) -> std::string {
    const auto it = labels.find(package);
    return it == labels.end() ? std::string() : protocol::printable(it->second, kMaxLabel);
  };
  std::erase_if(packages, [&](const std::string& p) {
    return !filter.empty() && p.find(filter) == std::string::npos &&
           label_of_package(p).find(filter) == std::string::npos;
  });
  const char* kind_words = kind == PackageKind::system        ? " of the system image"
                           : kind == PackageKind::third_party ? " the user installed"
                                                              : "";
  std::string text = std::to_string(packages.size()) + " package" +
                     (packages.size() == 1 ? "" : "s") + kind_words +
                     (filter.empty() ? "" : " matching " + in_quotes(filter)) + ":\n";
  for (const std::string& package : packages) {
    const std::string label = label_of_package(package);
    text += package + (label.empty() ? "" : " " + in_quotes(label)) + '\n';
  }
  return Reply::text(labels_note + text);
}

Reply install(Call& call) {
  const std::string given = call.required_string("path");
  const CheckedFile apk = open_apk(call.options().host_files, given);
  call.page().install(apk.path());
  return action_done(call, "Installed " + protocol::printable(given) + ".");
}

Reply uninstall(Call& call) {
  const std::string package = call.required_string("package");
  call.page().uninstall(package);
  return action_done(call, "Uninstalled " + package + ".");
}

}  // namespace adbwire::verbs::handlers
