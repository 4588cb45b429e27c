// SPDX-License-Identifier: Apache-2.0
#pragma once
// The HBM overlap check, compiled once per program under separate compilation (config.hpp)
// and inline in every translation unit otherwise.

#include <pallas/detail/pipeline/hbm_overlap.hpp>

#include <algorithm>

#include <pallas/detail/pipeline/spec_rules.hpp>
#include <pallas/error.hpp>

namespace pallas::detail {

PALLAS_DECL hbm_overlap_check::hbm_overlap_check(std::span<operand_io const> operands) : operands_(operands) {
  for (operand_io const& in : operands) {
    if (!in.buffered() || in.desc().output) continue;
    region const in_bytes = in.hbm_extent();
    for (operand_io const& out : operands)
      if (out.buffered() && out.desc().output && in_bytes.intersects(out.hbm_extent())) active_ = true;
  }
}

PALLAS_DECL void hbm_overlap_check::starting(std::size_t k, std::span<index_t const> b, int slot, bool to_hbm) {
  operand_io const& op = operands_[k];
  region const bytes = op.hbm_region(b, slot, to_hbm);
  for (in_flight const& other : copies_) {
    if (other.to_hbm == to_hbm || !bytes.intersects(other.hbm)) continue;
    std::span<index_t const> const other_block(other.block.data(), static_cast<std::size_t>(other.rank));
    std::string const earlier = operands_[other.operand].copy_name(other_block, other.to_hbm);
    std::string const later = op.copy_name(b, to_hbm);
    fail<race_error>("pallas::race: pallas::", caller_name(op.who()), ": ", later, " starts while ", earlier,
                     " is in flight over the same HBM bytes (an input and an output over one buffer): the fetch "
                     "reads the old or the new data depending on which DMA finishes first. Fetch those bytes at "
                     "a step after the write-back's wait, or write them at a step after the fetch's wait");
  }
  in_flight c{k, slot, to_hbm, bytes, {}, static_cast<int>(b.size())};
  std::copy(b.begin(), b.end(), c.block.begin());
  copies_.push_back(c);
}

PALLAS_DECL void hbm_overlap_check::waited(std::size_t k, int slot, bool to_hbm) noexcept {
  auto const done = std::find_if(copies_.begin(), copies_.end(), [&](in_flight const& c) {
    return c.operand == k && c.slot == slot && c.to_hbm == to_hbm;
  });
  if (done != copies_.end()) copies_.erase(done);
}

}  // namespace pallas::detail
