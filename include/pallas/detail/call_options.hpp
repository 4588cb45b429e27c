// SPDX-License-Identifier: Apache-2.0
#pragma once
// What pl::pallas_call accepts as options, by type: each option's kind, and
// compiler_params(...)'s parameters, flattened into the call's list of option types (they
// are stateless tags: the type holds them).

#include <type_traits>

#include <boost/mp11/list.hpp>

#include <pallas/block_spec.hpp>
#include <pallas/cost_estimate.hpp>
#include <pallas/grid.hpp>
#include <pallas/input_output_aliases.hpp>
#include <pallas/kernel.hpp>
#include <pallas/name.hpp>
#include <pallas/shape_dtype_struct.hpp>
#include <pallas/tpu/compiler_params.hpp>
#include <pallas/tpu/dimension_semantics.hpp>
#include <pallas/tpu/tiling.hpp>

namespace pallas::detail {

/// Whether T is one of pallas_call's options (compiler_params' parameters included).
template <class T>
using is_call_option =
    std::bool_constant<ShapeDtype<T> || is_out_type<T>::value || Grid<T> || is_in_specs<T>::value ||
                       is_out_specs<T>::value || is_scratch_option<T>::value ||
                       is_dimension_semantics<T>::value || is_alias_option<T>::value ||
                       is_prefetch_option<T>::value || is_vmem_limit_option<T>::value ||
                       is_num_cores_option<T>::value || std::is_same_v<T, tpu::no_tiling_check_t> ||
                       is_name_option<T>::value || is_cost_estimate<T>::value>;

/// What compiler_params(...) may hold: stateless parameters, read from the types alone.
template <class T>
using is_compiler_parameter =
    std::bool_constant<is_dimension_semantics<T>::value || is_prefetch_option<T>::value ||
                       is_vmem_limit_option<T>::value || is_num_cores_option<T>::value ||
                       std::is_same_v<T, tpu::no_tiling_check_t>>;

/// The option types of one option: a compiler_params' parameters, or the option itself.
template <class O>
struct option_types {
  using type = boost::mp11::mp_list<O>;
};
template <class... P>
struct option_types<tpu::compiler_params_t<P...>> {
  using type = boost::mp11::mp_list<P...>;
};

/// Whether option O holds only what compiler_params may (any other option is no compiler_params).
template <class O>
inline constexpr bool holds_compiler_parameters_only = true;
template <class... P>
inline constexpr bool holds_compiler_parameters_only<tpu::compiler_params_t<P...>> = (is_compiler_parameter<P>::value && ...);

}  // namespace pallas::detail
