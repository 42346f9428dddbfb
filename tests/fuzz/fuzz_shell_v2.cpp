// Fuzzes the shell v2 reader: whole versus chunked feeding must agree on every stream's
// bytes, the control packets and the verdict; control packets stay within their bound.
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "adbwire/protocol/shell_v2.hpp"

namespace {

using adbwire::protocol::ShellPacketId;
using adbwire::protocol::ShellPiece;
using adbwire::protocol::ShellReader;

bool is_data(ShellPacketId id) {
  return id == ShellPacketId::stdin_data || id == ShellPacketId::stdout_data ||
         id == ShellPacketId::stderr_data;
}

// Adjacent data pieces with the same id are one stream; the cut points may differ.
std::vector<ShellPiece> merged(const std::vector<ShellPiece>& pieces) {
  std::vector<ShellPiece> out;
  for (const ShellPiece& p : pieces) {
    if (p.data.size() > ShellReader::kMaxControlPacket && !is_data(p.id)) std::abort();
    if (is_data(p.id) && !out.empty() && out.back().id == p.id) {
      out.back().data.insert(out.back().data.end(), p.data.begin(), p.data.end());
    } else {
      out.push_back(p);
    }
  }
  return out;
}

bool same(const std::vector<ShellPiece>& a, const std::vector<ShellPiece>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].id != b[i].id || a[i].data != b[i].data) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t chunk = 1 + data[0] % 32;
  const std::span<const std::uint8_t> stream(data + 1, size - 1);

  ShellReader whole;
  std::vector<ShellPiece> whole_out;
  const std::error_code whole_error = whole.feed(stream, whole_out);

  ShellReader pieces;
  std::vector<ShellPiece> pieces_out;
  std::error_code pieces_error;
  for (std::size_t at = 0; at < stream.size() && !pieces_error; at += chunk) {
    pieces_error = pieces.feed(stream.subspan(at, std::min(chunk, stream.size() - at)), pieces_out);
  }
  if (whole_error != pieces_error) std::abort();
  if (!same(merged(whole_out), merged(pieces_out))) std::abort();
  if (!whole_error && whole.at_boundary() != pieces.at_boundary()) std::abort();
  return 0;
}
