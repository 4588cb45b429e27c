// SPDX-License-Identifier: Apache-2.0
#pragma once
// arena's allocation, compiled once per program under separate compilation (config.hpp).

#include <pallas/detail/runtime/arena.hpp>
#include <pallas/error.hpp>

namespace pallas::detail {

PALLAS_DECL std::byte* arena::allocate(std::int64_t bytes, std::string_view what) {
  std::int64_t const start = (used_ + static_cast<std::int64_t>(alignment) - 1) &
                             ~static_cast<std::int64_t>(alignment - 1);
  if (start + bytes > capacity_)
    fail("pallas::", name_, ": allocating ", bytes, " bytes for ", what, " needs ", start + bytes,
         " bytes but the core has ", capacity_);
  used_ = start + bytes;
  if (used_ > peak_) peak_ = used_;
  return base_ + start;
}

}  // namespace pallas::detail
