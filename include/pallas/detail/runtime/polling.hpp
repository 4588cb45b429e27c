// SPDX-License-Identifier: Apache-2.0
#pragma once
// Busy-polling a semaphore: `while (pl::semaphore_read(s) == 0) {}` is a wait the library
// cannot see as one. A core that reads the same semaphore `polls_before_waiting` times in a
// row, seeing the same value and doing no other semaphore or copy operation in between,
// counts as waiting for it to change: deadlock detection (deadlock.hpp) then treats it like
// a core blocked in semaphore_wait, and reports the loop that nothing can end instead of
// hanging. Its next read of another value, or its next synchronization, ends the wait. A
// core that stops polling without either (the loop gave up by itself) keeps the record
// until then, which is harmless: a deadlock is reported only when every blocked core
// confirms, in its own wait, that its semaphore is still short.

#include <atomic>
#include <cstdint>

#include <pallas/config.hpp>
#include <pallas/detail/checked/checked_access.hpp>
#include <pallas/detail/runtime/chip_set.hpp>
#include <pallas/detail/runtime/core.hpp>
#include <pallas/detail/runtime/deadlock.hpp>
#include <pallas/detail/runtime/launch.hpp>
#include <pallas/detail/runtime/random_order.hpp>

namespace pallas::detail {

/// Reads of one unchanged semaphore in a row after which a core counts as waiting.
inline constexpr int polls_before_waiting = 64;

/// The core stops polling: it synchronizes otherwise, or saw a new value.
inline void end_polling(core_state& core) noexcept {
  leave_wait(core, core.poll.watch);
  core.poll.cell = nullptr;
  core.poll.reads = 0;
}

/// Notes that the core read `value` from `cell` at `where`; may throw pallas::deadlock_error.
PALLAS_DECL void note_semaphore_read(core_state& core, std::atomic<std::int32_t> const& cell, std::int32_t value,
                                     place where);

}  // namespace pallas::detail

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/detail/runtime/polling.ipp>
#endif
