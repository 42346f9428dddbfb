// Page.call and adbwire.verbs(): the agent verbs of src/verbs (the table the MCP server and the
// CLI sessions serve) on a Python Page, with the same names, parameters, checks and replies.
#include <unistd.h>

#include <atomic>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "adbwire/error.hpp"
#include "base/cancel_token.hpp"
#include "binding.hpp"
#include "interrupt.hpp"
#include "verbs/call.hpp"
#include "verbs/observer.hpp"
#include "verbs/saved_files.hpp"
#include "verbs/verb.hpp"

namespace adbwire::python {
namespace {

// The verbs::Host of one Python Page: it drives that Page's device and connects nothing else.
class PageHost final : public verbs::Host {
 public:
  explicit PageHost(PageBox& box)
      : page_(box.page),
        saved_(box.saved),
        recordings_(box.recordings),
        log_follows_(box.log_follows),
        secret_mask_(box.secret_mask) {
    options_.memory_db = box.memory_db;
    options_.observe = box.observe;
    // A Python caller gets everything whole: the snapshot's full text, full-size images. The
    // shell verb is on because Device.shell already is.
    options_.allow_shell = true;
    options_.max_snapshot_chars = std::numeric_limits<std::size_t>::max();
    options_.max_image_bytes = 0;
    options_.max_image_side = 0;
    // push and pull take any file, as Device.push and Device.pull (and Page.install) do: the
    // Python program is the operator's own, not an agent a screen can steer.
    options_.host_files.allowed = {"/"};
  }

  Page& page(const std::string& device) override {
    if (!device.empty()) {
      throw Error(errc::invalid_argument, "a Page drives one device: leave out device=\"" + device +
                                              "\", or call it on adbwire.Page.connect(\"" + device +
                                              "\")");
    }
    return page_;
  }
  // A lost connection stays lost (ClosedError, DeviceOfflineError): the user connects again.
  void forget(const std::string&) override {}
  std::vector<std::string> connected() const override { return {page_.device().serial()}; }
  const std::string& default_device() const override { return no_device_; }
  std::string save(std::string_view suggested_name, std::string_view bytes) override {
    return saved_.save(suggested_name,
                       secret_mask_.empty() ? std::string(bytes) : secret_mask_.apply(bytes));
  }
  std::filesystem::path reserve(std::string_view suggested_name) override {
    return saved_.reserve(suggested_name);
  }
  verbs::Recordings& recordings() override { return recordings_; }
  verbs::LogFollows& log_follows() override { return log_follows_; }
  detail::SecretMask& secret_mask() override { return secret_mask_; }
  const verbs::Options& options() const override { return options_; }
  void log(std::string_view) override {}

 private:
  Page& page_;
  verbs::SavedFiles& saved_;
  verbs::Recordings& recordings_;
  verbs::LogFollows& log_follows_;
  detail::SecretMask& secret_mask_;
  verbs::Options options_;
  std::string no_device_;
};

// Python values to JSON through the json module: what it cannot encode is invalid_argument.
verbs::Json json_from(const py::dict& arguments) {
  std::string encoded;
  try {
    encoded = py::module_::import("json").attr("dumps")(arguments).cast<std::string>();
  } catch (const py::error_already_set& e) {
    throw Error(errc::invalid_argument,
                std::string("verb arguments must be str, int, float or bool: ") + e.what());
  }
  return verbs::Json::parse(encoded);
}

py::object python_from(const verbs::Json& value) {
  return py::module_::import("json").attr("loads")(
      py::str(value.dump(-1, ' ', false, verbs::Json::error_handler_t::replace)));
}

std::string joined_text(const verbs::Reply& reply) {
  std::string joined;
  for (const verbs::Block& block : reply.blocks) {
    if (block.kind != verbs::Block::Kind::text) continue;
    if (!joined.empty()) joined += '\n';
    joined += block.text;
  }
  return joined;
}

py::list blocks_of(const verbs::Reply& reply, verbs::Block::Kind kind) {
  py::list blocks;
  for (const verbs::Block& block : reply.blocks) {
    if (block.kind != kind) continue;
    blocks.append(py::make_tuple(
        text(kind == verbs::Block::Kind::image ? block.mime : block.text),
        py::bytes(reinterpret_cast<const char*>(block.bytes.data()), block.bytes.size())));
  }
  return blocks;
}

// Runs a verb on a Python Page (GIL released, cancellable by a CancelScope); a failure raises the
// Error subclass of its code.
verbs::Reply run_verb(PageBox& box, const std::string& verb, const verbs::Json& json) {
  const verbs::Reply reply = interruptible([&] {
    std::lock_guard<std::mutex> lock(box.mutex);
    PageHost host(box);
    const CancelScope* scope = current_scope();
    const detail::CancelToken uncancelled;
    return verbs::run(host, verb, json, scope != nullptr ? scope->token() : uncancelled);
  });
  if (reply.is_error) {
    const std::error_code code = reply.error.category() == error_category()
                                     ? reply.error
                                     : make_error_code(errc::command_failed);
    throw Error(code, joined_text(reply));
  }
  return reply;
}

}  // namespace

void observed_call(PageBox& box, std::string_view verb, const verbs::Json& arguments,
                   const std::function<void(Page&)>& act) {
  const verbs::Verb* known = verbs::find(verb);
  if (known == nullptr)
    throw Error(errc::invalid_argument, "no verb " + std::string(verb) + " to observe");
  PageHost host(box);
  const CancelScope* scope = current_scope();
  const detail::CancelToken uncancelled;
  verbs::Call call(*known, host, arguments, scope != nullptr ? scope->token() : uncancelled);
  verbs::Observer observer(call);
  try {
    act(box.page);
  } catch (const Error& e) {
    observer.finished(call, std::string(e.what()));
    throw;
  }
  observer.finished(call, std::nullopt);
}

std::string PageBox::saved_folder_name() {
  static std::atomic<unsigned> pages{0};
  return "python-" + std::to_string(::getpid()) + "-" + std::to_string(++pages);
}

void bind_verbs(py::module_& module, py::class_<PageBox, std::shared_ptr<PageBox>>& page) {
  py::class_<verbs::Reply>(module, "VerbReply",
                           "What a verb answered: its text (the same an MCP client or the CLI "
                           "reads) and the images it carries.")
      .def_property_readonly(
          "text", [](const verbs::Reply& reply) { return text(joined_text(reply)); },
          "The text blocks, joined by newlines.")
      .def_property_readonly(
          "images",
          [](const verbs::Reply& reply) { return blocks_of(reply, verbs::Block::Kind::image); },
          "(mime type, bytes) of each image, e.g. (\"image/png\", b\"\\x89PNG...\").")
      .def("__str__", [](const verbs::Reply& reply) { return text(joined_text(reply)); })
      .def("__repr__", [](const verbs::Reply& reply) {
        return py::str("VerbReply(text={!r}, images={})")
            .format(text(joined_text(reply)), blocks_of(reply, verbs::Block::Kind::image).size());
      });

  module.def(
      "verbs",
      [] {
        verbs::Json catalog = verbs::Json::array();
        for (verbs::Json& entry : verbs::cli_catalog()) {
          // Pairing is adbwire.pair(), not a Page's.
          if (entry["needs_pair"].get<bool>()) continue;
          entry.erase("needs_pair");
          // A Page drives one device: the MCP server's per-call `device` does not apply.
          entry.erase("cli_file");
          entry["inputSchema"]["properties"].erase("device");
          catalog.push_back(std::move(entry));
        }
        return python_from(catalog);
      },
      "The agent verbs a Page offers through call() and as methods: per verb its name, title, "
      "description, inputSchema (JSON schema of the arguments), positional (the order "
      "positional arguments of the method take) and needs_shell.");

  page.def(
      "call",
      [](PageBox& box, const std::string& verb, const py::kwargs& arguments) {
        return run_verb(box, verb, json_from(arguments));
      },
      py::arg("verb"),
      "Runs the agent verb named verb (adbwire.verbs() lists them; the MCP tools and the CLI "
      "subcommands of the same name) with keyword arguments as its parameters, e.g. "
      "call(\"tap\", text=\"OK\"), call(\"wait\", text=\"Done\", timeout_ms=5000). Returns a "
      "VerbReply; a failure raises the Error subclass of its code with the verb's advice "
      "(StaleRefError: take a new snapshot). Each verb is also a method when Page has no method "
      "of that name (page.launch(\"com.android.settings\")).");

  page.def_property(
      "memory_db",
      [](PageBox& box) {
        const std::lock_guard<std::mutex> lock(box.mutex);
        return box.memory_db.string();
      },
      [](PageBox& box, const std::string& path) {
        std::filesystem::path chosen;
        if (!path.empty()) chosen = std::filesystem::absolute(std::filesystem::path(path));
        const std::lock_guard<std::mutex> lock(box.mutex);
        box.memory_db = std::move(chosen);
      },
      "The SQLite database remember, recall, forget and observations use (0600); \"\" (the "
      "default): $ADBWIRE_MEMORY_DB, else ~/.local/share/adbwire/memory.db.");
  page.def_property(
      "observe",
      [](PageBox& box) {
        const std::lock_guard<std::mutex> lock(box.mutex);
        return box.observe;
      },
      [](PageBox& box, bool on) {
        const std::lock_guard<std::mutex> lock(box.mutex);
        box.observe = on;
      },
      "True: the verbs, and the Page's own methods that stand for one (snapshot, tap, type, "
      "scroll, swipe, press, back, launch …), record in the memory database each screen seen "
      "and each action done on it with what followed (the observations verb reads it). False "
      "by default: nothing of a screen is written.");

  page.def(
      "type_secret",
      [](PageBox& box, std::uint32_t ref, const std::string& secret, bool clear, bool submit) {
        return run_verb(box, "type",
                        {{"ref", ref}, {"secret", secret}, {"clear", clear}, {"submit", submit}});
      },
      py::arg("ref"), py::arg("secret"), py::arg("clear") = false, py::arg("submit") = false,
      "Types the value of the secret named secret into the text field ref (DroidRun's "
      "type_secret): the value comes from the operator's sources ($ADBWIRE_SECRET_NAME, the 0600 "
      "file $ADBWIRE_SECRETS_FILE names) and never appears in the reply, an error, a saved file "
      "or a later reply showing the screen (\"<secret NAME>\" stands there). Returns a "
      "VerbReply; NotFoundError lists the secret names there are. page.secrets() lists them.");
}

}  // namespace adbwire::python
