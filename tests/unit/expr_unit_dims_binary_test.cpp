// Broadcasting operands on blocks with size-1 dimensions in every position (rank 1 to 3),
// on every layout of unit_dims_support.hpp, against a naive loop: operands of every shape
// that broadcasts to the block (one element, 1 in the first or last dimension, a lower
// rank), an outer broadcast, scalars on either side, one view as both operands, pl::where
// and pl::select, transposed views; and the (128, 1) examples.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <string>

#include <boost/mp11/algorithm.hpp>

// Only the block-compute headers: cheaper to compile than pallas.hpp.
#include <pallas/block_view.hpp>
#include <pallas/expr/creation.hpp>
#include <pallas/expr/elementwise.hpp>
#include <pallas/expr/shape_ops.hpp>

#include "unit_dims_checks.hpp"
#include "unit_dims_support.hpp"

namespace {

using namespace unit_dims;
using std::int32_t;

/// Ops with operands of every shape that broadcasts to S, on either side (every op shares
/// the broadcasting walk; expr_unit_dims_ops_test.cpp sweeps the ops themselves).
template <class S, class B>
void sweep_broadcast_pair() {
  using F = float;
  using I = int32_t;
  check_binary<F, S, F, B>("f32 +", [](auto x, auto y) { return x + y; }, [](F a, F b) { return a + b; });
  check_binary<F, B, F, S>("f32 <", [](auto x, auto y) { return x < y; }, [](F a, F b) { return a < b; });
  check_binary<I, B, I, S>("i32 %", [](auto x, auto y) { return x % y; }, floor_mod, domain::any, domain::nonzero);
}

/// Scalars in both positions and self-operands, every op kind.
template <class S>
void sweep_scalars() {
  using F = float;
  using I = int32_t;
  check_scalar_and_self<F, S>("f32 +", [](auto x, auto y) { return x + y; }, [](F a, F b) { return a + b; }, 1.0f);
  check_scalar_and_self<F, S>("f32 *", [](auto x, auto y) { return x * y; }, [](F a, F b) { return a * b; }, 2.0f);
  check_scalar_and_self<F, S>("f32 maximum", [](auto x, auto y) { return pl::maximum(x, y); },
                              [](F a, F b) { return a > b ? a : b; }, 0.0f);
  check_scalar_and_self<F, S>("f32 >", [](auto x, auto y) { return x > y; }, [](F a, F b) { return a > b; }, 0.0f);
  check_scalar_and_self<I, S>("i32 +", [](auto x, auto y) { return x + y; }, [](I a, I b) { return a + b; }, 1);
  check_scalar_and_self<I, S>("i32 %", [](auto x, auto y) { return x % y; }, floor_mod, 3, domain::nonzero);
  check_scalar_and_self<I, S>("i32 <<", [](auto x, auto y) { return x << y; }, [](I a, I b) { return a << b; }, 2,
                              domain::shift);
}

/// where(c, a, b) with the condition, a and b each of shape S or broadcast, or scalars.
template <class S, class B>
void sweep_where() {
  using F = float;
  auto const sel = [](bool c, F a, F b) { return c ? a : b; };
  report rep{"where " + shape_name<S>() + " / " + shape_name<B>()};
  unsigned seed = 7;
  for (layout lc : all_layouts)
    for (layout la : all_layouts)
      for (layout lb : all_layouts)
        for (layout lo : all_layouts) {
          buffer<bool, S> const c(lc, seed++, domain::any);
          buffer<bool, B> const cb(lc, seed++, domain::any);
          buffer<F, S> const a(la, seed++, domain::any);
          buffer<F, B> const b(lb, seed++, domain::any);
          buffer<F, S> const o(lo, 0, domain::poison);
          std::string const where = std::string(name(lc)) + "/" + name(la) + "/" + name(lb) + " -> " + name(lo);
          o.ref()[pl::ellipsis] = pl::where(c.view(), a.view(), b.view());
          rep.add(where + " where(c, a, b_bcast)", compare(o, [&](auto const& i) {
                    return sel(c.at(i), a.at(i), b.at(broadcast_index<B>(i)));
                  }));
          o.ref()[pl::ellipsis] = pl::where(cb.view(), b.view(), a.view());
          rep.add(where + " where(c_bcast, b_bcast, a)", compare(o, [&](auto const& i) {
                    return sel(cb.at(broadcast_index<B>(i)), b.at(broadcast_index<B>(i)), a.at(i));
                  }));
          o.ref()[pl::ellipsis] = pl::where(c.view(), a.view(), 0.5f);
          rep.add(where + " where(c, a, 0.5)",
                  compare(o, [&](auto const& i) { return sel(c.at(i), a.at(i), 0.5f); }));
          o.ref()[pl::ellipsis] = pl::where(a.view() > 0.0f, a.view(), 2);
          rep.add(where + " where(a > 0, a, 2)",
                  compare(o, [&](auto const& i) { return a.at(i) > 0.0f ? a.at(i) : 2.0f; }));
          o.ref()[pl::ellipsis] = pl::select(c.view(), 1.0f, a.view());
          rep.add(where + " select(c, 1, a)",
                  compare(o, [&](auto const& i) { return sel(c.at(i), 1.0f, a.at(i)); }));
        }
  rep.check();
}

/// A transposed view as an operand: a + transpose(t) for t of the reversed shape.
template <class S>
void sweep_transpose() {
  using F = float;
  using T = reversed_t<S>;
  report rep{"x + transpose(t) " + shape_name<S>()};
  unsigned seed = 11;
  for (layout la : all_layouts)
    for (layout lt : all_layouts)
      for (layout lo : all_layouts) {
        buffer<F, S> const a(la, seed++, domain::any);
        buffer<F, T> const t(lt, seed++, domain::any);
        buffer<F, S> const o(lo, 0, domain::poison);
        auto const rev = [](auto const& i) {
          auto r = i;
          for (std::size_t k = 0; k < i.size(); ++k) r[k] = i[i.size() - 1 - k];
          return r;
        };
        std::string const where = std::string(name(la)) + "/" + name(lt) + " -> " + name(lo);
        o.ref()[pl::ellipsis] = a.view() + pl::transpose(t.view());
        rep.add(where, compare(o, [&](auto const& i) { return a.at(i) + t.at(rev(i)); }));
        o.ref()[pl::ellipsis] = pl::transpose(t.view()) * 2;
        rep.add(where + " (transpose(t) * 2)", compare(o, [&](auto const& i) { return t.at(rev(i)) * 2.0f; }));
      }
  rep.check();
}

template <class S>
void sweep_shape() {
  mp::mp_for_each<mp::mp_transform<mp::mp_identity, broadcast_forms_t<S>>>(
      [](auto form) { sweep_broadcast_pair<S, typename decltype(form)::type>(); });
  if constexpr (S::rank() >= 2)  // 1 in the last dimension against 1 in the first: an outer broadcast
    check_binary<float, one_at_t<S, S::rank() - 1>, float, one_at_t<S, 0>>(
        "f32 outer +", [](auto x, auto y) { return x + y; }, [](float a, float b) { return a + b; });
  sweep_scalars<S>();
  sweep_where<S, ones_t<S>>();
  sweep_where<S, one_at_t<S, S::rank() - 1>>();
  sweep_transpose<S>();
}

}  // namespace

TEST_CASE("broadcasting operands, scalars, where and transposes on blocks with size-1 dimensions",
          "[expr][unit_dims]") {
  mp::mp_for_each<mp::mp_transform<mp::mp_identity, unit_shapes>>(
      [](auto s) { sweep_shape<typename decltype(s)::type>(); });
}

TEST_CASE("the issue's (128, 1) examples: a + a, a * 2, a + 1, maximum(a, 0), where",
          "[expr][unit_dims]") {
  using S = pl::shape<128, 1>;
  buffer<float, S> const a(layout::dense, 5, domain::any);
  buffer<float, S> const o(layout::dense, 0, domain::poison);
  auto const v = a.values();
  auto expect = [&](auto f) {
    return compare(o, [&](auto const& i) { return f(v[static_cast<std::size_t>(i[0])]); });
  };
  o.ref()[pl::ellipsis] = a.view() + a.view();
  CHECK(expect([](float x) { return x + x; }) == "");
  o.ref()[pl::ellipsis] = a.view() * 2;
  CHECK(expect([](float x) { return x * 2; }) == "");
  o.ref()[pl::ellipsis] = a.view() + 1;
  CHECK(expect([](float x) { return x + 1; }) == "");
  o.ref()[pl::ellipsis] = pl::maximum(a.view(), 0);
  CHECK(expect([](float x) { return x > 0 ? x : 0.0f; }) == "");
  o.ref()[pl::ellipsis] = pl::where(a.view() > 0, a.view(), -a.view());
  CHECK(expect([](float x) { return x > 0 ? x : -x; }) == "");
  // the rows really differ (so row 0 everywhere would fail)
  CHECK(v[0] != v[1]);
}
