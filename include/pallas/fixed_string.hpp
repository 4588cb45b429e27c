// SPDX-License-Identifier: Apache-2.0
#pragma once
// A string usable as a template argument, for axis names: `pltpu::TensorCoreMesh<"core">`,
// `pl::axis_index<"core">()`.

#include <algorithm>
#include <cstddef>
#include <ostream>
#include <string_view>

namespace pallas {

/// A string literal as a template argument: the axis names of meshes and `axis_index<"x">`.
template <std::size_t N>
struct fixed_string {
  char chars[N]{};  ///< the characters, with the terminating NUL

  /// From a string literal (implicit, so that `TensorCoreMesh<"core">` works).
  constexpr fixed_string(char const (&s)[N]) noexcept { std::copy_n(s, N, chars); }
  /// The empty string, from `nullptr` (a replicated dimension in `pl::P<"x", nullptr>`).
  constexpr fixed_string(std::nullptr_t) noexcept
    requires(N == 1)
  {}

  /// The characters, without the NUL.
  constexpr std::string_view view() const noexcept { return {chars, N - 1}; }
  constexpr operator std::string_view() const noexcept { return view(); }

  /// Same characters.
  template <std::size_t M>
  constexpr bool operator==(fixed_string<M> const& other) const noexcept {
    return view() == other.view();
  }

  /// Prints the characters.
  friend std::ostream& operator<<(std::ostream& out, fixed_string const& s) { return out << s.view(); }
};

/// `nullptr` is the empty string.
fixed_string(std::nullptr_t) -> fixed_string<1>;

}  // namespace pallas
