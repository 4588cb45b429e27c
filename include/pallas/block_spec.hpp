// SPDX-License-Identifier: Apache-2.0
#pragma once
// pl::BlockSpec: which block of an operand each grid step sees.
//
//   pl::BlockSpec<128, 128>([](auto i, auto j) { return pl::idx(i, j); })
//   pl::BlockSpec<pl::squeezed, 256, 256>(map)       // None: a size-1 dim the body doesn't see
//   pl::BlockSpec<pl::Element(128), 128>(map)        // the map returns an element offset
//   pl::BlockSpec<128, 128>(map, pl::Buffered<3>)    // pipeline_mode=pl.Buffered(3)
//
// An index map takes the grid indices (then any scalar-prefetch refs) and returns one block
// index per block dimension: `pl::idx(i, j)`, a std::array, a tuple, or one integer.

#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <pallas/detail/options.hpp>
#include <pallas/memory_space.hpp>
#include <pallas/shape.hpp>
#include <pallas/slice.hpp>

namespace pallas {

/// `None` / `pl.squeezed` in a block shape: a size-1 dimension dropped from the body's ref;
/// its index-map entry is an element index.
struct squeezed_t {
  constexpr bool operator==(squeezed_t const&) const = default;  ///< All equal.
};
/// The tag value: `pl::BlockSpec<pl::squeezed, 128>(...)`.
inline constexpr squeezed_t squeezed{};

/// `pl.Element(n)`: a dimension whose index-map entry is an element offset, not a block
/// index. `pl.Element(n, (low, high))` is `pl::Element(n, {low, high})`: the array is
/// virtually padded by `low` elements before and `high` after, and the offset counts in the
/// padded array (so a block may start below element 0); padding elements are unspecified.
struct element_dim {
  index_t size;      ///< elements in the block
  index_t low = 0;   ///< virtual padding before the array
  index_t high = 0;  ///< virtual padding after it
  constexpr bool operator==(element_dim const&) const = default;  ///< Same size and padding.
};
/// `pl.Element(size, (low, high))` as a block dimension: `pl::BlockSpec<pl::Element(128), 128>`.
constexpr element_dim Element(index_t size, std::array<index_t, 2> padding = {0, 0}) {
  return element_dim{size, padding[0], padding[1]};
}

/// `pl.BoundedSlice(n)`: a dimension of at most n elements whose index-map entry is
/// `pl::ds(start, size)` (both run-time values, size <= n); the body sees all n, of which
/// the first `size` were fetched (emit_pipeline only).
struct bounded_slice_dim {
  index_t max;  ///< the most elements a block holds
  constexpr bool operator==(bounded_slice_dim const&) const = default;  ///< Same bound.
};
/// `pl.BoundedSlice(max)` as a block dimension: `pl::BlockSpec<pl::BoundedSlice(64), 128>`.
constexpr bounded_slice_dim BoundedSlice(index_t max) { return bounded_slice_dim{max}; }

/// `pl.RevisitMode`: whether an output block may be visited again after another one.
enum class RevisitMode { IMMEDIATE, ANY };

/// `use_lookahead=True` of pl.Buffered: fetch the next blocks that differ as soon as a
/// buffer is free, not only the one `n - 1` steps ahead (emit_pipeline inputs).
struct lookahead_t {
  constexpr bool operator==(lookahead_t const&) const = default;  ///< All equal.
};
/// The option value: `pl::Buffered<3, pl::use_lookahead>`.
inline constexpr lookahead_t use_lookahead{};

namespace detail {
template <auto Option>
constexpr bool is_lookahead_option = std::is_same_v<std::remove_cvref_t<decltype(Option)>, lookahead_t>;
template <auto Option>
constexpr bool is_revisit_option = std::is_same_v<std::remove_cvref_t<decltype(Option)>, RevisitMode>;
template <auto Option>
constexpr bool is_revisit_any() {
  if constexpr (is_revisit_option<Option>)
    return Option == RevisitMode::ANY;
  else
    return false;
}
template <auto... Options>
constexpr RevisitMode revisit_of() {
  return (is_revisit_any<Options>() || ...) ? RevisitMode::ANY : RevisitMode::IMMEDIATE;
}
}  // namespace detail

/// `pipeline_mode=pl.Buffered(n, ...)`: the number of buffers of an operand, then any of
/// `pl::RevisitMode::ANY` and `pl::use_lookahead`: `pl::Buffered<1, pl::RevisitMode::ANY>`,
/// `pl::Buffered<3, pl::use_lookahead>`.
template <int N, auto... Options>
struct buffered_t {
  static_assert(N >= 1, "pallas::Buffered: an operand needs at least one buffer");
  static_assert(((detail::is_lookahead_option<Options> || detail::is_revisit_option<Options>) && ...),
                "pallas::Buffered: the options after the count are pl::RevisitMode::ANY and pl::use_lookahead");
  static constexpr int buffer_count = N;                                ///< buffers of the operand
  static constexpr RevisitMode revisit = detail::revisit_of<Options...>();  ///< output revisits allowed?
  static constexpr bool lookahead = (detail::is_lookahead_option<Options> || ...);  ///< fetch ahead
};
/// `pl.Buffered(n, ...)` as a value: `pl::BlockSpec<128, 128>(map, pl::Buffered<3>)`.
template <int N, auto... Options>
inline constexpr buffered_t<N, Options...> Buffered{};

/// The default: two buffers, or one for a whole-array block with a constant index map.
struct default_buffering {
  static constexpr int buffer_count = 0;                          ///< 0: the pipeline chooses
  static constexpr RevisitMode revisit = RevisitMode::IMMEDIATE;  ///< no revisits
  static constexpr bool lookahead = false;                        ///< no lookahead
};

/// `memory_space=...` of a BlockSpec: `pl::BlockSpec<>(pl::in_memory<pl::ANY>)` hands the
/// body the operand's whole HBM ref, unbuffered (it copies what it needs itself).
template <memory_space S>
struct in_memory_t {
  static constexpr memory_space space = S;  ///< where the body's ref lives
};
/// The option value: `pl::in_memory<pl::ANY>`.
template <memory_space S>
inline constexpr in_memory_t<S> in_memory{};

/// An index map's result: `return pl::idx(i, j);`.
template <Integer... I>
constexpr std::array<index_t, sizeof...(I)> idx(I... indices) {
  return {static_cast<index_t>(indices)...};
}

namespace detail {

enum class block_dim_kind { blocked, squeezed, element, bounded };

struct block_dim_info {
  block_dim_kind kind;
  index_t size;      ///< elements in the block (a bounded dim: its maximum)
  index_t low = 0;   ///< an element dim's virtual padding
  index_t high = 0;
};

template <auto D>
constexpr block_dim_info block_dim_of() {
  using T = std::remove_cvref_t<decltype(D)>;
  if constexpr (std::is_integral_v<T>) {
    static_assert(D > 0, "pallas::BlockSpec: every block size must be > 0");
    return {block_dim_kind::blocked, static_cast<index_t>(D)};
  } else if constexpr (std::is_same_v<T, squeezed_t>) {
    return {block_dim_kind::squeezed, 1};
  } else if constexpr (std::is_same_v<T, element_dim>) {
    static_assert(D.size > 0, "pallas::BlockSpec: every block size must be > 0");
    static_assert(D.low >= 0 && D.high >= 0, "pallas::BlockSpec: pl::Element padding must be >= 0");
    return {block_dim_kind::element, D.size, D.low, D.high};
  } else if constexpr (std::is_same_v<T, bounded_slice_dim>) {
    static_assert(D.max > 0, "pallas::BlockSpec: a pl::BoundedSlice bound must be > 0");
    return {block_dim_kind::bounded, D.max};
  } else {
    static_assert(std::is_integral_v<T>,
                  "pallas::BlockSpec: a block dimension is a size, pl::squeezed, pl::Element(n) or "
                  "pl::BoundedSlice(n)");
    return {block_dim_kind::blocked, 1};
  }
}

/// One entry of an index-map result: an integer, or (for a BoundedSlice dim) a pl::ds.
template <class T>
inline constexpr bool is_index_entry =
    std::is_integral_v<T> || std::is_same_v<T, dynamic_slice> || is_static_slice<T>::value;
template <class T>
inline constexpr bool is_slice_entry = std::is_same_v<T, dynamic_slice> || is_static_slice<T>::value;

// How many entries an index-map result holds, or -1 if it is not a valid result.
template <class R>
struct index_count : std::integral_constant<int, -1> {};
template <class R>
  requires std::is_integral_v<R>
struct index_count<R> : std::integral_constant<int, 1> {};
template <class T, std::size_t N>
  requires std::is_integral_v<T>
struct index_count<std::array<T, N>> : std::integral_constant<int, static_cast<int>(N)> {};
template <class... T>
  requires(is_index_entry<T> && ...)
struct index_count<std::tuple<T...>> : std::integral_constant<int, sizeof...(T)> {};
template <class A, class B>
  requires(is_index_entry<A> && is_index_entry<B>)
struct index_count<std::pair<A, B>> : std::integral_constant<int, 2> {};

template <class R>
struct is_integer_array : std::false_type {};
template <class T, std::size_t N>
struct is_integer_array<std::array<T, N>> : std::is_integral<T> {};

/// The integers an index-map result holds: one per dimension, two (start, size) per slice
/// entry (a BoundedSlice dim). N counts them.
template <std::size_t N, class R>
constexpr std::array<index_t, N> to_block_indices(R const& r) {
  if constexpr (std::is_integral_v<R>) {
    return {static_cast<index_t>(r)};
  } else if constexpr (is_integer_array<R>::value) {
    std::array<index_t, N> out{};
    for (std::size_t k = 0; k < N; ++k) out[k] = static_cast<index_t>(r[k]);
    return out;
  } else {
    std::array<index_t, N> out{};
    std::size_t at = 0;
    std::apply(
        [&](auto const&... v) {
          (
              [&](auto const& e) {
                using E = std::remove_cvref_t<decltype(e)>;
                if constexpr (is_slice_entry<E>) {
                  out[at++] = static_cast<index_t>(e.start);
                  out[at++] = static_cast<index_t>(e.size);
                } else {
                  out[at++] = static_cast<index_t>(e);
                }
              }(v),
              ...);
        },
        r);
    return out;
  }
}

/// Which entries of an index-map result R are slices (a bitmask), to check them against the
/// BoundedSlice dims.
template <class R>
constexpr unsigned slice_entries() {
  if constexpr (std::is_integral_v<R>) {
    return 0;
  } else {
    return []<std::size_t... K>(std::index_sequence<K...>) {
      return ((is_slice_entry<std::remove_cvref_t<std::tuple_element_t<K, R>>> ? (1u << K) : 0u) | ... | 0u);
    }(std::make_index_sequence<std::tuple_size_v<R>>{});
  }
}

/// The default index map: block (0, 0, ...) everywhere.
template <std::size_t Rank>
struct zero_index_map {
  template <class... I>
  constexpr std::array<index_t, Rank> operator()(I const&...) const noexcept {
    return {};
  }
};

template <class List>
struct block_extents;
template <class... C>
struct block_extents<boost::mp11::mp_list<C...>> {
  using type = extents<C::value...>;
};

}  // namespace detail

/// What `pl::BlockSpec<Dims...>(index_map, options...)` makes: the block shape `Dims`
/// (sizes, `pl::squeezed`, `pl::Element(n)`, `pl::BoundedSlice(n)`), the index map from
/// grid indices to block indices, the buffering and the memory space of the body's ref.
template <class Map, class Buffering, memory_space Space, auto... Dims>
struct block_spec {
  static constexpr std::size_t rank = sizeof...(Dims);  ///< the number of block dimensions
  static constexpr memory_space space = Space;           ///< where the body's block lives
  /// The body gets the operand's ref itself (ANY/HBM specs), not VMEM blocks.
  static constexpr bool raw = is_dma_only(Space);
  /// Each dimension's kind and size.
  static constexpr std::array<detail::block_dim_info, sizeof...(Dims)> dims{detail::block_dim_of<Dims>()...};
  static constexpr int buffer_count = Buffering::buffer_count;  ///< buffers (0: the default)
  static constexpr RevisitMode revisit = Buffering::revisit;     ///< output revisits allowed?
  static constexpr bool lookahead = Buffering::lookahead;        ///< fetch ahead?
  /// The integers a block index takes: one per dimension, two per BoundedSlice dim.
  static constexpr std::size_t values =
      ((detail::block_dim_of<Dims>().kind == detail::block_dim_kind::bounded ? 2 : 1) + ... + std::size_t{0});
  /// Which dimensions are BoundedSlice (a bitmask).
  static constexpr unsigned bounded_dims = [] {
    unsigned m = 0, bit = 1;
    ((m |= detail::block_dim_of<Dims>().kind == detail::block_dim_kind::bounded ? bit : 0, bit <<= 1), ...);
    return m;
  }();

  /// The block as a whole, squeezed dimensions included (size 1).
  using full_block_shape = extents<detail::block_dim_of<Dims>().size...>;
  /// The block as the body sees it: squeezed dimensions dropped.
  using block_shape = typename detail::block_extents<boost::mp11::mp_append<
      boost::mp11::mp_list<>,
      std::conditional_t<detail::block_dim_of<Dims>().kind == detail::block_dim_kind::squeezed,
                         boost::mp11::mp_list<>,
                         boost::mp11::mp_list<c_t<detail::block_dim_of<Dims>().size>>>...>>::type;
  using index_map_type = Map;  ///< the index map's type

  /// Elements in one block.
  static constexpr index_t block_elements = (index_t{1} * ... * detail::block_dim_of<Dims>().size);

  Map index_map;  ///< grid indices (then scalar-prefetch refs) -> block indices
};

/// `pl.BlockSpec(block_shape=None, ...)`: the whole array as one block, at block index 0;
/// its dims are the array's, filled in when the operand is known.
template <class Buffering, memory_space Space>
struct whole_array_spec {
  static constexpr memory_space space = Space;                  ///< where the body's block lives
  static constexpr bool raw = is_dma_only(Space);               ///< the body gets the HBM ref itself
  static constexpr int buffer_count = Buffering::buffer_count;  ///< buffers (0: the default)
};

namespace detail {
template <class T>
struct is_buffering : std::false_type {};
template <int N, auto... O>
struct is_buffering<buffered_t<N, O...>> : std::true_type {};
template <>
struct is_buffering<default_buffering> : std::true_type {};
template <class T>
struct is_in_memory : std::false_type {};
template <memory_space S>
struct is_in_memory<in_memory_t<S>> : std::true_type {};
template <class T>
using is_spec_option = std::bool_constant<is_buffering<T>::value || is_in_memory<T>::value>;
}  // namespace detail

/// `pl.BlockSpec(block_shape, index_map, pipeline_mode=..., memory_space=...)`; see the top
/// of this file. Arguments: an index map (else block 0 everywhere), then optionally
/// pl::Buffered<n> and pl::in_memory<space>, in any order.
template <auto... Dims>
struct block_spec_factory {
  /// The spec: `pl::BlockSpec<128, 128>([](auto i, auto j) { return pl::idx(i, j); })`.
  template <class... Args>
  constexpr auto operator()(Args... args) const {
    namespace mp = boost::mp11;
    using list = mp::mp_list<Args...>;
    using maps = mp::mp_remove_if<list, detail::is_spec_option>;
    static_assert(mp::mp_size<maps>::value <= 1 && detail::count_options<detail::is_buffering, Args...> <= 1 &&
                      detail::count_options<detail::is_in_memory, Args...> <= 1,
                  "pallas::BlockSpec: at most one index map, one pl::Buffered<n> and one pl::in_memory<space>");
    using buffering = detail::option_type_or<detail::is_buffering, default_buffering, Args...>;
    constexpr memory_space space =
        detail::option_type_or<detail::is_in_memory, in_memory_t<memory_space::vmem>, Args...>::space;
    if constexpr (sizeof...(Dims) == 0) {
      static_assert(mp::mp_empty<maps>::value,
                    "pallas::BlockSpec: a whole-array block (no block shape) takes no index map");
      return whole_array_spec<buffering, space>{};
    } else if constexpr (mp::mp_empty<maps>::value) {
      return block_spec<detail::zero_index_map<sizeof...(Dims)>, buffering, space, Dims...>{};
    } else {
      using map = mp::mp_front<maps>;
      constexpr std::size_t at = mp::mp_find<list, map>::value;
      return block_spec<map, buffering, space, Dims...>{std::get<at>(std::tuple<Args...>{args...})};
    }
  }
};
/// `pl.BlockSpec(block_shape, index_map, ...)`, the block shape as template arguments:
/// `pl::BlockSpec<128, 128>(index_map)`; `pl::BlockSpec<>()` is the whole array.
template <auto... Dims>
inline constexpr block_spec_factory<Dims...> BlockSpec{};

namespace detail {
template <class T>
struct is_block_spec : std::false_type {};
template <class M, class B, memory_space S, auto... D>
struct is_block_spec<block_spec<M, B, S, D...>> : std::true_type {};
template <class B, memory_space S>
struct is_block_spec<whole_array_spec<B, S>> : std::true_type {};

template <class Spec, class Shape, class Seq = std::make_index_sequence<Shape::rank()>>
struct resolve_spec {
  using type = Spec;
  static constexpr Spec const& apply(Spec const& s) { return s; }
};
template <class B, memory_space S, class Shape, std::size_t... R>
struct resolve_spec<whole_array_spec<B, S>, Shape, std::index_sequence<R...>> {
  static_assert(Shape::is_static || is_dma_only(S),
                "pallas::BlockSpec: a whole-array block needs an array of static shape");
  using type = block_spec<zero_index_map<sizeof...(R)>, B, S, (Shape::static_extent(R) == dyn ? 1 : Shape::static_extent(R))...>;
  static constexpr type apply(whole_array_spec<B, S> const&) { return type{}; }
};
}  // namespace detail

template <class T>
concept AnyBlockSpec = detail::is_block_spec<std::remove_cvref_t<T>>::value;

/// The concrete block_spec of `Spec` for an operand of shape `Shape` (a whole-array spec
/// becomes one block of the array's shape).
template <class Spec, class Shape>
using resolved_spec_t = typename detail::resolve_spec<Spec, Shape>::type;

/// `in_specs=[...]`.
template <AnyBlockSpec... Specs>
struct in_specs_t {
  std::tuple<Specs...> specs;  ///< one per input, in order
};
/// `in_specs=[spec, ...]`: `pl::in_specs(spec_x, spec_y)`.
template <AnyBlockSpec... Specs>
constexpr in_specs_t<Specs...> in_specs(Specs... specs) {
  return {std::tuple<Specs...>{std::move(specs)...}};
}

/// `out_specs=...` (one or several).
template <AnyBlockSpec... Specs>
struct out_specs_t {
  std::tuple<Specs...> specs;  ///< one per output, in order
};
/// `out_specs=spec` or `[spec, ...]`: `pl::out_specs(spec_o)`.
template <AnyBlockSpec... Specs>
constexpr out_specs_t<Specs...> out_specs(Specs... specs) {
  return {std::tuple<Specs...>{std::move(specs)...}};
}

namespace detail {
template <class T>
struct is_in_specs : std::false_type {};
template <class... S>
struct is_in_specs<in_specs_t<S...>> : std::true_type {};
template <class T>
struct is_out_specs : std::false_type {};
template <class... S>
struct is_out_specs<out_specs_t<S...>> : std::true_type {};
}  // namespace detail

}  // namespace pallas
