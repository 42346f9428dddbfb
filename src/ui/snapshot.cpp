#include <stdexcept>
#include <string>

#include "ui/snapshot_impl.hpp"

namespace adbwire::ui {

Snapshot::Snapshot() : impl_(std::make_unique<detail::SnapshotState>()) {}
Snapshot::Snapshot(Snapshot&&) noexcept = default;
Snapshot& Snapshot::operator=(Snapshot&&) noexcept = default;
Snapshot::~Snapshot() = default;

std::span<const Node> Snapshot::nodes() const noexcept { return impl_->nodes; }

const Node& Snapshot::node(NodeIndex index) const {
  if (index >= impl_->nodes.size()) {
    throw std::out_of_range("ui::Snapshot::node: index " + std::to_string(index) + " is past the " +
                            std::to_string(impl_->nodes.size()) + " nodes");
  }
  return impl_->nodes[index];
}

std::span<const Attribute> Snapshot::extra_attributes(NodeIndex index) const {
  const Node& n = node(index);
  return std::span<const Attribute>(impl_->extras)
      .subspan(n.extra_begin, n.extra_end - n.extra_begin);
}

std::span<const RefInfo> Snapshot::refs() const noexcept { return impl_->refs; }

const RefInfo* Snapshot::ref(std::uint32_t n) const noexcept {
  if (n == 0 || n > impl_->refs.size()) return nullptr;
  return &impl_->refs[n - 1];
}

std::span<const Window> Snapshot::windows() const noexcept { return impl_->windows; }

const AppInfo& Snapshot::app() const noexcept { return impl_->app; }

int Snapshot::rotation() const noexcept { return impl_->rotation; }

const SnapshotOptions& Snapshot::options() const noexcept { return impl_->options; }

}  // namespace adbwire::ui
