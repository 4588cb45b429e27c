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
#include <tuple>
#include <type_traits>
#include <utility>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <pallas/array.hpp>
#include <pallas/block_spec.hpp>
#include <pallas/config.hpp>
#include <pallas/dtype.hpp>
#include <pallas/grid.hpp>
#include <pallas/kernel.hpp>
#include <pallas/shape_dtype_struct.hpp>
#include <pallas/tpu/chip.hpp>
#include <pallas/tpu/core_split.hpp>
#include <pallas/tpu/device.hpp>
#include <pallas/tpu/dimension_semantics.hpp>
#include <pallas/tpu/pipeline.hpp>
#include <pallas/tpu/scratch.hpp>

namespace pallas {

/// `out_shape=...`: the same as pl::out_type.
template <ShapeDtype... Outs>
inline constexpr out_type_t<Outs...> out_shape{};

/// `scratch_shapes=[...]`: the same as pl::scratch_types.
template <ScratchType... S>
inline constexpr scratch_types_t<S...> scratch_shapes{};

/// One `input_output_aliases` entry: input `input` (counted over all call arguments,
/// scalar-prefetch ones included, as in Pallas) is output `output`'s buffer.
struct alias {
  int input;
  int output;
  constexpr bool operator==(alias const&) const = default;
};

/// `input_output_aliases={4: 0}` is `pl::input_output_aliases<pl::alias{4, 0}>`.
template <alias... A>
struct input_output_aliases_t {
  static constexpr std::array<alias, sizeof...(A)> entries{A...};
};
template <alias... A>
inline constexpr input_output_aliases_t<A...> input_output_aliases{};

namespace tpu {

/// `PrefetchScalarGridSpec(num_scalar_prefetch=N, ...)`: the first N call arguments go to
/// SMEM before the grid runs; index maps and the kernel receive them.
template <int N>
struct num_scalar_prefetch_t {
  static_assert(N >= 0, "pallas::pallas_call: num_scalar_prefetch must be >= 0");
  static constexpr int value = N;
};
template <int N>
inline constexpr num_scalar_prefetch_t<N> num_scalar_prefetch{};

/// `vmem_limit_bytes=N` of CompilerParams: the VMEM budget of the call's buffers and
/// scratch, checked at compile time.
template <std::int64_t N>
struct vmem_limit_bytes_t {
  static constexpr std::int64_t value = N;
};
template <std::int64_t N>
inline constexpr vmem_limit_bytes_t<N> vmem_limit_bytes{};

/// The TensorCores the call runs on (not a Pallas option: Pallas uses the device's). The
/// chip's count by default (v5p: 2).
template <int N>
struct num_cores_t {
  static_assert(N >= 1, "pallas::pallas_call: num_cores must be >= 1");
  static constexpr int value = N;
};
template <int N>
inline constexpr num_cores_t<N> num_cores{};

/// `pltpu.CompilerParams(dimension_semantics=..., vmem_limit_bytes=...)`.
template <class... P>
struct compiler_params_t {
  std::tuple<P...> params;
};
template <class... P>
constexpr compiler_params_t<P...> compiler_params(P const&... params) {
  return {std::tuple<P...>{params...}};
}

}  // namespace tpu

namespace detail {

namespace mp = boost::mp11;

template <class T>
struct is_alias_option : std::false_type {};
template <alias... A>
struct is_alias_option<input_output_aliases_t<A...>> : std::true_type {};
template <class T>
struct is_prefetch_option : std::false_type {};
template <int N>
struct is_prefetch_option<tpu::num_scalar_prefetch_t<N>> : std::true_type {};
template <class T>
struct is_vmem_limit_option : std::false_type {};
template <std::int64_t N>
struct is_vmem_limit_option<tpu::vmem_limit_bytes_t<N>> : std::true_type {};
template <class T>
struct is_num_cores_option : std::false_type {};
template <int N>
struct is_num_cores_option<tpu::num_cores_t<N>> : std::true_type {};
template <class T>
struct is_compiler_params : std::false_type {};
template <class... P>
struct is_compiler_params<tpu::compiler_params_t<P...>> : std::true_type {};

// Compiler params are flattened into the option list.
template <class O>
constexpr auto flatten_option(O const& o) {
  if constexpr (is_compiler_params<O>::value)
    return o.params;
  else
    return std::tuple<O>{o};
}

template <class T>
using is_call_option =
    std::bool_constant<ShapeDtype<T> || is_out_type<T>::value || Grid<T> || tpu::detail::is_in_specs<T>::value ||
                       tpu::detail::is_out_specs<T>::value || is_scratch_option<T>::value ||
                       tpu::detail::is_dimension_semantics<T>::value || is_alias_option<T>::value ||
                       is_prefetch_option<T>::value || is_vmem_limit_option<T>::value ||
                       is_num_cores_option<T>::value || std::is_same_v<T, tpu::no_tiling_check_t>>;

template <class List, template <class> class Pred, class Fallback>
using option_or = mp::mp_eval_if_c<mp::mp_empty<mp::mp_copy_if<List, Pred>>::value, Fallback, mp::mp_front,
                                   mp::mp_copy_if<List, Pred>>;

template <class Tuple, template <class> class Pred, class Fallback>
constexpr auto option_value(Tuple const& t) {
  using list = mp::mp_rename<Tuple, mp::mp_list>;
  constexpr std::size_t at = mp::mp_find_if<list, Pred>::value;
  if constexpr (at < std::tuple_size_v<Tuple>)
    return std::get<at>(t);
  else
    return Fallback{};
}

/// Names the pallas_call operand in the messages of index errors.
inline constexpr std::string_view pallas_call_name = "pallas_call";

/// Copies a scalar-prefetch array into the core's SMEM.
template <class T, index_t... D>
auto to_smem(core_state& core, Array<T, D...> const& a) {
  using ref_t = Ref<T, shape<D...>, memory_space::smem>;
  auto const bytes = a.size() * static_cast<std::int64_t>(sizeof(T));
  T* p = reinterpret_cast<T*>(core.smem.allocate(bytes, "a scalar-prefetch argument"));
  std::copy(a.begin(), a.end(), p);
  return ref_t(p, a.shape());
}

template <class S>
struct smem_ref_of;
template <class T, index_t... D>
struct smem_ref_of<Array<T, D...>> {
  using type = Ref<T, shape<D...>, memory_space::smem>;
};

/// The SMEM refs of a tuple of scalar-prefetch arrays (a type only: refs with run-time
/// extents have no default value).
template <class Tuple>
struct smem_refs_of;
template <class... A>
struct smem_refs_of<std::tuple<A...>> {
  using type = std::tuple<typename smem_ref_of<std::remove_cvref_t<A>>::type...>;
};

}  // namespace detail

/// What pl::pallas_call(...) returns: call it with the Arrays (scalar-prefetch ones first).
template <class Kernel, class Outs, class GridT, class InSpecs, class OutSpecs, class ScratchOption, class Semantics,
          class Aliases, int NumPrefetch, std::int64_t VmemLimit, int Cores, bool CheckTiling>
class pallas_call_fn;

template <class Kernel, class Outs, class GridT, class InSpecs, class OutSpecs, class... Scratch, class Semantics,
          class Aliases, int NumPrefetch, std::int64_t VmemLimit, int Cores, bool CheckTiling>
class pallas_call_fn<Kernel, Outs, GridT, InSpecs, OutSpecs, scratch_types_t<Scratch...>, Semantics, Aliases,
                     NumPrefetch, VmemLimit, Cores, CheckTiling> {
 public:
  static constexpr std::size_t grid_rank = GridT::rank();
  static constexpr std::size_t num_outputs = std::tuple_size_v<Outs>;

  pallas_call_fn(Kernel kernel, Outs outs, GridT grid, InSpecs in, OutSpecs out)
      : kernel_(std::move(kernel)), outs_(std::move(outs)), grid_(grid), in_(std::move(in)), out_(std::move(out)) {}

  template <AnyArray... Args>
  auto operator()(Args const&... args) const {
    constexpr std::size_t num_args = sizeof...(Args);
    static_assert(num_args >= static_cast<std::size_t>(NumPrefetch),
                  "pallas::pallas_call: pass the scalar-prefetch arrays first (arguments >= num_scalar_prefetch)");
    if constexpr (num_args >= static_cast<std::size_t>(NumPrefetch)) {
      constexpr std::size_t num_inputs = num_args - NumPrefetch;
      auto all = std::tuple<Args const&...>(args...);
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
  }

 private:
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

  template <class PrefetchArgs, class Inputs, std::size_t... I, std::size_t... O>
  auto call(PrefetchArgs const& prefetch_args, Inputs const& inputs, std::index_sequence<I...>,
            std::index_sequence<O...>) const {
    namespace td = tpu::detail;
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
      using in_refs_t = std::tuple<typename std::tuple_element_t<I, in_arrays>::ref_type...>;
      using out_refs_t = std::tuple<typename std::tuple_element_t<O, out_arrays>::ref_type...>;
      constexpr bool ok = checks<in_refs_t, out_refs_t, prefetch_refs>(std::index_sequence<I...>{},
                                                                       std::index_sequence<O...>{});
      if constexpr (ok) {
        // Outputs: aliased ones start as a copy of their input; the rest unspecified (poisoned).
        auto outputs = std::tuple{make_output<O, num_inputs>(prefetch_args, inputs)...};
        auto in_refs = std::tuple{std::get<I>(inputs).ref()...};
        auto out_refs = std::tuple{std::get<O>(outputs).ref()...};
        std::array<index_t, grid_rank> const extents = grid_.all();
        for (std::size_t a = 0; a < grid_rank; ++a)
          if (extents[a] <= 0)
            pallas::detail::fail("pallas::pallas_call: grid axis ", a, " has extent ", extents[a], ", must be > 0");
        std::array<tpu::GridDimensionSemantics, grid_rank> semantics{};
        semantics.fill(tpu::ARBITRARY);
        if constexpr (!std::is_same_v<Semantics, void>)
          for (std::size_t a = 0; a < grid_rank; ++a) semantics[a] = Semantics::values[a];
        constexpr tpu::TpuInfo chip = tpu::get_tpu_info();
        auto run_core = [&](int core_index) {
          auto& core = *pallas::detail::current_core;
          auto pf = std::apply([&](auto const&... a) { return std::tuple{pallas::detail::to_smem(core, a)...}; },
                               prefetch_args);
          std::tuple<typename Scratch::ref_type...> scratch{Scratch::allocate(core)...};
          auto const box = td::split_linear(extents, semantics, Cores, core_index);
          auto global_point = [&](index_t s) { return td::box_point(box, s); };
          auto ins = std::tuple{td::pipelined_operand<spec_t<I, InSpecs, typename std::tuple_element_t<I, in_refs_t>::shape_type>,
                                                      std::tuple_element_t<I, in_refs_t>, td::operand_role::input,
                                                      grid_rank, decltype(pf)>(
              spec_value<I, InSpecs, typename std::tuple_element_t<I, in_refs_t>::shape_type>(in_), std::get<I>(in_refs),
              "pallas_call", "in_specs", static_cast<int>(I), pf)...};
          auto outs = std::tuple{td::pipelined_operand<spec_t<O, OutSpecs, typename std::tuple_element_t<O, out_refs_t>::shape_type>,
                                                       std::tuple_element_t<O, out_refs_t>, td::operand_role::output,
                                                       grid_rank, decltype(pf)>(
              spec_value<O, OutSpecs, typename std::tuple_element_t<O, out_refs_t>::shape_type>(out_), std::get<O>(out_refs),
              "pallas_call", "out_specs", static_cast<int>(O), pf)...};
          if (Cores > 1 && core_index == 0) {
            auto points_of = [&](int c, auto&& f) {
              auto const b = td::split_linear(extents, semantics, Cores, c);
              for (index_t s = 0; s < b.steps(); ++s) f(td::box_point(b, s));
            };
            (td::check_cross_core(std::get<O>(outs), Cores, points_of), ...);
          }
          td::run_schedule<grid_rank>(core, extents, box.steps(), global_point, ins, outs, [&](auto const&... blocks) {
            std::apply([&](auto const&... s) { std::apply([&](auto const&... p) { kernel_(p..., blocks..., s...); }, pf); },
                       scratch);
          });
          pallas::detail::finish_core(core);
        };
        pallas::detail::device::instance().launch(Cores, chip, "", run_core);
        if constexpr (num_outputs == 1)
          return std::move(std::get<0>(outputs));
        else
          return outputs;
      }
    }
  }

  template <std::size_t O>
  static constexpr int alias_input_of() {
    for (auto const& a : Aliases::entries)
      if (a.output == static_cast<int>(O)) return a.input;
    return -1;
  }

  template <std::size_t O, std::size_t NumInputs, class PrefetchArgs, class Inputs>
  auto make_output(PrefetchArgs const&, Inputs const& inputs) const {
    constexpr int in = alias_input_of<O>();
    auto const& sds = std::get<O>(outs_);
    using out_array = typename std::tuple_element_t<O, Outs>::array_type;
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
            pallas::detail::fail<shape_error>("pallas::pallas_call: input ", in, " of shape ", src.shape(),
                                              " is aliased to output ", O, " of shape ", sds.shape);
          return out_array(src);
        }
      }
    }
    // Not aliased (or an alias rejected above, so that it is the only error): unspecified
    // contents, poisoned in checked mode.
    out_array a = sds.make_uninitialized_array();
    pallas::detail::poison(a);
    return a;
  }

  template <class InRefs, class OutRefs, class PrefetchRefs, std::size_t... I, std::size_t... O>
  static constexpr bool checks(std::index_sequence<I...>, std::index_sequence<O...>) {
    namespace td = tpu::detail;
    constexpr bool has_extra = std::tuple_size_v<PrefetchRefs> > 0;
    constexpr bool each =
        (td::check_operand<spec_t<I, InSpecs, typename std::tuple_element_t<I, InRefs>::shape_type>,
                           std::tuple_element_t<I, InRefs>, grid_rank, CheckTiling, PrefetchRefs>() &&
         ... && true) &&
        (td::check_operand<spec_t<O, OutSpecs, typename std::tuple_element_t<O, OutRefs>::shape_type>,
                           std::tuple_element_t<O, OutRefs>, grid_rank, CheckTiling, PrefetchRefs>() &&
         ... && true);
    if constexpr (each) {
      (td::check_whole_grid<spec_t<I, InSpecs, typename std::tuple_element_t<I, InRefs>::shape_type>,
                            std::tuple_element_t<I, InRefs>, GridT, Semantics, Cores, false, has_extra, true>(),
       ...);
      (td::check_whole_grid<spec_t<O, OutSpecs, typename std::tuple_element_t<O, OutRefs>::shape_type>,
                            std::tuple_element_t<O, OutRefs>, GridT, Semantics, Cores, true, has_extra, true>(),
       ...);
      constexpr std::int64_t vmem_bytes =
          (std::int64_t{0} + ... +
           td::vmem_bytes_of<spec_t<I, InSpecs, typename std::tuple_element_t<I, InRefs>::shape_type>,
                             std::tuple_element_t<I, InRefs>>()) +
          (std::int64_t{0} + ... +
           td::vmem_bytes_of<spec_t<O, OutSpecs, typename std::tuple_element_t<O, OutRefs>::shape_type>,
                             std::tuple_element_t<O, OutRefs>>()) +
          (std::int64_t{0} + ... + Scratch::vmem_bytes);
      constexpr std::int64_t limit = VmemLimit > 0 ? VmemLimit : tpu::get_tpu_info().vmem_capacity_bytes;
      static_assert(vmem_bytes <= limit,
                    "pallas::pallas_call: the blocks' buffers and the scratch exceed the VMEM budget (bytes asked "
                    "<= vmem_limit_bytes, or the chip's VMEM)");
      constexpr bool callable = kernel_callable<PrefetchRefs>(
          std::type_identity<std::tuple<td::body_ref_t<spec_t<I, InSpecs, typename std::tuple_element_t<I, InRefs>::shape_type>,
                                                       std::tuple_element_t<I, InRefs>>...,
                                        td::body_ref_t<spec_t<O, OutSpecs, typename std::tuple_element_t<O, OutRefs>::shape_type>,
                                                       std::tuple_element_t<O, OutRefs>>...,
                                        typename Scratch::ref_type...>>{});
      static_assert(callable,
                    "pallas::pallas_call: the kernel must take the scalar-prefetch refs, one block ref per input "
                    "and output, then the scratch refs, in that order");
      return vmem_bytes <= limit && callable;
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
};

/// `pl.pallas_call(kernel, out_shape, grid=..., in_specs=..., out_specs=..., scratch_shapes=...,
/// compiler_params=..., input_output_aliases=...)`; the options may come in any order.
template <class Kernel, class... Options>
constexpr auto pallas_call(Kernel kernel, Options const&... options) {
  namespace mp = boost::mp11;
  auto flat = std::tuple_cat(detail::flatten_option(options)...);
  using list = mp::mp_rename<decltype(flat), mp::mp_list>;
  static_assert(mp::mp_all_of<list, detail::is_call_option>::value,
                "pallas::pallas_call: options are pl::out_shape<...> (or ShapeDtypeStruct values), pl::grid<...>, "
                "pl::in_specs(...), pl::out_specs(...), pl::scratch_shapes<...>, pltpu::compiler_params(...), "
                "pltpu::dimension_semantics<...>, pltpu::vmem_limit_bytes<n>, pltpu::num_scalar_prefetch<n>, "
                "pl::input_output_aliases<...>, pltpu::num_cores<n> and pltpu::no_tiling_check");
  using grid_type = detail::option_or<list, detail::is_grid, grid_t<>>;
  using ins_option = detail::option_or<list, tpu::detail::is_in_specs, in_specs_t<>>;
  using outs_option = detail::option_or<list, tpu::detail::is_out_specs, out_specs_t<>>;
  using scratch_option = detail::option_or<list, detail::is_scratch_option, scratch_types_t<>>;
  using semantics = detail::option_or<list, tpu::detail::is_dimension_semantics, void>;
  using aliases = detail::option_or<list, detail::is_alias_option, input_output_aliases_t<>>;
  constexpr int num_prefetch = detail::option_or<list, detail::is_prefetch_option, tpu::num_scalar_prefetch_t<0>>::value;
  constexpr std::int64_t vmem_limit = detail::option_or<list, detail::is_vmem_limit_option, tpu::vmem_limit_bytes_t<0>>::value;
  constexpr int cores = detail::option_or<list, detail::is_num_cores_option,
                                          tpu::num_cores_t<tpu::get_tpu_info().num_cores>>::value;
  constexpr bool check_tiling = !mp::mp_contains<list, tpu::no_tiling_check_t>::value;
  if constexpr (!std::is_same_v<semantics, void>) {
    static_assert(semantics::size == grid_type::rank(),
                  "pallas::pallas_call: dimension_semantics needs one entry per grid axis (semantics == grid rank)");
    static_assert(semantics::parallel_first, "pallas::pallas_call: PARALLEL axes must come before ARBITRARY ones");
  }
  auto outs = std::apply([](auto const&... o) { return std::tuple_cat(detail::outputs_of(o)...); }, flat);
  static_assert(std::tuple_size_v<decltype(outs)> >= 1, "pallas::pallas_call: out_shape is needed");
  auto grid_value = detail::option_value<decltype(flat), detail::is_grid, grid_type>(flat);
  auto in = detail::option_value<decltype(flat), tpu::detail::is_in_specs, ins_option>(flat).specs;
  auto out = detail::option_value<decltype(flat), tpu::detail::is_out_specs, outs_option>(flat).specs;
  return pallas_call_fn<Kernel, decltype(outs), grid_type, decltype(in), decltype(out), scratch_option, semantics,
                        aliases, num_prefetch, vmem_limit, cores, check_tiling>(std::move(kernel), std::move(outs),
                                                                                 grid_value, std::move(in), std::move(out));
}

}  // namespace pallas
