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
// The schedule is Pallas' (pipeline.py): each operand gets `Buffered(n)` VMEM slots (two by
// default); an input is fetched only when its block index changes, the next block is
// prefetched while the body runs; an output is written back when its block index is about
// to change, or at the last step, and its slots are never loaded from HBM. With a core
// axis, the grid is split among the cores (core_split.hpp); program_id stays global.

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <pallas/block_spec.hpp>
#include <pallas/config.hpp>
#include <pallas/detail/dma_task.hpp>
#include <pallas/dtype.hpp>
#include <pallas/error.hpp>
#include <pallas/fixed_string.hpp>
#include <pallas/grid.hpp>
#include <pallas/memory_space.hpp>
#include <pallas/ref.hpp>
#include <pallas/shape.hpp>
#include <pallas/tpu/chip.hpp>
#include <pallas/tpu/core_split.hpp>
#include <pallas/tpu/device.hpp>
#include <pallas/tpu/dimension_semantics.hpp>
#include <pallas/tpu/mesh.hpp>
#include <pallas/tpu/semaphore.hpp>
#include <pallas/trace.hpp>

#ifndef PALLAS_TPU_TILING_CHECK
#  define PALLAS_TPU_TILING_CHECK 1
#endif

namespace pallas::tpu {

/// `core_axis_name='core'`: split the grid among the cores of that mesh axis. Naming the
/// mesh too (`pltpu::core_axis_name<"core", Mesh>`) lets the core-dependent rules be checked
/// at compile time and the chip's VMEM budget be the mesh's.
template <fixed_string Name, class MeshT = void>
struct core_axis_name_t {
  static constexpr std::string_view name = Name.view();
  static constexpr int static_cores = 0;  // unknown until the launch
  static constexpr TpuInfo chip = get_tpu_info();
};
template <fixed_string Name, Mesh MeshT>
struct core_axis_name_t<Name, MeshT> {
  static_assert(Name.view() == MeshT::axis_name, "pallas::emit_pipeline: the core axis name must be the mesh's axis name");
  static constexpr std::string_view name = Name.view();
  static constexpr int static_cores = MeshT::num_cores;
  static constexpr TpuInfo chip = MeshT::info;
};
template <fixed_string Name, class MeshT = void>
inline constexpr core_axis_name_t<Name, MeshT> core_axis_name{};

/// `tiling`: the TPU block tiling rule (last two block dims divisible by 8 and 128, or equal
/// to the array's) is checked unless `pltpu::no_tiling_check` is passed or
/// PALLAS_TPU_TILING_CHECK is 0.
struct no_tiling_check_t {};
inline constexpr no_tiling_check_t no_tiling_check{};

namespace detail {

namespace mp = boost::mp11;
using pallas::detail::block_dim_kind;

template <class T>
struct is_core_axis : std::false_type {};
template <fixed_string N, class M>
struct is_core_axis<core_axis_name_t<N, M>> : std::true_type {};

template <std::size_t R>
struct no_semantics {
  static constexpr std::array<GridDimensionSemantics, R> values = [] {
    std::array<GridDimensionSemantics, R> v{};
    v.fill(ARBITRARY);
    return v;
  }();
  static constexpr bool any_parallel = false;
};

struct no_core_axis {
  static constexpr std::string_view name{};
  static constexpr int static_cores = 1;
  static constexpr TpuInfo chip = get_tpu_info();
};

template <class T>
struct is_in_specs : std::false_type {};
template <class... S>
struct is_in_specs<in_specs_t<S...>> : std::true_type {};
template <class T>
struct is_out_specs : std::false_type {};
template <class... S>
struct is_out_specs<out_specs_t<S...>> : std::true_type {};

template <class T>
using is_pipeline_option =
    std::bool_constant<Grid<T> || is_in_specs<T>::value || is_out_specs<T>::value || is_core_axis<T>::value ||
                       is_dimension_semantics<T>::value || std::is_same_v<T, no_tiling_check_t>>;

template <class Spec, std::size_t GridRank, class Extra = std::tuple<>>
constexpr bool check_index_map_arity() {
  using map = typename Spec::index_map_type;
  using args = mp::mp_append<mp::mp_list<map const&>, mp::mp_repeat_c<mp::mp_list<index_t>, GridRank>,
                             mp::mp_rename<Extra, mp::mp_list>>;
  constexpr bool callable = mp::mp_apply<std::is_invocable, args>::value;
  static_assert(callable,
                "pallas::BlockSpec: the index map must take one index per grid axis (then the scalar-prefetch "
                "refs)");
  if constexpr (callable) {
    using result = std::remove_cvref_t<mp::mp_apply<std::invoke_result_t, args>>;
    constexpr int returned = pallas::detail::index_count<result>::value;
    static_assert(returned != -1,
                  "pallas::BlockSpec: the index map must return integers: pl::idx(i, j), a std::array, a "
                  "tuple, or one integer");
    static_assert(returned == -1 || returned == static_cast<int>(Spec::rank),
                  "pallas::BlockSpec: the index map must return one block index per block dimension "
                  "(indices returned == block rank)");
    return returned == static_cast<int>(Spec::rank);
  }
  return false;
}

/// The TPU tiling rule for one operand: the last two block dims divisible by 8 and 128 or
/// equal to the array's (a squeezed dim counts as 1); 1-D blocks equal to the array, a
/// multiple of 1024, or a power of two >= 128 * (32 / bits).
template <class Spec, class ArrayShape, class T>
constexpr bool tiling_ok() {
  constexpr std::size_t r = Spec::rank;
  constexpr auto dims = Spec::dims;
  if constexpr (r == 1) {
    constexpr index_t bs = dims[0].size;
    constexpr index_t ext = ArrayShape::static_extent(0);
    constexpr index_t bits = static_cast<index_t>(sizeof(T) * 8);
    constexpr bool pow2 = (bs & (bs - 1)) == 0;
    return bs == ext || bs % 1024 == 0 || (pow2 && bs >= 128 * (32 / bits));
  } else {
    constexpr index_t last = dims[r - 1].size, second = dims[r - 2].size;
    constexpr index_t ext_last = ArrayShape::static_extent(r - 1);
    constexpr index_t ext_second = ArrayShape::static_extent(r - 2);
    return (last % 128 == 0 || last == ext_last) && (second % 8 == 0 || second == ext_second);
  }
}

/// Compile-time rules for one operand.
template <class Spec, class RefT, std::size_t GridRank, bool CheckTiling, class Extra = std::tuple<>>
constexpr bool check_operand() {
  static_assert(AnyRef<RefT>, "pallas::emit_pipeline: operands must be pl::Ref views (x_hbm, o_hbm, ...)");
  if constexpr (AnyRef<RefT>) {
    static_assert(Spec::raw || is_dma_only(RefT::space),
                  "pallas::emit_pipeline: operands must be HBM/ANY refs (the pipeline copies their blocks to VMEM)");
    if constexpr (Spec::raw) return true;
    static_assert(Spec::rank == RefT::rank(),
                  "pallas::BlockSpec: the block must have one dimension per array dimension (block rank == "
                  "array rank)");
    if constexpr (Spec::rank == RefT::rank()) {
      if constexpr (!check_index_map_arity<Spec, GridRank, Extra>()) {
        return false;
      } else if constexpr (CheckTiling && PALLAS_TPU_TILING_CHECK && RefT::shape_type::is_static) {
        constexpr bool ok = tiling_ok<Spec, typename RefT::shape_type, typename RefT::value_type>();
        static_assert(ok,
                      "pallas::BlockSpec: TPU tiling: the last two block dims must be divisible by 8 and 128 or "
                      "equal the array's (1-D: equal, a multiple of 1024, or a power of two >= 128 * 32 / bits); "
                      "pass pltpu::no_tiling_check to skip this rule");
        return ok;
      } else {
        return true;
      }
    }
  }
  return false;
}

// ---- Whole-grid rules, evaluated at compile time for static grids, static array shapes
// and index maps the compiler can evaluate (captureless, constexpr). Larger grids than
// max_static_check_steps, and everything else, are checked when the pipeline starts.

inline constexpr index_t max_static_check_steps = 1024;

template <class Map, std::size_t GridRank>
constexpr bool probe_index_map() {
  std::array<index_t, GridRank> zero{};
  std::apply([](auto... i) { (void)Map{}(i...); }, zero);
  return true;
}

/// An index map the compiler can evaluate over the whole grid.
template <class Map, std::size_t GridRank>
concept ConstexprIndexMap =
    std::default_initializable<Map> && requires { typename std::bool_constant<probe_index_map<Map, GridRank>()>; };

template <class Spec, std::size_t R>
constexpr std::array<index_t, Spec::rank> static_block_at(std::array<index_t, R> const& point) {
  return std::apply(
      [](auto... i) { return pallas::detail::to_block_indices<Spec::rank>(typename Spec::index_map_type{}(i...)); },
      point);
}

/// The first grid step (in grid order) whose block leaves the array, or -1.
template <class Spec, class ArrayShape, class GridT>
constexpr index_t first_step_out_of_range() {
  constexpr auto extents = GridT{}.all();
  index_t const n = GridT{}.size();
  for (index_t s = 0; s < n; ++s) {
    auto const b = static_block_at<Spec>(pallas::detail::unravel(s, extents));
    for (std::size_t d = 0; d < Spec::rank; ++d) {
      index_t const start = Spec::dims[d].kind == block_dim_kind::blocked ? b[d] * Spec::dims[d].size : b[d];
      if (start < 0 || start >= ArrayShape::static_extent(d)) return s;
    }
  }
  return -1;
}

/// Core `core`'s share of a static grid: emit_pipeline's box, or pallas_call's linear range.
template <class GridT, class Semantics, bool Linear>
constexpr core_box<GridT::rank()> static_box(int cores, int core) {
  constexpr auto extents = GridT{}.all();
  std::array<bool, GridT::rank()> is_static{};
  is_static.fill(true);
  std::array<GridDimensionSemantics, GridT::rank()> semantics{};
  for (std::size_t a = 0; a < GridT::rank(); ++a) semantics[a] = Semantics::values[a];
  if constexpr (Linear)
    return split_linear(extents, semantics, cores, core);
  else
    return split_grid(extents, is_static, semantics, cores, core);
}


template <std::size_t R>
constexpr index_t linear_step(std::array<index_t, R> const& p, std::array<index_t, R> const& extents) {
  index_t s = 0;
  for (std::size_t a = 0; a < R; ++a) s = s * extents[a] + p[a];
  return s;
}

/// The revisit and shared-block rules keep one entry per block position of an output (a
/// block index along a blocked dim, an element offset along an Element or squeezed one), so
/// that they take one pass over the grid; outputs with more positions are left to the
/// run-time checks.
inline constexpr index_t max_static_check_blocks = 4096;

/// How many block positions an output of spec Spec over an array of shape ArrayShape has
/// (a number > max_static_check_blocks when there are more).
template <class Spec, class ArrayShape>
constexpr index_t block_positions() {
  index_t n = 1;
  for (std::size_t d = 0; d < Spec::rank && n <= max_static_check_blocks; ++d) {
    index_t const ext = ArrayShape::static_extent(d), size = Spec::dims[d].size;
    n *= Spec::dims[d].kind == block_dim_kind::blocked ? (ext + size - 1) / size : ext;
  }
  return n;
}

/// The position of block b (inside the array) in [0, block_positions()).
template <class Spec, class ArrayShape>
constexpr index_t block_position(std::array<index_t, Spec::rank> const& b) {
  index_t id = 0;
  for (std::size_t d = 0; d < Spec::rank; ++d) {
    index_t const ext = ArrayShape::static_extent(d), size = Spec::dims[d].size;
    id = id * (Spec::dims[d].kind == block_dim_kind::blocked ? (ext + size - 1) / size : ext) + b[d];
  }
  return id;
}

/// The first grid step at which an output block is visited again after another block, on
/// any core, or -1.
template <class Spec, class ArrayShape, class GridT, class Semantics, int Cores, bool Linear>
constexpr index_t first_revisit_step() {
  constexpr auto extents = GridT{}.all();
  for (int c = 0; c < Cores; ++c) {
    auto const box = static_box<GridT, Semantics, Linear>(Cores, c);
    std::array<bool, max_static_check_blocks> visited{};  // by an earlier run of steps
    std::array<index_t, Spec::rank> previous{};
    for (index_t s = 0; s < box.steps(); ++s) {
      auto const b = static_block_at<Spec>(box_point(box, s));
      if (s > 0 && b == previous) continue;
      auto const at = static_cast<std::size_t>(block_position<Spec, ArrayShape>(b));
      if (visited[at]) return linear_step(box_point(box, s), extents);
      visited[at] = true;
      previous = b;
    }
  }
  return -1;
}

/// The first grid step whose output block another core also writes, or -1.
template <class Spec, class ArrayShape, class GridT, class Semantics, int Cores, bool Linear>
constexpr index_t first_shared_block_step() {
  constexpr auto extents = GridT{}.all();
  std::array<int, max_static_check_blocks> writer{};  // core + 1; 0: no core yet
  for (int c = 0; c < Cores; ++c) {
    auto const box = static_box<GridT, Semantics, Linear>(Cores, c);
    for (index_t s = 0; s < box.steps(); ++s) {
      auto const p = box_point(box, s);
      auto const at = static_cast<std::size_t>(block_position<Spec, ArrayShape>(static_block_at<Spec>(p)));
      if (writer[at] != 0 && writer[at] != c + 1) return linear_step(p, extents);
      writer[at] = c + 1;
    }
  }
  return -1;
}

/// The whole-grid rules for one operand, where the compiler can evaluate them.
template <class Spec, class RefT, class GridT, class Semantics, int Cores, bool IsOutput, bool HasExtra = false,
          bool Linear = false>
constexpr bool check_whole_grid() {
  if constexpr (Spec::raw || HasExtra) {
    return true;
  } else if constexpr (GridT::is_static && RefT::shape_type::is_static &&
                       ConstexprIndexMap<typename Spec::index_map_type, GridT::rank()>) {
    if constexpr (GridT{}.size() <= max_static_check_steps) {
      static_assert(first_step_out_of_range<Spec, typename RefT::shape_type, GridT>() == -1,
                    "pallas::emit_pipeline: an index map returns a block outside its array (the number is the "
                    "first such grid step, in grid order)");
      if constexpr (IsOutput && Spec::revisit == RevisitMode::IMMEDIATE && Cores >= 1 &&
                    first_step_out_of_range<Spec, typename RefT::shape_type, GridT>() == -1) {
        using sem = std::conditional_t<std::is_same_v<Semantics, void>, no_semantics<GridT::rank()>, Semantics>;
        // pallas_call's linear split needs no PARALLEL axis (then core 0 runs the grid).
        if constexpr ((Linear || Cores == 1 || sem::any_parallel) &&
                      block_positions<Spec, typename RefT::shape_type>() <= max_static_check_blocks) {
          static_assert(first_revisit_step<Spec, typename RefT::shape_type, GridT, sem, Cores, Linear>() == -1,
                        "pallas::emit_pipeline: an output block is revisited after another block (the number is "
                        "the first grid step that revisits); visit it on consecutive steps or use "
                        "pl::Buffered<1, pl::RevisitMode::ANY>");
          if constexpr (Cores > 1)
            static_assert(first_shared_block_step<Spec, typename RefT::shape_type, GridT, sem, Cores, Linear>() == -1,
                          "pallas::emit_pipeline: two cores write the same output block (the number is the first "
                          "grid step whose block another core also writes)");
        }
      }
    }
  }
  return true;
}

/// A grid point, for error messages.
template <std::size_t R>
std::string point_string(std::array<index_t, R> const& p) {
  std::string s = "(";
  for (std::size_t a = 0; a < R; ++a) s += (a ? ", " : "") + std::to_string(p[a]);
  return s + (R == 1 ? ",)" : ")");
}

/// Names the grid point in errors raised inside the body.
template <std::size_t R>
class grid_point_context final : public pallas::detail::error_context {
 public:
  explicit grid_point_context(std::array<index_t, R> const& point) : point_(point) {}
  void describe(std::ostream& out) const override { out << "grid point " << point_string(point_); }

 private:
  std::array<index_t, R> const& point_;
};

enum class operand_role { input, output };

/// The ref a body receives for an operand of spec Spec: a VMEM block, or (ANY/HBM specs)
/// the operand's own ref.
template <class Spec, class RefT>
using body_ref_t = std::conditional_t<Spec::raw, RefT, Ref<typename RefT::value_type, typename Spec::block_shape, memory_space::vmem>>;

/// One operand's run-time state on one core: its HBM ref, slots and block table. Extra is
/// the tuple of scalar-prefetch refs its index map also takes.
template <class Spec, class RefT, operand_role Role, std::size_t GridRank, class Extra = std::tuple<>>
struct pipelined_operand {
  using T = typename RefT::value_type;
  static constexpr std::size_t rank = Spec::rank;
  static constexpr bool raw = Spec::raw;
  static constexpr operand_role role = Role;
  using spec_type = Spec;
  using block_ref = body_ref_t<Spec, RefT>;

  pipelined_operand(Spec const& s, RefT const& r, std::string_view who_, std::string_view role_, int pos,
                    Extra const& e = {})
      : spec(s), ref(r), extra(e), who(who_), role_name(role_), position(pos) {}

  Spec spec;
  RefT ref;
  Extra extra;
  std::string_view who;        // "emit_pipeline" / "pallas_call"
  std::string_view role_name;  // "in_specs" / "out_specs"
  int position;                // index within its specs
  int buffer_count = 2;
  T* slots = nullptr;
  std::unique_ptr<std::atomic<std::int32_t>[]> sems;
  std::vector<std::array<index_t, rank>> blocks;  // block index per local step
  index_t cin = 0, win = 0, cout = 0, wout = 0;
  std::vector<std::int64_t> started_ns;  // tracing: when each slot's copy started

  std::string name() const { return std::string(role_name) + "[" + std::to_string(position) + "]"; }

  T* slot(index_t k) const { return slots + (k % buffer_count) * Spec::block_elements; }

  std::array<index_t, rank> block_at(std::array<index_t, GridRank> const& point) const {
    return std::apply(
        [&](auto... a) { return pallas::detail::to_block_indices<rank>(spec.index_map(a...)); },
        std::tuple_cat(point, extra));
  }

  /// The element where block `b` starts, per dimension.
  static std::array<index_t, rank> block_start(std::array<index_t, rank> const& b) {
    std::array<index_t, rank> start{};
    for (std::size_t d = 0; d < rank; ++d)
      start[d] = Spec::dims[d].kind == block_dim_kind::blocked ? b[d] * Spec::dims[d].size : b[d];
    return start;
  }

  /// Every block must start inside the array and overlap it.
  void check_block(std::array<index_t, rank> const& b, std::array<index_t, GridRank> const& point) const {
    auto const start = block_start(b);
    for (std::size_t d = 0; d < rank; ++d) {
      index_t const extent = ref.extent(d);
      bool const ok = Spec::dims[d].kind == block_dim_kind::squeezed ? (start[d] >= 0 && start[d] < extent)
                                                                      : (start[d] >= 0 && start[d] < extent);
      if (!ok)
        pallas::detail::fail<index_error>(
            "pallas::", who, ": ", name(), " maps grid point ", point_string(point), " to block index ",
            point_string(b), ", whose dimension ", d, " starts at element ", start[d],
            ", outside the array's extent ", extent);
    }
  }

  /// A DMA task moving block `b` between HBM and slot `slot_ptr` (cut at the array's end).
  pallas::detail::dma_task block_task(std::array<index_t, rank> const& b, T* slot_ptr, bool to_hbm,
                                      bool& clipped) const {
    pallas::detail::dma_task t;
    auto const start = block_start(b);
    T* hbm = ref.data();
    index_t slot_stride = 1;
    std::array<index_t, rank> slot_strides{};
    for (std::size_t d = rank; d-- > 0;) {
      slot_strides[d] = slot_stride;
      slot_stride *= Spec::dims[d].size;
    }
    clipped = false;
    t.rank = static_cast<int>(rank);
    t.element_bytes = sizeof(T);
    index_t elements = 1;
    for (std::size_t d = 0; d < rank; ++d) {
      index_t const len = std::min(Spec::dims[d].size, ref.extent(d) - start[d]);
      clipped |= len != Spec::dims[d].size;
      hbm += start[d] * ref.stride(d);
      t.extents[d] = len;
      elements *= len;
      if (to_hbm) {
        t.src_strides[d] = slot_strides[d];
        t.dst_strides[d] = ref.stride(d);
      } else {
        t.src_strides[d] = ref.stride(d);
        t.dst_strides[d] = slot_strides[d];
      }
    }
    t.src = reinterpret_cast<std::byte const*>(to_hbm ? static_cast<T const*>(slot_ptr) : hbm);
    t.dst = reinterpret_cast<std::byte*>(to_hbm ? hbm : slot_ptr);
    t.bytes = static_cast<std::int32_t>(elements * static_cast<index_t>(sizeof(T)));
    return t;
  }

  /// Starts the DMA of block `b` into / out of slot counter `k`.
  void start_copy(pallas::detail::core_state& core, std::array<index_t, rank> const& b, index_t k, bool to_hbm) {
    bool clipped = false;
    auto task = block_task(b, slot(k), to_hbm, clipped);
    if constexpr (checked_mode) {
      // Out-of-bounds elements of a ragged input block are unspecified: poison them.
      if (!to_hbm && clipped) std::fill_n(slot(k), Spec::block_elements, dtype_traits<T>::poison());
    }
    task.semaphore = &sems[static_cast<std::size_t>(k % buffer_count)];
    task.id = core.dma_queue.empty() ? 1 : core.dma_queue.back().id + 1;
    if (to_hbm)
      task.streaming = true;
    else
      task.prefetch_source();
    core.dma_queue.push_back(task);
    if (trace::enabled()) {
      started_ns.resize(static_cast<std::size_t>(buffer_count));
      started_ns[static_cast<std::size_t>(k % buffer_count)] = trace::detail::now_ns();
    }
  }

  /// Waits for the DMA of slot counter `k` (block b).
  void wait_copy(pallas::detail::core_state& core, std::array<index_t, rank> const& b, index_t k, bool to_hbm) {
    bool clipped = false;
    auto const bytes = block_task(b, slot(k), to_hbm, clipped).bytes;
    pallas::detail::wait_on_semaphore(core, sems[static_cast<std::size_t>(k % buffer_count)], bytes,
                                      who == "pallas_call" ? "pallas_call" : "emit_pipeline");
    if (trace::enabled() && !started_ns.empty()) {
      // The DMA track shows each copy in flight, from its start to the end of its wait.
      trace::event e;
      e.name = name() + (to_hbm ? " write-back of block " : " fetch of block ") + point_string(b);
      e.core = core.index;
      e.dma = true;
      e.lane = position + (Role == operand_role::output ? 1000 : 0);
      e.lane_name = name();
      e.begin_ns = started_ns[static_cast<std::size_t>(k % buffer_count)];
      e.end_ns = trace::detail::now_ns();
      trace::detail::recorder::instance().record(std::move(e));
    }
  }

  block_ref body_ref(index_t k) const {
    if constexpr (raw)
      return ref;
    else
      return block_ref(slot(k), typename Spec::block_shape{});
  }
};

/// The VMEM an operand's buffers take (the default count is 2).
template <class Spec, class RefT>
constexpr std::int64_t vmem_bytes_of() {
  if constexpr (Spec::raw)
    return 0;
  else
    return std::int64_t{Spec::buffer_count > 0 ? Spec::buffer_count : 2} * Spec::block_elements *
           static_cast<std::int64_t>(sizeof(typename RefT::value_type));
}

template <class Op>
int default_buffer_count(Op const& op) {
  using Spec = decltype(op.spec);
  if constexpr (Spec::buffer_count > 0) {
    return Spec::buffer_count;
  } else {
    // Trivial windowing: the whole array, the same block everywhere -> one buffer.
    bool whole = true;
    for (std::size_t d = 0; d < Spec::rank; ++d) whole &= Spec::dims[d].size == op.ref.extent(d);
    bool constant = true;
    for (auto const& b : op.blocks) constant &= b == op.blocks.front();
    return whole && constant ? 1 : 2;
  }
}

}  // namespace detail

namespace detail {

/// An output block may be visited again only on consecutive steps (unless RevisitMode::ANY).
template <class Op, class PointFn>
void check_revisits(Op const& op, PointFn const& global_point) {
  using S = decltype(op.spec);
  if constexpr (!Op::raw && S::revisit == RevisitMode::IMMEDIATE) {
    std::vector<std::pair<std::array<index_t, S::rank>, index_t>> runs;  // block, first step
    for (std::size_t s = 0; s < op.blocks.size(); ++s)
      if (s == 0 || op.blocks[s] != op.blocks[s - 1]) runs.emplace_back(op.blocks[s], static_cast<index_t>(s));
    std::sort(runs.begin(), runs.end());
    for (std::size_t k = 1; k < runs.size(); ++k)
      if (runs[k].first == runs[k - 1].first)
        pallas::detail::fail("pallas::", op.who, ": ", op.name(), " revisits block ", point_string(runs[k].first),
                             " at grid point ", point_string(global_point(std::max(runs[k].second, runs[k - 1].second))),
                             " after writing other blocks; an output block must be visited on consecutive "
                             "steps (or use pl::Buffered<1, pl::RevisitMode::ANY>)");
  }
}

/// Two cores must not write the same output block. `points_of(c, f)` calls f(point) for
/// every grid point of core c, in its order.
template <class Op, class PointsOf>
void check_cross_core(Op const& op, int num_cores, PointsOf const& points_of) {
  if constexpr (checked_mode && !Op::raw) {
    using S = decltype(op.spec);
    std::vector<std::pair<std::array<index_t, S::rank>, int>> owners;  // block, core
    for (int c = 0; c < num_cores; ++c)
      points_of(c, [&](auto const& p) {
        auto const b = op.block_at(p);
        if (owners.empty() || owners.back().first != b || owners.back().second != c) owners.emplace_back(b, c);
      });
    std::sort(owners.begin(), owners.end());
    for (std::size_t k = 1; k < owners.size(); ++k)
      if (owners[k].first == owners[k - 1].first && owners[k].second != owners[k - 1].second)
        pallas::detail::fail("pallas::", op.who, ": ", op.name(), " block ", point_string(owners[k].first),
                             " is written by core ", owners[k - 1].second, " and core ", owners[k].second,
                             "; cores must write disjoint output blocks");
  }
}

/// Runs one core's share of a pipeline: `steps` grid steps, step s at `global_point(s)`,
/// with Pallas' schedule (pipeline.py): fetch an input when its block index changes,
/// prefetch buffer_count - 1 blocks ahead, write an output back when its block index is about
/// to change or at the last step. `call_body(block refs...)` runs the body of one step.
/// Every check runs before any byte moves.
template <std::size_t GridRank, class Ins, class Outs, class PointFn, class CallBody>
void run_schedule(pallas::detail::core_state& core, std::array<index_t, GridRank> const& extents, index_t steps,
                  PointFn const& global_point, Ins& ins, Outs& outs, CallBody&& call_body) {
  [&]<std::size_t... I, std::size_t... O>(std::index_sequence<I...>, std::index_sequence<O...>) {
    if (steps == 0) return;
    [[maybe_unused]] auto fill_blocks = [&](auto& op) {
      if constexpr (!std::remove_cvref_t<decltype(op)>::raw) {
        op.blocks.resize(static_cast<std::size_t>(steps));
        for (index_t s = 0; s < steps; ++s) {
          auto const p = global_point(s);
          op.blocks[static_cast<std::size_t>(s)] = op.block_at(p);
          op.check_block(op.blocks[static_cast<std::size_t>(s)], p);
        }
        op.buffer_count = default_buffer_count(op);
      }
    };
    (fill_blocks(std::get<I>(ins)), ...);
    (fill_blocks(std::get<O>(outs)), ...);
    (check_revisits(std::get<O>(outs), global_point), ...);

    // Slots and semaphores, released when the pipeline ends.
    struct release_guard {
      pallas::detail::arena& a;
      std::int64_t m;
      ~release_guard() { a.release(m); }
    } guard{core.vmem, core.vmem.mark()};
    [[maybe_unused]] auto allocate = [&](auto& op) {
      using Op = std::remove_cvref_t<decltype(op)>;
      if constexpr (!Op::raw) {
        using T = typename Op::T;
        auto const bytes = static_cast<std::int64_t>(op.buffer_count) * Op::spec_type::block_elements *
                           static_cast<std::int64_t>(sizeof(T));
        op.slots = reinterpret_cast<T*>(core.vmem.allocate(bytes, "pipeline buffers of " + op.name()));
        if constexpr (checked_mode)
          std::fill_n(op.slots, op.buffer_count * Op::spec_type::block_elements, dtype_traits<T>::poison());
        op.sems = std::make_unique<std::atomic<std::int32_t>[]>(static_cast<std::size_t>(op.buffer_count));
      }
    };
    (allocate(std::get<I>(ins)), ...);
    (allocate(std::get<O>(outs)), ...);

    [[maybe_unused]] auto blk = [](auto const& op, index_t s) -> auto const& {
      return op.blocks[static_cast<std::size_t>(s)];
    };
    int max_bc = 2;
    [[maybe_unused]] auto widen = [&](auto const& op) {
      if constexpr (!std::remove_cvref_t<decltype(op)>::raw) max_bc = std::max(max_bc, op.buffer_count);
    };
    (widen(std::get<I>(ins)), ...);

    // Prologue: the first fetches of every input, buffer_count - 1 blocks deep.
    for (int k = 0; k + 1 < max_bc && k < steps; ++k) {
      [[maybe_unused]] auto prefetch = [&](auto& op) {
        if constexpr (!std::remove_cvref_t<decltype(op)>::raw) {
          if (k + 1 >= op.buffer_count) return;
          if (k == 0 || blk(op, k) != blk(op, k - 1)) {
            op.start_copy(core, blk(op, k), op.cin, false);
            ++op.cin;
          }
        }
      };
      (prefetch(std::get<I>(ins)), ...);
    }

    pallas::detail::grid_frame frame;
    frame.rank = static_cast<int>(GridRank);
    for (std::size_t a = 0; a + 1 <= GridRank; ++a) frame.num_programs[a] = extents[a];
    frame.outer = core.grid;
    struct frame_guard {
      pallas::detail::core_state& c;
      pallas::detail::grid_frame const* outer;
      ~frame_guard() { c.grid = outer; }
    } restore{core, core.grid};
    std::array<index_t, GridRank> point{};
    grid_point_context<GridRank> where(point);
    pallas::detail::scoped_error_context push(where);

    for (index_t s = 0; s < steps; ++s) {
      point = global_point(s);
      for (std::size_t a = 0; a + 1 <= GridRank; ++a) frame.program_id[a] = point[a];
      core.grid = &frame;

      [[maybe_unused]] auto copy_in = [&](auto& op) {
        if constexpr (!std::remove_cvref_t<decltype(op)>::raw) {
          index_t const bc = op.buffer_count;
          index_t const ahead = s + bc - 1;
          bool fetch = false;
          if (bc == 1)
            fetch = s == 0 || blk(op, s) != blk(op, s - 1);
          else
            fetch = ahead < steps && blk(op, ahead - 1) != blk(op, ahead);
          if (fetch) {
            op.start_copy(core, blk(op, ahead), op.cin, false);
            ++op.cin;
          }
          if (s == 0 || blk(op, s) != blk(op, s - 1)) op.wait_copy(core, blk(op, s), op.win, false);
        }
      };
      (copy_in(std::get<I>(ins)), ...);
      // Outputs revisited with RevisitMode::ANY get their block back from HBM.
      [[maybe_unused]] auto restore_out = [&](auto& op) {
        using Op = std::remove_cvref_t<decltype(op)>;
        if constexpr (!Op::raw && Op::spec_type::revisit == RevisitMode::ANY) {
          if (s == 0 || blk(op, s) != blk(op, s - 1)) {
            bool clipped = false;
            op.block_task(blk(op, s), op.slot(op.cout), false, clipped).move_bytes();
          }
        }
      };
      (restore_out(std::get<O>(outs)), ...);

      {
        trace::detail::span step_span(core.index, false, [&] { return "step " + point_string(point); });
        call_body(std::get<I>(ins).body_ref(std::get<I>(ins).win)..., std::get<O>(outs).body_ref(std::get<O>(outs).cout)...);
      }
      core.launch->check_aborted();

      [[maybe_unused]] auto copy_out = [&](auto& op) {
        if constexpr (!std::remove_cvref_t<decltype(op)>::raw) {
          bool const last_visit = s == steps - 1 || blk(op, s) != blk(op, s + 1);
          if (last_visit) {
            op.start_copy(core, blk(op, s), op.cout, true);
            if (op.buffer_count == 1) {  // single buffer: the copy completes before the slot is reused
              op.wait_copy(core, blk(op, s), op.cout, true);
              ++op.wout;
            }
            ++op.cout;
          }
          if (op.buffer_count > 1 && s > 0 && blk(op, s) != blk(op, s - 1)) {
            op.wait_copy(core, blk(op, s - 1), op.wout, true);
            ++op.wout;
          }
        }
      };
      (copy_out(std::get<O>(outs)), ...);
      [[maybe_unused]] auto advance = [&](auto& op) {
        if constexpr (!std::remove_cvref_t<decltype(op)>::raw)
          if (s == steps - 1 || blk(op, s) != blk(op, s + 1)) ++op.win;
      };
      (advance(std::get<I>(ins)), ...);
    }
    // Epilogue: the last write-backs.
    [[maybe_unused]] auto drain = [&](auto& op) {
      if constexpr (!std::remove_cvref_t<decltype(op)>::raw)
        while (op.wout < op.cout) {
          op.wait_copy(core, blk(op, steps - 1), op.wout, true);
          ++op.wout;
        }
    };
    (drain(std::get<O>(outs)), ...);
  }(std::make_index_sequence<std::tuple_size_v<Ins>>{}, std::make_index_sequence<std::tuple_size_v<Outs>>{});
}

}  // namespace detail

/// What `emit_pipeline(...)` returns: call it with the operands' refs, inputs then outputs.
template <class Body, class GridT, class InSpecs, class OutSpecs, class CoreAxis, class Semantics, bool CheckTiling>
class pipeline {
 public:
  static constexpr std::size_t grid_rank = GridT::rank();
  static constexpr std::size_t num_inputs = std::tuple_size_v<InSpecs>;
  static constexpr std::size_t num_outputs = std::tuple_size_v<OutSpecs>;

  pipeline(Body body, GridT grid, InSpecs in, OutSpecs out)
      : body_(std::move(body)), grid_(grid), in_(std::move(in)), out_(std::move(out)) {}

  template <AnyRef... Refs>
  void operator()(Refs const&... refs) const {
    static_assert(sizeof...(Refs) == num_inputs + num_outputs,
                  "pallas::emit_pipeline: pass one ref per in_spec and out_spec (refs == in_specs + "
                  "out_specs)");
    if constexpr (sizeof...(Refs) == num_inputs + num_outputs) {
      using refs_list = std::tuple<Refs...>;
      constexpr bool operands_ok = check_all<refs_list>(std::make_index_sequence<sizeof...(Refs)>{});
      if constexpr (operands_ok) {
        constexpr bool callable = body_callable<refs_list>(std::make_index_sequence<sizeof...(Refs)>{});
        static_assert(callable,
                      "pallas::emit_pipeline: the body must take one block ref per in_spec and out_spec, "
                      "in that order");
        if constexpr (callable)
          run_impl(std::tuple<Refs const&...>(refs...), std::make_index_sequence<num_inputs>{},
                   std::make_index_sequence<num_outputs>{});
      }
    }
  }

 private:
  template <class RefsTuple, std::size_t K>
  static constexpr auto spec_type_of() {
    using ref_t = std::tuple_element_t<K, RefsTuple>;
    if constexpr (K < num_inputs)
      return std::type_identity<resolved_spec_t<std::tuple_element_t<K, InSpecs>, typename ref_t::shape_type>>{};
    else
      return std::type_identity<resolved_spec_t<std::tuple_element_t<K - num_inputs, OutSpecs>, typename ref_t::shape_type>>{};
  }
  template <class RefsTuple, std::size_t K>
  using spec_t = typename decltype(spec_type_of<RefsTuple, K>())::type;

  template <class RefsTuple, std::size_t... K>
  static constexpr bool check_all(std::index_sequence<K...>) {
    constexpr bool each = (detail::check_operand<spec_t<RefsTuple, K>, std::tuple_element_t<K, RefsTuple>,
                                                 grid_rank, CheckTiling>() && ...);
    if constexpr (each) {
      (detail::check_whole_grid<spec_t<RefsTuple, K>, std::tuple_element_t<K, RefsTuple>, GridT, Semantics,
                                CoreAxis::static_cores, (K >= num_inputs)>(),
       ...);
      constexpr std::int64_t vmem_bytes = (std::int64_t{0} + ... + detail::vmem_bytes_of<spec_t<RefsTuple, K>, std::tuple_element_t<K, RefsTuple>>());
      static_assert(vmem_bytes <= CoreAxis::chip.vmem_capacity_bytes,
                    "pallas::emit_pipeline: the pipeline's VMEM buffers (buffers x block bytes, summed) "
                    "exceed the chip's VMEM (bytes asked <= bytes available per core)");
      return vmem_bytes <= CoreAxis::chip.vmem_capacity_bytes;
    }
    return false;
  }

  template <class RefsTuple, std::size_t... K>
  static constexpr bool body_callable(std::index_sequence<K...>) {
    return std::is_invocable_v<Body const&, detail::body_ref_t<spec_t<RefsTuple, K>, std::tuple_element_t<K, RefsTuple>>...>;
  }

  template <class RefsTuple, std::size_t... I, std::size_t... O>
  void run_impl(RefsTuple const& refs, std::index_sequence<I...>, std::index_sequence<O...>) const {
    using namespace detail;
    auto& core = pallas::detail::this_core("emit_pipeline");
    core.launch->check_aborted();

    // This core's box of the grid.
    int num_cores = 1, core_index = 0;
    if constexpr (!std::is_same_v<CoreAxis, no_core_axis>) {
      if (core.launch->axis_name != CoreAxis::name)
        pallas::detail::fail("pallas::emit_pipeline: the mesh has no axis named '", CoreAxis::name,
                             "' (its axis is '", core.launch->axis_name, "')");
      num_cores = core.launch->num_cores;
      core_index = core.index;
    }
    std::array<index_t, grid_rank> const extents = grid_.all();
    for (std::size_t a = 0; a < grid_rank; ++a)
      if (extents[a] <= 0)
        pallas::detail::fail("pallas::emit_pipeline: grid axis ", a, " has extent ", extents[a], ", must be > 0");
    std::array<bool, grid_rank> is_static{};
    for (std::size_t a = 0; a < grid_rank; ++a) is_static[a] = GridT::extents_type::static_extent(a) != dyn;
    std::array<GridDimensionSemantics, grid_rank> semantics{};
    semantics.fill(ARBITRARY);
    if constexpr (!std::is_same_v<Semantics, void>)
      for (std::size_t a = 0; a < grid_rank; ++a) semantics[a] = Semantics::values[a];
    auto const box = split_grid(extents, is_static, semantics, num_cores, core_index);
    auto global_point = [&](index_t s) { return box_point(box, s); };

    [[maybe_unused]] auto ins = std::tuple{make_operand<I, operand_role::input>(
        std::get<I>(refs), pallas::detail::resolve_spec<std::tuple_element_t<I, InSpecs>, typename std::remove_cvref_t<std::tuple_element_t<I, RefsTuple>>::shape_type>::apply(std::get<I>(in_)))...};
    [[maybe_unused]] auto outs = std::tuple{make_operand<O, operand_role::output>(
        std::get<num_inputs + O>(refs),
        pallas::detail::resolve_spec<std::tuple_element_t<O, OutSpecs>, typename std::remove_cvref_t<std::tuple_element_t<num_inputs + O, RefsTuple>>::shape_type>::apply(std::get<O>(out_)))...};
    if (num_cores > 1) {
      auto points_of = [&](int c, auto&& f) {
        auto const b = split_grid(extents, is_static, semantics, num_cores, c);
        for (index_t s = 0; s < b.steps(); ++s) f(box_point(b, s));
      };
      (check_cross_core(std::get<O>(outs), num_cores, points_of), ...);
    }
    run_schedule<grid_rank>(core, extents, box.steps(), global_point, ins, outs,
                            [&](auto const&... block_refs) { body_(block_refs...); });
  }

  template <std::size_t K, detail::operand_role Role, class RefT, class Spec>
  static auto make_operand(RefT const& ref, Spec const& spec) {
    return detail::pipelined_operand<Spec, RefT, Role, grid_rank>(
        spec, ref, "emit_pipeline", Role == detail::operand_role::input ? "in_specs" : "out_specs", static_cast<int>(K));
  }

  Body body_;
  GridT grid_;
  InSpecs in_;
  OutSpecs out_;
};

namespace detail {

template <class T>
struct specs_tuple {
  using type = std::tuple<>;
};
template <class... S>
struct specs_tuple<in_specs_t<S...>> {
  using type = std::tuple<S...>;
};
template <class... S>
struct specs_tuple<out_specs_t<S...>> {
  using type = std::tuple<S...>;
};

/// The first option satisfying Pred, or Fallback{} when there is none.
template <template <class> class Pred, class Fallback, class... Options>
constexpr auto pick(Options const&... options) {
  constexpr std::size_t at = boost::mp11::mp_find_if<boost::mp11::mp_list<Options...>, Pred>::value;
  if constexpr (at < sizeof...(Options))
    return std::get<at>(std::tie(options...));
  else
    return Fallback{};
}

}  // namespace detail

/// `pltpu.emit_pipeline(body, grid=..., in_specs=..., out_specs=..., core_axis_name=...,
/// dimension_semantics=...)`; the options may come in any order.
template <class Body, class... Options>
constexpr auto emit_pipeline(Body body, Options const&... options) {
  namespace mp = boost::mp11;
  using list = mp::mp_list<Options...>;
  static_assert(mp::mp_all_of<list, detail::is_pipeline_option>::value,
                "pallas::emit_pipeline: options are pl::grid<...>, pl::in_specs(...), pl::out_specs(...), "
                "pltpu::core_axis_name<...>, pltpu::dimension_semantics<...> and pltpu::no_tiling_check");
  using grids = mp::mp_copy_if<list, pallas::detail::is_grid>;
  static_assert(mp::mp_size<grids>::value == 1, "pallas::emit_pipeline: exactly one pl::grid<...> is needed");
  if constexpr (mp::mp_size<grids>::value == 1) {
    using grid_type = mp::mp_front<grids>;
    using ins_list = mp::mp_copy_if<list, detail::is_in_specs>;
    using outs_list = mp::mp_copy_if<list, detail::is_out_specs>;
    using axes = mp::mp_copy_if<list, detail::is_core_axis>;
    using sems = mp::mp_copy_if<list, detail::is_dimension_semantics>;
    using in_option = mp::mp_eval_if_c<mp::mp_empty<ins_list>::value, in_specs_t<>, mp::mp_front, ins_list>;
    using out_option = mp::mp_eval_if_c<mp::mp_empty<outs_list>::value, out_specs_t<>, mp::mp_front, outs_list>;
    using core_axis = mp::mp_eval_if_c<mp::mp_empty<axes>::value, detail::no_core_axis, mp::mp_front, axes>;
    using semantics = mp::mp_eval_if_c<mp::mp_empty<sems>::value, void, mp::mp_front, sems>;
    constexpr bool check_tiling = !mp::mp_contains<list, no_tiling_check_t>::value;
    if constexpr (!std::is_same_v<semantics, void>) {
      static_assert(semantics::size == grid_type::rank(),
                    "pallas::emit_pipeline: dimension_semantics needs one entry per grid axis "
                    "(semantics == grid rank)");
      static_assert(semantics::parallel_first,
                    "pallas::emit_pipeline: PARALLEL axes must come before ARBITRARY ones");
      static_assert(core_axis::static_cores <= 1 || semantics::any_parallel,
                    "pallas::emit_pipeline: several cores share the grid but no axis is PARALLEL");
    } else {
      static_assert(core_axis::static_cores <= 1,
                    "pallas::emit_pipeline: several cores share the grid but no axis is PARALLEL");
    }
    grid_type grid_value = detail::pick<pallas::detail::is_grid, grid_type>(options...);
    auto in = detail::pick<detail::is_in_specs, in_option>(options...).specs;
    auto out = detail::pick<detail::is_out_specs, out_option>(options...).specs;
    return pipeline<Body, grid_type, decltype(in), decltype(out), core_axis, semantics, check_tiling>(
        std::move(body), grid_value, std::move(in), std::move(out));
  }
}

}  // namespace pallas::tpu
