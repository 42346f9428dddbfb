// Short, human-readable previews of ADB payloads, with the per-stream state that needs:
// sync (8-byte sync headers, AOSP file_sync_protocol.h) and shell v2 packets may span WRTEs.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "adbwire/capture.hpp"
#include "adbwire/protocol/message.hpp"
#include "adbwire/protocol/shell_v2.hpp"

namespace adbwire::capture_detail {

// Quoted, escaped text when bytes look like text, else "hex 0a1b…"; about max_chars long.
std::string preview_bytes(std::span<const std::uint8_t> bytes, std::size_t max_chars = 48);

// Decodes the sync protocol of one "sync:" stream, both directions. Requests (host → device)
// tell how the replies that follow are laid out, so they are queued.
class SyncPreview {
 public:
  // Describes the sync packets that begin (or continue) in this chunk.
  std::string feed(CaptureDirection direction, std::span<const std::uint8_t> bytes);

 private:
  struct Side {
    std::vector<std::uint8_t> fixed;  // the fixed-size part being collected
    std::size_t fixed_size = 8;
    std::uint64_t variable = 0;     // bytes of path/name/message/data still to come
    bool collect_variable = false;  // keep them (text) or skip them (file data)
    std::string text;
    bool broken = false;
  };
  // Called when a unit's fixed part is complete; sets up the variable part or finishes.
  void on_fixed(CaptureDirection direction, Side& side, std::vector<std::string>& items);
  void on_unit_done(CaptureDirection direction, Side& side, std::vector<std::string>& items);

  Side host_;
  Side device_;
  std::deque<std::uint32_t> requests_;   // requests whose replies have not ended yet
  std::uint32_t pending_v2_header_ = 0;  // SND2/RCV2 whose second header comes next
};

// Shell protocol v2 packets of one "shell,v2…:" stream.
class ShellPreview {
 public:
  std::string feed(CaptureDirection direction, std::span<const std::uint8_t> bytes);

 private:
  protocol::ShellReader host_;
  protocol::ShellReader device_;
  bool broken_ = false;
};

// The preview for one stream, chosen by its service.
class StreamPreview {
 public:
  explicit StreamPreview(std::string service);
  const std::string& service() const noexcept { return service_; }
  std::string feed(CaptureDirection direction, std::span<const std::uint8_t> bytes);

 private:
  std::string service_;
  std::unique_ptr<SyncPreview> sync_;
  std::unique_ptr<ShellPreview> shell_;
};

// True for "shell,v2,…:" style services.
bool is_shell_v2_service(std::string_view service) noexcept;

// The streams of one ADB connection, keyed as their OPEN named them, so each message can be
// given its service and a payload preview.
class StreamTable {
 public:
  // Fills service and summary for message, updating stream state.
  void describe(CaptureDirection direction, const protocol::Message& message, std::string& service,
                std::string& summary);

 private:
  using Key = std::pair<CaptureDirection, std::uint32_t>;  // opener's direction and local id
  struct Stream {
    StreamPreview preview;
    bool closed_by_host = false;
    bool closed_by_device = false;
  };
  Stream* find(CaptureDirection direction, std::uint32_t local, std::uint32_t remote);

  std::map<Key, Stream> streams_;
};

}  // namespace adbwire::capture_detail
