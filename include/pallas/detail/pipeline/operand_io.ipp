// SPDX-License-Identifier: Apache-2.0
#pragma once
// A pipeline operand's copies, compiled once per program under separate compilation
// (config.hpp) and inline in every translation unit otherwise.

#include <pallas/detail/pipeline/operand_io.hpp>

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

#include <pallas/detail/pipeline/rules.hpp>
#include <pallas/detail/runtime/core.hpp>
#include <pallas/detail/runtime/cost_counters.hpp>
#include <pallas/detail/runtime/dma_engine_ops.hpp>
#include <pallas/detail/runtime/launch.hpp>
#include <pallas/trace/recorder.hpp>

namespace pallas::detail {

PALLAS_DECL operand_io::operand_io(operand_desc const& desc, caller who, memory_space space, std::size_t element_bytes,
                                   fill_function fill_of, std::byte* hbm, std::span<index_t const> extents,
                                   std::span<index_t const> strides) noexcept
    : desc_(desc), who_(who), space_(space), element_bytes_(element_bytes), fill_of_(fill_of), hbm_(hbm) {
  for (std::size_t d = 0; d < extents.size() && d < max_block_rank; ++d) {
    extents_[d] = extents[d];
    strides_[d] = strides[d];
  }
  for (int d = 0; d < desc.rank; ++d) block_elements_ *= desc.block[static_cast<std::size_t>(d)];
}

PALLAS_DECL void operand_io::count_traffic(void const* pipeline) noexcept {
  if (buffered()) traffic_ = pipeline_traffic_row(pipeline, desc_.output, desc_.position, space_);
}

PALLAS_DECL void operand_io::allocate(core_state& core, int buffer_count) {
  if (!buffered()) return;
  buffer_count_ = buffer_count;
  auto const bytes = static_cast<std::int64_t>(buffer_count) * block_elements_ * static_cast<std::int64_t>(element_bytes_);
  auto& memory = space_ == memory_space::smem ? core.smem : core.vmem;
  slots_ = static_cast<std::byte*>(memory.allocate(bytes, "pipeline buffers of " + operand_name(desc_)));
  if (fill_of_(core.launch->conventions.uninitialized, fill_.data()))
    fill_elements(slots_, buffer_count * block_elements_, fill_.data(), element_bytes_);
  fill_clipped_ = fill_of_(core.launch->conventions.uninitialized, fill_.data());
  sems_ = std::make_unique<std::atomic<std::int32_t>[]>(static_cast<std::size_t>(buffer_count));
  started_ns_.assign(static_cast<std::size_t>(buffer_count), 0);
  started_cpu_ns_.assign(static_cast<std::size_t>(buffer_count), 0);
}

PALLAS_DECL void operand_io::start(core_state& core, std::span<index_t const> b, int slot, bool to_hbm) {
  bool clipped = false;
  auto task = block_task(b, slot, to_hbm, clipped);
  // Out-of-bounds elements of a ragged or padded input block are unspecified: fill them as
  // uninitialized memory (poison in checked mode).
  if (!to_hbm && clipped && fill_clipped_) fill_elements(slot_data(slot), block_elements_, fill_.data(), element_bytes_);
  task.semaphore = &sems_[static_cast<std::size_t>(slot)];
  task.streaming = to_hbm;
  if (traffic_) traffic_->add(task.bytes);
  if (trace::enabled()) {
    started_ns_[static_cast<std::size_t>(slot)] = detail::now_ns();
    started_cpu_ns_[static_cast<std::size_t>(slot)] = detail::thread_cpu_ns();
  }
  core.dma.start(core, task, {});
}

PALLAS_DECL void operand_io::wait(core_state& core, std::span<index_t const> b, int slot, bool to_hbm) {
  bool clipped = false;
  auto const bytes = block_task(b, slot, to_hbm, clipped).bytes;
  core.dma.wait(core, sems_[static_cast<std::size_t>(slot)], bytes, caller_name(who_), {});
  if (trace::enabled() && started_ns_[static_cast<std::size_t>(slot)] != 0)
    trace_pipeline_copy(core, desc_, b, slot, to_hbm, bytes, started_ns_[static_cast<std::size_t>(slot)],
                        started_cpu_ns_[static_cast<std::size_t>(slot)]);
}

PALLAS_DECL region operand_io::hbm_region(std::span<index_t const> b, int slot, bool to_hbm) const {
  bool clipped = false;
  dma_task const t = block_task(b, slot, to_hbm, clipped);
  return to_hbm ? t.dst_region() : t.src_region();
}

PALLAS_DECL region operand_io::hbm_extent() const noexcept {
  return region::strided(hbm_, desc_.rank, extents_.data(), strides_.data(), static_cast<std::int64_t>(element_bytes_));
}

PALLAS_DECL std::string operand_io::copy_name(std::span<index_t const> b, bool to_hbm) const {
  return operand_name(desc_) + "'s " + (to_hbm ? "write-back" : "fetch") + " of block " + tuple_string(b);
}

PALLAS_DECL dma_task operand_io::block_task(std::span<index_t const> b, int slot, bool to_hbm, bool& clipped) const {
  dma_task t;
  auto const rank = static_cast<std::size_t>(desc_.rank);
  auto const eb = static_cast<index_t>(element_bytes_);
  std::byte* hbm = hbm_;
  std::byte* local = slot_data(slot);
  index_t slot_stride = 1;
  std::array<index_t, max_block_rank> slot_strides{};
  for (std::size_t d = rank; d-- > 0;) {
    slot_strides[d] = slot_stride;
    slot_stride *= desc_.block[d];
  }
  clipped = false;
  t.rank = desc_.rank;
  t.element_bytes = element_bytes_;
  index_t elements = 1;
  for (std::size_t d = 0; d < rank; ++d) {
    index_t const start = desc_.start(d, b), length = desc_.length(d, b);
    index_t const lo = std::max<index_t>(start, 0), hi = std::min(start + length, extents_[d]);
    index_t const len = std::max<index_t>(hi - lo, 0);
    clipped |= len != desc_.block[d];
    hbm += lo * strides_[d] * eb;
    local += (lo - start) * slot_strides[d] * eb;
    t.extents[d] = len;
    elements *= len;
    t.src_strides[d] = to_hbm ? slot_strides[d] : strides_[d];
    t.dst_strides[d] = to_hbm ? strides_[d] : slot_strides[d];
  }
  t.src = to_hbm ? local : hbm;
  t.dst = to_hbm ? hbm : local;
  t.bytes = static_cast<std::int32_t>(elements * eb);
  return t;
}

PALLAS_DECL void fill_elements(std::byte* to, index_t count, std::byte const* value, std::size_t element_bytes) noexcept {
  // A constant size per case: the copies compile to plain (vectorized) stores.
  auto fill_as = [&]<std::size_t Bytes>(std::integral_constant<std::size_t, Bytes>) {
    for (index_t k = 0; k < count; ++k) std::memcpy(to + k * static_cast<index_t>(Bytes), value, Bytes);
  };
  switch (element_bytes) {
    case 1: fill_as(std::integral_constant<std::size_t, 1>{}); break;
    case 2: fill_as(std::integral_constant<std::size_t, 2>{}); break;
    case 4: fill_as(std::integral_constant<std::size_t, 4>{}); break;
    case 8: fill_as(std::integral_constant<std::size_t, 8>{}); break;
    default:
      for (index_t k = 0; k < count; ++k) std::memcpy(to + k * static_cast<index_t>(element_bytes), value, element_bytes);
  }
}

PALLAS_DECL void trace_pipeline_copy(core_state const& core, operand_desc const& desc, std::span<index_t const> b,
                                     int slot, bool to_hbm, std::int32_t bytes, std::int64_t& started_ns,
                                     std::int64_t started_cpu_ns) {
  std::string const name = operand_name(desc);
  trace::event e;
  e.name = name + (to_hbm ? " write-back of block " : " fetch of block ") + tuple_string(b) + " (slot " +
           std::to_string(slot) + ")";
  e.launch = core.launch->id;
  e.core = core.index;
  e.dma = true;
  e.category = "pipeline_copy";
  e.lane = desc.position + (desc.output ? 1000 : 0);
  e.lane_name = name;
  e.bytes = bytes;
  e.operand = name;
  // No grid point: the wait runs before the step that uses the block (its name says which).
  e.begin_ns = started_ns;
  e.cpu_ns = detail::cpu_since(started_cpu_ns);
  e.end_ns = detail::now_ns();
  started_ns = 0;
  detail::recorder::instance().record(std::move(e));
}

}  // namespace pallas::detail
