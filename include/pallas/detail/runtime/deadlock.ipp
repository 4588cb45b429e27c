// SPDX-License-Identifier: Apache-2.0
#pragma once
// Deadlock detection's definitions, compiled once per program under separate compilation.

#include <pallas/detail/runtime/deadlock.hpp>

#include <sstream>

#include <pallas/error.hpp>

namespace pallas::detail {

PALLAS_DECL std::string describe_blocked_core(core_state& c) {
  std::ostringstream out;
  out << core_name(c);
  if (c.state.load(std::memory_order_acquire) == run_state::finished) {
    out << " has finished its body";
    return out.str();
  }
  void const* cell = c.wait_cell.load(std::memory_order_acquire);
  if (!cell || c.state.load(std::memory_order_acquire) != run_state::blocked) {
    out << " waits for the other cores";
    return out.str();
  }
  char const* who = c.wait_who.load(std::memory_order_relaxed);
  char const* file = c.wait_file.load(std::memory_order_relaxed);
  bool const polling = who == polling_who;
  out << (polling ? " polls " : " waits in ") << (who ? who : "a wait");
  if (file) out << " (" << place{file, c.wait_line.load(std::memory_order_relaxed)}.file_name() << ':'
                << c.wait_line.load(std::memory_order_relaxed) << ')';
  if (polling)
    out << " in a loop, reading " << c.checked.semaphore_name(cell) << " as " << read_cell(cell)
        << " again and again";
  else
    out << " for " << c.checked.semaphore_name(cell) << " to reach " << c.wait_value.load(std::memory_order_relaxed)
        << ", it holds " << read_cell(cell);
  return out.str();
}

PALLAS_DECL void report_deadlock(launch_state& launch) {
  std::string message =
      "pallas::deadlock: every running core waits on a semaphore (or polls one) that nothing can signal any more: ";
  for (int c = 0; c < launch.num_cores; ++c) message += (c ? "; " : "") + describe_blocked_core(*launch.cores[c]);
  fail<deadlock_error>(message);
}

PALLAS_DECL void enter_wait(core_state& core, wait_watch& w, void const* cell, std::int32_t value, char const* who,
                            place where) noexcept {
  if (w.entered) return;
  core.wait_cell.store(cell, std::memory_order_relaxed);
  core.wait_value.store(value, std::memory_order_relaxed);
  core.wait_who.store(who, std::memory_order_relaxed);
  core.wait_file.store(where.file, std::memory_order_relaxed);
  core.wait_line.store(where.line, std::memory_order_relaxed);
  core.state.store(run_state::blocked, std::memory_order_seq_cst);
  core.launch->generation.fetch_add(1, std::memory_order_seq_cst);
  w.entered = true;
  w.seen = 0;
}

}  // namespace pallas::detail
