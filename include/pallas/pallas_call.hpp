// SPDX-License-Identifier: Apache-2.0
#pragma once
// pl::pallas_call: run a kernel once per grid point, its blocks pipelined between HBM and
// VMEM (`pl.pallas_call`).
//
//   auto matmul = pl::pallas_call(
//       kernel,                                            // kernel(x_ref, y_ref, z_ref, acc)
//       pl::out_shape<pl::ShapeDtypeStruct<float, M, N>>,   // or a value: pl::like(x)
//       pl::grid<M / bm, N / bn, K / bk>,
//       pl::in_specs(pl::BlockSpec<bm, bk>(x_map), pl::BlockSpec<bk, bn>(y_map)),
//       pl::out_specs(pl::BlockSpec<bm, bn>(z_map)),
//       pl::scratch_shapes<pltpu::VMEM<float, bm, bn>>,
//       pltpu::compiler_params(pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::PARALLEL, pltpu::ARBITRARY>));
//   pl::Array<float, M, N> z = matmul(x, y);
//
// Options come in any order. The kernel receives (scalar-prefetch refs in SMEM, input
// blocks, output blocks, scratch refs); index maps receive (grid indices, scalar-prefetch
// refs). Without in_specs/out_specs every operand is one whole-array VMEM block. PARALLEL
// axes (leading) are split across the chip's TensorCores: each core runs a contiguous range
// of ceil(P / cores) parallel points.

#include <array>
#include <cstdint>
#include <string_view>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <pallas/array.hpp>
#include <pallas/block_spec.hpp>
#include <pallas/config.hpp>
#include <pallas/cost_estimate.hpp>
#include <pallas/detail/call_aliases.hpp>
#include <pallas/detail/call_options.hpp>
#include <pallas/detail/numbers_in_messages.hpp>
#include <pallas/detail/options.hpp>
#include <pallas/detail/pipeline/engine.hpp>
#include <pallas/detail/pipeline/rule_words.hpp>
#include <pallas/detail/pipeline/vmem_budget.hpp>
#include <pallas/detail/runtime/device.hpp>
#include <pallas/detail/scalar_prefetch.hpp>
#include <pallas/dtype.hpp>
#include <pallas/grid.hpp>
#include <pallas/input_output_aliases.hpp>
#include <pallas/kernel.hpp>
#include <pallas/name.hpp>
#include <pallas/plan.hpp>
#include <pallas/shape_dtype_struct.hpp>
#include <pallas/tpu/chip.hpp>
#include <pallas/tpu/compiler_params.hpp>
#include <pallas/tpu/cost_report.hpp>
#include <pallas/tpu/dimension_semantics.hpp>
#include <pallas/tpu/scratch.hpp>
#include <pallas/tpu/tiling.hpp>

namespace pallas {

/// `out_shape=...`: the same as pl::out_type.
template <ShapeDtype... Outs>
inline constexpr out_type_t<Outs...> out_shape{};

/// `scratch_shapes=[...]`: the same as pl::scratch_types.
template <ScratchType... S>
inline constexpr scratch_types_t<S...> scratch_shapes{};

namespace detail {

/// The Array types of a tuple of ShapeDtypeStructs.
template <class Outs, class Seq = std::make_index_sequence<std::tuple_size_v<Outs>>>
struct out_arrays_of;
template <class Outs, std::size_t... O>
struct out_arrays_of<Outs, std::index_sequence<O...>> {
  using type = std::tuple<typename std::tuple_element_t<O, Outs>::array_type...>;
};

}  // namespace detail

/// What pl::pallas_call(...) returns: call it with the Arrays (scalar-prefetch ones first).
template <class Kernel, class Outs, class GridT, class InSpecs, class OutSpecs, class ScratchOption, class Semantics,
          class Aliases, int NumPrefetch, std::int64_t VmemLimit, int Cores, bool CheckTiling>
class pallas_call_fn;

template <class Kernel, class Outs, class GridT, class InSpecs, class OutSpecs, class... Scratch, class Semantics,
          class Aliases, int NumPrefetch, std::int64_t VmemLimit, int Cores, bool CheckTiling>
/// What `pl::pallas_call(kernel, options...)` returns: call it with the input Arrays
/// (scalar-prefetch arrays first).
class pallas_call_fn<Kernel, Outs, GridT, InSpecs, OutSpecs, scratch_types_t<Scratch...>, Semantics, Aliases,
                     NumPrefetch, VmemLimit, Cores, CheckTiling> {
 private:
  /// @cond PALLAS_INTERNAL
  // The spec of input K / output K: given, or the whole array in VMEM.
  template <std::size_t K, class Specs, class Shape>
  static constexpr auto spec_type_of() {
    if constexpr (std::tuple_size_v<Specs> == 0)
      return std::type_identity<resolved_spec_t<whole_array_spec<default_buffering, memory_space::vmem>, Shape>>{};
    else
      return std::type_identity<resolved_spec_t<std::tuple_element_t<K, Specs>, Shape>>{};
  }
  template <std::size_t K, class Specs, class Shape>
  using spec_t = typename decltype(spec_type_of<K, Specs, Shape>())::type;

  template <std::size_t K, class Specs, class Shape>
  static auto spec_value(Specs const& specs) {
    if constexpr (std::tuple_size_v<Specs> == 0)
      return spec_t<K, Specs, Shape>{};
    else
      return pallas::detail::resolve_spec<std::tuple_element_t<K, Specs>, Shape>::apply(std::get<K>(specs));
  }

  using aliases = pallas::detail::call_aliases<Aliases, NumPrefetch>;

  // Whether input I, of Array type A, is writable in the kernel: a raw (ANY) input aliased
  // to an output, which then is that output's buffer (as on a TPU). Every other input ref
  // is read-only; a blocked input's HBM ref is only the pipeline's (its VMEM blocks are
  // writable either way).
  template <std::size_t I, class A>
  static constexpr bool writable_input =
      aliases::template output_of<I>() >= 0 && spec_t<I, InSpecs, typename A::shape_type>::raw;

  /// The HBM ref type of input I, of Array type A.
  template <std::size_t I, class A>
  using input_ref_t = std::conditional_t<writable_input<I, A>, typename A::ref_type, typename A::read_only_ref_type>;

  /// The engine for inputs In and outputs Out (Array types) with scalar-prefetch refs Extra.
  template <class InArrays, class OutArrays, class Extra, class = std::make_index_sequence<std::tuple_size_v<InArrays>>,
            class = std::make_index_sequence<std::tuple_size_v<OutArrays>>>
  struct engine_of;
  template <class InArrays, class OutArrays, class Extra, std::size_t... I, std::size_t... O>
  struct engine_of<InArrays, OutArrays, Extra, std::index_sequence<I...>, std::index_sequence<O...>> {
    using in_refs = std::tuple<input_ref_t<I, std::tuple_element_t<I, InArrays>>...>;
    using out_refs = std::tuple<typename std::tuple_element_t<O, OutArrays>::ref_type...>;
    using specs = std::tuple<spec_t<I, InSpecs, typename std::tuple_element_t<I, in_refs>::shape_type>...,
                             spec_t<O, OutSpecs, typename std::tuple_element_t<O, out_refs>::shape_type>...>;
    using type = pallas::detail::pipeline_engine<
        pallas::detail::caller::pallas_call, GridT, pallas::detail::split_policy::linear, Cores,
        pallas::detail::parallel_flags_of<Semantics, GridT::rank()>(), sizeof...(I), specs,
        decltype(std::tuple_cat(std::declval<in_refs>(), std::declval<out_refs>())), Extra>;
  };
  /// @endcond

 public:
  static constexpr std::size_t grid_rank = GridT::rank();              ///< grid dimensions
  static constexpr std::size_t num_outputs = std::tuple_size_v<Outs>;  ///< outputs returned

  /// What pallas_call collected, and the kernel's name (pl::name(...)).
  pallas_call_fn(Kernel kernel, Outs outs, GridT grid, InSpecs in, OutSpecs out, std::string_view name = {})
      : kernel_(std::move(kernel)), outs_(std::move(outs)), grid_(grid), in_(std::move(in)), out_(std::move(out)),
        name_(name) {}

  /// `cost_estimate=pl.CostEstimate(...)`: kept in pltpu::last_launch_report() beside what
  /// each call measured.
  std::optional<CostEstimate> cost_estimate;

  /// Runs the kernel over the grid, split among the cores, blocks pipelined through each
  /// core's VMEM as the specs say, and returns the output Array (or a tuple of them).
  template <AnyArray... Args>
  auto operator()(Args const&... args) const {
    constexpr std::size_t num_args = sizeof...(Args);
    static_assert(num_args >= static_cast<std::size_t>(NumPrefetch),
                  "pallas::pallas_call: pass the scalar-prefetch arrays first (arguments >= num_scalar_prefetch)");
    constexpr int misplaced = pallas::detail::misplaced_prefetch<InSpecs, NumPrefetch, Args...>();
    (void)pallas::detail::scalar_prefetch_first<NumPrefetch, misplaced>{};
    if constexpr (num_args >= static_cast<std::size_t>(NumPrefetch) && misplaced < 0) {
      constexpr std::size_t num_inputs = num_args - NumPrefetch;
      auto all = std::tuple<Args const&...>(args...);
      if constexpr (NumPrefetch == 0) {  // the usual case: every argument is an input
        return call(std::tuple<>{}, all, std::make_index_sequence<num_inputs>{},
                    std::make_index_sequence<num_outputs>{});
      } else {
        auto prefetch_args = [&]<std::size_t... P>(std::index_sequence<P...>) {
          return std::tuple<std::tuple_element_t<P, std::tuple<Args...>> const&...>(std::get<P>(all)...);
        }(std::make_index_sequence<NumPrefetch>{});
        auto inputs = [&]<std::size_t... K>(std::index_sequence<K...>) {
          return std::tuple<std::tuple_element_t<NumPrefetch + K, std::tuple<Args...>> const&...>(
              std::get<NumPrefetch + K>(all)...);
        }(std::make_index_sequence<num_inputs>{});
        return call(prefetch_args, inputs, std::make_index_sequence<num_inputs>{},
                    std::make_index_sequence<num_outputs>{});
      }
    } else {
      return placeholder_outputs();
    }
  }

  /// The cores of one chip this call runs on, as a mesh (pl::shard_map launches it on every
  /// chip's cores).
  using mesh_type = tpu::TensorCoreMesh<"core", Cores>;
  /// The outputs' ShapeDtypeStructs.
  Outs const& out_types() const noexcept { return outs_; }
  /// pl::name(...), or empty.
  std::string_view name() const noexcept { return name_; }

  /// Runs core `core_index`'s part of the grid inside a launch that already runs on every
  /// core (pl::shard_map's, one chip at a time), over `refs`: the inputs' read-only HBM refs
  /// (of InArrays, a std::tuple of Array types), then the outputs'. No scalar prefetch and
  /// no aliases (their arrays are the caller's, not the chip's).
  template <class InArrays, class Refs>
  void run_on_core(int core_index, Refs const& refs) const {
    static_assert(NumPrefetch == 0 && std::size(Aliases::entries) == 0,
                  "pallas::shard_map: a pallas_call run per chip takes no scalar prefetch and no input_output_aliases");
    using out_arrays = typename pallas::detail::out_arrays_of<Outs>::type;
    using E = typename engine_of<InArrays, out_arrays, std::tuple<>>::type;
    if constexpr (checks<E>()) {
      auto const specs = [&]<std::size_t... I, std::size_t... O>(std::index_sequence<I...>, std::index_sequence<O...>) {
        return std::tuple{spec_value<I, InSpecs, typename std::tuple_element_t<I, InArrays>::shape_type>(in_)...,
                          spec_value<O, OutSpecs, typename std::tuple_element_t<O, out_arrays>::shape_type>(out_)...};
      }(std::make_index_sequence<std::tuple_size_v<InArrays>>{}, std::make_index_sequence<num_outputs>{});
      auto& core = *pallas::detail::current_core;
      std::tuple<typename Scratch::ref_type...> scratch{Scratch::allocate(core)...};
      pallas::detail::run_pipeline<E>(core, core_index, Cores, grid_, specs, refs, std::tuple<>{},
                                      [&](auto const&... blocks) {
                                        std::apply([&](auto const&... s) { kernel_(blocks..., s...); }, scratch);
                                      });
    }
  }

  /// The plan a call with `args` (scalar-prefetch arrays first) runs with; it prints with <<.
  template <AnyArray... Args>
  auto plan(Args const&... args) const {
    constexpr std::size_t num_inputs = sizeof...(Args) - NumPrefetch;
    auto all = std::tuple<Args const&...>(args...);
    return [&]<std::size_t... P, std::size_t... I, std::size_t... O>(std::index_sequence<P...>, std::index_sequence<I...>,
                                                                      std::index_sequence<O...>) {
      using in_arrays = typename pallas::detail::call_args<NumPrefetch, Args...>::inputs;
      using out_arrays = typename pallas::detail::out_arrays_of<Outs>::type;
      using prefetch_refs = typename pallas::detail::call_args<NumPrefetch, Args...>::prefetch_refs;
      using E = engine_type<Args...>;
      auto const outputs = std::tuple{std::get<O>(outs_).make_uninitialized_array()...};
      auto const refs = std::tuple{std::get<NumPrefetch + I>(all).ref()..., std::get<O>(outputs).ref()...};
      auto const specs =
          std::tuple{spec_value<I, InSpecs, typename std::tuple_element_t<I, in_arrays>::shape_type>(in_)...,
                     spec_value<O, OutSpecs, typename std::tuple_element_t<O, out_arrays>::shape_type>(out_)...};
      prefetch_refs const extra{
          std::tuple_element_t<P, prefetch_refs>(std::get<P>(all).data(), std::get<P>(all).shape())...};
      return pallas::detail::plan_for<E>(Cores, grid_.all(), specs, refs, extra);
    }(std::make_index_sequence<NumPrefetch>{}, std::make_index_sequence<num_inputs>{},
      std::make_index_sequence<num_outputs>{});
  }

  /// The engine for arrays of types Args (scalar-prefetch arrays first).
  template <class... Args>
  using engine_type = typename engine_of<typename pallas::detail::call_args<NumPrefetch, Args...>::inputs,
                                         typename pallas::detail::out_arrays_of<Outs>::type,
                                         typename pallas::detail::call_args<NumPrefetch, Args...>::prefetch_refs>::type;

 private:
  template <class PrefetchArgs, class Inputs, std::size_t... I, std::size_t... O>
  auto call(PrefetchArgs const& prefetch_args, Inputs const& inputs, std::index_sequence<I...>,
            std::index_sequence<O...>) const {
    constexpr std::size_t num_inputs = sizeof...(I);
    using in_arrays = std::tuple<std::remove_cvref_t<std::tuple_element_t<I, Inputs>>...>;
    using out_arrays = std::tuple<typename std::tuple_element_t<O, Outs>::array_type...>;
    using prefetch_refs = typename pallas::detail::smem_refs_of<PrefetchArgs>::type;

    static_assert(std::tuple_size_v<InSpecs> == 0 || std::tuple_size_v<InSpecs> == num_inputs,
                  "pallas::pallas_call: one in_spec per input (in_specs == inputs)");
    static_assert(std::tuple_size_v<OutSpecs> == 0 || std::tuple_size_v<OutSpecs> == num_outputs,
                  "pallas::pallas_call: one out_spec per output (out_specs == outputs)");
    if constexpr ((std::tuple_size_v<InSpecs> == 0 || std::tuple_size_v<InSpecs> == num_inputs) &&
                  (std::tuple_size_v<OutSpecs> == 0 || std::tuple_size_v<OutSpecs> == num_outputs)) {
      using in_refs_t = std::tuple<input_ref_t<I, std::tuple_element_t<I, in_arrays>>...>;
      using out_refs_t = std::tuple<typename std::tuple_element_t<O, out_arrays>::ref_type...>;
      using E = typename engine_of<in_arrays, out_arrays, prefetch_refs>::type;
      constexpr bool ok = checks<E>();
      if constexpr (ok) {
        // Outputs: aliased ones start as a copy of their input; the rest unspecified (poisoned).
        auto outputs = std::tuple{aliases::template make_output<O>(std::get<O>(outs_), inputs)...};
        // An aliased input is its output's buffer (which started as a copy of it): the kernel
        // reads what earlier steps wrote there, as in Pallas.
        auto refs = std::tuple{
            aliases::template input_ref<I, writable_input<I, std::tuple_element_t<I, in_arrays>>>(inputs, outputs)...,
            std::get<O>(outputs).ref()...};
        auto const specs = std::tuple{spec_value<I, InSpecs, typename std::tuple_element_t<I, in_refs_t>::shape_type>(in_)...,
                                      spec_value<O, OutSpecs, typename std::tuple_element_t<O, out_refs_t>::shape_type>(out_)...};
        constexpr tpu::TpuInfo chip = tpu::get_tpu_info();
        static constinit pallas::detail::executor_tuner tuner;  // this kernel's (executor_tuner.hpp)
        pallas::detail::launch_config const config{Cores, chip.vmem_capacity_bytes, chip.smem_capacity_bytes, "",
                                                   pallas::detail::launch_dma_policy(),
                                                   pallas::detail::launch_dma_executor(),
                                                   pallas::detail::launch_interpret_conventions(), "pl::pallas_call",
                                                   name_, 0, nullptr, 0, &tuner};
        pallas::detail::launch_costs<Cores> costs;  // pltpu::last_launch_report()
        pallas::detail::device::instance().launch(config, [&](int core_index) {
          auto const counting = costs.scope(core_index);
          auto& core = *pallas::detail::current_core;
          auto const pf = std::apply(
              [&](auto const&... a) { return std::tuple{pallas::detail::to_smem(core, a)...}; }, prefetch_args);
          std::tuple<typename Scratch::ref_type...> scratch{Scratch::allocate(core)...};
          pallas::detail::run_pipeline<E>(core, core_index, Cores, grid_, specs, refs, pf, [&](auto const&... blocks) {
            std::apply([&](auto const&... s) { std::apply([&](auto const&... p) { kernel_(p..., blocks..., s...); }, pf); },
                       scratch);
          });
          pallas::detail::finish_core(core);
        });
        costs.publish("pl::pallas_call", chip, cost_estimate);
        if constexpr (num_outputs == 1)
          return std::move(std::get<0>(outputs));
        else
          return outputs;
      } else {
        return placeholder_outputs();
      }
    } else {
      return placeholder_outputs();
    }
  }

  // What a call that broke a rule returns (never at run time: it did not compile), so that
  // `auto o = call(x)` adds no second error ("'void o' has incomplete type") to the rule's.
  auto placeholder_outputs() const {
    return std::apply(
        [](auto const&... o) {
          if constexpr (sizeof...(o) == 1)
            return (o.make_uninitialized_array(), ...);
          else
            return std::tuple{o.make_uninitialized_array()...};
        },
        outs_);
  }

  /// The compile-time rules of the call over engine E: each operand's, the VMEM budget, the
  /// whole-grid rules, the kernel's parameters; one mistake, one error.
  template <class E>
  static constexpr bool checks() {
    namespace pd = pallas::detail;
    if constexpr (pd::check_operands<E, CheckTiling>()) {
      constexpr std::int64_t limit = VmemLimit > 0 ? VmemLimit : tpu::get_tpu_info().vmem_capacity_bytes;
      constexpr std::int64_t vmem_bytes = pd::pipeline_buffer_bytes<E>() + (std::int64_t{0} + ... + Scratch::vmem_bytes);
      static_assert(pd::bytes_fit<vmem_bytes, limit>::value,
                    "pallas::pallas_call: the blocks' buffers and the scratch exceed the VMEM budget (bytes asked "
                    "<= vmem_limit_bytes, or the chip's VMEM)");
      if constexpr (vmem_bytes <= limit && pd::check_static_rules<E, true>()) {
        constexpr bool callable = kernel_callable<typename E::extra_type>(
            std::type_identity<decltype(std::tuple_cat(std::declval<typename pd::body_refs_of<E>::type>(),
                                                       std::declval<std::tuple<typename Scratch::ref_type...>>()))>{});
        static_assert(pd::takes_parameters<NumPrefetch + E::num_operands + sizeof...(Scratch), callable>::value,
                      "pallas::pallas_call: the kernel must take the scalar-prefetch refs, one block ref per input "
                      "and output, then the scratch refs, in that order");
        return callable;
      }
    }
    return false;
  }

  template <class PrefetchRefs, class... Rest>
  static constexpr bool kernel_callable(std::type_identity<std::tuple<Rest...>>) {
    return []<class... P>(std::type_identity<std::tuple<P...>>) {
      return std::is_invocable_v<Kernel const&, P..., Rest...>;
    }(std::type_identity<PrefetchRefs>{});
  }

  Kernel kernel_;
  Outs outs_;
  GridT grid_;
  InSpecs in_;
  OutSpecs out_;
  std::string_view name_;  ///< pl::name(...), for the trace
};

namespace detail {

/// pallas_call over its options: the types searched with compiler_params flattened, the
/// values (grid, specs, outputs, name, estimate) at the top level, where they must be.
template <class Kernel, class... Options>
constexpr auto make_pallas_call(Kernel kernel, Options const&... options) {
  namespace mp = boost::mp11;
  using list = mp::mp_append<mp::mp_list<>, typename option_types<Options>::type...>;
  static_assert(mp::mp_all_of<list, is_call_option>::value,
                "pallas::pallas_call: options are pl::out_shape<...> (or ShapeDtypeStruct values), pl::grid<...>, "
                "pl::in_specs(...), pl::out_specs(...), pl::scratch_shapes<...>, pltpu::compiler_params(...), "
                "pltpu::dimension_semantics<...>, pltpu::vmem_limit_bytes<n>, pltpu::num_scalar_prefetch<n>, "
                "pl::input_output_aliases<...>, pltpu::num_cores<n>, pltpu::no_tiling_check, pl::name(...) and pl::CostEstimate{...}");
  // A value option given inside compiler_params would be lost: only types are kept there.
  static_assert((holds_compiler_parameters_only<Options> && ...),
                "pallas::pallas_call: compiler_params(...) takes pltpu::dimension_semantics<...>, "
                "pltpu::vmem_limit_bytes<n>, pltpu::num_cores<n>, pltpu::num_scalar_prefetch<n> and "
                "pltpu::no_tiling_check; pass the other options to pallas_call itself");
  static_assert(count_options<is_name_option, Options...> <= 1, "pallas::pallas_call: at most one pl::name(...)");
  using grid_type = option_type_in<is_grid, grid_t<>, list>;
  using ins_option = option_type_in<is_in_specs, in_specs_t<>, list>;
  using outs_option = option_type_in<is_out_specs, out_specs_t<>, list>;
  using scratch_option = option_type_in<is_scratch_option, scratch_types_t<>, list>;
  using semantics = option_type_in<is_dimension_semantics, void, list>;
  using aliases = option_type_in<is_alias_option, input_output_aliases_t<>, list>;
  constexpr int num_prefetch = option_type_in<is_prefetch_option, tpu::num_scalar_prefetch_t<0>, list>::value;
  constexpr std::int64_t vmem_limit = option_type_in<is_vmem_limit_option, tpu::vmem_limit_bytes_t<0>, list>::value;
  constexpr int cores = option_type_in<is_num_cores_option, tpu::num_cores_t<tpu::get_tpu_info().num_cores>, list>::value;
  constexpr bool check_tiling = !mp::mp_contains<list, tpu::no_tiling_check_t>::value;
  if constexpr (!std::is_same_v<semantics, void>) {
    static_assert(semantics::size == grid_type::rank(),
                  "pallas::pallas_call: dimension_semantics needs one entry per grid axis (semantics == grid rank)");
    static_assert(semantics::parallel_first, "pallas::pallas_call: " PALLAS_RULE_PARALLEL_FIRST);
  }
  auto outs = outputs_of_options(options...);
  static_assert(std::tuple_size_v<decltype(outs)> >= 1, "pallas::pallas_call: out_shape is needed");
  auto grid_value = option_or<is_grid, grid_type>(options...);
  auto in = option_or<is_in_specs, ins_option>(options...).specs;
  auto out = option_or<is_out_specs, outs_option>(options...).specs;
  static_assert(count_options<is_cost_estimate, Options...> <= 1, "pallas::pallas_call: at most one pl::CostEstimate");
  auto fn = pallas_call_fn<Kernel, decltype(outs), grid_type, decltype(in), decltype(out), scratch_option, semantics,
                           aliases, num_prefetch, vmem_limit, cores, check_tiling>(
      std::move(kernel), std::move(outs), grid_value, std::move(in), std::move(out),
      option_or<is_name_option, name_option>(options...).value);
  if constexpr (count_options<is_cost_estimate, Options...> > 0) fn.cost_estimate = option_or<is_cost_estimate, CostEstimate>(options...);
  return fn;
}

}  // namespace detail

/// `pl.pallas_call(kernel, out_shape, grid=..., in_specs=..., out_specs=..., scratch_shapes=...,
/// compiler_params=..., input_output_aliases=...)`; the options may come in any order.
template <class Kernel, class... Options>
constexpr auto pallas_call(Kernel kernel, Options const&... options) {
  return detail::make_pallas_call(std::move(kernel), options...);
}

/// The plan `call` runs with on `args` (scalar-prefetch arrays first); it prints with <<.
template <class Kernel, class Outs, class GridT, class InSpecs, class OutSpecs, class Scratch, class Semantics,
          class Aliases, int NumPrefetch, std::int64_t VmemLimit, int Cores, bool CheckTiling, AnyArray... Args>
auto plan_of(pallas_call_fn<Kernel, Outs, GridT, InSpecs, OutSpecs, Scratch, Semantics, Aliases, NumPrefetch, VmemLimit,
                            Cores, CheckTiling> const& call,
             Args const&... args) {
  return call.plan(args...);
}

/// The plan the compiler computed for a pallas_call of type Call on arrays of types Args,
/// a constant expression (see pltpu::static_plan_of).
template <class Call, class... Args>
  requires detail::plan_is_static_v<typename Call::template engine_type<Args...>>
inline constexpr auto const& static_plan_of = detail::static_plan_of<typename Call::template engine_type<Args...>>::plan;

}  // namespace pallas
