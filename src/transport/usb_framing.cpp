#include "transport/usb_framing.hpp"

#include <algorithm>
#include <asio/error.hpp>

#include "adbwire/error.hpp"
#include "adbwire/protocol/message.hpp"

namespace adbwire::transport {
namespace {

class UsbLinkCategory final : public std::error_category {
 public:
  const char* name() const noexcept override { return "adbwire.usb"; }
  std::string message(int value) const override {
    switch (static_cast<UsbLinkError>(value)) {
      case UsbLinkError::vanished:
        return "the USB device disappeared (unplugged, reset or re-enumerated)";
      case UsbLinkError::stalled:
        return "a USB endpoint stalled in the middle of a transfer; the device was reset, "
               "connect again";
      case UsbLinkError::stall_persists:
        return "a USB endpoint stayed halted after clear-halt; the device was reset, connect again";
      case UsbLinkError::overflow:
        return "the device sent more data than the USB transfer asked for";
      case UsbLinkError::transfer_failed:
        return "a USB bulk transfer failed (bus error: check the cable and hub)";
    }
    return "unknown USB link error";
  }
};

}  // namespace

const char* usb_status_text(UsbStatus status) noexcept {
  switch (status) {
    case UsbStatus::ok:
      return "ok";
    case UsbStatus::timeout:
      return "timed out";
    case UsbStatus::stall:
      return "endpoint stalled";
    case UsbStatus::no_device:
      return "no such device (it was unplugged)";
    case UsbStatus::access:
      return "permission denied";
    case UsbStatus::busy:
      return "interface claimed by another program";
    case UsbStatus::overflow:
      return "overflow";
    case UsbStatus::not_supported:
      return "not supported on this system";
    case UsbStatus::io_error:
      return "I/O error";
  }
  return "unknown";
}

const std::error_category& usb_link_category() noexcept {
  static const UsbLinkCategory category;
  return category;
}

std::error_code make_error_code(UsbLinkError error) noexcept {
  return {static_cast<int>(error), usb_link_category()};
}

bool needs_zero_length_packet(std::size_t size, std::uint16_t max_packet_size) noexcept {
  return size != 0 && max_packet_size != 0 && size % max_packet_size == 0;
}

std::size_t round_up_to_packets(std::size_t size, std::uint16_t max_packet_size) noexcept {
  if (max_packet_size == 0) return size;
  return (size + max_packet_size - 1) / max_packet_size * max_packet_size;
}

bool plausible_usb_header(std::span<const std::uint8_t, protocol::kHeaderSize> bytes,
                          std::uint32_t max_payload) noexcept {
  const protocol::Header header = protocol::decode_header(bytes);
  return protocol::command_name(header.command) != "????" &&
         header.magic == (header.command ^ 0xffffffffu) && header.data_length <= max_payload;
}

// ---- OutboundSplitter ---------------------------------------------------------------------

std::error_code OutboundSplitter::feed(std::span<const std::uint8_t> bytes,
                                       std::vector<std::vector<std::uint8_t>>& out) {
  while (!bytes.empty()) {
    if (failed_) return make_error_code(errc::protocol_error);
    const std::size_t wanted = in_payload_ ? payload_size_ : protocol::kHeaderSize;
    const std::size_t take = std::min(wanted - pending_.size(), bytes.size());
    pending_.insert(pending_.end(), bytes.begin(),
                    bytes.begin() + static_cast<std::ptrdiff_t>(take));
    bytes = bytes.subspan(take);
    if (pending_.size() < wanted) break;
    if (!in_payload_) {
      const std::span<const std::uint8_t, protocol::kHeaderSize> header(pending_.data(),
                                                                        protocol::kHeaderSize);
      if (!plausible_usb_header(header)) {
        failed_ = true;
        return make_error_code(errc::protocol_error);
      }
      payload_size_ = protocol::decode_header(header).data_length;
      in_payload_ = payload_size_ != 0;
    } else {
      in_payload_ = false;
    }
    out.push_back(std::move(pending_));
    pending_.clear();
  }
  return failed_ ? make_error_code(errc::protocol_error) : std::error_code{};
}

// ---- InboundFramer ------------------------------------------------------------------------

std::size_t InboundFramer::next_read_size() const noexcept {
  const std::size_t lacking =
      payload_left_ != 0 ? payload_left_ : protocol::kHeaderSize - header_filled_;
  return round_up_to_packets(lacking, max_packet_size_);
}

void InboundFramer::accept(std::span<const std::uint8_t> transfer, std::vector<std::uint8_t>& out) {
  if (!synced_) {
    // An empty transfer (a timeout slice that got nothing, or a ZLP) changes nothing: a header
    // begun by whole packets is still completed by what comes next.
    if (transfer.empty()) return;
    // A candidate header must start a transfer. One cut short by a timeout slice still
    // consists of whole packets; a transfer that ended on a short packet before 24 bytes is
    // not a header.
    const std::size_t take = std::min(protocol::kHeaderSize - header_filled_, transfer.size());
    std::copy_n(transfer.begin(), take, header_ + header_filled_);
    const bool whole_packets = max_packet_size_ != 0 && transfer.size() % max_packet_size_ == 0;
    if (header_filled_ + take < protocol::kHeaderSize && !transfer.empty() && whole_packets) {
      header_filled_ += take;
      return;
    }
    if (header_filled_ + take < protocol::kHeaderSize ||
        !plausible_usb_header(std::span<const std::uint8_t, protocol::kHeaderSize>(header_))) {
      discarded_ += header_filled_ + transfer.size();
      header_filled_ = 0;
      return;
    }
    synced_ = true;
    header_filled_ = 0;
    out.insert(out.end(), header_, header_ + protocol::kHeaderSize);
    payload_left_ =
        protocol::decode_header(std::span<const std::uint8_t, protocol::kHeaderSize>(header_))
            .data_length;
    transfer = transfer.subspan(take);
  }
  if (failed_) {
    out.insert(out.end(), transfer.begin(), transfer.end());
    return;
  }
  while (!transfer.empty()) {
    if (payload_left_ != 0) {
      const std::size_t take = std::min(payload_left_, transfer.size());
      out.insert(out.end(), transfer.begin(), transfer.begin() + static_cast<std::ptrdiff_t>(take));
      transfer = transfer.subspan(take);
      payload_left_ -= take;
      continue;
    }
    const std::size_t take = std::min(protocol::kHeaderSize - header_filled_, transfer.size());
    std::copy_n(transfer.begin(), take, header_ + header_filled_);
    out.insert(out.end(), transfer.begin(), transfer.begin() + static_cast<std::ptrdiff_t>(take));
    transfer = transfer.subspan(take);
    header_filled_ += take;
    if (header_filled_ < protocol::kHeaderSize) continue;
    header_filled_ = 0;
    const std::span<const std::uint8_t, protocol::kHeaderSize> header(header_);
    if (!plausible_usb_header(header)) {
      failed_ = true;
      out.insert(out.end(), transfer.begin(), transfer.end());
      return;
    }
    payload_left_ = protocol::decode_header(header).data_length;
  }
}

// ---- UsbLink ------------------------------------------------------------------------------

UsbLink::UsbLink(BulkPipe& pipe, std::string description)
    : pipe_(pipe), description_(std::move(description)), framer_(pipe.max_packet_size()) {}

std::error_code UsbLink::recover(bool in, bool partial, int& retries) {
  if (!partial && retries < kMaxStallRetries) {
    ++retries;
    const UsbStatus cleared = pipe_.clear_halt(in);
    if (cleared == UsbStatus::ok) return {};
    if (cleared == UsbStatus::no_device) return make_error_code(UsbLinkError::vanished);
  }
  if (pipe_.reset() == UsbStatus::no_device && !partial) {
    return make_error_code(UsbLinkError::vanished);
  }
  return make_error_code(partial ? UsbLinkError::stalled : UsbLinkError::stall_persists);
}

std::error_code UsbLink::send_transfer(std::span<const std::uint8_t> transfer,
                                       const std::atomic<bool>& stop) {
  const bool zlp = needs_zero_length_packet(transfer.size(), pipe_.max_packet_size());
  std::size_t sent = 0;
  bool zlp_sent = !zlp;
  int retries = 0;
  while (sent < transfer.size() || !zlp_sent) {
    if (stop.load()) return asio::error::operation_aborted;
    const bool sending_zlp = sent == transfer.size();
    const UsbTransferResult result = pipe_.bulk_out(transfer.subspan(sent), kSlice);
    sent += result.transferred;
    switch (result.status) {
      case UsbStatus::ok:
        if (sending_zlp) zlp_sent = true;
        retries = 0;
        break;
      case UsbStatus::timeout:
        break;
      case UsbStatus::stall:
        // A stalled ZLP moved nothing; a stalled data transfer may have moved packets the
        // device has now seen, and the rest cannot be resent as if nothing happened.
        if (const auto error =
                recover(false, !sending_zlp && sent != 0 && sent < transfer.size(), retries)) {
          return error;
        }
        break;
      case UsbStatus::no_device:
        return make_error_code(UsbLinkError::vanished);
      default:
        return make_error_code(UsbLinkError::transfer_failed);
    }
  }
  return {};
}

std::error_code UsbLink::write(std::span<const std::uint8_t> bytes, const std::atomic<bool>& stop) {
  transfers_.clear();
  const std::error_code split_error = splitter_.feed(bytes, transfers_);
  for (const auto& transfer : transfers_) {
    if (const auto error = send_transfer(transfer, stop)) return error;
  }
  return split_error;
}

std::error_code UsbLink::read(std::vector<std::uint8_t>& out, const std::atomic<bool>& stop) {
  const std::size_t had = out.size();
  while (out.size() == had) {
    if (pending_read_error_) return pending_read_error_;
    if (framer_.failed()) return make_error_code(errc::protocol_error);
    if (stop.load()) return asio::error::operation_aborted;
    in_buffer_.resize(framer_.next_read_size());
    const UsbTransferResult result = pipe_.bulk_in(in_buffer_, kSlice);
    framer_.accept(std::span(in_buffer_).first(std::min(result.transferred, in_buffer_.size())),
                   out);
    std::error_code error;
    switch (result.status) {
      case UsbStatus::ok:
        in_stall_retries_ = 0;
        break;
      case UsbStatus::timeout:
        break;
      case UsbStatus::stall:
        error = recover(true, !framer_.at_boundary(), in_stall_retries_);
        break;
      case UsbStatus::no_device:
        error = make_error_code(UsbLinkError::vanished);
        break;
      case UsbStatus::overflow:
        error = make_error_code(UsbLinkError::overflow);
        break;
      default:
        error = make_error_code(UsbLinkError::transfer_failed);
        break;
    }
    if (error) {
      if (out.size() == had) return error;
      pending_read_error_ = error;
    }
  }
  return {};
}

}  // namespace adbwire::transport
