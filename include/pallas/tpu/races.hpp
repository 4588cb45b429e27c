// SPDX-License-Identifier: Apache-2.0
#pragma once
// `pltpu.races_found()`: whether checked mode's race detector (detail/checked/
// race_detector.hpp) found a race in the last launch that ran with detection on. As in
// Pallas, where the flag is a global the interpreted call sets: each such launch (any
// thread) starts it false; a race found by any of its cores turns it true. Launches with
// detect_races = off leave it alone. With PALLAS_CHECKED=0 nothing is detected: false.
//
//   auto out = fill_42();                 // both cores write the same output
//   if (pltpu::races_found()) ...         // true on 2 or more cores

#include <atomic>

#include <pallas/config.hpp>
#include <pallas/detail/checked/race_detector.hpp>

namespace pallas::tpu {

/// Whether the last launch with race detection on found a race.
inline bool races_found() noexcept {
  if constexpr (checked_mode)
    return detail::races_found_flag().load(std::memory_order_relaxed);
  else
    return false;
}

}  // namespace pallas::tpu
