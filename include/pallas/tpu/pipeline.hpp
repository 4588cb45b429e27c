// SPDX-License-Identifier: Apache-2.0
#pragma once
// pltpu::emit_pipeline: a software pipeline between HBM and VMEM inside a kernel.
//
//   pltpu::emit_pipeline(
//       [](auto x, auto y, auto o) { o[pl::ellipsis] = x[pl::ellipsis] + y[pl::ellipsis]; },
//       pl::grid<M / 128, N / 128>,
//       pl::in_specs(pl::BlockSpec<128, 128>(map), pl::BlockSpec<128, 128>(map)),
//       pl::out_specs(pl::BlockSpec<128, 128>(map)),
//       pltpu::core_axis_name<"core">,
//       pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::ARBITRARY>)(x_hbm, y_hbm, o_hbm);
//
// The schedule is Pallas' (pipeline.py), computed as a plan (detail/pipeline/): each operand
// gets `Buffered(n)` VMEM slots (two by default); an input is fetched only when its block
// index changes, the next block is prefetched while the body runs; an output is written
// back when its block index is about to change, or at the last step, and its slots are
// never loaded from HBM. With a core axis, the grid is split among the cores (the first
// PARALLEL axis whose extent divides by the core count, else the largest); program_id stays
// global. `pltpu::plan_of(pipeline, refs...)` returns the plan, which prints.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <pallas/block_spec.hpp>
#include <pallas/detail/numbers_in_messages.hpp>
#include <pallas/detail/options.hpp>
#include <pallas/detail/pipeline/engine.hpp>
#include <pallas/detail/pipeline/rule_words.hpp>
#include <pallas/detail/pipeline/spec_rules.hpp>
#include <pallas/detail/pipeline/static_rules.hpp>
#include <pallas/detail/pipeline/vmem_budget.hpp>
#include <pallas/detail/runtime/core.hpp>
#include <pallas/detail/runtime/launch.hpp>
#include <pallas/error.hpp>
#include <pallas/fixed_string.hpp>
#include <pallas/grid.hpp>
#include <pallas/memory_space.hpp>
#include <pallas/plan.hpp>
#include <pallas/ref.hpp>
#include <pallas/shape.hpp>
#include <pallas/tpu/chip.hpp>
#include <pallas/tpu/dimension_semantics.hpp>
#include <pallas/tpu/mesh.hpp>
#include <pallas/tpu/tiling.hpp>

namespace pallas::tpu {

/// The type of `pltpu::core_axis_name<Name>`, without the mesh: the core count is the
/// default chip's until the launch says otherwise.
template <fixed_string Name, class MeshT = void>
struct core_axis_name_t {
  static constexpr std::string_view name = Name.view();  ///< the mesh axis the grid splits over
  static constexpr int planned_cores = get_tpu_info().num_cores;  ///< the default mesh's; checked at launch
  static constexpr bool cores_known = false;       ///< the core count is a guess until launch
  static constexpr TpuInfo chip = get_tpu_info();  ///< the chip whose VMEM budget applies
};
/// The type of `pltpu::core_axis_name<Name, Mesh>`: the mesh fixes the core count and chip.
template <fixed_string Name, Mesh MeshT>
struct core_axis_name_t<Name, MeshT> {
  static_assert(Name.view() == MeshT::axis_name, "pallas::emit_pipeline: the core axis name must be the mesh's axis name");
  static constexpr std::string_view name = Name.view();  ///< the mesh axis the grid splits over
  static constexpr int planned_cores = MeshT::num_cores;  ///< the mesh's cores
  static constexpr bool cores_known = true;               ///< known at compile time
  static constexpr TpuInfo chip = MeshT::info;            ///< the mesh's chip
};
/// The core axis (`core_axis_name` in Pallas): split the grid among the cores of that mesh axis. Naming the
/// mesh too (`core_axis_name<Name, Mesh>`) lets the core-dependent rules be checked
/// at compile time and the chip's VMEM budget be the mesh's.
template <fixed_string Name, class MeshT = void>
inline constexpr core_axis_name_t<Name, MeshT> core_axis_name{};

/// `pl.num_programs` in an emit_pipeline body reports the core's share of a split axis (as
/// Pallas' default path does); with this option, the whole grid's extent (as Pallas with
/// `jax_use_emit_pipeline_primitive`). program_id is global either way.
struct global_num_programs_t {};
/// The option value: `pltpu::emit_pipeline(body, ..., pltpu::global_num_programs)`.
inline constexpr global_num_programs_t global_num_programs{};

}  // namespace pallas::tpu

namespace pallas::detail {

template <class T>
struct is_core_axis : std::false_type {};
template <fixed_string N, class M>
struct is_core_axis<tpu::core_axis_name_t<N, M>> : std::true_type {};

/// Without a core axis every core runs the whole grid.
struct no_core_axis {
  static constexpr std::string_view name{};
  static constexpr int planned_cores = 1;
  static constexpr bool cores_known = true;
  static constexpr tpu::TpuInfo chip = tpu::get_tpu_info();
};

template <class T>
using is_pipeline_option =
    std::bool_constant<Grid<T> || is_in_specs<T>::value || is_out_specs<T>::value || is_core_axis<T>::value ||
                       is_dimension_semantics<T>::value || std::is_same_v<T, tpu::no_tiling_check_t> ||
                       std::is_same_v<T, tpu::global_num_programs_t>>;

/// The engine of an emit_pipeline over refs Refs (inputs then outputs).
template <class GridT, class InSpecs, class OutSpecs, class CoreAxis, class Semantics, bool GlobalNumPrograms,
          class... Refs>
struct emit_pipeline_engine {
  static constexpr std::size_t num_inputs = std::tuple_size_v<InSpecs>;
  template <std::size_t K>
  static constexpr auto given_spec() {
    if constexpr (K < num_inputs)
      return std::type_identity<std::tuple_element_t<K, InSpecs>>{};
    else
      return std::type_identity<std::tuple_element_t<K - num_inputs, OutSpecs>>{};
  }
  template <std::size_t K, class RefT>
  using spec_at = resolved_spec_t<typename decltype(given_spec<K>())::type, typename RefT::shape_type>;
  template <class Seq>
  struct specs_of;
  template <std::size_t... K>
  struct specs_of<std::index_sequence<K...>> {
    using type = std::tuple<spec_at<K, std::tuple_element_t<K, std::tuple<Refs...>>>...>;
  };
  using specs = typename specs_of<std::index_sequence_for<Refs...>>::type;
  using type = pipeline_engine<caller::emit_pipeline, GridT, split_policy::box, CoreAxis::planned_cores,
                               parallel_flags_of<Semantics, GridT::rank()>(), num_inputs, specs, std::tuple<Refs...>,
                               std::tuple<>, GlobalNumPrograms>;
};

}  // namespace pallas::detail

namespace pallas::tpu {

/// What `emit_pipeline(...)` returns: call it with the operands' refs, inputs then outputs.
template <class Body, class GridT, class InSpecs, class OutSpecs, class CoreAxis, class Semantics, bool CheckTiling,
          bool GlobalNumPrograms = false>
class pipeline {
 public:
  static constexpr std::size_t grid_rank = GridT::rank();                  ///< grid dimensions
  static constexpr std::size_t num_inputs = std::tuple_size_v<InSpecs>;    ///< in_specs
  static constexpr std::size_t num_outputs = std::tuple_size_v<OutSpecs>;  ///< out_specs
  using core_axis = CoreAxis;  ///< the core axis option (core_axis_name_t), if any

  /// The engine for operands of types Refs.
  template <class... Refs>
  using engine_type =
      typename detail::emit_pipeline_engine<GridT, InSpecs, OutSpecs, CoreAxis, Semantics, GlobalNumPrograms, Refs...>::type;

  /// What emit_pipeline collected; call the result with the refs.
  constexpr pipeline(Body body, GridT grid, InSpecs in, OutSpecs out)
      : body_(std::move(body)), grid_(grid), in_(std::move(in)), out_(std::move(out)) {}

  /// Runs the pipeline over `refs` (inputs then outputs, HBM refs of the kernel) on the
  /// calling core: its share of the grid, copies double-buffered through its VMEM.
  template <AnyRef... Refs>
  void operator()(Refs const&... refs) const {
    if constexpr (valid<Refs...>()) run(std::tuple<Refs...>(refs...));
  }

  /// The compile-time rules for operands of types Refs; true when they all hold.
  template <class... Refs>
  static constexpr bool valid() {
    static_assert(detail::counts_match<sizeof...(Refs), num_inputs + num_outputs>::value,
                  "pallas::emit_pipeline: pass one ref per in_spec and out_spec (refs == in_specs + out_specs)");
    if constexpr (sizeof...(Refs) == num_inputs + num_outputs && factory_rules_hold()) {
      using E = engine_type<Refs...>;
      constexpr bool operands_ok = []<std::size_t... K>(std::index_sequence<K...>) {
        return (check_ref<typename E::template spec_t<K>, typename E::template ref_t<K>, (K >= num_inputs)>() && ...);
      }(std::index_sequence_for<Refs...>{});
      constexpr bool outputs_writable = []<std::size_t... K>(std::index_sequence<K...>) {
        return (!std::is_const_v<typename E::template ref_t<num_inputs + K>::value_type> && ...);
      }(std::make_index_sequence<num_outputs>{});
      static_assert(!operands_ok || outputs_writable,
                    "pallas::kernel: input refs are read-only: an emit_pipeline output cannot be a kernel's input "
                    "(its ref has const elements); pass an output ref");
      if constexpr (operands_ok && outputs_writable) {
        constexpr std::int64_t vmem_bytes = detail::pipeline_buffer_bytes<E, memory_space::vmem>();
        constexpr std::int64_t smem_bytes = detail::pipeline_buffer_bytes<E, memory_space::smem>();
        static_assert(detail::bytes_fit<vmem_bytes, CoreAxis::chip.vmem_capacity_bytes>::value,
                      "pallas::emit_pipeline: the pipeline's VMEM buffers (buffers x block bytes, summed) "
                      "exceed the chip's VMEM (bytes asked <= bytes available per core)");
        static_assert(detail::bytes_fit<smem_bytes, CoreAxis::chip.smem_capacity_bytes>::value,
                      "pallas::emit_pipeline: the pipeline's SMEM buffers (buffers x block bytes, summed) "
                      "exceed the chip's SMEM (bytes asked <= bytes available per core)");
        if constexpr (vmem_bytes <= CoreAxis::chip.vmem_capacity_bytes &&
                      smem_bytes <= CoreAxis::chip.smem_capacity_bytes) {
          if constexpr (detail::check_static_rules<E, CoreAxis::cores_known>()) {
            constexpr bool callable = []<std::size_t... K>(std::index_sequence<K...>) {
              return std::is_invocable_v<Body const&,
                                         detail::body_ref_t<typename E::template spec_t<K>, typename E::template ref_t<K>>...>;
            }(std::index_sequence_for<Refs...>{});
            static_assert(detail::takes_parameters<sizeof...(Refs), callable>::value,
                          "pallas::emit_pipeline: the body must take one block ref per in_spec and out_spec, in that "
                          "order");
            return callable;
          }
        }
      }
    }
    return false;
  }

  /// The plan this pipeline runs with on `refs` when `num_cores` cores share it (built
  /// now, as at run time).
  template <AnyRef... Refs>
  auto plan(int num_cores, Refs const&... refs) const {
    using E = engine_type<Refs...>;
    auto const refs_tuple = std::tuple<Refs...>(refs...);
    if (std::is_same_v<CoreAxis, detail::no_core_axis>) num_cores = 1;
    return detail::plan_for<E>(num_cores, grid_.all(), specs_of<Refs...>(), refs_tuple, std::tuple<>{});
  }

 private:
  template <class Spec, class RefT, bool IsOutput>
  static constexpr bool check_ref() {
    static_assert(RefT::space != memory_space::semaphore,
                  "pallas::emit_pipeline: operands are refs of arrays in HBM, ANY, VMEM or SMEM, not semaphores");
    if constexpr (RefT::space != memory_space::semaphore)
      return detail::check_role<detail::caller::emit_pipeline, IsOutput, Spec>() &&
             detail::check_operand<Spec, RefT, grid_rank, CheckTiling>();
    return false;
  }

  /// The factory's rules (it reported the broken ones); the operands' are skipped then.
  static constexpr bool factory_rules_hold() {
    bool const split_ok =
        !CoreAxis::cores_known || detail::split_rule_holds(CoreAxis::planned_cores, detail::parallel_flags_of<Semantics, grid_rank>());
    if constexpr (std::is_void_v<Semantics>)
      return split_ok;
    else
      return Semantics::size == grid_rank && split_ok;
  }

  template <class... Refs>
  void run(std::tuple<Refs...> const& refs) const {
    using E = engine_type<Refs...>;
    auto& core = detail::this_core("emit_pipeline");
    int num_cores = 1;
    if constexpr (!std::is_same_v<CoreAxis, detail::no_core_axis>) {
      if (core.launch->axis_name != CoreAxis::name)
        detail::fail("pallas::emit_pipeline: the mesh has no axis named '", CoreAxis::name, "' (its axis is '",
                     core.launch->axis_name, "')");
      num_cores = core.launch->cores_per_chip;  // the chip's cores share the pipeline
    }
    auto const specs = specs_of<Refs...>();
    // Without a core axis every core runs the whole grid: part 0 of a plan for one core.
    int const part = std::is_same_v<CoreAxis, detail::no_core_axis> ? 0 : detail::local_core_index(core);
    detail::run_pipeline<E>(core, part, num_cores, grid_, specs, refs, std::tuple<>{}, body_);
  }

  template <class... Refs>
  auto specs_of() const {
    return [&]<std::size_t... K>(std::index_sequence<K...>) {
      return std::tuple{spec_value<K, std::tuple_element_t<K, std::tuple<Refs...>>>()...};
    }(std::index_sequence_for<Refs...>{});
  }

  template <std::size_t K, class RefT>
  auto spec_value() const {
    if constexpr (K < num_inputs)
      return detail::resolve_spec<std::tuple_element_t<K, InSpecs>, typename RefT::shape_type>::apply(std::get<K>(in_));
    else
      return detail::resolve_spec<std::tuple_element_t<K - num_inputs, OutSpecs>, typename RefT::shape_type>::apply(
          std::get<K - num_inputs>(out_));
  }

  Body body_;
  GridT grid_;
  InSpecs in_;
  OutSpecs out_;
};

/// `pltpu.emit_pipeline(body, grid=..., in_specs=..., out_specs=..., core_axis_name=...,
/// dimension_semantics=...)`; the options may come in any order.
template <class Body, class... Options>
constexpr auto emit_pipeline(Body body, Options const&... options) {
  namespace mp = boost::mp11;
  using list = mp::mp_list<Options...>;
  static_assert(mp::mp_all_of<list, detail::is_pipeline_option>::value,
                "pallas::emit_pipeline: options are pl::grid<...>, pl::in_specs(...), pl::out_specs(...), "
                "pltpu::core_axis_name<...>, pltpu::dimension_semantics<...>, pltpu::no_tiling_check and "
                "pltpu::global_num_programs");
  constexpr std::size_t grids = detail::count_options<detail::is_grid, Options...>;
  static_assert(grids == 1, "pallas::emit_pipeline: exactly one pl::grid<...> is needed");
  if constexpr (grids == 1) {
    using grid_type = detail::option_type_or<detail::is_grid, grid_t<>, Options...>;
    using in_option = detail::option_type_or<detail::is_in_specs, in_specs_t<>, Options...>;
    using out_option = detail::option_type_or<detail::is_out_specs, out_specs_t<>, Options...>;
    using core_axis = detail::option_type_or<detail::is_core_axis, detail::no_core_axis, Options...>;
    using semantics = detail::option_type_or<detail::is_dimension_semantics, void, Options...>;
    constexpr bool check_tiling = !mp::mp_contains<list, no_tiling_check_t>::value;
    constexpr bool global_programs = mp::mp_contains<list, global_num_programs_t>::value;
    if constexpr (!std::is_same_v<semantics, void>) {
      static_assert(semantics::size == grid_type::rank(),
                    "pallas::emit_pipeline: dimension_semantics needs one entry per grid axis "
                    "(semantics == grid rank)");
    }
    static_assert(!core_axis::cores_known ||
                      detail::split_rule_holds(core_axis::planned_cores,
                                               detail::parallel_flags_of<semantics, grid_type::rank()>()),
                  "pallas::emit_pipeline: " PALLAS_RULE_NO_PARALLEL_AXIS);
    grid_type grid_value = detail::option_or<detail::is_grid, grid_type>(options...);
    auto in = detail::option_or<detail::is_in_specs, in_option>(options...).specs;
    auto out = detail::option_or<detail::is_out_specs, out_option>(options...).specs;
    return pipeline<Body, grid_type, decltype(in), decltype(out), core_axis, semantics, check_tiling, global_programs>(
        std::move(body), grid_value, std::move(in), std::move(out));
  }
}

/// The plan `pipeline` runs with on `refs`, split among `num_cores` cores (default: the
/// core axis' mesh, or the chip's cores); it prints with <<.
template <class Pipeline, AnyRef... Refs>
auto plan_of(Pipeline const& pipeline, Refs const&... refs) {
  return pipeline.plan(Pipeline::core_axis::planned_cores, refs...);
}
/// The plan split among `num_cores` cores.
template <class Pipeline, AnyRef... Refs>
auto plan_of(Pipeline const& pipeline, int num_cores, Refs const&... refs) {
  return pipeline.plan(num_cores, refs...);
}

/// The plan the compiler computed for Pipeline over operands of types Refs, a constant
/// expression (static grid and shapes, index maps the compiler can evaluate, at most
/// detail::max_static_plan_work steps x operands), for the core axis' planned core count.
template <class Pipeline, class... Refs>
  requires detail::plan_is_static_v<typename Pipeline::template engine_type<Refs...>>
inline constexpr auto const& static_plan_of = detail::static_plan_of<typename Pipeline::template engine_type<Refs...>>::plan;

}  // namespace pallas::tpu
