// SPDX-License-Identifier: Apache-2.0
#pragma once
// One pipeline operand's copies at run time, on one core, without its types: the operand's
// HBM view (base, extents, strides), its slots in VMEM or SMEM and their DMA semaphores.
// It turns the plan's copy events into DMA tasks (cut at the array's end for ragged
// blocks). Nothing here depends on the kernel, so every pipeline shares one executor
// (executor.hpp) and, under separate compilation, the runtime compiles these functions
// once; the typed part (the ref the body sees) is pipeline/operand.hpp.

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <pallas/config.hpp>
#include <pallas/detail/checked/checked_access.hpp>
#include <pallas/detail/pipeline/plan.hpp>
#include <pallas/detail/pipeline/spec_rules.hpp>
#include <pallas/detail/runtime/dma_order.hpp>
#include <pallas/detail/runtime/dma_task.hpp>
#include <pallas/memory_space.hpp>
#include <pallas/shape.hpp>

namespace pallas::detail {

struct core_state;
struct traffic_row;

/// The widest element a pipeline operand has (bytes of one fill value).
inline constexpr std::size_t max_element_bytes = 16;

/// Writes the fill of uninitialized memory for elements of one type under a policy into
/// `value` (element-size bytes); false when nothing is filled (uninitialized.hpp).
using fill_function = bool (*)(uninitialized_policy policy, std::byte* value) noexcept;

class operand_io {
 public:
  /// An operand of kind `desc.kind` over `hbm` (the operand's data: the copies' HBM end),
  /// whose slots hold `element_bytes`-byte elements in `space`.
  operand_io(operand_desc const& desc, caller who, memory_space space, std::size_t element_bytes,
             fill_function fill_of, std::byte* hbm, std::span<index_t const> extents,
             std::span<index_t const> strides) noexcept;

  operand_desc const& desc() const noexcept { return desc_; }
  bool buffered() const noexcept { return desc_.kind == operand_kind::buffered; }

  /// Counts this operand's copies in the cost report's row for it in pipeline `pipeline`.
  void count_traffic(void const* pipeline) noexcept;

  /// Takes `buffer_count` slots in the core's VMEM or SMEM (released with the arena's mark).
  void allocate(core_state& core, int buffer_count);

  /// Starts the copy of block `b` into slot `slot` (fetch) or out of it (write-back).
  void start(core_state& core, std::span<index_t const> b, int slot, bool to_hbm);

  /// Waits for the copy of block `b` in slot `slot`.
  void wait(core_state& core, std::span<index_t const> b, int slot, bool to_hbm);

  /// The HBM bytes the copy of block `b` through slot `slot` touches.
  region hbm_region(std::span<index_t const> b, int slot, bool to_hbm) const;

  /// The HBM bytes of the whole operand.
  region hbm_extent() const noexcept;

  /// The copy of block `b` in words: "in_specs[0]'s fetch of block (2, 0)".
  std::string copy_name(std::span<index_t const> b, bool to_hbm) const;

  caller who() const noexcept { return who_; }

  /// The first element of slot `slot`.
  std::byte* slot_data(int slot) const noexcept {
    return slots_ + static_cast<std::int64_t>(slot) * block_elements_ * static_cast<std::int64_t>(element_bytes_);
  }

 private:
  /// A DMA task moving block `b` between the operand's memory and a slot: the part of the
  /// block inside the array (a ragged or padded block is cut at the array's ends).
  dma_task block_task(std::span<index_t const> b, int slot, bool to_hbm, bool& clipped) const;

  operand_desc desc_;
  caller who_;
  memory_space space_;
  std::size_t element_bytes_;
  fill_function fill_of_;
  std::byte* hbm_;
  std::array<index_t, max_block_rank> extents_{}, strides_{};
  index_t block_elements_ = 1;
  int buffer_count_ = 0;
  std::byte* slots_ = nullptr;
  std::unique_ptr<std::atomic<std::int32_t>[]> sems_;
  std::vector<std::int64_t> started_ns_;      // tracing: when each slot's copy started
  std::vector<std::int64_t> started_cpu_ns_;  // tracing: the thread's CPU clock then
  std::array<std::byte, max_element_bytes> fill_{};  // what uninitialized slot elements hold
  bool fill_clipped_ = false;                         // ragged input blocks get it where clipped
  traffic_row* traffic_ = nullptr;                    // the cost report's row (cost_counters.hpp)
};

/// Records the pipeline copy of block `b` in slot `slot`, started at `started_ns` (then
/// cleared), in the trace's DMA track: from its start to the end of its wait.
[[gnu::cold]] PALLAS_DECL void trace_pipeline_copy(core_state const& core, operand_desc const& desc,
                                                   std::span<index_t const> b, int slot, bool to_hbm,
                                                   std::int32_t bytes, std::int64_t& started_ns,
                                                   std::int64_t started_cpu_ns);

/// Fills `count` elements of `element_bytes` bytes at `to` with `value`.
PALLAS_DECL void fill_elements(std::byte* to, index_t count, std::byte const* value, std::size_t element_bytes) noexcept;

}  // namespace pallas::detail

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/detail/pipeline/operand_io.ipp>
#endif
