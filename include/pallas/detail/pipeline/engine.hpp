// SPDX-License-Identifier: Apache-2.0
#pragma once
// The pipeline engine that emit_pipeline and pallas_call share: from the types (grid,
// specs, refs, split policy, core count) the plan, computed by the compiler when it can
// (static grid and shapes, index maps it can evaluate, no scalar prefetch, bounded work:
// max_static_plan_work), otherwise at run time by the same builder; the whole-grid rules
// (rules.hpp: walked by the compiler, static_rules.hpp, or over the plan at run time); and
// the run: check, allocate the slots, execute.
//
// What the front ends (tpu/pipeline.hpp, pallas_call.hpp) use: pipeline_engine (with its
// caller and split_policy), check_operands, check_static_rules (static_rules.hpp),
// pipeline_buffer_bytes (vmem_budget.hpp), body_refs_of, plan_for,
// run_pipeline, plan_is_static_v and static_plan_of.

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include <boost/mp11/algorithm.hpp>

#include <pallas/config.hpp>
#include <pallas/detail/pipeline/executor.hpp>
#include <pallas/detail/pipeline/operand_io.hpp>
#include <pallas/detail/pipeline/operand.hpp>
#include <pallas/detail/pipeline/plan.hpp>
#include <pallas/detail/pipeline/plan_builder.hpp>
#include <pallas/detail/pipeline/rule_words.hpp>
#include <pallas/detail/pipeline/rules.hpp>
#include <pallas/detail/pipeline/shared_instances.hpp>
#include <pallas/detail/pipeline/spec_rules.hpp>
#include <pallas/detail/pipeline/split.hpp>
#include <pallas/detail/pipeline/static_rules.hpp>
#include <pallas/detail/runtime/core.hpp>
#include <pallas/detail/runtime/cost_counters.hpp>
#include <pallas/error.hpp>
#include <pallas/shape.hpp>

namespace pallas::detail {

/// How much of a plan the compiler computes, in steps x planned operands (the work of both
/// phases grows with it). Up to `trusted_static_plan_work` it is computed outright (a small
/// fraction of the compilers' default constexpr budgets, clang's 2^20 steps being the
/// tighter: about 200 of them per step and operand); up to `max_static_plan_work` only
/// after a probe shows that each phase fits the budget (a probe that does not fit is not an
/// error: the plan is then built at run time). Larger grids are planned when the pipeline
/// starts.
inline constexpr index_t trusted_static_plan_work = 1024;
inline constexpr index_t max_static_plan_work = 8192;
/// How much of a grid (steps x planned operands) the compiler walks for the whole-grid
/// rules (static_rules.hpp: in chunks, keeping only the output blocks written); beyond it
/// they are checked when the pipeline starts.
inline constexpr index_t max_static_rule_work = index_t{1} << 16;

template <class Map, std::size_t GridRank>
constexpr bool probe_index_map() {
  std::array<index_t, GridRank> zero{};
  std::apply([](auto... i) { (void)Map{}(i...); }, zero);
  return true;
}

/// An index map the compiler can evaluate over the whole grid (captureless, constexpr).
template <class Map, std::size_t GridRank>
concept ConstexprIndexMap =
    std::default_initializable<Map> && requires { typename std::bool_constant<probe_index_map<Map, GridRank>()>; };

/// The parallel flags of a grid: `parallel_axes<true, false>`.
template <std::size_t R>
using parallel_flags = std::array<bool, R>;

/// Everything the types say about one pipeline. Specs: its resolved block specs, inputs
/// then outputs; Refs: the operands' ref types; Extra: the scalar-prefetch refs index maps
/// also take (pallas_call), or std::tuple<>. StaticCores: the core count the compiler plans
/// for (0: none).
template <caller Who, class GridT, split_policy Policy, int StaticCores, parallel_flags<GridT::rank()> Parallel,
          std::size_t NumInputs, class Specs, class Refs, class Extra, bool GlobalNumPrograms = true>
struct pipeline_engine {
  static constexpr caller who = Who;
  /// pl::num_programs in the body: the whole grid's extents, or the core's box (emit_pipeline's
  /// default, as Pallas' legacy path).
  static constexpr bool global_num_programs = GlobalNumPrograms;
  static constexpr split_policy policy = Policy;
  static constexpr int static_cores = StaticCores;
  static constexpr parallel_flags<GridT::rank()> parallel = Parallel;
  static constexpr std::size_t grid_rank = GridT::rank();
  static constexpr std::size_t num_operands = std::tuple_size_v<Specs>;
  static constexpr std::size_t num_inputs = NumInputs;  ///< the operands before the outputs
  using extra_type = Extra;
  template <std::size_t K>
  using spec_t = std::tuple_element_t<K, Specs>;
  template <std::size_t K>
  using ref_t = std::remove_cvref_t<std::tuple_element_t<K, Refs>>;

  static constexpr std::array<bool, grid_rank> static_axes() {
    std::array<bool, grid_rank> s{};
    for (std::size_t a = 0; a < grid_rank; ++a) s[a] = GridT::extents_type::static_extent(a) != dyn;
    return s;
  }

  static constexpr plan_grid<grid_rank> static_grid() {
    return {GridT{}.all(), static_axes(), Parallel, Policy, StaticCores};
  }

  /// The steps of every core together (more than the grid's when cores share it whole).
  static constexpr index_t static_steps() {
    index_t n = 0;
    for (int c = 0; c < StaticCores; ++c)
      n += split_grid(Policy, GridT{}.all(), static_axes(), Parallel, StaticCores, c).steps();
    return n;
  }

  /// The work of the compiler's plan (see max_static_plan_work).
  static constexpr index_t static_work() {
    index_t planned = 0;
    [&]<std::size_t... K>(std::index_sequence<K...>) { ((planned += spec_t<K>::raw ? 0 : 1), ...); }(
        std::make_index_sequence<num_operands>{});
    return static_steps() * (planned > 0 ? planned : 1);
  }

  /// Whether the compiler may walk the grid for the rules: a static grid over static
  /// shapes, index maps it can evaluate, no scalar prefetch, a known core count, bounded
  /// work (max_static_rule_work).
  static constexpr bool rules_are_static = [] {
    if constexpr (!GridT::is_static || std::tuple_size_v<Extra> != 0 || StaticCores < 1) {
      return false;
    } else {
      return []<std::size_t... K>(std::index_sequence<K...>) {
        return ((ref_t<K>::shape_type::is_static &&
                 (spec_t<K>::raw || ConstexprIndexMap<typename spec_t<K>::index_map_type, grid_rank>)) &&
                ...) &&
               static_work() <= max_static_rule_work;
      }(std::make_index_sequence<num_operands>{});
    }
  }();

  /// Whether the compiler may compute the plan: as for the rules, with less work
  /// (max_static_plan_work; plan_is_static_v then decides).
  static constexpr bool plan_may_be_static = rules_are_static && static_work() <= max_static_plan_work;

  template <class Descs>
  static constexpr Descs describe(std::array<std::array<index_t, max_block_rank>, num_operands> const& arrays) {
    return [&]<std::size_t... K>(std::index_sequence<K...>) {
      return Descs{describe_operand<spec_t<K>, ref_t<K>>(K >= NumInputs,
                                                       static_cast<int>(K >= NumInputs ? K - NumInputs : K),
                                                       arrays[K])...};
    }(std::make_index_sequence<num_operands>{});
  }
  using descs_type = std::array<operand_desc, num_operands>;

  static constexpr descs_type static_descs() {
    std::array<std::array<index_t, max_block_rank>, num_operands> arrays{};
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      ((
           [&] {
             if constexpr (ref_t<K>::shape_type::is_static)
               for (std::size_t d = 0; d < ref_t<K>::rank(); ++d) arrays[K][d] = ref_t<K>::shape_type::static_extent(d);
           }()),
       ...);
    }(std::make_index_sequence<num_operands>{});
    return describe<descs_type>(arrays);
  }

  static constexpr std::size_t index_values_per_step() {
    return []<std::size_t... K>(std::index_sequence<K...>) {
      return (std::size_t{0} + ... + (spec_t<K>::raw ? 0 : spec_t<K>::values));
    }(std::make_index_sequence<num_operands>{});
  }

  /// Events per step of every operand's runs, at most (plan_capacity).
  static constexpr std::size_t events_per_step() {
    return []<std::size_t... K>(std::index_sequence<K...>) {
      return (std::size_t{0} + ... +
              (spec_t<K>::raw                          ? 0
               : ref_t<K>::space == spec_t<K>::space   ? 1
               : K >= NumInputs                        ? 5
                                                       : 3));
    }(std::make_index_sequence<num_operands>{});
  }

  static constexpr plan_capacity static_capacity() {
    return capacity_for(static_cast<std::size_t>(StaticCores), static_steps(), num_operands, events_per_step(),
                        index_values_per_step());
  }

  /// The compiler's plan is computed in three constant expressions, each within the
  /// compilers' evaluation budgets: the runs (phase 1), the events (phase 2), and the plan
  /// that views both. The parts are built in place (constexpr constructors), never copied:
  /// constant evaluation pays for a copy element by element.
  struct static_runs : static_plan<grid_rank, num_operands,
                                   plan_capacity{static_capacity().cores, 1, static_capacity().runs,
                                                 static_capacity().indices}> {
    constexpr static_runs() {
      build_runs(*this, static_grid(), static_descs(), [](auto k, auto const& point, index_t* out) {
        using spec = spec_t<decltype(k)::value>;
        if constexpr (!spec::raw) block_index_at<spec>(typename spec::index_map_type{}, point, std::tuple<>{}, out);
      });
    }
  };
  struct static_events {
    fixed_vector<plan_event, static_capacity().events> events{};
    std::array<std::array<std::int32_t, 2>, static_capacity().cores> ranges{};
    constexpr explicit static_events(static_runs const& runs) {
      for (std::size_t c = 0; c < static_capacity().cores; ++c) ranges[c] = build_events(runs, c, events);
    }
  };
  using static_view = static_plan_view<grid_rank, num_operands, static_capacity()>;
  static constexpr static_view view_of(static_runs const& runs, static_events const& events) {
    static_view v;
    v.operands = runs.operands;
    v.grid = runs.grid;
    v.policy = runs.policy;
    v.num_cores = runs.num_cores;
    v.fetch_at_step = runs.fetch_at_step;
    for (std::size_t c = 0; c < static_capacity().cores; ++c) {
      v.cores[c] = runs.cores[c];
      v.cores[c].events_begin = events.ranges[c][0];
      v.cores[c].events_end = events.ranges[c][1];
    }
    v.events = {events.events.data(), events.events.size()};
    v.runs = {runs.runs.data(), runs.runs.size()};
    v.indices = {runs.indices.data(), runs.indices.size()};
    return v;
  }

};

/// The rules on each of engine E's operands (spec_rules.hpp), inputs then outputs.
template <class E, bool CheckTiling>
constexpr bool check_operands() {
  return []<std::size_t... K>(std::index_sequence<K...>) {
    return ((check_role<E::who, (K >= E::num_inputs), typename E::template spec_t<K>>() &&
             check_operand<typename E::template spec_t<K>, typename E::template ref_t<K>, E::grid_rank, CheckTiling,
                           typename E::extra_type>()) &&
            ... && true);
  }(std::make_index_sequence<E::num_operands>{});
}

/// The refs engine E's body receives, one per operand: std::tuple<...>.
template <class E, class Seq = std::make_index_sequence<E::num_operands>>
struct body_refs_of;
template <class E, std::size_t... K>
struct body_refs_of<E, std::index_sequence<K...>> {
  using type = std::tuple<body_ref_t<typename E::template spec_t<K>, typename E::template ref_t<K>>...>;
};

/// Phase 1 of engine E's compiler plan (computed once, where first needed).
template <class E>
struct static_runs_of {
  static constexpr typename E::static_runs value{};
};

/// Whether each phase fits the constant-evaluation budget (a failed evaluation inside a
/// requires-expression is not an error).
template <class E>
concept static_runs_fit = requires { typename std::bool_constant<(typename E::static_runs{}, true)>; };
template <class E>
concept static_events_fit =
    requires { typename std::bool_constant<(typename E::static_events(static_runs_of<E>::value), true)>; };

/// Whether the compiler computes engine E's plan.
template <class E>
constexpr bool plan_is_static_v = [] {
  if constexpr (!E::plan_may_be_static)
    return false;
  else if constexpr (E::static_work() <= trusted_static_plan_work)
    return true;
  else if constexpr (!static_runs_fit<E>)
    return false;
  else
    return static_events_fit<E>;
}();

/// The plan the compiler computed for engine E, and the rules' findings over it.
template <class E, bool = plan_is_static_v<E>>
struct static_plan_of {};
template <class E>
struct static_plan_of<E, true> {
  static constexpr auto const& runs = static_runs_of<E>::value;
  static constexpr typename E::static_events events{runs};
  static constexpr typename E::static_view plan = E::view_of(runs, events);
};

/// Throws the first rule a plan breaks on core `core` (two cores one block: where the plan
/// has every core's part).
template <class Plan>
void check_plan(caller who, Plan const& plan, int core) {
  if (auto const v = check_grid_rules(plan, core); v.found()) report_grid_rule(caller_name(who), plan, v);
}

/// The plan of engine E built at run time, for every part (only_part < 0) or one.
template <class E, class Specs, class Extra>
dynamic_plan<E::grid_rank, E::num_operands> build_dynamic_plan(int num_cores, std::array<index_t, E::grid_rank> const& extents,
                                                               typename E::descs_type const& descs, Specs const& specs,
                                                               Extra const& extra, int only_part, bool fetch_at_step = false) {
  constexpr std::size_t R = E::grid_rank;
  dynamic_plan<R, E::num_operands> plan;
  plan_grid<R> const pg{extents, E::static_axes(), E::parallel, E::policy, num_cores, fetch_at_step};
  // Index maps may ask pl::program_id / pl::num_programs for the point they are called at.
  grid_frame frame;
  frame.rank = static_cast<int>(R);
  if constexpr (R > 0)
    for (std::size_t a = 0; a < R; ++a) frame.num_programs[a] = extents[a];
  struct frame_guard {
    grid_frame const* previous = index_map_frame;
    ~frame_guard() { index_map_frame = previous; }
  } restore;
  index_map_frame = &frame;
  struct context {
    Specs const& specs;
    Extra const& extra;
    grid_frame& frame;
  } const ctx{specs, extra, frame};
  auto const call = [](void const* c, std::size_t k, std::array<index_t, R> const& point, index_t* out) {
    auto const& x = *static_cast<context const*>(c);
    if constexpr (R > 0)
      for (std::size_t a = 0; a < R; ++a) x.frame.program_id[a] = point[a];
    boost::mp11::mp_with_index<E::num_operands>(k, [&](auto kk) {
      using spec = typename E::template spec_t<decltype(kk)::value>;
      if constexpr (!spec::raw) block_index_at<spec>(std::get<decltype(kk)::value>(x.specs).index_map, point, x.extra, out);
    });
  };
  build_plan_at_run_time(plan, pg, descs, erased_block_of<R>{call, &ctx}, only_part);
  return plan;
}

/// The operands' descriptions from their refs (a tuple).
template <class E, class Refs>
typename E::descs_type describe_refs(Refs const& refs) {
  std::array<std::array<index_t, max_block_rank>, E::num_operands> arrays{};
  [&]<std::size_t... K>(std::index_sequence<K...>) { ((arrays[K] = extents_of(std::get<K>(refs))), ...); }(
      std::make_index_sequence<E::num_operands>{});
  return E::template describe<typename E::descs_type>(arrays);
}

/// The whole plan of engine E over `refs` (a tuple) split among `num_cores` cores, built
/// now as at run time (what plan_of prints).
template <class E, class Specs, class Refs, class Extra>
auto plan_for(int num_cores, std::array<index_t, E::grid_rank> const& extents, Specs const& specs, Refs const& refs,
              Extra const& extra) {
  return build_dynamic_plan<E>(num_cores, extents, describe_refs<E>(refs), specs, extra, -1);
}

/// Runs part `part` of a pipeline split among `num_cores` cores, on `core`: `specs` and
/// `refs` are tuples, inputs then outputs; index maps also take `extra` (scalar-prefetch
/// refs).
template <class E, class GridT, class Specs, class Refs, class Extra, class Body>
void run_pipeline(core_state& core, int part, int num_cores, GridT const& grid, Specs const& specs, Refs const& refs,
                  Extra const& extra, Body&& body) {
  constexpr std::size_t N = E::num_operands;
  constexpr std::size_t R = E::grid_rank;
  constexpr caller who = E::who;
  core.launch->check_aborted();
  std::array<index_t, R> const extents = grid.all();
  for (std::size_t a = 0; a < R; ++a)
    if (extents[a] <= 0) fail("pallas::", caller_name(who), ": grid axis ", a, " has extent ", extents[a], ", must be > 0");
  if constexpr (E::policy == split_policy::box)
    if (!split_rule_holds(num_cores, E::parallel))
      fail("pallas::", caller_name(who), ": " PALLAS_RULE_NO_PARALLEL_AXIS " (", num_cores, " cores)");
  auto const descs = describe_refs<E>(refs);
  std::array<operand_io, N> operands = [&]<std::size_t... K>(std::index_sequence<K...>) {
    return std::array<operand_io, N>{
        make_operand_io<typename E::template spec_t<K>>(std::get<K>(refs), descs[K], who)...};
  }(std::make_index_sequence<N>{});
  for (operand_io& op : operands) op.count_traffic(&pipeline_tag<E>);

  // The body thunk: the one part of the run that knows the kernel's types.
  struct context {
    Refs const& refs;
    std::array<operand_io, N> const& operands;
    std::remove_reference_t<Body>& body;
  } const ctx{refs, operands, body};
  body_call const call{[](void const* c, std::span<bound_block const> bound) {
                         auto const& x = *static_cast<context const*>(c);
                         [&]<std::size_t... K>(std::index_sequence<K...>) {
                           x.body(body_ref_of<typename E::template spec_t<K>>(x.operands[K], std::get<K>(x.refs),
                                                                              bound[K].slot, bound[K].block)...);
                         }(std::make_index_sequence<N>{});
                       },
                       &ctx};

  bool const fetch_at_step = core.launch->conventions.fetch_at_step;
  if constexpr (plan_is_static_v<E>) {
    if (num_cores == E::static_cores && !fetch_at_step) {
      auto const plan = view_of_plan(static_plan_of<E>::plan);
      if constexpr (static_rule_violation<E, true>().found()) check_plan(who, plan, part);
      run_plan(core, part, plan, operands, E::global_num_programs, call);
      return;
    }
  }
  auto const built = build_dynamic_plan<E>(num_cores, extents, descs, specs, extra, checked_mode ? -1 : part, fetch_at_step);
  auto const plan = view_of_plan(built);
  check_plan(who, plan, part);
  run_plan(core, part, plan, operands, E::global_num_programs, call);
}

}  // namespace pallas::detail
