// SPDX-License-Identifier: Apache-2.0
#pragma once
// pl::shard_map: run a pl::kernel on every chip of a device mesh, each chip with its own
// HBM shards (`jax.shard_map(kernel, mesh=mesh, in_specs=P('x'), out_specs=P('x'))`, in its
// plain form: the caller passes the shards).
//
//   auto k = pl::kernel(pl::out_type<...>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>, ...)(body);
//   std::vector<pl::Array<float, 8, 128>> xs = ...;         // one shard per chip
//   std::vector<pl::Array<float, 8, 128>> ys = pl::shard_map<pl::device_mesh<"x", 4>>(k)(xs);
//
// Every input is a std::vector with one Array per chip; every output comes back the same
// way (several outputs: a std::vector of std::tuples). Each chip runs the kernel's body on
// its own TensorCores (the kernel's TensorCoreMesh) with its own VMEM, SMEM and semaphores;
// inside, pl::axis_index<"x">() is the chip's coordinate and the core axis works as in a
// one-chip kernel. Remote copies (tpu/remote_copy.hpp) address the same buffer on another
// chip. Every core of every chip passes a barrier after allocating its scratch, before its
// body runs (Pallas' device barrier at the start of a communicating kernel). Each core
// also has one BARRIER semaphore, pltpu::get_barrier_semaphore() (tpu/remote_copy.hpp).
//
// Under PALLAS_USE_MPI (detail/runtime/mpi_transport.hpp) the same program runs on every
// rank of `mpirun -np N`, N the mesh's chip count, and each rank runs one chip, the one
// whose index is its rank: the call takes the same vectors, reads only that chip's entry
// of each input, and fills only that chip's entry of each output (the others stay
// unwritten). pl::local_chips<Mesh>() says which entries are this process's, in both
// backends, so the code that checks results is the same.
//
// The per-chip function may be a pl::pallas_call instead of a pl::kernel: each chip's cores
// run its grid over the chip's shards (pallas_call_fn::run_on_core).
//
// The PartitionSpec form, `pl::shard_map<Mesh>(kernel, pl::shard_in_specs<pl::P<"x">>,
// pl::shard_out_specs<pl::P<"x">>)(x)`, takes global Arrays, gives each chip its block
// (tpu/partition_spec.hpp) and returns the global outputs; under PALLAS_USE_MPI each rank
// reads its block of the (whole) global inputs and fills only its block of each output.

#include <cstdint>
#include <exception>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <pallas/array.hpp>
#include <pallas/config.hpp>
#include <pallas/detail/runtime/chip_set.hpp>
#include <pallas/detail/runtime/device.hpp>
#include <pallas/detail/runtime/mpi_transport.hpp>  // PALLAS_USE_MPI only
#include <pallas/detail/runtime/random_order.hpp>
#include <pallas/error.hpp>
#include <pallas/kernel.hpp>
#include <pallas/tpu/device_mesh.hpp>
#include <pallas/tpu/partition_spec.hpp>
#include <pallas/tpu/semaphore.hpp>

namespace pallas {

namespace detail {
/// The chips [first, last) of the mesh this process runs: every chip, or under
/// PALLAS_USE_MPI the rank's (the mesh must have one chip per rank).
template <DeviceMesh ChipMesh>
std::pair<int, int> local_chip_range() {
#ifdef PALLAS_USE_MPI
  auto const& world = mpi_world::get();
  if (world.size != ChipMesh::num_chips)
    fail("pallas::shard_map: the mesh has ", ChipMesh::num_chips, " chips but MPI_COMM_WORLD has ", world.size,
         " ranks (this is rank ", world.rank, "); under PALLAS_USE_MPI every chip is one rank: run with mpirun -np ",
         ChipMesh::num_chips);
  return {world.rank, world.rank + 1};
#else
  return {0, ChipMesh::num_chips};
#endif
}
}  // namespace detail

/// The chips of `ChipMesh` whose results this process computes in pl::shard_map: every
/// chip in process; under PALLAS_USE_MPI, the one chip whose index is the MPI rank (a
/// pallas::error when the mesh's chip count is not the world size).
template <DeviceMesh ChipMesh>
std::vector<int> local_chips() {
  auto const [first, last] = detail::local_chip_range<ChipMesh>();
  std::vector<int> chips;
  for (int c = first; c < last; ++c) chips.push_back(c);
  return chips;
}

/// What `pl::shard_map<Mesh>(kernel)` returns: call it with one Array per chip for each
/// input (a std::vector each); it returns one output per chip.
template <DeviceMesh ChipMesh, class Kernel>
class shard_map_fn {
 public:
  /// The pl::kernel to run on every chip.
  explicit shard_map_fn(Kernel kernel) : kernel_(std::move(kernel)) {}

  template <AnyArray... Inputs>
  /// Runs the kernel on every chip of the mesh at once, chip c with `inputs[c]...`; the
  /// first error on any chip is rethrown here.
  auto operator()(std::vector<Inputs> const&... inputs) const {
    if constexpr (runs_own_grid)
      return run(boost::mp11::mp_list<>{}, inputs...);  // the pallas_call allocates its scratch
    else
      return run(typename Kernel::scratch_list{}, inputs...);
  }

 private:
  // A pl::pallas_call as the per-chip function: each chip's cores run its grid on the chip's
  // shards (a pallas_call inside jax.shard_map); a pl::kernel has a body instead.
  static constexpr bool runs_own_grid = !requires { typename Kernel::scratch_list; };

  template <class... Scratch, class... Inputs>
  auto run(boost::mp11::mp_list<Scratch...>, std::vector<Inputs> const&... inputs) const {
    using core_mesh = typename Kernel::mesh_type;
    constexpr int num_chips = ChipMesh::num_chips;
    constexpr int per_chip = core_mesh::num_cores;
    // The chips this process runs: all of them, or under PALLAS_USE_MPI the rank's one.
    auto const [first_chip, last_chip] = detail::local_chip_range<ChipMesh>();
    [[maybe_unused]] int operand = 0;
    [[maybe_unused]] auto check_shards = [&](auto const& v) {
      if (static_cast<int>(v.size()) != num_chips)
        detail::fail<shape_error>("pallas::shard_map: input ", operand, " has ", v.size(), " shards, the mesh has ",
                                  num_chips, " chips (one Array per chip)");
      ++operand;
    };
    (check_shards(inputs), ...);

    auto const& outs = kernel_.out_types();
    auto make_outputs = [&](bool local) {
      auto o = std::apply([](auto const&... s) { return std::tuple{s.make_uninitialized_array()...}; }, outs);
      if (local) std::apply([](auto&... a) { (detail::poison(a), ...); }, o);  // another process's: untouched
      return o;
    };
    std::vector<decltype(make_outputs(true))> outputs;
    outputs.reserve(num_chips);
    for (int c = 0; c < num_chips; ++c) outputs.push_back(make_outputs(c >= first_chip && c < last_chip));

    // What each chip's body receives, and every local chip's HBM buffers in one order.
    detail::chip_context chips;
    chips.num_chips = num_chips;
    chips.num_axes = ChipMesh::num_axes;
    for (int a = 0; a < ChipMesh::num_axes; ++a) {
      chips.axis_names[a] = ChipMesh::axis_names[static_cast<std::size_t>(a)];
      chips.axis_sizes[a] = ChipMesh::axis_sizes[static_cast<std::size_t>(a)];
    }
    using refs_t = decltype(std::tuple_cat(std::tuple{inputs[0].read_only_ref()...},
                                           std::apply([](auto&... o) { return std::tuple{o.ref()...}; }, outputs[0])));
    std::vector<refs_t> refs;
    refs.reserve(static_cast<std::size_t>(last_chip - first_chip));
    chips.buffers.resize(num_chips);
    for (auto c = static_cast<std::size_t>(first_chip); c < static_cast<std::size_t>(last_chip); ++c) {
      auto& bufs = chips.buffers[c];
      auto note = [&](auto const& a) {
        bufs.push_back({reinterpret_cast<std::byte*>(const_cast<std::remove_cvref_t<decltype(*a.data())>*>(a.data())),
                        static_cast<std::int64_t>(a.size() * static_cast<index_t>(sizeof(*a.data())))});
      };
      (note(inputs[c]), ...);
      std::apply([&](auto const&... o) { (note(o), ...); }, outputs[c]);
      refs.push_back(std::tuple_cat(std::tuple{inputs[c].read_only_ref()...},
                                    std::apply([](auto&... o) { return std::tuple{o.ref()...}; }, outputs[c])));
    }

    detail::launch_config config = detail::launch_config_of<core_mesh>();
    config.num_cores = (last_chip - first_chip) * per_chip;
    config.cores_per_chip = per_chip;
    config.first_core = first_chip * per_chip;
    config.chips = &chips;
    config.who = "pl::shard_map";
    config.name = kernel_.name();  // the trace's process names
    static constinit detail::executor_tuner tuner;  // this kernel's (executor_tuner.hpp)
    config.tuner = &tuner;
    auto const& body = [&]() -> auto const& {
      if constexpr (runs_own_grid) return kernel_;  // unused
      else return kernel_.body();
    }();
    auto run_cores = [&](auto&& join) {
      detail::device::instance().launch(config, [&](int index) {
        auto& core = *detail::current_core;
        auto const barrier = tpu::SemaphoreType::BARRIER<>::allocate(core);  // pltpu::get_barrier_semaphore()
        chips.barrier_offset.store(reinterpret_cast<std::byte const*>(barrier.data()) - core.semaphores.base(),
                                   std::memory_order_relaxed);
        std::tuple<typename Scratch::ref_type...> scratch{Scratch::allocate(core)...};
        detail::start_barrier(core);  // no chip's copy lands in a chip that has not allocated
        join(core);
        auto const& chip_refs = refs[static_cast<std::size_t>(index / per_chip)];
        if constexpr (runs_own_grid)
          kernel_.template run_on_core<std::tuple<Inputs...>>(index % per_chip, chip_refs);
        else
          std::apply(body, std::tuple_cat(chip_refs, scratch));
        chips.transport->body_done(core);
        detail::finish_core(core);
      });
    };
#ifdef PALLAS_USE_MPI
    // One chip per rank: a failure here would leave the other ranks waiting, so it ends the job.
    auto const& world = detail::mpi_world::get();
    config.schedule.yield_cores = false;  // the random order's core interleaving is one process's
    detail::mpi_transport transport(world, per_chip, chips.buffers[static_cast<std::size_t>(first_chip)]);
    chips.transport = &transport;
    try {
      run_cores([&](detail::core_state& core) { transport.join(core); });
      if (std::string const left = transport.close(); checked_mode && !left.empty())
        detail::fail<leak_error>("pallas::shard_map: semaphores signaled by other chips and never waited for: ", left);
    } catch (std::exception const& e) {
      world.abort(e.what());
    }
#else
    detail::in_process_transport transport;
    chips.transport = &transport;
    run_cores([](detail::core_state&) {});
    if (std::size_t const left = transport.leftovers(); checked_mode && left != 0)
      detail::fail<leak_error>("pallas::shard_map: ", left,
                               " remote copies were started and never waited on either chip (wait_send or wait_recv)");
#endif

    if constexpr (std::tuple_size_v<typename decltype(outputs)::value_type> == 1) {
      std::vector<std::remove_cvref_t<decltype(std::get<0>(outputs[0]))>> single;
      single.reserve(num_chips);
      for (auto& o : outputs) single.push_back(std::move(std::get<0>(o)));
      return single;
    } else {
      return outputs;
    }
  }

  Kernel kernel_;
};

/// `jax.shard_map(kernel, mesh=ChipMesh, ...)` over per-chip shards:
/// `pl::shard_map<pl::device_mesh<"x", 4>>(kernel)(shards...)`.
template <DeviceMesh ChipMesh, class Kernel>
auto shard_map(Kernel const& kernel) {
  return shard_map_fn<ChipMesh, Kernel>(kernel);
}

template <DeviceMesh ChipMesh, class Kernel, class InSpecs, class OutSpecs>
class shard_map_specs_fn;

/// What `pl::shard_map<Mesh>(kernel, pl::shard_in_specs<...>, pl::shard_out_specs<...>)`
/// returns: call it with one global Array per input; it returns the global outputs (one
/// Array, or a std::tuple of them).
template <DeviceMesh ChipMesh, class Kernel, class... InSpecs, class... OutSpecs>
class shard_map_specs_fn<ChipMesh, Kernel, shard_in_specs_t<InSpecs...>, shard_out_specs_t<OutSpecs...>> {
  using outs_type = std::remove_cvref_t<decltype(std::declval<Kernel const&>().out_types())>;
  static_assert(sizeof...(OutSpecs) == std::tuple_size_v<outs_type>,
                "pallas::shard_map: give one out spec (pl::P) per output of the kernel");

 public:
  /// The pl::kernel to run on every chip.
  explicit shard_map_specs_fn(Kernel const& kernel) : per_chip_(kernel) {}

  /// Splits each global input by its spec, runs the kernel on every chip with its shards,
  /// and assembles the global outputs from the chips' outputs.
  template <AnyArray... Globals>
    requires(Globals::shape_type::is_static && ...)
  auto operator()(Globals const&... globals) const {
    static_assert(sizeof...(Globals) == sizeof...(InSpecs), "pallas::shard_map: give one in spec (pl::P) per input");
    auto const chip_range = detail::local_chip_range<ChipMesh>();
    int const first = chip_range.first, last = chip_range.second;  // lambdas capture no bindings before clang 16
    auto shards_of = [&]<class Spec, class Global>(std::type_identity<Spec>, Global const& global) {
      using shard_array = detail::shard_array<ChipMesh, Spec, Global>;
      shard_array::check();
      using shard_type = typename shard_array::type;
      std::vector<shard_type> shards(static_cast<std::size_t>(ChipMesh::num_chips));
      for (int c = first; c < last; ++c) {
        auto& shard = shards[static_cast<std::size_t>(c)];
        detail::for_each_shard_element<ChipMesh, Spec>(global, shard, c,
                                                       [&](index_t k, index_t g) { shard.data()[k] = global.data()[g]; });
      }
      return shards;
    };
    auto const per_chip = per_chip_(shards_of(std::type_identity<InSpecs>{}, globals)...);

    constexpr std::size_t num_outs = sizeof...(OutSpecs);
    auto assemble = [&]<std::size_t O>(std::integral_constant<std::size_t, O>) {
      using spec = boost::mp11::mp_at_c<boost::mp11::mp_list<OutSpecs...>, O>;
      using shard_type = typename std::tuple_element_t<O, outs_type>::array_type;
      using global_type = typename detail::global_array<ChipMesh, spec, shard_type>::type;
      global_type global(uninitialized);
      detail::poison(global);  // under PALLAS_USE_MPI, the other ranks' blocks
      for (int c = first; c < last; ++c) {
        // In process one chip writes each block (coordinate 0 on the axes the spec leaves
        // out); under PALLAS_USE_MPI the rank's chip writes its own.
        if (last - first != ChipMesh::num_chips || detail::writes_global_block<ChipMesh, spec>(c)) {
          auto const& chip_outs = per_chip[static_cast<std::size_t>(c)];
          auto const& shard = [&]() -> shard_type const& {
            if constexpr (num_outs == 1) return chip_outs;
            else return std::get<O>(chip_outs);
          }();
          detail::for_each_shard_element<ChipMesh, spec>(global, shard, c,
                                                         [&](index_t k, index_t g) { global.data()[g] = shard.data()[k]; });
        }
      }
      return global;
    };
    return [&]<std::size_t... O>(std::index_sequence<O...>) {
      if constexpr (num_outs == 1) return assemble(std::integral_constant<std::size_t, 0>{});
      else return std::tuple{assemble(std::integral_constant<std::size_t, O>{})...};
    }(std::make_index_sequence<num_outs>{});
  }

 private:
  shard_map_fn<ChipMesh, Kernel> per_chip_;
};

/// `jax.shard_map(kernel, mesh=ChipMesh, in_specs=..., out_specs=...)` over global arrays:
/// `pl::shard_map<pl::device_mesh<"x", 4>>(kernel, pl::shard_in_specs<pl::P<"x">>,
/// pl::shard_out_specs<pl::P<"x">>)(x)` splits x's dim 0 in 4 and concatenates the chips'
/// outputs along dim 0 (tpu/partition_spec.hpp). Static shapes; a dimension that its axis
/// does not divide is a compile-time error.
template <DeviceMesh ChipMesh, class Kernel, class... InSpecs, class... OutSpecs>
auto shard_map(Kernel const& kernel, shard_in_specs_t<InSpecs...>, shard_out_specs_t<OutSpecs...>) {
  return shard_map_specs_fn<ChipMesh, Kernel, shard_in_specs_t<InSpecs...>, shard_out_specs_t<OutSpecs...>>(kernel);
}

}  // namespace pallas
