#include <cstdio>
#include <memory>
#include <string>

#include "adbwire/keys.hpp"
#include "cli/commands.hpp"
#include "cli/terminal_text.hpp"

namespace adbwire::cli {

void add_keygen_command(CLI::App& app, const GlobalOptions&, Run& run) {
  auto file = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("keygen",
                                 "write a new adb key pair to FILE and FILE.pub (like adb keygen)");
  cmd->add_option("FILE", *file, "private key path, e.g. ~/.android/adbkey")->required();
  cmd->callback([file, &run] {
    run = [file] {
      const PrivateKey key = PrivateKey::generate();
      key.save(*file, default_key_comment());
      print("wrote " + *file + " and " + *file + ".pub (fingerprint " + key.fingerprint() + ")\n");
      return 0;
    };
  });
}

}  // namespace adbwire::cli
