// SPDX-License-Identifier: Apache-2.0
#pragma once
// pl::when: run a block only when a condition holds (`@pl.when(cond)`).
//   pl::when(pl::program_id(2) == 0, [&] { acc[pl::ellipsis] = pl::zeros_like(acc); });
//   pl::when(pl::program_id(2) == 0)([&] { ... });

#include <utility>

namespace pallas {

/// `pl.when(cond)(body)` as a call: runs `body()` when `condition` holds.
template <class F>
void when(bool condition, F&& body) {
  if (condition) std::forward<F>(body)();
}

/// What `pl::when(condition)` returns: call it with the body.
struct when_t {
  bool condition;  ///< whether the body runs
  /// Runs `body()` when the condition holds.
  template <class F>
  void operator()(F&& body) const {
    if (condition) std::forward<F>(body)();
  }
};

/// The decorator form: `pl::when(cond)([&] { ... })`.
inline when_t when(bool condition) { return {condition}; }

}  // namespace pallas
