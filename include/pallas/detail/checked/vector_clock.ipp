// SPDX-License-Identifier: Apache-2.0
#pragma once
// vector_clock's definitions, compiled once per program under separate compilation.

#include <pallas/detail/checked/vector_clock.hpp>

#include <algorithm>

namespace pallas::detail {

PALLAS_DECL void vector_clock::reset(int cores) { t_.assign(static_cast<std::size_t>(cores), 0); }

PALLAS_DECL void vector_clock::join(vector_clock const& other) noexcept {
  if (t_.size() < other.t_.size()) t_.resize(other.t_.size(), 0);
  for (std::size_t k = 0; k < other.t_.size(); ++k) t_[k] = std::max(t_[k], other.t_[k]);
}

}  // namespace pallas::detail
