// SPDX-License-Identifier: Apache-2.0
#pragma once
// pl::kernel: run a body once on every TensorCore of a mesh (`@pl.kernel(...)`).
//
//   auto fill_42 = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 128>>,
//                             pl::mesh<pltpu::TensorCoreMesh<"core">>,
//                             pl::scratch_types<pltpu::VMEM<float, 128>>)(
//       [](auto o_ref, auto o_vmem) { ... });
//   pl::Array<float, 128> result = fill_42();
//
// The options may come in any order. The body receives one HBM ref per input and output,
// then one ref per scratch buffer, allocated per core. Input refs are read-only in their
// type (`pl::Ref<T const, ...>`): a copy into one, or a store, fails to compile with
// "pallas::kernel: input refs are read-only". Several outputs come back as a std::tuple of
// Arrays.

#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <pallas/array.hpp>
#include <pallas/config.hpp>
#include <pallas/detail/options.hpp>
#include <pallas/detail/runtime/device.hpp>
#include <pallas/dtype.hpp>
#include <pallas/name.hpp>
#include <pallas/shape_dtype_struct.hpp>
#include <pallas/tpu/cost_report.hpp>
#include <pallas/tpu/dma_executor.hpp>
#include <pallas/tpu/dma_schedule.hpp>
#include <pallas/tpu/interpret_params.hpp>
#include <pallas/tpu/mesh.hpp>
#include <pallas/tpu/scratch.hpp>

namespace pallas {

/// The outputs' shapes and dtypes: `pl::out_type<pl::ShapeDtypeStruct<float, 128>>`. A
/// ShapeDtypeStruct value (`pl::like(x)`) may be passed to pl::kernel directly instead.
template <ShapeDtype... Outs>
struct out_type_t {
  std::tuple<Outs...> values;  ///< one per output
};
/// `out_type=...`: the option value.
template <ShapeDtype... Outs>
inline constexpr out_type_t<Outs...> out_type{};

/// The mesh: `pl::mesh<pltpu::TensorCoreMesh<"core">>`.
template <tpu::Mesh M>
struct mesh_t {
  using type = M;  ///< the mesh type
};
/// `mesh=...`: the option value.
template <tpu::Mesh M>
inline constexpr mesh_t<M> mesh{};

/// Per-core scratch buffers: `pl::scratch_types<pltpu::VMEM<float, 128>>`.
template <ScratchType... S>
struct scratch_types_t {};
/// `scratch_types=...`: the option value.
template <ScratchType... S>
inline constexpr scratch_types_t<S...> scratch_types{};

namespace detail {

template <class T>
struct is_out_type : std::false_type {};
template <class... O>
struct is_out_type<out_type_t<O...>> : std::true_type {};
template <class T>
struct is_mesh_option : std::bool_constant<tpu::Mesh<T>> {};
template <class M>
struct is_mesh_option<mesh_t<M>> : std::true_type {};
template <class T>
struct is_scratch_option : std::false_type {};
template <class... S>
struct is_scratch_option<scratch_types_t<S...>> : std::true_type {};

template <class T>
struct mesh_of {
  using type = T;
};
template <class M>
struct mesh_of<mesh_t<M>> {
  using type = M;
};

template <class T>
using is_kernel_option = std::bool_constant<ShapeDtype<T> || is_out_type<T>::value ||
                                            is_mesh_option<T>::value || is_scratch_option<T>::value ||
                                            is_name_option<T>::value>;

// The outputs named by one option, as a tuple of ShapeDtypeStructs.
template <class O>
constexpr auto outputs_of(O const& option) {
  if constexpr (ShapeDtype<O>)
    return std::tuple{option};
  else if constexpr (is_out_type<O>::value)
    return option.values;
  else
    return std::tuple<>{};
}

/// Whether option O names outputs (out_type / out_shape, or a ShapeDtypeStruct value).
template <class O>
using names_outputs = std::bool_constant<ShapeDtype<O> || is_out_type<O>::value>;

/// The outputs the options name, in order, as one tuple of ShapeDtypeStructs: usually one
/// option names them all, and its tuple is taken as it is (tuple_cat over every option is
/// a recursion the compiler pays for each call site).
template <class... Options>
constexpr auto outputs_of_options(Options const&... options) {
  if constexpr (count_options<names_outputs, Options...> == 1)
    return outputs_of(option_or<names_outputs, std::tuple<>>(options...));
  else
    return std::tuple_cat(outputs_of(options)...);
}

/// The number of parameters of a non-generic callable, or -1 when it is generic.
template <class F, class = void>
struct callable_arity : std::integral_constant<int, -1> {};
template <class R, class... A>
struct callable_arity<R (*)(A...)> : std::integral_constant<int, sizeof...(A)> {};
template <class R, class... A>
struct callable_arity<R(A...)> : std::integral_constant<int, sizeof...(A)> {};
template <class M>
struct call_operator_arity;
template <class C, class R, class... A>
struct call_operator_arity<R (C::*)(A...)> : std::integral_constant<int, sizeof...(A)> {};
template <class C, class R, class... A>
struct call_operator_arity<R (C::*)(A...) const> : std::integral_constant<int, sizeof...(A)> {};
template <class C, class R, class... A>
struct call_operator_arity<R (C::*)(A...) noexcept> : std::integral_constant<int, sizeof...(A)> {};
template <class C, class R, class... A>
struct call_operator_arity<R (C::*)(A...) const noexcept> : std::integral_constant<int, sizeof...(A)> {};
template <class F>
struct callable_arity<F, std::void_t<decltype(&F::operator())>>
    : call_operator_arity<decltype(&F::operator())> {};

/// The rule on a non-generic body's parameter count. Both counts are template arguments,
/// so the compiler's message shows them: `check_body_parameters<1, 2>`, '1 == 2'.
template <int BodyParameters, int Expected>
constexpr void check_body_parameters() {
  static_assert(BodyParameters == Expected,
                "pallas::kernel: the body must take one parameter per input, output and "
                "scratch buffer (body parameters == inputs + outputs + scratch)");
}

/// The chip's VMEM and SMEM budgets for scratch. The numbers are template arguments, so
/// both compilers print them: '268435456 <= 67108864'.
template <std::int64_t VmemAsked, std::int64_t VmemAvailable, std::int64_t SmemAsked,
          std::int64_t SmemAvailable>
constexpr void check_scratch_budget() {
  static_assert(VmemAsked <= VmemAvailable,
                "pallas::kernel: the VMEM scratch exceeds the chip's VMEM (bytes asked <= "
                "bytes available per core)");
  static_assert(SmemAsked <= SmemAvailable,
                "pallas::kernel: the SMEM scratch exceeds the chip's SMEM (bytes asked <= "
                "bytes available per core)");
}

template <class F, class Tuple>
struct invocable_with_tuple;
template <class F, class... A>
struct invocable_with_tuple<F, std::tuple<A...>> : std::is_invocable<F, A...> {};

/// Fills an output as uninitialized memory (tpu/interpret_params.hpp: poison in checked
/// mode, or the interpreter's nan or zero), so that elements a kernel never writes show up.
template <class T, index_t... D>
void poison(Array<T, D...>& a) {
  T value{};
  if (uninitialized_fill(launch_interpret_conventions().uninitialized, value)) std::fill(a.begin(), a.end(), value);
}

/// The launch of a kernel on mesh Mesh (its cores, its chip's memories) in the DMA order
/// set now.
template <class Mesh>
launch_config launch_config_of() {
  return {Mesh::num_cores,       Mesh::info.vmem_capacity_bytes, Mesh::info.smem_capacity_bytes, Mesh::axis_name,
          launch_dma_policy(),   launch_dma_executor(),           launch_interpret_conventions()};
}

template <class S>
inline constexpr bool is_semaphore_scratch = requires { S::is_semaphore; };

template <class T>
struct is_array : std::false_type {};
template <class T, index_t... D>
struct is_array<Array<T, D...>> : std::true_type {};

}  // namespace detail

/// A pl::Array type.
template <class T>
concept AnyArray = detail::is_array<std::remove_cvref_t<T>>::value;

/// The callable pl::kernel(...)(body) returns: call it with the input Arrays.
template <class Body, class Mesh, class Outs, class... Scratch>
class kernel_fn {
 public:
  /// The body, the outputs' shapes and the kernel's name (pl::kernel(...)(body) makes it).
  kernel_fn(Body body, Outs outs, std::string_view name = {})
      : body_(std::move(body)), outs_(std::move(outs)), name_(name) {}

  /// @cond PALLAS_INTERNAL
  // What a launch on several chips (tpu/device_mesh.hpp) runs on each chip.
  using mesh_type = Mesh;
  using scratch_list = boost::mp11::mp_list<Scratch...>;
  Body const& body() const noexcept { return body_; }
  Outs const& out_types() const noexcept { return outs_; }
  /// pl::name(...), or empty.
  std::string_view name() const noexcept { return name_; }
  /// @endcond

  /// Runs the body on every core of the mesh with the inputs' refs (read-only HBM), the
  /// outputs' refs (HBM, written by the body) and its scratch (per core), and returns the
  /// output Array (or a tuple of them). The first error on any core is rethrown here.
  template <AnyArray... Inputs>
  auto operator()(Inputs const&... inputs) const {
    constexpr int num_outputs = static_cast<int>(std::tuple_size_v<Outs>);
    constexpr int expected = static_cast<int>(sizeof...(Inputs)) + num_outputs +
                             static_cast<int>(sizeof...(Scratch));
    constexpr int arity = detail::callable_arity<Body>::value;
    if constexpr (arity != -1) detail::check_body_parameters<arity, expected>();
    constexpr std::int64_t vmem_asked = (std::int64_t{0} + ... + Scratch::vmem_bytes);
    constexpr std::int64_t smem_asked = (std::int64_t{0} + ... + Scratch::smem_bytes);
    detail::check_scratch_budget<vmem_asked, Mesh::info.vmem_capacity_bytes, smem_asked,
                                 Mesh::info.smem_capacity_bytes>();

    auto outputs = std::apply([](auto const&... o) { return std::tuple{o.make_uninitialized_array()...}; }, outs_);
    std::apply([](auto&... o) { (detail::poison(o), ...); }, outputs);
    auto out_refs = std::apply([](auto const&... o) { return std::tuple{o.ref()...}; }, outputs);
    auto in_refs = std::tuple{inputs.read_only_ref()...};  // read-only: the caller's Arrays are const
    using args_tuple = decltype(std::tuple_cat(in_refs, out_refs, std::tuple<typename Scratch::ref_type...>{}));
    constexpr bool callable = detail::invocable_with_tuple<Body const&, args_tuple>::value;
    static_assert(arity != -1 || callable,
                  "pallas::kernel: the body cannot be called with one ref per input, output and "
                  "scratch buffer, in that order");
    if constexpr (arity == expected || (arity == -1 && callable)) {
      static constinit detail::executor_tuner tuner;  // this kernel's (executor_tuner.hpp)
      auto config = detail::launch_config_of<Mesh>();
      config.name = name_;
      config.tuner = &tuner;
      detail::launch_costs<Mesh::num_cores> costs;  // pltpu::last_launch_report()
      detail::device::instance().launch(
          config, [&](int core_index) {
            auto const counting = costs.scope(core_index);
            auto& core = *detail::current_core;
            std::tuple<typename Scratch::ref_type...> scratch{Scratch::allocate(core)...};
            if constexpr ((detail::is_semaphore_scratch<Scratch> || ...)) detail::start_barrier(core);
            std::apply(body_, std::tuple_cat(in_refs, out_refs, scratch));
            detail::finish_core(core);
          });
      costs.publish("pl::kernel", Mesh::info);
    }
    if constexpr (num_outputs == 1)
      return std::move(std::get<0>(outputs));
    else
      return outputs;
  }

 private:
  Body body_;
  Outs outs_;
  std::string_view name_;  ///< pl::name(...), for the trace
};

/// What `pl::kernel(options...)` returns: call it with the body.
template <class Mesh, class Outs, class... Scratch>
struct kernel_builder {
  Outs outs;              ///< the outputs' shapes
  std::string_view name;  ///< pl::name(...), for the trace and errors
  /// The kernel: `pl::kernel(opts...)([](auto x_ref, auto o_ref) { ... })`.
  template <class Body>
  auto operator()(Body body) const {
    return kernel_fn<Body, Mesh, Outs, Scratch...>(std::move(body), outs, name);
  }
};

namespace detail {
template <class Mesh, class Outs, class ScratchOption>
struct builder_for;
template <class Mesh, class Outs, class... S>
struct builder_for<Mesh, Outs, scratch_types_t<S...>> {
  using type = kernel_builder<Mesh, Outs, S...>;
};
}  // namespace detail

/// `pl.kernel(out_type=..., mesh=..., scratch_types=...)`: returns a builder to call with
/// the body.
template <class... Options>
constexpr auto kernel(Options const&... options) {
  namespace mp = boost::mp11;
  using list = mp::mp_list<Options...>;
  static_assert(mp::mp_all_of<list, detail::is_kernel_option>::value,
                "pallas::kernel: options are pl::out_type<...> or ShapeDtypeStruct values, "
                "pl::mesh<...>, pl::scratch_types<...> and pl::name(...)");
  static_assert(detail::count_options<detail::is_mesh_option, Options...> == 1,
                "pallas::kernel: exactly one mesh is needed: pl::mesh<pltpu::TensorCoreMesh<\"core\">>");
  static_assert(detail::count_options<detail::is_scratch_option, Options...> <= 1,
                "pallas::kernel: at most one pl::scratch_types<...>");
  static_assert(detail::count_options<detail::is_name_option, Options...> <= 1,
                "pallas::kernel: at most one pl::name(...)");
  // After a mistake above, carry on with a stand-in mesh (or the first of several) so that
  // the mistake is the only error.
  using mesh_option = detail::option_type_or<detail::is_mesh_option, tpu::TensorCoreMesh<"core">, Options...>;
  using mesh_type = typename detail::mesh_of<mesh_option>::type;
  using scratch_option = detail::option_type_or<detail::is_scratch_option, scratch_types_t<>, Options...>;
  auto outs = detail::outputs_of_options(options...);
  using builder = typename detail::builder_for<mesh_type, decltype(outs), scratch_option>::type;
  return builder{outs, detail::option_or<detail::is_name_option, name_option>(options...).value};
}

}  // namespace pallas
