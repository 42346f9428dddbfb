// The file sync protocol spoken inside a "sync:" stream (AOSP file_sync_protocol.h): 8-byte
// {id, length} headers, stat/dent records, DATA chunks of at most 64 KiB, all little-endian.
//
// Encoders append one message to a byte vector. Two incremental readers decode a stream fed
// in pieces of any size: SyncReplyReader (host side, device replies) and SyncRequestReader
// (device side, host requests and file data). Both hold at most one header, one path/name or
// one FAIL message; file data is handed out as views into the caller's bytes, never copied.
// Not thread safe; never throw.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace adbwire::protocol {

// Message ids: four ASCII letters read as a little-endian uint32.
enum class SyncId : std::uint32_t {
  stat = 0x54415453,  // "STAT": lstat, v1 reply {mode, size, mtime} (32-bit)
  sta2 = 0x32415453,  // "STA2": stat (follows links), v2 reply; feature stat_v2
  lst2 = 0x3254534c,  // "LST2": lstat, v2 reply; feature stat_v2
  list = 0x5453494c,  // "LIST": directory listing, DENT records then DONE
  lis2 = 0x3253494c,  // "LIS2": listing with v2 records (DNT2); feature ls_v2
  dent = 0x544e4544,  // "DENT"
  dnt2 = 0x32544e44,  // "DNT2"
  send = 0x444e4553,  // "SEND": path is "<path>,<decimal mode>"
  snd2 = 0x32444e53,  // "SND2": path, then {SND2, mode, flags}; feature sendrecv_v2
  recv = 0x56434552,  // "RECV"
  rcv2 = 0x32564352,  // "RCV2": path, then {RCV2, flags}; feature sendrecv_v2
  done = 0x454e4f44,  // "DONE": end of data (length = mtime when pushing) or of a listing
  data = 0x41544144,  // "DATA": up to kSyncDataMax bytes of file content
  okay = 0x59414b4f,  // "OKAY": a push was stored
  fail = 0x4c494146,  // "FAIL": length bytes of UTF-8 reason follow; the device then ends sync
  quit = 0x54495551,  // "QUIT": ends sync mode
};

inline constexpr std::size_t kSyncHeaderSize = 8;
inline constexpr std::size_t kSyncDataMax = 64 * 1024;  // largest DATA payload
inline constexpr std::size_t kSyncPathMax = 1024;       // largest request path
inline constexpr std::size_t kSyncFailMax = 64 * 1024;  // largest FAIL message we accept
inline constexpr std::size_t kSyncStatV1Size = 16;
inline constexpr std::size_t kSyncStatV2Size = 72;
inline constexpr std::size_t kSyncDentV1Size = 20;  // then namelen bytes of name
inline constexpr std::size_t kSyncDentV2Size = 76;

// SND2/RCV2 flags (AOSP kSyncFlag*).
inline constexpr std::uint32_t kSyncFlagNone = 0;
inline constexpr std::uint32_t kSyncFlagBrotli = 1;
inline constexpr std::uint32_t kSyncFlagLz4 = 2;
inline constexpr std::uint32_t kSyncFlagZstd = 4;
inline constexpr std::uint32_t kSyncFlagDryRun = 0x80000000;

// "STAT", "DATA", … for a known id, "????" otherwise. For error messages.
std::string_view sync_id_name(std::uint32_t id) noexcept;

// One stat record. v1 records fill mode, size and mtime only (size truncated to 32 bits, a
// missing file reads as mode 0); v2 records fill everything and report failure in `error`
// (a Linux errno value, 0 on success).
struct SyncStat {
  std::uint32_t error = 0;
  std::uint64_t dev = 0;
  std::uint64_t ino = 0;
  std::uint32_t mode = 0;
  std::uint32_t nlink = 0;
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
  std::uint64_t size = 0;
  std::int64_t atime = 0;
  std::int64_t mtime = 0;
  std::int64_t ctime = 0;
};

// ---- host → device. Each returns invalid_argument (appending nothing) when the path is
// longer than kSyncPathMax or data longer than kSyncDataMax.

// {id, length} + path: STAT, STA2, LST2, LIST, LIS2, RECV (v1) and QUIT (empty path).
std::error_code append_sync_request(std::vector<std::uint8_t>& out, SyncId id,
                                    std::string_view path);
// SEND v1: "<path>,<mode in decimal>"; the limit applies to that whole string.
std::error_code append_sync_send_v1(std::vector<std::uint8_t>& out, std::string_view path,
                                    std::uint32_t mode);
// SND2: request + {SND2, mode, flags}.
std::error_code append_sync_send_v2(std::vector<std::uint8_t>& out, std::string_view path,
                                    std::uint32_t mode, std::uint32_t flags);
// RCV2: request + {RCV2, flags}.
std::error_code append_sync_recv_v2(std::vector<std::uint8_t>& out, std::string_view path,
                                    std::uint32_t flags);

// ---- either direction
std::error_code append_sync_data(std::vector<std::uint8_t>& out,
                                 std::span<const std::uint8_t> data);
// Writes an 8-byte {id, value} header over header[0..8): for a DATA slot whose content was
// read straight into place after it (no copy of file data).
void write_sync_header(std::span<std::uint8_t, kSyncHeaderSize> header, SyncId id,
                       std::uint32_t value) noexcept;
// {DONE, value}: value is the mtime when the host ends a push, 0 when the device ends a file.
void append_sync_done(std::vector<std::uint8_t>& out, std::uint32_t value);

// ---- device → host
void append_sync_stat_v1(std::vector<std::uint8_t>& out, const SyncStat& stat);
// id is sta2 or lst2, echoing the request.
void append_sync_stat_v2(std::vector<std::uint8_t>& out, SyncId id, const SyncStat& stat);
// One listing record (DENT or DNT2 by v2) and the DONE record that ends a listing (a DONE of
// the record's size, all zero). invalid_argument for a name longer than kSyncPathMax.
std::error_code append_sync_dent(std::vector<std::uint8_t>& out, bool v2, std::string_view name,
                                 const SyncStat& stat);
void append_sync_list_done(std::vector<std::uint8_t>& out, bool v2);
void append_sync_okay(std::vector<std::uint8_t>& out);
// The message is cut to kSyncFailMax bytes.
void append_sync_fail(std::vector<std::uint8_t>& out, std::string_view message);

// What SyncReplyReader/SyncRequestReader::parse found.
enum class SyncParse {
  need_more,  // input used up without completing anything; feed more
  ready,      // one item is complete and stored in `out`; input may have more
  failed,     // protocol_error: error_detail() says what; the reader stays failed
};

// One reply from the device.
struct SyncReply {
  enum class Type {
    stat,   // reply to STAT/STA2/LST2: `stat`
    entry,  // one listing record: `name`, `stat`
    data,   // a piece of file content (a DATA chunk may come as several pieces): `data`
    done,   // the end of a file (RECV) or of a listing
    okay,   // a push was stored
    fail,   // the device's FAIL: `message`, word for word; the device then ends the stream
  };
  Type type = Type::done;
  SyncStat stat;
  std::string name;
  // View into the bytes passed to parse(); valid while they are.
  std::span<const std::uint8_t> data;
  std::string message;
};

// Host side: decodes the device's replies. Because reply layouts depend on the request, the
// caller announces each request it sends with expect(), in order; replies are matched to them
// first in, first out. A reply with no announced request is a protocol error.
class SyncReplyReader {
 public:
  // Announces a sent request: stat, sta2, lst2, list, lis2, recv, rcv2, send, snd2.
  // (quit has no reply.) invalid_argument for any other id.
  std::error_code expect(SyncId request);

  // Consumes bytes from the front of `input` until one reply is complete (ready, `out` set)
  // or input is used up (need_more). failed on: a reply id that does not fit the request,
  // DATA longer than kSyncDataMax, a listing name longer than kSyncPathMax, FAIL longer than
  // kSyncFailMax, bytes with no request announced. A FAIL reply ends every outstanding
  // request (the device closes the stream after it).
  SyncParse parse(std::span<const std::uint8_t>& input, SyncReply& out);

  // Announced requests whose replies have not completed.
  std::size_t outstanding() const noexcept { return expected_.size(); }
  // True when no reply is partly read.
  bool at_boundary() const noexcept { return state_ == State::header && filled_ == 0; }
  const std::string& error_detail() const noexcept { return error_detail_; }

 private:
  enum class State { header, record, name, data, message };

  SyncParse fail(std::string detail);
  SyncParse finish_header(SyncReply& out);
  void complete();  // the current request's reply is over
  void reset();     // back to reading a header

  std::deque<SyncId> expected_;
  State state_ = State::header;
  std::uint8_t buffer_[kSyncDentV2Size] = {};
  std::size_t filled_ = 0;
  std::size_t want_ = kSyncHeaderSize;
  std::uint32_t remaining_ = 0;
  SyncReply pending_;
  bool failed_ = false;
  std::string error_detail_;
};

// One item a host sent.
struct SyncRequest {
  enum class Type {
    request,  // STAT/STA2/LST2/LIST/LIS2/SEND/SND2/RECV/RCV2/QUIT: `id`, `path`; SEND and
              // SND2 also `mode` and `flags` (SEND's ",mode" is split off); RCV2 `flags`.
              // After SEND/SND2 the host sends data pieces, then done.
    data,     // a piece of pushed file content: `data`
    done,     // the end of a push: `mtime`
  };
  Type type = Type::request;
  SyncId id = SyncId::quit;
  std::string path;
  std::uint32_t mode = 0;
  std::uint32_t flags = 0;
  std::uint32_t mtime = 0;
  // View into the bytes passed to parse(); valid while they are.
  std::span<const std::uint8_t> data;
};

// Device side: decodes what a host sends in a sync stream. error_detail() is worded for the
// FAIL message a device sends back before ending the stream, as adbd does.
class SyncRequestReader {
 public:
  // As SyncReplyReader::parse. failed on: an unknown request id, a path longer than
  // kSyncPathMax, a SEND path without ",mode", a malformed SND2/RCV2 setup, anything but
  // DATA/DONE during a push, DATA longer than kSyncDataMax.
  SyncParse parse(std::span<const std::uint8_t>& input, SyncRequest& out);

  bool at_boundary() const noexcept { return state_ == State::header && filled_ == 0 && !in_push_; }
  const std::string& error_detail() const noexcept { return error_detail_; }

 private:
  enum class State { header, path, setup, data };

  SyncParse fail(std::string detail);
  SyncParse finish_path(SyncRequest& out);

  State state_ = State::header;
  std::uint8_t buffer_[12] = {};
  std::size_t filled_ = 0;
  std::size_t want_ = kSyncHeaderSize;
  std::uint32_t remaining_ = 0;
  bool in_push_ = false;
  SyncRequest pending_;
  bool failed_ = false;
  std::string error_detail_;
};

}  // namespace adbwire::protocol
