// SPDX-License-Identifier: Apache-2.0
#pragma once
// Option packs (`pl::kernel(...)`, `pl::pallas_call(...)`, `pltpu::emit_pipeline(...)`,
// `pl::BlockSpec<...>(...)`): options of different types in any order, searched by kind.

#include <cstddef>
#include <type_traits>

#include <boost/hana/functional/arg.hpp>
#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

namespace pallas::detail {

/// The first option whose type satisfies Pred, else Fallback{} (built only when needed: an
/// option type need not be default-constructible).
template <template <class> class Pred, class Fallback, class... Options>
constexpr auto option_or(Options const&... options) {
  constexpr std::size_t found = boost::mp11::mp_find_if<boost::mp11::mp_list<Options...>, Pred>::value;
  if constexpr (found < sizeof...(Options))
    return boost::hana::arg<found + 1>(options...);
  else
    return Fallback{};
}

/// The type of the first option in the mp_list List whose type satisfies Pred, else Fallback.
template <template <class> class Pred, class Fallback, class List>
using option_type_in = boost::mp11::mp_eval_if_c<boost::mp11::mp_empty<boost::mp11::mp_copy_if<List, Pred>>::value,
                                                 Fallback, boost::mp11::mp_front, boost::mp11::mp_copy_if<List, Pred>>;

/// The type option_or<Pred, Fallback>(Options...) returns.
template <template <class> class Pred, class Fallback, class... Options>
using option_type_or = option_type_in<Pred, Fallback, boost::mp11::mp_list<Options...>>;

/// How many options satisfy Pred.
template <template <class> class Pred, class... Options>
inline constexpr std::size_t count_options = boost::mp11::mp_count_if<boost::mp11::mp_list<Options...>, Pred>::value;

}  // namespace pallas::detail
