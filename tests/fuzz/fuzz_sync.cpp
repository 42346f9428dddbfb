// Fuzzes both sync readers: fed whole or in pieces, they must report the same items (data
// pieces joined), the same verdict, and keep names and messages within their bounds.
// Byte 0 picks the piece size, byte 1 the reader and (reply reader) the requests announced.
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "adbwire/protocol/sync.hpp"

namespace {

using namespace adbwire::protocol;

constexpr SyncId kRequests[] = {SyncId::stat, SyncId::sta2, SyncId::lst2,
                                SyncId::list, SyncId::lis2, SyncId::recv,
                                SyncId::rcv2, SyncId::send, SyncId::snd2};

// One item as text: its kind, then its fields; data pieces are appended to a preceding data item.
void record(std::vector<std::string>& items, bool is_data, const std::string& item,
            std::span<const std::uint8_t> data) {
  if (is_data) {
    if (items.empty() || items.back().rfind("data:", 0) != 0) items.emplace_back("data:");
    items.back().append(data.begin(), data.end());
    return;
  }
  items.push_back(item);
}

struct Run {
  std::vector<std::string> items;
  bool failed = false;
  bool at_boundary = false;
};

Run replies(std::span<const std::uint8_t> stream, std::size_t chunk, std::size_t first_request) {
  Run run;
  SyncReplyReader reader;
  std::size_t next = first_request;
  for (std::size_t at = 0; at < stream.size() && !run.failed; at += chunk) {
    std::span<const std::uint8_t> input = stream.subspan(at, std::min(chunk, stream.size() - at));
    for (;;) {
      if (reader.outstanding() == 0) reader.expect(kRequests[next++ % std::size(kRequests)]);
      SyncReply reply;
      const SyncParse result = reader.parse(input, reply);
      if (result == SyncParse::failed) run.failed = true;
      if (result != SyncParse::ready) break;
      if (reply.name.size() > kSyncPathMax || reply.message.size() > kSyncFailMax) std::abort();
      if (reply.data.size() > kSyncDataMax) std::abort();
      record(run.items, reply.type == SyncReply::Type::data,
             std::to_string(static_cast<int>(reply.type)) + ":" + reply.name + ":" + reply.message +
                 ":" + std::to_string(reply.stat.mode) + ":" + std::to_string(reply.stat.size),
             reply.data);
    }
  }
  run.at_boundary = reader.at_boundary();
  return run;
}

Run requests(std::span<const std::uint8_t> stream, std::size_t chunk) {
  Run run;
  SyncRequestReader reader;
  for (std::size_t at = 0; at < stream.size() && !run.failed; at += chunk) {
    std::span<const std::uint8_t> input = stream.subspan(at, std::min(chunk, stream.size() - at));
    for (;;) {
      SyncRequest request;
      const SyncParse result = reader.parse(input, request);
      if (result == SyncParse::failed) run.failed = true;
      if (result != SyncParse::ready) break;
      if (request.path.size() > kSyncPathMax || request.data.size() > kSyncDataMax) std::abort();
      record(run.items, request.type == SyncRequest::Type::data,
             std::to_string(static_cast<int>(request.type)) + ":" +
                 std::to_string(static_cast<std::uint32_t>(request.id)) + ":" + request.path + ":" +
                 std::to_string(request.mode) + ":" + std::to_string(request.flags) + ":" +
                 std::to_string(request.mtime),
             request.data);
    }
  }
  run.at_boundary = reader.at_boundary();
  return run;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::size_t chunk = 1 + data[0] % 32;
  const bool device_side = data[1] % 2 == 0;
  const std::size_t first_request = data[1] / 2;
  const std::span<const std::uint8_t> stream(data + 2, size - 2);
  const Run whole = device_side ? requests(stream, stream.size() + 1)
                                : replies(stream, stream.size() + 1, first_request);
  const Run pieces = device_side ? requests(stream, chunk) : replies(stream, chunk, first_request);
  if (whole.failed != pieces.failed || whole.items != pieces.items) std::abort();
  if (!whole.failed && whole.at_boundary != pieces.at_boundary) std::abort();
  return 0;
}
