#include "adbwire/protocol/sync.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <utility>

#include "adbwire/error.hpp"
#include "adbwire/protocol/bytes.hpp"

namespace adbwire::protocol {
namespace {

void put_id(std::vector<std::uint8_t>& out, SyncId id) {
  append_le32(out, static_cast<std::uint32_t>(id));
}

void put_bytes(std::vector<std::uint8_t>& out, std::string_view text) {
  out.insert(out.end(), text.begin(), text.end());
}

// A v2 stat record after its id, laid out as AOSP's syncmsg::stat_v2 (68 bytes).
void put_stat_v2_body(std::vector<std::uint8_t>& out, const SyncStat& s) {
  append_le32(out, s.error);
  append_le64(out, s.dev);
  append_le64(out, s.ino);
  append_le32(out, s.mode);
  append_le32(out, s.nlink);
  append_le32(out, s.uid);
  append_le32(out, s.gid);
  append_le64(out, s.size);
  append_le64(out, static_cast<std::uint64_t>(s.atime));
  append_le64(out, static_cast<std::uint64_t>(s.mtime));
  append_le64(out, static_cast<std::uint64_t>(s.ctime));
}

// Reads the fields put_stat_v2_body wrote; p points just after the id.
SyncStat get_stat_v2_body(const std::uint8_t* p) {
  SyncStat s;
  s.error = load_le32(p);
  s.dev = load_le64(p + 4);
  s.ino = load_le64(p + 12);
  s.mode = load_le32(p + 20);
  s.nlink = load_le32(p + 24);
  s.uid = load_le32(p + 28);
  s.gid = load_le32(p + 32);
  s.size = load_le64(p + 36);
  s.atime = static_cast<std::int64_t>(load_le64(p + 44));
  s.mtime = static_cast<std::int64_t>(load_le64(p + 52));
  s.ctime = static_cast<std::int64_t>(load_le64(p + 60));
  return s;
}

// A v1 stat or DENT record: {mode, size, mtime} after the id.
SyncStat get_stat_v1_body(const std::uint8_t* p) {
  SyncStat s;
  s.mode = load_le32(p);
  s.size = load_le32(p + 4);
  s.mtime = load_le32(p + 8);
  return s;
}

std::string id_text(std::uint32_t id) {
  std::string_view name = sync_id_name(id);
  if (name != "????") return std::string(name);
  char hex[16];
  std::snprintf(hex, sizeof hex, "0x%08x", id);
  return hex;
}

// Copies from input into buffer until it holds `want` bytes; true once it does.
bool fill(std::span<const std::uint8_t>& input, std::uint8_t* buffer, std::size_t& filled,
          std::size_t want) {
  const std::size_t take = std::min(want - filled, input.size());
  std::copy_n(input.data(), take, buffer + filled);
  filled += take;
  input = input.subspan(take);
  return filled == want;
}

// Appends up to `remaining` bytes of input to text; true once remaining reached 0.
bool gather(std::span<const std::uint8_t>& input, std::string& text, std::uint32_t& remaining) {
  const std::size_t take = std::min<std::size_t>(remaining, input.size());
  text.append(reinterpret_cast<const char*>(input.data()), take);
  input = input.subspan(take);
  remaining -= static_cast<std::uint32_t>(take);
  return remaining == 0;
}

// strtoul(text, nullptr, 0) without its silent acceptance of garbage: "0x…" hex, "0…" octal,
// otherwise decimal; the whole text must be digits.
bool parse_mode(std::string_view text, std::uint32_t& mode) {
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    text.remove_prefix(2);
  } else if (text.size() > 1 && text[0] == '0') {
    base = 8;
    text.remove_prefix(1);
  }
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), mode, base);
  return ec == std::errc() && end == text.data() + text.size();
}

bool is_request(std::uint32_t id) {
  switch (static_cast<SyncId>(id)) {
    case SyncId::stat:
    case SyncId::sta2:
    case SyncId::lst2:
    case SyncId::list:
    case SyncId::lis2:
    case SyncId::send:
    case SyncId::snd2:
    case SyncId::recv:
    case SyncId::rcv2:
    case SyncId::quit:
      return true;
    default:
      return false;
  }
}

}  // namespace

std::string_view sync_id_name(std::uint32_t id) noexcept {
  switch (static_cast<SyncId>(id)) {
    case SyncId::stat:
      return "STAT";
    case SyncId::sta2:
      return "STA2";
    case SyncId::lst2:
      return "LST2";
    case SyncId::list:
      return "LIST";
    case SyncId::lis2:
      return "LIS2";
    case SyncId::dent:
      return "DENT";
    case SyncId::dnt2:
      return "DNT2";
    case SyncId::send:
      return "SEND";
    case SyncId::snd2:
      return "SND2";
    case SyncId::recv:
      return "RECV";
    case SyncId::rcv2:
      return "RCV2";
    case SyncId::done:
      return "DONE";
    case SyncId::data:
      return "DATA";
    case SyncId::okay:
      return "OKAY";
    case SyncId::fail:
      return "FAIL";
    case SyncId::quit:
      return "QUIT";
  }
  return "????";
}

std::error_code append_sync_request(std::vector<std::uint8_t>& out, SyncId id,
                                    std::string_view path) {
  if (path.size() > kSyncPathMax) return make_error_code(errc::invalid_argument);
  put_id(out, id);
  append_le32(out, static_cast<std::uint32_t>(path.size()));
  put_bytes(out, path);
  return {};
}

std::error_code append_sync_send_v1(std::vector<std::uint8_t>& out, std::string_view path,
                                    std::uint32_t mode) {
  std::string spec(path);
  spec += ',';
  spec += std::to_string(mode);
  return append_sync_request(out, SyncId::send, spec);
}

std::error_code append_sync_send_v2(std::vector<std::uint8_t>& out, std::string_view path,
                                    std::uint32_t mode, std::uint32_t flags) {
  if (auto error = append_sync_request(out, SyncId::snd2, path)) return error;
  put_id(out, SyncId::snd2);
  append_le32(out, mode);
  append_le32(out, flags);
  return {};
}

std::error_code append_sync_recv_v2(std::vector<std::uint8_t>& out, std::string_view path,
                                    std::uint32_t flags) {
  if (auto error = append_sync_request(out, SyncId::rcv2, path)) return error;
  put_id(out, SyncId::rcv2);
  append_le32(out, flags);
  return {};
}

std::error_code append_sync_data(std::vector<std::uint8_t>& out,
                                 std::span<const std::uint8_t> data) {
  if (data.size() > kSyncDataMax) return make_error_code(errc::invalid_argument);
  put_id(out, SyncId::data);
  append_le32(out, static_cast<std::uint32_t>(data.size()));
  out.insert(out.end(), data.begin(), data.end());
  return {};
}

void write_sync_header(std::span<std::uint8_t, kSyncHeaderSize> header, SyncId id,
                       std::uint32_t value) noexcept {
  const auto raw = static_cast<std::uint32_t>(id);
  for (std::size_t i = 0; i < 4; ++i) {
    header[i] = static_cast<std::uint8_t>(raw >> (8 * i));
    header[4 + i] = static_cast<std::uint8_t>(value >> (8 * i));
  }
}

void append_sync_done(std::vector<std::uint8_t>& out, std::uint32_t value) {
  put_id(out, SyncId::done);
  append_le32(out, value);
}

void append_sync_stat_v1(std::vector<std::uint8_t>& out, const SyncStat& stat) {
  put_id(out, SyncId::stat);
  append_le32(out, stat.mode);
  append_le32(out, static_cast<std::uint32_t>(stat.size));
  append_le32(out, static_cast<std::uint32_t>(stat.mtime));
}

void append_sync_stat_v2(std::vector<std::uint8_t>& out, SyncId id, const SyncStat& stat) {
  put_id(out, id);
  put_stat_v2_body(out, stat);
}

std::error_code append_sync_dent(std::vector<std::uint8_t>& out, bool v2, std::string_view name,
                                 const SyncStat& stat) {
  if (name.size() > kSyncPathMax) return make_error_code(errc::invalid_argument);
  if (v2) {
    put_id(out, SyncId::dnt2);
    put_stat_v2_body(out, stat);
  } else {
    put_id(out, SyncId::dent);
    append_le32(out, stat.mode);
    append_le32(out, static_cast<std::uint32_t>(stat.size));
    append_le32(out, static_cast<std::uint32_t>(stat.mtime));
  }
  append_le32(out, static_cast<std::uint32_t>(name.size()));
  put_bytes(out, name);
  return {};
}

void append_sync_list_done(std::vector<std::uint8_t>& out, bool v2) {
  put_id(out, SyncId::done);
  out.resize(out.size() + (v2 ? kSyncDentV2Size : kSyncDentV1Size) - 4, 0);
}

void append_sync_okay(std::vector<std::uint8_t>& out) {
  put_id(out, SyncId::okay);
  append_le32(out, 0);
}

void append_sync_fail(std::vector<std::uint8_t>& out, std::string_view message) {
  message = message.substr(0, kSyncFailMax);
  put_id(out, SyncId::fail);
  append_le32(out, static_cast<std::uint32_t>(message.size()));
  put_bytes(out, message);
}

// ---- SyncReplyReader

std::error_code SyncReplyReader::expect(SyncId request) {
  switch (request) {
    case SyncId::stat:
    case SyncId::sta2:
    case SyncId::lst2:
    case SyncId::list:
    case SyncId::lis2:
    case SyncId::recv:
    case SyncId::rcv2:
    case SyncId::send:
    case SyncId::snd2:
      expected_.push_back(request);
      return {};
    default:
      return make_error_code(errc::invalid_argument);
  }
}

SyncParse SyncReplyReader::fail(std::string detail) {
  failed_ = true;
  error_detail_ = std::move(detail);
  return SyncParse::failed;
}

void SyncReplyReader::complete() {
  expected_.pop_front();
  reset();
}

void SyncReplyReader::reset() {
  state_ = State::header;
  filled_ = 0;
  want_ = kSyncHeaderSize;
}

SyncParse SyncReplyReader::finish_header(SyncReply& out) {
  const std::uint32_t id = load_le32(buffer_);
  const std::uint32_t length = load_le32(buffer_ + 4);
  if (expected_.empty()) {
    return fail("the device sent " + id_text(id) + " in a sync stream with no request outstanding");
  }
  const SyncId request = expected_.front();
  if (id == static_cast<std::uint32_t>(SyncId::fail)) {
    if (length > kSyncFailMax) {
      return fail("the device sent a FAIL message of " + std::to_string(length) +
                  " bytes, more than the " + std::to_string(kSyncFailMax) + " allowed");
    }
    pending_ = SyncReply{};
    pending_.type = SyncReply::Type::fail;
    remaining_ = length;
    state_ = State::message;
    return SyncParse::need_more;
  }
  const auto mismatch = [&] {
    return fail("the device answered " +
                std::string(sync_id_name(static_cast<std::uint32_t>(request))) + " with " +
                id_text(id));
  };
  switch (request) {
    case SyncId::stat:
      if (id != static_cast<std::uint32_t>(SyncId::stat)) return mismatch();
      want_ = kSyncStatV1Size;
      state_ = State::record;
      return SyncParse::need_more;
    case SyncId::sta2:
    case SyncId::lst2:
      if (id != static_cast<std::uint32_t>(request)) return mismatch();
      want_ = kSyncStatV2Size;
      state_ = State::record;
      return SyncParse::need_more;
    case SyncId::list:
      if (id != static_cast<std::uint32_t>(SyncId::dent) &&
          id != static_cast<std::uint32_t>(SyncId::done)) {
        return mismatch();
      }
      want_ = kSyncDentV1Size;
      state_ = State::record;
      return SyncParse::need_more;
    case SyncId::lis2:
      if (id != static_cast<std::uint32_t>(SyncId::dnt2) &&
          id != static_cast<std::uint32_t>(SyncId::done)) {
        return mismatch();
      }
      want_ = kSyncDentV2Size;
      state_ = State::record;
      return SyncParse::need_more;
    case SyncId::recv:
    case SyncId::rcv2:
      if (id == static_cast<std::uint32_t>(SyncId::done)) {
        out = SyncReply{};
        out.type = SyncReply::Type::done;
        complete();
        return SyncParse::ready;
      }
      if (id != static_cast<std::uint32_t>(SyncId::data)) return mismatch();
      if (length > kSyncDataMax) {
        return fail("the device sent a DATA chunk of " + std::to_string(length) +
                    " bytes, more than the " + std::to_string(kSyncDataMax) + " allowed");
      }
      filled_ = 0;
      remaining_ = length;
      state_ = length == 0 ? State::header : State::data;
      return SyncParse::need_more;
    case SyncId::send:
    case SyncId::snd2:
      if (id != static_cast<std::uint32_t>(SyncId::okay)) return mismatch();
      out = SyncReply{};
      out.type = SyncReply::Type::okay;
      complete();
      return SyncParse::ready;
    default:
      return mismatch();
  }
}

SyncParse SyncReplyReader::parse(std::span<const std::uint8_t>& input, SyncReply& out) {
  if (failed_) return SyncParse::failed;
  while (!input.empty()) {
    switch (state_) {
      case State::header: {
        if (!fill(input, buffer_, filled_, want_)) return SyncParse::need_more;
        const SyncParse result = finish_header(out);
        if (result != SyncParse::need_more) return result;
        if (state_ == State::message && remaining_ == 0) {
          out = std::move(pending_);
          expected_.clear();
          reset();
          return SyncParse::ready;
        }
        break;
      }
      case State::record: {
        if (!fill(input, buffer_, filled_, want_)) return SyncParse::need_more;
        const std::uint32_t id = load_le32(buffer_);
        const SyncId request = expected_.front();
        out = SyncReply{};
        if (id == static_cast<std::uint32_t>(SyncId::done)) {
          out.type = SyncReply::Type::done;
          complete();
          return SyncParse::ready;
        }
        if (request == SyncId::stat) {
          out.type = SyncReply::Type::stat;
          out.stat = get_stat_v1_body(buffer_ + 4);
          complete();
          return SyncParse::ready;
        }
        if (request == SyncId::sta2 || request == SyncId::lst2) {
          out.type = SyncReply::Type::stat;
          out.stat = get_stat_v2_body(buffer_ + 4);
          complete();
          return SyncParse::ready;
        }
        const bool v2 = request == SyncId::lis2;
        pending_ = SyncReply{};
        pending_.type = SyncReply::Type::entry;
        pending_.stat = v2 ? get_stat_v2_body(buffer_ + 4) : get_stat_v1_body(buffer_ + 4);
        remaining_ = load_le32(buffer_ + (v2 ? 72 : 16));
        if (remaining_ > kSyncPathMax) {
          return fail("the device sent a directory entry name of " + std::to_string(remaining_) +
                      " bytes, more than the " + std::to_string(kSyncPathMax) + " allowed");
        }
        filled_ = 0;
        want_ = kSyncHeaderSize;
        state_ = State::name;
        if (remaining_ == 0) {
          out = std::move(pending_);
          state_ = State::header;
          return SyncParse::ready;
        }
        break;
      }
      case State::name:
        if (!gather(input, pending_.name, remaining_)) return SyncParse::need_more;
        out = std::move(pending_);
        state_ = State::header;
        return SyncParse::ready;
      case State::data: {
        const std::size_t take = std::min<std::size_t>(remaining_, input.size());
        out = SyncReply{};
        out.type = SyncReply::Type::data;
        out.data = input.first(take);
        input = input.subspan(take);
        remaining_ -= static_cast<std::uint32_t>(take);
        if (remaining_ == 0) state_ = State::header;
        return SyncParse::ready;
      }
      case State::message:
        if (!gather(input, pending_.message, remaining_)) return SyncParse::need_more;
        out = std::move(pending_);
        expected_.clear();
        reset();
        return SyncParse::ready;
    }
  }
  return SyncParse::need_more;
}

// ---- SyncRequestReader

SyncParse SyncRequestReader::fail(std::string detail) {
  failed_ = true;
  error_detail_ = std::move(detail);
  return SyncParse::failed;
}

SyncParse SyncRequestReader::finish_path(SyncRequest& out) {
  filled_ = 0;
  want_ = kSyncHeaderSize;
  state_ = State::header;
  if (pending_.id == SyncId::send) {
    const std::size_t comma = pending_.path.rfind(',');
    if (comma == std::string::npos) return fail("missing , in ID_SEND_V1");
    if (!parse_mode(std::string_view(pending_.path).substr(comma + 1), pending_.mode))
      return fail("bad mode");
    pending_.path.resize(comma);
    in_push_ = true;
  } else if (pending_.id == SyncId::snd2 || pending_.id == SyncId::rcv2) {
    want_ = pending_.id == SyncId::snd2 ? 12 : 8;
    state_ = State::setup;
    return SyncParse::need_more;
  }
  out = std::move(pending_);
  return SyncParse::ready;
}

SyncParse SyncRequestReader::parse(std::span<const std::uint8_t>& input, SyncRequest& out) {
  if (failed_) return SyncParse::failed;
  while (!input.empty()) {
    switch (state_) {
      case State::header: {
        if (!fill(input, buffer_, filled_, want_)) return SyncParse::need_more;
        filled_ = 0;
        const std::uint32_t id = load_le32(buffer_);
        const std::uint32_t length = load_le32(buffer_ + 4);
        if (in_push_) {
          if (id == static_cast<std::uint32_t>(SyncId::done)) {
            in_push_ = false;
            out = SyncRequest{};
            out.type = SyncRequest::Type::done;
            out.id = SyncId::done;
            out.mtime = length;
            return SyncParse::ready;
          }
          if (id != static_cast<std::uint32_t>(SyncId::data)) {
            return fail("invalid data message: expected DATA or DONE, got " + id_text(id));
          }
          if (length > kSyncDataMax) {
            return fail("oversize data message: " + std::to_string(length) + " bytes, at most " +
                        std::to_string(kSyncDataMax) + " allowed");
          }
          remaining_ = length;
          if (length > 0) state_ = State::data;
          break;
        }
        if (!is_request(id)) return fail("unknown command " + id_text(id));
        if (length > kSyncPathMax) return fail("path too long");
        pending_ = SyncRequest{};
        pending_.id = static_cast<SyncId>(id);
        remaining_ = length;
        state_ = State::path;
        if (length == 0) {
          const SyncParse result = finish_path(out);
          if (result != SyncParse::need_more) return result;
        }
        break;
      }
      case State::path:
        if (!gather(input, pending_.path, remaining_)) return SyncParse::need_more;
        if (const SyncParse result = finish_path(out); result != SyncParse::need_more)
          return result;
        break;
      case State::setup: {
        if (!fill(input, buffer_, filled_, want_)) return SyncParse::need_more;
        filled_ = 0;
        want_ = kSyncHeaderSize;
        state_ = State::header;
        const std::uint32_t id = load_le32(buffer_);
        if (id != static_cast<std::uint32_t>(pending_.id)) {
          return fail("invalid " + id_text(static_cast<std::uint32_t>(pending_.id)) +
                      " setup packet: got " + id_text(id));
        }
        if (pending_.id == SyncId::snd2) {
          pending_.mode = load_le32(buffer_ + 4);
          pending_.flags = load_le32(buffer_ + 8);
          in_push_ = true;
        } else {
          pending_.flags = load_le32(buffer_ + 4);
        }
        out = std::move(pending_);
        return SyncParse::ready;
      }
      case State::data: {
        const std::size_t take = std::min<std::size_t>(remaining_, input.size());
        out = SyncRequest{};
        out.type = SyncRequest::Type::data;
        out.id = SyncId::data;
        out.data = input.first(take);
        input = input.subspan(take);
        remaining_ -= static_cast<std::uint32_t>(take);
        if (remaining_ == 0) state_ = State::header;
        return SyncParse::ready;
      }
    }
  }
  return SyncParse::need_more;
}

}  // namespace adbwire::protocol
