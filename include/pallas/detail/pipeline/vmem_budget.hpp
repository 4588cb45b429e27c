// SPDX-License-Identifier: Apache-2.0
#pragma once
// What a pipeline's buffers take in VMEM and SMEM: per operand its Buffered(n) slots of one
// block, summed over engine E's operands.

#include <cstddef>
#include <cstdint>
#include <utility>

#include <pallas/block_spec.hpp>
#include <pallas/memory_space.hpp>

namespace pallas::detail {

/// The bytes an operand's buffers take in memory space Space (the default count is 2; an
/// operand viewed in place or handed over raw takes none).
template <class Spec, class RefT, memory_space Space = memory_space::vmem>
constexpr std::int64_t buffer_bytes_of() {
  if constexpr (Spec::raw || RefT::space == Spec::space || Spec::space != Space)
    return 0;
  else
    return std::int64_t{Spec::buffer_count > 0 ? Spec::buffer_count : 2} * Spec::block_elements *
           static_cast<std::int64_t>(sizeof(typename RefT::value_type));
}
/// The bytes engine E's operands' buffers take in memory space Space.
template <class E, memory_space Space = memory_space::vmem>
constexpr std::int64_t pipeline_buffer_bytes() {
  return []<std::size_t... K>(std::index_sequence<K...>) {
    return (std::int64_t{0} + ... + buffer_bytes_of<typename E::template spec_t<K>, typename E::template ref_t<K>, Space>());
  }(std::make_index_sequence<E::num_operands>{});
}

}  // namespace pallas::detail
