#include "adbwire/error.hpp"

namespace adbwire {
namespace {

class Category final : public std::error_category {
 public:
  const char* name() const noexcept override { return "adbwire"; }

  std::string message(int value) const override {
    switch (static_cast<errc>(value)) {
      case errc::connection_refused:
        return "connection refused";
      case errc::unauthorized:
        return "device unauthorized";
      case errc::device_offline:
        return "device offline";
      case errc::protocol_error:
        return "protocol error";
      case errc::timeout:
        return "timed out";
      case errc::not_found:
        return "not found";
      case errc::permission_denied:
        return "permission denied";
      case errc::busy:
        return "busy";
      case errc::stale_ref:
        return "stale ref";
      case errc::parse_error:
        return "parse error";
      case errc::not_supported:
        return "not supported";
      case errc::closed:
        return "closed";
      case errc::invalid_argument:
        return "invalid argument";
      case errc::command_failed:
        return "command failed";
      case errc::io_error:
        return "I/O error";
      case errc::cancelled:
        return "cancelled";
      case errc::limit_exceeded:
        return "limit exceeded";
    }
    return "unknown adbwire error " + std::to_string(value);
  }
};

}  // namespace

const std::error_category& error_category() noexcept {
  static const Category category;
  return category;
}

std::error_code make_error_code(errc e) noexcept { return {static_cast<int>(e), error_category()}; }

}  // namespace adbwire
