// SPDX-License-Identifier: Apache-2.0
#pragma once
// The automatic executor's per-kernel choice, compiled once per program under separate
// compilation (config.hpp) and inline in every translation unit otherwise.

#include <pallas/detail/runtime/executor_tuner.hpp>

#include <algorithm>

namespace pallas::detail {

PALLAS_DECL executor_tuner::executor executor_tuner::pick() {
  std::lock_guard lock(mutex_);
  executor e = kept_;
  if (phase_ == phase::probe && left_ > 0) e = other(kept_);
  if (left_ > 0) --left_;
  ++launches_[at(e)];
  return e;
}

PALLAS_DECL void executor_tuner::record(executor e, std::chrono::nanoseconds took) {
  std::lock_guard lock(mutex_);
  if (phase_ == phase::warm_up) {  // the first launch: cold caches, first-touch page faults
    phase_ = phase::keep;
    left_ = probe_launches;
    return;
  }
  int& filled = filled_[at(e)];
  recent_[at(e)][filled % probe_launches] = took.count();
  ++filled;
  if (phase_ == phase::keep && left_ == 0 && filled_[at(kept_)] >= probe_launches) {
    phase_ = phase::probe;
    left_ = probe_launches;
    filled_[at(other(kept_))] = 0;
  } else if (phase_ == phase::probe && e == other(kept_) &&
             (filled_[at(e)] >= probe_launches ||
              static_cast<double>(took.count()) > static_cast<double>(median(kept_)) * (1 + give_up_margin))) {
    decide();  // enough launches, or one clearly slower
  }
}

PALLAS_DECL void executor_tuner::decide() {
  executor const challenger = other(kept_);
  bool const faster =
      static_cast<double>(median(challenger)) < static_cast<double>(median(kept_)) * (1 - switch_margin);
  if (faster) {
    kept_ = challenger;
    interval_ = first_interval;
  } else {
    interval_ = std::min(interval_ * 2, longest_interval);
  }
  phase_ = phase::keep;
  left_ = interval_;
  filled_[at(kept_)] = 0;  // its times from before the keep phase say nothing of now
}

PALLAS_DECL std::int64_t executor_tuner::median(executor e) const noexcept {
  int const n = std::min(filled_[at(e)], probe_launches);  // probe_launches, when deciding
  if (n == 0) return 0;
  std::int64_t times[probe_launches];
  std::copy(recent_[at(e)], recent_[at(e)] + n, times);
  std::nth_element(times, times + n / 2, times + n);
  return times[n / 2];
}

PALLAS_DECL executor_tuner::executor executor_tuner::kept() const {
  std::lock_guard lock(mutex_);
  return kept_;
}

PALLAS_DECL std::int64_t executor_tuner::launches(executor e) const {
  std::lock_guard lock(mutex_);
  return launches_[at(e)];
}

}  // namespace pallas::detail
