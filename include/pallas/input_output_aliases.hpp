// SPDX-License-Identifier: Apache-2.0
#pragma once
// `input_output_aliases={4: 0}` of pallas_call: `pl::input_output_aliases<pl::alias{4, 0}>`.
// The output's HBM buffer is the input's (a copy of it here, taken before the kernel runs),
// so blocks the kernel never writes keep the input's data.

#include <array>
#include <type_traits>

namespace pallas {

/// One `input_output_aliases` entry: input `input` (counted over all call arguments,
/// scalar-prefetch ones included, as in Pallas) is output `output`'s buffer.
struct alias {
  int input;  ///< the input, counted over all call arguments
  int output;  ///< the output whose buffer it is
  /// Same input and output.
  constexpr bool operator==(alias const&) const = default;
};

/// `input_output_aliases={4: 0}` is `pl::input_output_aliases<pl::alias{4, 0}>`.
template <alias... A>
struct input_output_aliases_t {
  static constexpr std::array<alias, sizeof...(A)> entries{A...};  ///< the aliases
};
/// The option value: `pl::input_output_aliases<pl::alias{4, 0}>`.
template <alias... A>
inline constexpr input_output_aliases_t<A...> input_output_aliases{};

namespace detail {

template <class T>
struct is_alias_option : std::false_type {};
template <alias... A>
struct is_alias_option<input_output_aliases_t<A...>> : std::true_type {};
}  // namespace detail

}  // namespace pallas
