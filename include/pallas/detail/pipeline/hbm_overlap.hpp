// SPDX-License-Identifier: Apache-2.0
#pragma once
// Checked mode's watch over one core's pipeline copies that read and write the same HBM
// bytes: an input and an output over one buffer (pallas_call's input_output_aliases, or one
// HBM ref given to emit_pipeline as both). A fetch in flight while a write-back of the same
// bytes is also in flight reads the old or the new data depending on which DMA finishes
// first, on a TPU as here (PALLAS_DMA_ORDER=random shows it): a race. The plan decides which
// copies are in flight together, so it is reported when the second starts, under any order.

#include <array>
#include <cstddef>
#include <span>
#include <vector>

#include <pallas/config.hpp>
#include <pallas/detail/checked/checked_access.hpp>
#include <pallas/detail/pipeline/operand_io.hpp>
#include <pallas/detail/pipeline/plan.hpp>
#include <pallas/shape.hpp>

namespace pallas::detail {

class hbm_overlap_check {
 public:
  /// Watches `operands` (inputs then outputs) when some input's HBM bytes and some output's
  /// overlap; otherwise (and with no operands: unchecked builds) it is inactive.
  explicit hbm_overlap_check(std::span<operand_io const> operands);

  bool active() const noexcept { return active_; }

  /// Before operand `k` starts the copy of block `b` through slot `slot`: throws
  /// pallas::race_error when a copy in the other direction still in flight touches its HBM
  /// bytes.
  void starting(std::size_t k, std::span<index_t const> b, int slot, bool to_hbm);

  /// After operand `k`'s copy through slot `slot` was waited for.
  void waited(std::size_t k, int slot, bool to_hbm) noexcept;

 private:
  struct in_flight {
    std::size_t operand;
    int slot;
    bool to_hbm;
    region hbm;
    std::array<index_t, max_block_rank> block;
    int rank;
  };
  std::span<operand_io const> operands_;
  bool active_ = false;
  std::vector<in_flight> copies_;
};

}  // namespace pallas::detail

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/detail/pipeline/hbm_overlap.ipp>
#endif
