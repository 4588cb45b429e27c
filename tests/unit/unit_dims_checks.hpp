// SPDX-License-Identifier: Apache-2.0
#pragma once
// The checks of the size-1-dimension property tests (expr_unit_dims_*_test.cpp): each runs
// one operation over every layout combination of unit_dims_support.hpp and compares the
// result with a naive loop over the multi-index, reporting all failing combinations of a
// sweep in one assertion.

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <pallas/block_view.hpp>

#include "unit_dims_support.hpp"

namespace unit_dims {

using std::int32_t;

/// Python's // and % on integers (the divisor is never 0 here).
inline int32_t floor_div(int32_t a, int32_t b) {
  int32_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}
inline int32_t floor_mod(int32_t a, int32_t b) { return a - b * floor_div(a, b); }
inline float float_mod(float a, float b) {
  float m = std::fmod(a, b);
  if (m != 0.0f && ((m < 0.0f) != (b < 0.0f))) m += b;
  return m;
}

template <class S>
std::string shape_name() {
  std::ostringstream s;
  s << S{};
  return s.str();
}

/// Collects the failures of one sweep and reports them in one assertion.
struct report {
  explicit report(std::string w) : what(std::move(w)) {}
  std::string what;
  std::string failures;
  int count = 0;
  void add(std::string const& where, std::string const& err) {
    if (err.empty()) return;
    if (count++ < 4) failures += "\n  " + where + ": " + err;
  }
  void check() const {
    INFO(what << ": " << count << " failing layout combinations" << failures);
    CHECK(count == 0);
  }
};

/// o = make(a, b) for a of shape SA and b of shape SB, every layout of a, b and o.
template <class TA, class SA, class TB, class SB, class F, class G>
void check_binary(char const* what, F make, G reference, domain da = domain::any,
                  domain db = domain::any) {
  using E = decltype(make(std::declval<buffer<TA, SA> const&>().view(),
                          std::declval<buffer<TB, SB> const&>().view()));
  using R = typename E::value_type;
  using S = typename E::shape_type;
  report rep{std::string(what) + " " + shape_name<SA>() + " with " + shape_name<SB>()};
  unsigned seed = 1;
  for (layout la : all_layouts)
    for (layout lb : all_layouts)
      for (layout lo : all_layouts) {
        buffer<TA, SA> const a(la, seed++, da);
        buffer<TB, SB> const b(lb, seed++, db);
        buffer<R, S> const o(lo, 0, domain::poison);
        o.ref()[pl::ellipsis] = make(a.view(), b.view());
        rep.add(std::string(name(la)) + "/" + name(lb) + " -> " + name(lo),
                compare(o, [&](auto const& idx) {
                  return reference(a.at(broadcast_index<SA>(idx)), b.at(broadcast_index<SB>(idx)));
                }));
      }
  rep.check();
}

/// o = make(a, s) and o = make(s, a) for a C++ scalar s, and o = make(a, a) (one view twice).
template <class T, class S, class F, class G>
void check_scalar_and_self(char const* what, F make, G reference, T s, domain da = domain::any) {
  using R = typename decltype(make(std::declval<buffer<T, S> const&>().view(), s))::value_type;
  report rep{std::string(what) + " " + shape_name<S>() + " with a scalar and with itself"};
  unsigned seed = 100;
  for (layout la : all_layouts)
    for (layout lo : all_layouts) {
      buffer<T, S> const a(la, seed++, da);
      std::string const where = std::string(name(la)) + " -> " + name(lo);
      {
        buffer<R, S> const o(lo, 0, domain::poison);
        o.ref()[pl::ellipsis] = make(a.view(), s);
        rep.add(where + " (x op s)", compare(o, [&](auto const& idx) { return reference(a.at(idx), s); }));
      }
      {
        buffer<R, S> const o(lo, 0, domain::poison);
        o.ref()[pl::ellipsis] = make(s, a.view());
        rep.add(where + " (s op x)", compare(o, [&](auto const& idx) { return reference(s, a.at(idx)); }));
      }
      {
        buffer<R, S> const o(lo, 0, domain::poison);
        o.ref()[pl::ellipsis] = make(a.view(), a.view());
        rep.add(where + " (x op x)",
                compare(o, [&](auto const& idx) { return reference(a.at(idx), a.at(idx)); }));
      }
    }
  rep.check();
}

/// The row-major position of idx in static shape S.
template <class S>
std::size_t linear(std::array<index_t, S::rank()> const& idx) {
  index_t n = 0;
  for (std::size_t r = 0; r < S::rank(); ++r) n = n * S::static_extent(r) + idx[r];
  return static_cast<std::size_t>(n);
}

/// apply(d[...], b[...]) for d of shape S (dtype T) and b of shape SB, every layout of
/// both; d must then hold reference(old d, b) at every index.
template <class T, class S, class TB, class SB, class F, class G>
void check_compound(char const* what, F apply, G reference, domain dd = domain::any,
                    domain db = domain::any) {
  report rep{std::string(what) + " " + shape_name<S>() + " with " + shape_name<SB>()};
  unsigned seed = 3;
  for (layout ld : all_layouts)
    for (layout lb : all_layouts) {
      buffer<T, S> const d(ld, seed++, dd);
      buffer<TB, SB> const b(lb, seed++, db);
      std::vector<T> const old = d.values();
      apply(d.ref()[pl::ellipsis], b.view());
      rep.add(std::string(name(ld)) + " op= " + name(lb), compare(d, [&](auto const& i) {
                return reference(old[linear<S>(i)], b.at(broadcast_index<SB>(i)));
              }));
    }
  rep.check();
}

/// apply(d[...], s) for a scalar s, and apply(d[...], d[...]) (the destination itself).
template <class T, class S, class F, class G>
void check_compound_scalar_and_self(char const* what, F apply, G reference, T s,
                                    domain dd = domain::any) {
  report rep{std::string(what) + " " + shape_name<S>() + " with a scalar and with itself"};
  unsigned seed = 30;
  for (layout ld : all_layouts) {
    {
      buffer<T, S> const d(ld, seed++, dd);
      std::vector<T> const old = d.values();
      apply(d.ref()[pl::ellipsis], s);
      rep.add(std::string(name(ld)) + " op= scalar",
              compare(d, [&](auto const& i) { return reference(old[linear<S>(i)], s); }));
    }
    {
      buffer<T, S> const d(ld, seed++, dd);
      std::vector<T> const old = d.values();
      apply(d.ref()[pl::ellipsis], d.view());
      rep.add(std::string(name(ld)) + " op= itself", compare(d, [&](auto const& i) {
                return reference(old[linear<S>(i)], old[linear<S>(i)]);
              }));
    }
  }
  rep.check();
}

}  // namespace unit_dims
