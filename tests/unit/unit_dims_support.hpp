// SPDX-License-Identifier: Apache-2.0
#pragma once
// Support for the size-1-dimension property tests (expr_unit_dims_*_test.cpp): VMEM views
// of every layout a kernel meets, inside poisoned buffers, and a naive reference walk.
//
// A view of static shape S is laid out in one of four ways:
//   dense                 its own row-major buffer
//   sliced                `.at(pl::ds<e>(1)...)` of a row-major buffer 3 larger in every
//                         dimension: an offset, and strides that are not S's
//   column_major          its own buffer with reversed strides (a transposed array)
//   sliced_column_major   `.at(...)` of a column-major bigger buffer
// Every buffer starts as poison (NaN, INT_MIN, true: checked mode's fill of uninitialized
// VMEM); only the view's elements are then written. A walk that reads outside its view
// brings poison into the result, and one that writes outside it overwrites poison:
// `untouched_outside()` finds the latter.

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <pallas/block_view.hpp>
#include <pallas/dtype.hpp>
#include <pallas/ref.hpp>
#include <pallas/shape.hpp>
#include <pallas/slice.hpp>

namespace unit_dims {

namespace pl = pallas;
namespace mp = boost::mp11;
using pl::index_t;

template <class S, class Seq = std::make_index_sequence<S::rank()>>
struct dyn_of;
template <class S, std::size_t... K>
struct dyn_of<S, std::index_sequence<K...>> {
  using type = pl::extents<(static_cast<index_t>(K) * 0 + pl::dyn)...>;
};
/// Run-time extents (or strides) of S's rank.
template <class S>
using dyn_t = typename dyn_of<S>::type;

/// A VMEM view of static shape S with run-time strides: one type for every layout.
template <class T, class S>
using vref = pl::Ref<T, S, pl::memory_space::vmem, dyn_t<S>>;

enum class layout { dense, sliced, column_major, sliced_column_major };
inline constexpr std::array<layout, 4> all_layouts{layout::dense, layout::sliced,
                                                   layout::column_major,
                                                   layout::sliced_column_major};

inline char const* name(layout l) {
  switch (l) {
    case layout::dense: return "dense";
    case layout::sliced: return "sliced";
    case layout::column_major: return "column_major";
    case layout::sliced_column_major: return "sliced_column_major";
  }
  return "?";
}

/// The values an operand takes: any small value, a non-zero divisor, a shift count, a
/// positive base, or nothing (a destination that stays poison until it is written).
enum class domain { any, nonzero, shift, positive, poison };

template <class T>
T value_in(std::mt19937& gen, domain d) {
  if constexpr (std::is_same_v<T, bool>) {
    return (gen() & 1u) != 0;
  } else if constexpr (std::is_integral_v<T>) {
    auto const u = [&](int lo, int hi) {
      return static_cast<T>(lo + static_cast<int>(gen() % static_cast<unsigned>(hi - lo + 1)));
    };
    switch (d) {
      case domain::nonzero: {
        T const v = u(1, 7);
        return (gen() & 1u) ? v : static_cast<T>(-v);
      }
      case domain::shift: return u(0, 7);
      case domain::positive: return u(1, 9);
      default: return u(-20, 20);
    }
  } else {
    // quarters: exact in every dtype, and quotients stay far from integers
    auto const q = [&](int lo, int hi) {
      return T(static_cast<float>(lo + static_cast<int>(gen() % static_cast<unsigned>(hi - lo + 1))) / 4.0f);
    };
    switch (d) {
      case domain::nonzero: {
        T const v = q(1, 16);
        return (gen() & 1u) ? v : T(-static_cast<float>(v));
      }
      case domain::positive: return q(1, 16);
      default: return q(-16, 16);
    }
  }
}

/// Bitwise equality for NaN-carrying floats, value equality otherwise.
template <class T>
bool same(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return a == b;
  } else {
    float const x = static_cast<float>(a), y = static_cast<float>(b);
    if (x != x || y != y) return x != x && y != y;
    return x == y;
  }
}

template <class T>
double show(T v) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<double>(v);
  else
    return static_cast<double>(static_cast<float>(v));
}

template <std::size_t R>
std::string show_index(std::array<index_t, R> const& idx) {
  std::ostringstream s;
  s << '(';
  for (std::size_t r = 0; r < R; ++r) s << (r ? ", " : "") << idx[r];
  s << ')';
  return s.str();
}

/// Calls f(idx) for every multi-index of static shape S, row-major.
template <class S, class F>
void for_each_index(F&& f) {
  constexpr std::size_t R = S::rank();
  if constexpr (S::static_size() > 0) {
    std::array<index_t, R> idx{};
    for (index_t n = 0; n < S::static_size(); ++n) {
      f(idx);
      for (std::size_t r = R; r-- > 0;) {
        if (++idx[r] < S::static_extent(r)) break;
        idx[r] = 0;
      }
    }
  }
}

/// The index of an operand of shape C inside a result index of rank R (numpy: trailing
/// dimensions aligned, extent-1 dimensions read at 0), written out independently of the
/// library's own mapping.
template <class C, std::size_t R>
std::array<index_t, C::rank()> broadcast_index(std::array<index_t, R> const& idx) {
  std::array<index_t, C::rank()> out{};
  for (std::size_t k = 0; k < C::rank(); ++k)
    out[k] = C::static_extent(k) == 1 ? 0 : idx[R - C::rank() + k];
  return out;
}

/// A poisoned buffer holding a view of shape S in a layout; the view's elements are filled
/// from `d` (left as poison for domain::poison).
template <class T, class S>
class buffer {
  static constexpr std::size_t R = S::rank();
  using big_shape = dyn_t<S>;
  using strides_t = dyn_t<S>;

 public:
  buffer(layout l, unsigned seed, domain d) : layout_(l) {
    bool const sliced = l == layout::sliced || l == layout::sliced_column_major;
    bool const column = l == layout::column_major || l == layout::sliced_column_major;
    std::array<index_t, R> big{};
    for (std::size_t r = 0; r < R; ++r) big[r] = S::static_extent(r) + (sliced ? 3 : 0);
    std::array<index_t, R> str{};
    index_t running = 1;
    for (std::size_t k = 0; k < R; ++k) {
      std::size_t const r = column ? k : R - 1 - k;
      str[r] = running;
      running *= big[r];
    }
    size_ = running;
    mem_ = std::make_unique<T[]>(static_cast<std::size_t>(size_));
    for (index_t i = 0; i < size_; ++i) mem_[static_cast<std::size_t>(i)] = pl::dtype_traits<T>::poison();
    pl::Ref<T, big_shape, pl::memory_space::vmem, strides_t> whole(
        mem_.get(), big_shape::from_all(big), strides_t::from_all(str));
    if (sliced)
      ref_ = slice(whole, std::make_index_sequence<R>{});
    else
      ref_ = vref<T, S>(mem_.get(), S{}, strides_t::from_all(str));
    std::mt19937 gen(seed);
    if (d != domain::poison)
      for_each_index<S>([&](auto const& idx) { at(idx) = value_in<T>(gen, d); });
  }

  vref<T, S> const& ref() const noexcept { return ref_; }
  auto view() const { return ref_[pl::ellipsis]; }
  layout where() const noexcept { return layout_; }

  T& at(std::array<index_t, R> const& idx) const {
    index_t off = 0;
    for (std::size_t r = 0; r < R; ++r) off += idx[r] * ref_.stride(r);
    return ref_.data()[off];
  }

  /// Every element outside the view still holds poison.
  bool untouched_outside() const {
    std::vector<bool> inside(static_cast<std::size_t>(size_), false);
    for_each_index<S>([&](auto const& idx) {
      inside[static_cast<std::size_t>(&at(idx) - mem_.get())] = true;
    });
    T const poison = pl::dtype_traits<T>::poison();
    for (index_t i = 0; i < size_; ++i)
      if (!inside[static_cast<std::size_t>(i)] &&
          std::memcmp(&mem_[static_cast<std::size_t>(i)], &poison, sizeof(T)) != 0)
        return false;
    return true;
  }

  /// The view's values, row-major.
  std::vector<T> values() const {
    std::vector<T> v;
    for_each_index<S>([&](auto const& idx) { v.push_back(at(idx)); });
    return v;
  }

 private:
  template <class W, std::size_t... K>
  static vref<T, S> slice(W const& whole, std::index_sequence<K...>) {
    index_t const one = 1;  // a run-time start, as a kernel's pl::ds<N>(i * N)
    return whole.at(pl::ds<S::static_extent(K)>(one)...);
  }

  layout layout_;
  index_t size_ = 0;
  std::unique_ptr<T[]> mem_;
  vref<T, S> ref_{nullptr, S{}, strides_t::from_all({})};
};

/// Compares a destination with expected(idx) everywhere and checks that nothing outside
/// it was written; returns an empty string, or the first difference.
template <class T, class S, class F>
std::string compare(buffer<T, S> const& out, F&& expected) {
  std::string first;
  index_t bad = 0;
  for_each_index<S>([&](auto const& idx) {
    T const want = static_cast<T>(expected(idx));
    T const got = out.at(idx);
    if (!same(got, want)) {
      if (bad++ == 0) {
        std::ostringstream s;
        s << "at " << show_index(idx) << ": got " << show(got) << ", want " << show(want);
        first = s.str();
      }
    }
  });
  std::ostringstream s;
  if (bad) s << bad << " of " << S::static_size() << " elements differ, first " << first;
  if (!out.untouched_outside()) s << (bad ? "; " : "") << "an element outside the view was written";
  return s.str();
}

// ---------------------------------------------------------------------------------------
// shapes

template <class S, class Seq = std::make_index_sequence<S::rank()>>
struct ones_of;
template <class S, std::size_t... K>
struct ones_of<S, std::index_sequence<K...>> {
  using type = pl::shape<(static_cast<index_t>(K) * 0 + 1)...>;
};
/// S with every extent 1 (one element, S's rank).
template <class S>
using ones_t = typename ones_of<S>::type;

template <class S, std::size_t D, class Seq = std::make_index_sequence<S::rank()>>
struct one_at;
template <class S, std::size_t D, std::size_t... K>
struct one_at<S, D, std::index_sequence<K...>> {
  using type = pl::shape<(K == D ? index_t{1} : S::static_extent(K))...>;
};
/// S with extent 1 in dimension D: (R, C) -> (R, 1) for D = 1.
template <class S, std::size_t D>
using one_at_t = typename one_at<S, D>::type;

template <class S, class Seq = std::make_index_sequence<S::rank() - 1>>
struct drop_first;
template <class S, std::size_t... K>
struct drop_first<S, std::index_sequence<K...>> {
  using type = pl::shape<S::static_extent(K + 1)...>;
};
/// S without its first dimension (a lower-rank operand, aligned on the trailing ones).
template <class S>
using drop_first_t = typename drop_first<S>::type;

template <class S, class Seq = std::make_index_sequence<S::rank()>>
struct reversed;
template <class S, std::size_t... K>
struct reversed<S, std::index_sequence<K...>> {
  using type = pl::shape<S::static_extent(S::rank() - 1 - K)...>;
};
/// S's extents reversed: the shape a transpose of S's transpose starts from.
template <class S>
using reversed_t = typename reversed<S>::type;

/// The operand shapes that broadcast to S, beside S itself: one element, 1 in the last
/// and in the first dimension, and S without its first dimension (rank >= 2).
template <class S>
using broadcast_forms_t = mp::mp_unique<mp::mp_append<
    mp::mp_list<ones_t<S>, one_at_t<S, S::rank() - 1>, one_at_t<S, 0>>,
    std::conditional_t<(S::rank() >= 2), mp::mp_list<drop_first_t<S>>, mp::mp_list<>>>>;

/// Shapes with size-1 dimensions in every position, rank 1 to 3 ((R, 1), (1, C), (1, 1),
/// (R, 1, C), (1, R, C), (R, C, 1), two of them at once), and two without.
using unit_shapes = mp::mp_list<pl::shape<1>, pl::shape<5>, pl::shape<128, 1>, pl::shape<1, 7>,
                                pl::shape<1, 1>, pl::shape<4, 6>, pl::shape<4, 1, 6>,
                                pl::shape<1, 4, 6>, pl::shape<4, 6, 1>, pl::shape<3, 1, 1>>;

/// The shapes each operator is swept over (the operators share the walk that unit_shapes
/// sweeps in full): a size-1 dimension in every position, rank 1 to 3 (rank 1 both as
/// the one-element (1) and as (5)).
using op_shapes = mp::mp_list<pl::shape<1>, pl::shape<5>, pl::shape<128, 1>, pl::shape<1, 7>,
                              pl::shape<1, 1>, pl::shape<4, 1, 6>, pl::shape<1, 4, 6>,
                              pl::shape<4, 6, 1>>;

}  // namespace unit_dims
