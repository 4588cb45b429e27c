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

#include <pallas/memory_space.hpp>
#include <pallas/shape.hpp>

namespace pallas {

/// `None` / `pl.squeezed` in a block shape: a size-1 dimension dropped from the body's ref;
/// its index-map entry is an element index.
struct squeezed_t {
  constexpr bool operator==(squeezed_t const&) const = default;
};
inline constexpr squeezed_t squeezed{};

/// `pl.Element(n)`: a dimension whose index-map entry is an element offset, not a block
/// index.
struct element_dim {
  index_t size;
  constexpr bool operator==(element_dim const&) const = default;
};
constexpr element_dim Element(index_t size) { return element_dim{size}; }

/// `pl.RevisitMode`: whether an output block may be visited again after another one.
enum class RevisitMode { IMMEDIATE, ANY };

/// `pipeline_mode=pl.Buffered(n)`: the number of buffers of an operand.
template <int N, RevisitMode Revisit = RevisitMode::IMMEDIATE>
struct buffered_t {
  static_assert(N >= 1, "pallas::Buffered: an operand needs at least one buffer");
  static constexpr int buffer_count = N;
  static constexpr RevisitMode revisit = Revisit;
};
template <int N, RevisitMode Revisit = RevisitMode::IMMEDIATE>
inline constexpr buffered_t<N, Revisit> Buffered{};

/// The default: two buffers, or one for a whole-array block with a constant index map.
struct default_buffering {
  static constexpr int buffer_count = 0;
  static constexpr RevisitMode revisit = RevisitMode::IMMEDIATE;
};

/// `memory_space=...` of a BlockSpec: `pl::BlockSpec<>(pl::in_memory<pl::ANY>)` hands the
/// body the operand's whole HBM ref, unbuffered (it copies what it needs itself).
template <memory_space S>
struct in_memory_t {
  static constexpr memory_space space = S;
};
template <memory_space S>
inline constexpr in_memory_t<S> in_memory{};

/// An index map's result: `return pl::idx(i, j);`.
template <Integer... I>
constexpr std::array<index_t, sizeof...(I)> idx(I... indices) {
  return {static_cast<index_t>(indices)...};
}

namespace detail {

enum class block_dim_kind { blocked, squeezed, element };

struct block_dim_info {
  block_dim_kind kind;
  index_t size;
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
    return {block_dim_kind::element, D.size};
  } else {
    static_assert(std::is_integral_v<T>,
                  "pallas::BlockSpec: a block dimension is a size, pl::squeezed or pl::Element(n)");
    return {block_dim_kind::blocked, 1};
  }
}

// How many indices an index-map result holds, or -1 if it is not a valid result.
template <class R>
struct index_count : std::integral_constant<int, -1> {};
template <class R>
  requires std::is_integral_v<R>
struct index_count<R> : std::integral_constant<int, 1> {};
template <class T, std::size_t N>
  requires std::is_integral_v<T>
struct index_count<std::array<T, N>> : std::integral_constant<int, static_cast<int>(N)> {};
template <class... T>
  requires(std::is_integral_v<T> && ...)
struct index_count<std::tuple<T...>> : std::integral_constant<int, sizeof...(T)> {};
template <class A, class B>
  requires(std::is_integral_v<A> && std::is_integral_v<B>)
struct index_count<std::pair<A, B>> : std::integral_constant<int, 2> {};

/// The block indices an index-map result holds.
template <std::size_t N, class R>
constexpr std::array<index_t, N> to_block_indices(R const& r) {
  if constexpr (std::is_integral_v<R>) {
    return {static_cast<index_t>(r)};
  } else {
    return std::apply([](auto const&... v) { return std::array<index_t, N>{static_cast<index_t>(v)...}; }, r);
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

template <class Map, class Buffering, memory_space Space, auto... Dims>
struct block_spec {
  static constexpr std::size_t rank = sizeof...(Dims);
  static constexpr memory_space space = Space;
  /// The body gets the operand's ref itself (ANY/HBM specs), not VMEM blocks.
  static constexpr bool raw = is_dma_only(Space);
  static constexpr std::array<detail::block_dim_info, sizeof...(Dims)> dims{detail::block_dim_of<Dims>()...};
  static constexpr int buffer_count = Buffering::buffer_count;  // 0: the default
  static constexpr RevisitMode revisit = Buffering::revisit;

  /// The block as a whole, squeezed dimensions included (size 1).
  using full_block_shape = extents<detail::block_dim_of<Dims>().size...>;
  /// The block as the body sees it: squeezed dimensions dropped.
  using block_shape = typename detail::block_extents<boost::mp11::mp_append<
      boost::mp11::mp_list<>,
      std::conditional_t<detail::block_dim_of<Dims>().kind == detail::block_dim_kind::squeezed,
                         boost::mp11::mp_list<>,
                         boost::mp11::mp_list<c_t<detail::block_dim_of<Dims>().size>>>...>>::type;
  using index_map_type = Map;

  static constexpr index_t block_elements = (index_t{1} * ... * detail::block_dim_of<Dims>().size);

  Map index_map;
};

/// `pl.BlockSpec(block_shape=None, ...)`: the whole array as one block, at block index 0;
/// its dims are the array's, filled in when the operand is known.
template <class Buffering, memory_space Space>
struct whole_array_spec {
  static constexpr memory_space space = Space;
  static constexpr bool raw = is_dma_only(Space);
  static constexpr int buffer_count = Buffering::buffer_count;
};

namespace detail {
template <class T>
struct is_buffering : std::false_type {};
template <int N, RevisitMode R>
struct is_buffering<buffered_t<N, R>> : std::true_type {};
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
  template <class... Args>
  constexpr auto operator()(Args... args) const {
    namespace mp = boost::mp11;
    using list = mp::mp_list<Args...>;
    using maps = mp::mp_remove_if<list, detail::is_spec_option>;
    using bufs = mp::mp_copy_if<list, detail::is_buffering>;
    using spaces = mp::mp_copy_if<list, detail::is_in_memory>;
    static_assert(mp::mp_size<maps>::value <= 1 && mp::mp_size<bufs>::value <= 1 && mp::mp_size<spaces>::value <= 1,
                  "pallas::BlockSpec: at most one index map, one pl::Buffered<n> and one pl::in_memory<space>");
    using buffering = mp::mp_eval_if_c<mp::mp_empty<bufs>::value, default_buffering, mp::mp_front, bufs>;
    constexpr memory_space space =
        mp::mp_eval_if_c<mp::mp_empty<spaces>::value, in_memory_t<memory_space::vmem>, mp::mp_front, spaces>::space;
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
  std::tuple<Specs...> specs;
};
template <AnyBlockSpec... Specs>
constexpr in_specs_t<Specs...> in_specs(Specs... specs) {
  return {std::tuple<Specs...>{std::move(specs)...}};
}

/// `out_specs=...` (one or several).
template <AnyBlockSpec... Specs>
struct out_specs_t {
  std::tuple<Specs...> specs;
};
template <AnyBlockSpec... Specs>
constexpr out_specs_t<Specs...> out_specs(Specs... specs) {
  return {std::tuple<Specs...>{std::move(specs)...}};
}

}  // namespace pallas
