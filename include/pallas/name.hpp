// SPDX-License-Identifier: Apache-2.0
#pragma once
// `name="..."` of pl.pallas_call and pl.kernel: `pl::name("matmul")` names the kernel's
// launches in the trace (pl::trace, PALLAS_TRACE). Without it they are called after what
// launched them ("pl::pallas_call", "pl::kernel"). The string is not copied: pass a literal
// or a string that outlives the call.

#include <string_view>
#include <type_traits>

namespace pallas {

/// The option pl::name(...) makes.
struct name_option {
  std::string_view value;  ///< the name, not copied
};

/// `name="matmul"`: the kernel's name in the trace.
constexpr name_option name(std::string_view value) noexcept { return {value}; }

namespace detail {
template <class T>
struct is_name_option : std::is_same<T, name_option> {};
}  // namespace detail

}  // namespace pallas
