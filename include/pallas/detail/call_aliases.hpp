// SPDX-License-Identifier: Apache-2.0
#pragma once
// pallas_call's input_output_aliases: which output an input is, the outputs' starting
// contents (a copy of the aliased input, else unspecified), and the HBM ref the kernel gets
// for an aliased input (its output's buffer).

#include <cstddef>
#include <tuple>
#include <type_traits>

#include <pallas/error.hpp>
#include <pallas/input_output_aliases.hpp>
#include <pallas/kernel.hpp>

namespace pallas::detail {

/// The aliases Aliases (an input_output_aliases_t) of a call with NumPrefetch scalar-prefetch
/// arguments.
template <class Aliases, int NumPrefetch>
struct call_aliases {
  /// The output that input I (counted after the scalar-prefetch arrays) is aliased to, or -1.
  template <std::size_t I>
  static constexpr int output_of() {
    for (auto const& a : Aliases::entries)
      if (a.input == NumPrefetch + static_cast<int>(I)) return a.output;
    return -1;
  }

  /// The argument (scalar-prefetch ones counted) aliased to output O, or -1.
  template <std::size_t O>
  static constexpr int input_of() {
    for (auto const& a : Aliases::entries)
      if (a.output == static_cast<int>(O)) return a.input;
    return -1;
  }

  /// Input I's HBM ref in the kernel: its aliased output's buffer (writable when Writable, a
  /// raw input; read-only for a blocked one), or the caller's array, read-only.
  template <std::size_t I, bool Writable, class Inputs, class Outputs>
  static auto input_ref(Inputs const& inputs, Outputs const& outputs) {
    constexpr int out = output_of<I>();
    constexpr std::size_t NumOutputs = std::tuple_size_v<Outputs>;
    if constexpr (Writable) {
      return std::get<static_cast<std::size_t>(out)>(outputs).ref();
    } else if constexpr (out >= 0 && out < static_cast<int>(NumOutputs)) {
      using in_ref = decltype(std::get<I>(inputs).read_only_ref());
      using out_ref = decltype(std::get<static_cast<std::size_t>(out)>(outputs).read_only_ref());
      if constexpr (std::is_same_v<in_ref, out_ref>) return std::get<static_cast<std::size_t>(out)>(outputs).read_only_ref();
      else return std::get<I>(inputs).read_only_ref();
    } else {
      return std::get<I>(inputs).read_only_ref();
    }
  }

  /// Output O, described by `sds` (a ShapeDtypeStruct): a copy of its aliased input, else
  /// unspecified contents (poisoned in checked mode).
  template <std::size_t O, class Sds, class Inputs>
  static auto make_output(Sds const& sds, Inputs const& inputs) {
    constexpr int in = input_of<O>();
    constexpr std::size_t NumInputs = std::tuple_size_v<Inputs>;
    using out_array = typename Sds::array_type;
    if constexpr (in >= 0) {
      static_assert(in >= NumPrefetch, "pallas::pallas_call: a scalar-prefetch argument cannot be aliased to an output");
      static_assert(in < NumPrefetch + static_cast<int>(NumInputs),
                    "pallas::pallas_call: input_output_aliases names an input that does not exist");
      if constexpr (in >= NumPrefetch && in < NumPrefetch + static_cast<int>(NumInputs)) {
        auto const& src = std::get<static_cast<std::size_t>(in - NumPrefetch)>(inputs);
        constexpr bool same = std::is_same_v<std::remove_cvref_t<decltype(src)>, out_array>;
        static_assert(same, "pallas::pallas_call: an aliased input and output must have the same shape and dtype");
        if constexpr (same) {
          if (!(src.shape() == sds.shape))
            fail<shape_error>("pallas::pallas_call: input ", in, " of shape ", src.shape(), " is aliased to output ", O,
                              " of shape ", sds.shape);
          return out_array(src);
        }
      }
    }
    // Not aliased (or an alias rejected above, so that it is the only error).
    out_array a = sds.make_uninitialized_array();
    poison(a);
    return a;
  }
};

}  // namespace pallas::detail
