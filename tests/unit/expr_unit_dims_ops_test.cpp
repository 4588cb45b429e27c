// Every binary operator and function (f32, i32, bool) on blocks with size-1 dimensions in
// every position (rank 1 to 3), on every layout of unit_dims_support.hpp (dense, sliced
// out of a bigger poisoned buffer, column-major, both), against a naive loop with plain C++
// scalar arithmetic.
//
// The bug this guards against: a flat walk over a contiguous (R, 1) block read every row
// at row 0, because a child of the block's own shape was treated as broadcast along the
// last dimension (its extent is 1).
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

/// Every binary operator and function of dtype T on operands of shapes SA and SB.
template <class SA, class SB>
void sweep_ops() {
  using F = float;
  using I = int32_t;
  domain const any = domain::any, nz = domain::nonzero, pos = domain::positive, sh = domain::shift;
  // float arithmetic
  check_binary<F, SA, F, SB>("f32 +", [](auto x, auto y) { return x + y; }, [](F a, F b) { return a + b; });
  check_binary<F, SA, F, SB>("f32 -", [](auto x, auto y) { return x - y; }, [](F a, F b) { return a - b; });
  check_binary<F, SA, F, SB>("f32 *", [](auto x, auto y) { return x * y; }, [](F a, F b) { return a * b; });
  check_binary<F, SA, F, SB>("f32 /", [](auto x, auto y) { return x / y; }, [](F a, F b) { return a / b; }, any, nz);
  check_binary<F, SA, F, SB>("f32 %", [](auto x, auto y) { return x % y; }, float_mod, any, nz);
  check_binary<F, SA, F, SB>("f32 maximum", [](auto x, auto y) { return pl::maximum(x, y); },
                             [](F a, F b) { return a > b ? a : b; });
  check_binary<F, SA, F, SB>("f32 minimum", [](auto x, auto y) { return pl::minimum(x, y); },
                             [](F a, F b) { return a < b ? a : b; });
  check_binary<F, SA, F, SB>("f32 pow", [](auto x, auto y) { return pl::pow(x, y); },
                             [](F a, F b) { return std::pow(a, b); }, pos, any);
  check_binary<F, SA, F, SB>("f32 floor_divide", [](auto x, auto y) { return pl::floor_divide(x, y); },
                             [](F a, F b) { return std::floor(a / b); }, any, nz);
  // comparisons (bool results)
  check_binary<F, SA, F, SB>("f32 ==", [](auto x, auto y) { return x == y; }, [](F a, F b) { return a == b; });
  check_binary<F, SA, F, SB>("f32 !=", [](auto x, auto y) { return x != y; }, [](F a, F b) { return a != b; });
  check_binary<F, SA, F, SB>("f32 <", [](auto x, auto y) { return x < y; }, [](F a, F b) { return a < b; });
  check_binary<F, SA, F, SB>("f32 <=", [](auto x, auto y) { return x <= y; }, [](F a, F b) { return a <= b; });
  check_binary<F, SA, F, SB>("f32 >", [](auto x, auto y) { return x > y; }, [](F a, F b) { return a > b; });
  check_binary<F, SA, F, SB>("f32 >=", [](auto x, auto y) { return x >= y; }, [](F a, F b) { return a >= b; });
  // integer arithmetic, bitwise, shifts
  check_binary<I, SA, I, SB>("i32 +", [](auto x, auto y) { return x + y; }, [](I a, I b) { return a + b; });
  check_binary<I, SA, I, SB>("i32 -", [](auto x, auto y) { return x - y; }, [](I a, I b) { return a - b; });
  check_binary<I, SA, I, SB>("i32 *", [](auto x, auto y) { return x * y; }, [](I a, I b) { return a * b; });
  check_binary<I, SA, I, SB>("i32 / (floor)", [](auto x, auto y) { return x / y; }, floor_div, any, nz);
  check_binary<I, SA, I, SB>("i32 %", [](auto x, auto y) { return x % y; }, floor_mod, any, nz);
  check_binary<I, SA, I, SB>("i32 true_divide", [](auto x, auto y) { return pl::true_divide(x, y); },
                             [](I a, I b) { return static_cast<F>(a) / static_cast<F>(b); }, any, nz);
  check_binary<I, SA, I, SB>("i32 pow", [](auto x, auto y) { return pl::power(x, y); },
                             [](I a, I b) {
                               I r = 1;
                               for (I k = 0; k < b; ++k) r *= a;
                               return r;
                             },
                             pos, sh);
  check_binary<I, SA, I, SB>("i32 &", [](auto x, auto y) { return x & y; }, [](I a, I b) { return a & b; });
  check_binary<I, SA, I, SB>("i32 |", [](auto x, auto y) { return x | y; }, [](I a, I b) { return a | b; });
  check_binary<I, SA, I, SB>("i32 ^", [](auto x, auto y) { return x ^ y; }, [](I a, I b) { return a ^ b; });
  check_binary<I, SA, I, SB>("i32 <<", [](auto x, auto y) { return x << y; }, [](I a, I b) { return a << b; }, any, sh);
  check_binary<I, SA, I, SB>("i32 >>", [](auto x, auto y) { return x >> y; }, [](I a, I b) { return a >> b; }, any, sh);
  check_binary<I, SA, I, SB>("i32 maximum", [](auto x, auto y) { return pl::maximum(x, y); },
                             [](I a, I b) { return a > b ? a : b; });
  check_binary<I, SA, I, SB>("i32 minimum", [](auto x, auto y) { return pl::minimum(x, y); },
                             [](I a, I b) { return a < b ? a : b; });
  check_binary<I, SA, I, SB>("i32 <", [](auto x, auto y) { return x < y; }, [](I a, I b) { return a < b; });
  // logical
  check_binary<bool, SA, bool, SB>("logical_and", [](auto x, auto y) { return pl::logical_and(x, y); },
                                   [](bool a, bool b) { return a && b; });
  check_binary<bool, SA, bool, SB>("logical_or", [](auto x, auto y) { return pl::logical_or(x, y); },
                                   [](bool a, bool b) { return a || b; });
  check_binary<bool, SA, bool, SB>("logical_xor", [](auto x, auto y) { return pl::logical_xor(x, y); },
                                   [](bool a, bool b) { return a != b; });
}

}  // namespace

TEST_CASE("every binary op on blocks with size-1 dimensions, every layout, matches a naive loop",
          "[expr][unit_dims]") {
  mp::mp_for_each<mp::mp_transform<mp::mp_identity, op_shapes>>(
      [](auto s) { using S = typename decltype(s)::type; sweep_ops<S, S>(); });
}
