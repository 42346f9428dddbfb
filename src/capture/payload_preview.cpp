#include "capture/payload_preview.hpp"

#include <algorithm>
#include <cstdio>

#include "adbwire/protocol/bytes.hpp"
#include "adbwire/protocol/sync.hpp"

namespace adbwire::capture_detail {

using protocol::load_le32;
using protocol::load_le64;

namespace {

// The sync protocol's ids and record sizes, from protocol/sync.hpp, under short names.
constexpr std::uint32_t kStat = static_cast<std::uint32_t>(protocol::SyncId::stat);
constexpr std::uint32_t kSta2 = static_cast<std::uint32_t>(protocol::SyncId::sta2);
constexpr std::uint32_t kLst2 = static_cast<std::uint32_t>(protocol::SyncId::lst2);
constexpr std::uint32_t kList = static_cast<std::uint32_t>(protocol::SyncId::list);
constexpr std::uint32_t kLis2 = static_cast<std::uint32_t>(protocol::SyncId::lis2);
constexpr std::uint32_t kDent = static_cast<std::uint32_t>(protocol::SyncId::dent);
constexpr std::uint32_t kDnt2 = static_cast<std::uint32_t>(protocol::SyncId::dnt2);
constexpr std::uint32_t kSend = static_cast<std::uint32_t>(protocol::SyncId::send);
constexpr std::uint32_t kSnd2 = static_cast<std::uint32_t>(protocol::SyncId::snd2);
constexpr std::uint32_t kRecv = static_cast<std::uint32_t>(protocol::SyncId::recv);
constexpr std::uint32_t kRcv2 = static_cast<std::uint32_t>(protocol::SyncId::rcv2);
constexpr std::uint32_t kData = static_cast<std::uint32_t>(protocol::SyncId::data);
constexpr std::uint32_t kDone = static_cast<std::uint32_t>(protocol::SyncId::done);
constexpr std::uint32_t kOkay = static_cast<std::uint32_t>(protocol::SyncId::okay);
constexpr std::uint32_t kFail = static_cast<std::uint32_t>(protocol::SyncId::fail);
constexpr std::uint32_t kQuit = static_cast<std::uint32_t>(protocol::SyncId::quit);
constexpr std::size_t kStatV1Size = protocol::kSyncStatV1Size;
constexpr std::size_t kStatV2Size = protocol::kSyncStatV2Size;
constexpr std::size_t kDentV1Size = protocol::kSyncDentV1Size;
constexpr std::size_t kDentV2Size = protocol::kSyncDentV2Size;
constexpr std::size_t kMaxItems = 4;
constexpr std::size_t kMaxText = 64;

std::string id_name(std::uint32_t id) {
  std::string name;
  for (int shift = 0; shift < 32; shift += 8) {
    const char c = static_cast<char>(id >> shift);
    name += (c >= 0x20 && c < 0x7f) ? c : '?';
  }
  return name;
}

bool is_path_request(std::uint32_t id) {
  return id == kStat || id == kSta2 || id == kLst2 || id == kList || id == kLis2 || id == kSend ||
         id == kSnd2 || id == kRecv || id == kRcv2;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < kMaxItems; ++i) {
    if (i != 0) out += ", ";
    out += items[i];
  }
  if (items.size() > kMaxItems) out += ", +" + std::to_string(items.size() - kMaxItems) + " more";
  return out;
}

std::string compression_flags(std::uint32_t flags) {
  std::string out;
  const auto add = [&out](const char* name) {
    out += out.empty() ? name : std::string("|") + name;
  };
  if (flags & 1) add("brotli");
  if (flags & 2) add("lz4");
  if (flags & 4) add("zstd");
  if (flags & 0x80000000u) add("dry-run");
  return out.empty() ? "none" : out;
}

std::string quote_text(std::string_view text) {
  std::vector<std::uint8_t> bytes(text.begin(), text.end());
  return preview_bytes(bytes, kMaxText);
}

}  // namespace

std::string preview_bytes(std::span<const std::uint8_t> bytes, std::size_t max_chars) {
  if (bytes.empty()) return "";
  std::size_t printable = 0;
  for (const std::uint8_t b : bytes) {
    if ((b >= 0x20 && b < 0x7f) || b == '\n' || b == '\r' || b == '\t' || b >= 0x80 || b == 0)
      ++printable;
  }
  const bool text =
      printable * 10 >= bytes.size() * 9 &&
      std::count(bytes.begin(), bytes.end(), 0) * 4 <= static_cast<std::ptrdiff_t>(bytes.size());
  std::string out;
  char escape[8];
  if (!text) {
    out = "hex ";
    for (const std::uint8_t b : bytes) {
      if (out.size() + 2 > max_chars) return out + "...";
      std::snprintf(escape, sizeof escape, "%02x", b);
      out += escape;
    }
    return out;
  }
  out = "\"";
  for (const std::uint8_t b : bytes) {
    if (out.size() + 4 > max_chars) return out + "\"...";
    if (b == '\n') {
      out += "\\n";
    } else if (b == '\r') {
      out += "\\r";
    } else if (b == '\t') {
      out += "\\t";
    } else if (b == '"' || b == '\\') {
      out += '\\';
      out += static_cast<char>(b);
    } else if (b < 0x20 || b >= 0x7f) {
      std::snprintf(escape, sizeof escape, "\\x%02x", b);
      out += escape;
    } else {
      out += static_cast<char>(b);
    }
  }
  return out + "\"";
}

std::string SyncPreview::feed(CaptureDirection direction, std::span<const std::uint8_t> bytes) {
  Side& side = direction == CaptureDirection::host_to_device ? host_ : device_;
  std::vector<std::string> items;
  if (side.broken) return "sync (undecodable after an unknown id)";
  if (side.variable > 0 && !side.collect_variable) {
    const auto skipped = std::min<std::uint64_t>(side.variable, bytes.size());
    items.push_back("+" + std::to_string(skipped) + " data bytes");
  }
  while (!bytes.empty() && !side.broken) {
    if (side.fixed.size() < side.fixed_size) {
      const std::size_t take = std::min(bytes.size(), side.fixed_size - side.fixed.size());
      side.fixed.insert(side.fixed.end(), bytes.begin(),
                        bytes.begin() + static_cast<std::ptrdiff_t>(take));
      bytes = bytes.subspan(take);
      if (side.fixed.size() == side.fixed_size) on_fixed(direction, side, items);
      continue;
    }
    const auto take =
        static_cast<std::size_t>(std::min<std::uint64_t>(side.variable, bytes.size()));
    if (side.collect_variable && side.text.size() < kMaxText) {
      side.text.append(bytes.begin(),
                       bytes.begin() + static_cast<std::ptrdiff_t>(std::min(take, kMaxText)));
    }
    side.variable -= take;
    bytes = bytes.subspan(take);
    if (side.variable == 0) on_unit_done(direction, side, items);
  }
  return items.empty() ? "sync (inside a packet)" : "sync " + join(items);
}

void SyncPreview::on_fixed(CaptureDirection direction, Side& side,
                           std::vector<std::string>& items) {
  const std::uint32_t id = load_le32(side.fixed.data());
  const std::uint32_t word = load_le32(side.fixed.data() + 4);
  const bool from_host = direction == CaptureDirection::host_to_device;
  const std::uint32_t request = requests_.empty() ? 0 : requests_.front();
  if (side.fixed.size() == 8) {
    // The first 8 bytes decide how large the rest of the fixed part is.
    std::size_t full = 8;
    if (!from_host) {
      if (id == kStat && request == kStat) full = kStatV1Size;
      if ((id == kSta2 || id == kLst2) && (request == kSta2 || request == kLst2))
        full = kStatV2Size;
      if ((id == kDent || id == kDone) && request == kList) full = kDentV1Size;
      if ((id == kDnt2 || id == kDone) && request == kLis2) full = kDentV2Size;
    }
    if (full > 8) {
      side.fixed_size = full;
      return;
    }
  }
  side.variable = 0;
  side.collect_variable = true;
  side.text.clear();
  if (from_host) {
    if (pending_v2_header_ != 0) {
      on_unit_done(direction, side, items);  // the second SND2/RCV2 header has no variable part
      return;
    }
    if (is_path_request(id) || id == kFail) {
      side.variable = word;
    } else if (id == kData) {
      side.variable = word;
      side.collect_variable = false;
      items.push_back("DATA " + std::to_string(word));
    } else if (id != kDone && id != kQuit && id != kOkay) {
      side.broken = true;
      items.push_back("unknown id " + id_name(id));
      return;
    }
  } else if (side.fixed_size == kDentV1Size || side.fixed_size == kDentV2Size) {
    if (id != kDone) side.variable = load_le32(side.fixed.data() + side.fixed_size - 4);
  } else if (id == kData) {
    side.variable = word;
    side.collect_variable = false;
    items.push_back("DATA " + std::to_string(word));
  } else if (id == kFail) {
    side.variable = word;
  } else if (side.fixed_size == 8 && id != kOkay && id != kDone && id != kQuit) {
    side.broken = true;
    items.push_back("unknown id " + id_name(id));
    return;
  }
  if (side.variable == 0) on_unit_done(direction, side, items);
}

void SyncPreview::on_unit_done(CaptureDirection direction, Side& side,
                               std::vector<std::string>& items) {
  const std::uint32_t id = load_le32(side.fixed.data());
  const std::uint32_t word = load_le32(side.fixed.data() + 4);
  const std::uint8_t* f = side.fixed.data();
  char text[160];
  if (direction == CaptureDirection::host_to_device) {
    if (pending_v2_header_ != 0) {
      if (pending_v2_header_ == kSnd2) {
        std::snprintf(text, sizeof text, "SND2 mode=0%o flags=%s", word,
                      compression_flags(load_le32(f + 8)).c_str());
      } else {
        std::snprintf(text, sizeof text, "RCV2 flags=%s", compression_flags(word).c_str());
      }
      items.push_back(text);
      pending_v2_header_ = 0;
    } else if (is_path_request(id)) {
      items.push_back(id_name(id) + " " + quote_text(side.text));
      requests_.push_back(id);
      if (id == kSnd2 || id == kRcv2) {
        // v2 send/receive carry a second header: {SND2, mode, flags} or {RCV2, flags}.
        side.fixed.clear();
        side.fixed_size = id == kSnd2 ? 12 : 8;
        side.text.clear();
        pending_v2_header_ = id;
        return;
      }
    } else if (id == kDone) {
      items.push_back("DONE mtime=" + std::to_string(word));
    } else if (id == kQuit || id == kOkay) {
      items.push_back(id_name(id));
    } else if (id == kFail) {
      items.push_back("FAIL " + quote_text(side.text));
    }
  } else {
    const std::uint32_t request = requests_.empty() ? 0 : requests_.front();
    bool reply_ends = false;
    if (side.fixed_size == kStatV1Size) {
      std::snprintf(text, sizeof text, "STAT mode=0%o size=%u mtime=%u", word, load_le32(f + 8),
                    load_le32(f + 12));
      items.push_back(text);
      reply_ends = true;
    } else if (side.fixed_size == kStatV2Size) {
      std::snprintf(text, sizeof text, "%s error=%u mode=0%o size=%llu", id_name(id).c_str(), word,
                    load_le32(f + 24), static_cast<unsigned long long>(load_le64(f + 40)));
      items.push_back(text);
      reply_ends = true;
    } else if (side.fixed_size == kDentV1Size || side.fixed_size == kDentV2Size) {
      if (id == kDone) {
        items.push_back("DONE");
        reply_ends = true;
      } else {
        items.push_back(id_name(id) + " " + quote_text(side.text));
      }
    } else if (id == kFail) {
      items.push_back("FAIL " + quote_text(side.text));
      reply_ends = true;
    } else if (id == kDone || id == kOkay) {
      items.push_back(id_name(id));
      reply_ends = request == kRecv || request == kRcv2 || request == kSend || request == kSnd2;
    }
    if (reply_ends && !requests_.empty()) requests_.pop_front();
  }
  side.fixed.clear();
  side.fixed_size = 8;
  side.text.clear();
}

std::string ShellPreview::feed(CaptureDirection direction, std::span<const std::uint8_t> bytes) {
  if (broken_) return "shell v2 (undecodable after a bad packet)";
  protocol::ShellReader& reader = direction == CaptureDirection::host_to_device ? host_ : device_;
  std::vector<protocol::ShellPiece> pieces;
  if (reader.feed(bytes, pieces)) {
    broken_ = true;
    return "shell v2 error: " + reader.error_detail();
  }
  std::vector<std::string> items;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    const auto& piece = pieces[i];
    switch (piece.id) {
      case protocol::ShellPacketId::stdin_data:
      case protocol::ShellPacketId::stdout_data:
      case protocol::ShellPacketId::stderr_data: {
        std::vector<std::uint8_t> data = piece.data;
        while (i + 1 < pieces.size() && pieces[i + 1].id == piece.id) {
          ++i;
          data.insert(data.end(), pieces[i].data.begin(), pieces[i].data.end());
        }
        const char* name = piece.id == protocol::ShellPacketId::stdin_data    ? "stdin"
                           : piece.id == protocol::ShellPacketId::stdout_data ? "stdout"
                                                                              : "stderr";
        items.push_back(std::string(name) + " " + preview_bytes(data, 40));
        break;
      }
      case protocol::ShellPacketId::exit_status:
        items.push_back("exit " + std::to_string(piece.data.empty() ? 0 : piece.data[0]));
        break;
      case protocol::ShellPacketId::close_stdin:
        items.push_back("close-stdin");
        break;
      case protocol::ShellPacketId::window_size:
        items.push_back("window-size " + preview_bytes(piece.data, 32));
        break;
      case protocol::ShellPacketId::invalid:
        items.push_back("invalid");
        break;
    }
  }
  return items.empty() ? "shell v2 (partial packet)" : "shell v2 " + join(items);
}

bool is_shell_v2_service(std::string_view service) noexcept {
  if (!service.starts_with("shell,")) return false;
  std::string_view options =
      service.substr(6, service.find(':') == std::string_view::npos ? std::string_view::npos
                                                                    : service.find(':') - 6);
  while (!options.empty()) {
    const std::size_t comma = options.find(',');
    if (options.substr(0, comma) == "v2") return true;
    if (comma == std::string_view::npos) break;
    options.remove_prefix(comma + 1);
  }
  return false;
}

StreamPreview::StreamPreview(std::string service) : service_(std::move(service)) {
  if (service_.starts_with("sync:")) {
    sync_ = std::make_unique<SyncPreview>();
  } else if (is_shell_v2_service(service_)) {
    shell_ = std::make_unique<ShellPreview>();
  }
}

std::string StreamPreview::feed(CaptureDirection direction, std::span<const std::uint8_t> bytes) {
  if (sync_) return sync_->feed(direction, bytes);
  if (shell_) return shell_->feed(direction, bytes);
  return preview_bytes(bytes);
}

StreamTable::Stream* StreamTable::find(CaptureDirection direction, std::uint32_t local,
                                       std::uint32_t remote) {
  const CaptureDirection other = direction == CaptureDirection::host_to_device
                                     ? CaptureDirection::device_to_host
                                     : CaptureDirection::host_to_device;
  if (auto it = streams_.find({direction, local}); it != streams_.end()) return &it->second;
  if (auto it = streams_.find({other, remote}); it != streams_.end()) return &it->second;
  return nullptr;
}

void StreamTable::describe(CaptureDirection direction, const protocol::Message& message,
                           std::string& service, std::string& summary) {
  const auto& payload = message.payload;
  char text[96];
  switch (message.command) {
    case protocol::kCommandCnxn:
      // The host's CNXN starts a new session, in which stream ids start over.
      if (direction == CaptureDirection::host_to_device) streams_.clear();
      std::snprintf(text, sizeof text, "version 0x%08x max_data %u ", message.arg0, message.arg1);
      summary = text + preview_bytes(payload, 64);
      return;
    case protocol::kCommandAuth: {
      const char* type = message.arg0 == protocol::kAuthToken          ? "token"
                         : message.arg0 == protocol::kAuthSignature    ? "signature"
                         : message.arg0 == protocol::kAuthRsaPublicKey ? "public key"
                                                                       : "type ?";
      summary = std::string(type) + " " + std::to_string(payload.size()) + " bytes";
      return;
    }
    case protocol::kCommandOpen: {
      std::string name(payload.begin(), payload.end());
      while (!name.empty() && name.back() == '\0') name.pop_back();
      service = name;
      streams_.insert_or_assign(Key{direction, message.arg0}, Stream{StreamPreview(name)});
      summary = preview_bytes(
          std::span(reinterpret_cast<const std::uint8_t*>(name.data()), name.size()), 72);
      return;
    }
    case protocol::kCommandOkay:
    case protocol::kCommandWrte:
    case protocol::kCommandClse: {
      Stream* stream = find(direction, message.arg0, message.arg1);
      if (stream) service = stream->preview.service();
      if (message.command == protocol::kCommandWrte) {
        summary = stream ? stream->preview.feed(direction, payload) : preview_bytes(payload);
      } else if (message.command == protocol::kCommandOkay && payload.size() == 4) {
        summary = "acked " + std::to_string(load_le32(payload.data())) + " bytes";
      } else if (message.command == protocol::kCommandClse && stream) {
        (direction == CaptureDirection::host_to_device ? stream->closed_by_host
                                                       : stream->closed_by_device) = true;
        if (stream->closed_by_host && stream->closed_by_device) {
          for (auto it = streams_.begin(); it != streams_.end(); ++it) {
            if (&it->second == stream) {
              streams_.erase(it);
              break;
            }
          }
        }
      }
      return;
    }
    default:
      summary = preview_bytes(payload);
      return;
  }
}

}  // namespace adbwire::capture_detail
