// SPDX-License-Identifier: Apache-2.0
#pragma once
// Conditions for static_asserts whose numbers are template arguments: clang 14 prints a
// failed condition's named constants by name (`vmem_bytes <= limit`), but a template's
// arguments by value (`bytes_fit<7340032, 4194304>::value`), as g++ does.

#include <cstddef>
#include <cstdint>

namespace pallas::detail {

// (`value` is a member of its own, not std::bool_constant's: g++ would print the base.)

/// Whether Asked bytes fit in Available.
template <std::int64_t Asked, std::int64_t Available>
struct bytes_fit {
  static constexpr bool value = Asked <= Available;  ///< they fit
};

/// Whether Given things (indices, refs) are the Expected number.
template <std::size_t Given, std::size_t Expected>
struct counts_match {
  static constexpr bool value = Given == Expected;  ///< they are
};

/// Whether a callable takes the Expected parameters it was offered (Callable).
template <std::size_t Expected, bool Callable>
struct takes_parameters {
  static constexpr bool value = Callable;  ///< it does
};

}  // namespace pallas::detail
