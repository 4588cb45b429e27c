// Every compound assignment (+= -= *= /= %= &= |= ^= <<= >>=) into blocks with size-1
// dimensions in every position (rank 1 to 3), on every layout of unit_dims_support.hpp,
// against a naive loop: with a value of the block's shape, an expression, and values that
// broadcast to the block (one element, 1 in the first or last dimension, a lower rank:
// numpy's in-place rule).
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

/// Every compound assignment with a value of shape SB.
template <class S, class SB>
void sweep_compound() {
  using F = float;
  using I = int32_t;
  domain const any = domain::any, nz = domain::nonzero, sh = domain::shift;
  check_compound<F, S, F, SB>("f32 +=", [](auto&& d, auto const& v) { d += v; }, [](F a, F b) { return a + b; });
  check_compound<F, S, F, SB>("f32 -=", [](auto&& d, auto const& v) { d -= v; }, [](F a, F b) { return a - b; });
  check_compound<F, S, F, SB>("f32 *=", [](auto&& d, auto const& v) { d *= v; }, [](F a, F b) { return a * b; });
  check_compound<F, S, F, SB>("f32 /=", [](auto&& d, auto const& v) { d /= v; }, [](F a, F b) { return a / b; }, any, nz);
  check_compound<F, S, F, SB>("f32 %=", [](auto&& d, auto const& v) { d %= v; }, float_mod, any, nz);
  check_compound<I, S, I, SB>("i32 +=", [](auto&& d, auto const& v) { d += v; }, [](I a, I b) { return a + b; });
  check_compound<I, S, I, SB>("i32 -=", [](auto&& d, auto const& v) { d -= v; }, [](I a, I b) { return a - b; });
  check_compound<I, S, I, SB>("i32 *=", [](auto&& d, auto const& v) { d *= v; }, [](I a, I b) { return a * b; });
  check_compound<I, S, I, SB>("i32 /=", [](auto&& d, auto const& v) { d /= v; }, floor_div, any, nz);
  check_compound<I, S, I, SB>("i32 %=", [](auto&& d, auto const& v) { d %= v; }, floor_mod, any, nz);
  check_compound<I, S, I, SB>("i32 &=", [](auto&& d, auto const& v) { d &= v; }, [](I a, I b) { return a & b; });
  check_compound<I, S, I, SB>("i32 |=", [](auto&& d, auto const& v) { d |= v; }, [](I a, I b) { return a | b; });
  check_compound<I, S, I, SB>("i32 ^=", [](auto&& d, auto const& v) { d ^= v; }, [](I a, I b) { return a ^ b; });
  check_compound<I, S, I, SB>("i32 <<=", [](auto&& d, auto const& v) { d <<= v; }, [](I a, I b) { return a << b; }, any, sh);
  check_compound<I, S, I, SB>("i32 >>=", [](auto&& d, auto const& v) { d >>= v; }, [](I a, I b) { return a >> b; }, any, sh);
  check_compound<bool, S, bool, SB>("bool &=", [](auto&& d, auto const& v) { d &= v; },
                                    [](bool a, bool b) { return a && b; });
  check_compound<bool, S, bool, SB>("bool |=", [](auto&& d, auto const& v) { d |= v; },
                                    [](bool a, bool b) { return a || b; });
  check_compound<bool, S, bool, SB>("bool ^=", [](auto&& d, auto const& v) { d ^= v; },
                                    [](bool a, bool b) { return a != b; });
  // an expression as the value
  check_compound<F, S, F, SB>("f32 += 2 * v - 1", [](auto&& d, auto const& v) { d += 2 * v - 1; },
                              [](F a, F b) { return a + (2 * b - 1); });
}

/// Compound assignments whose value broadcasts to the block (numpy's in-place rule; every
/// operator shares the broadcasting walk, sweep_compound covers the operators).
template <class S, class SB>
void sweep_compound_broadcast() {
  using F = float;
  using I = int32_t;
  check_compound<F, S, F, SB>("f32 *= (broadcast)", [](auto&& d, auto const& v) { d *= v; },
                              [](F a, F b) { return a * b; });
  check_compound<I, S, I, SB>("i32 %= (broadcast)", [](auto&& d, auto const& v) { d %= v; }, floor_mod,
                              domain::any, domain::nonzero);
  check_compound<F, S, F, SB>("f32 -= maximum(v, 0) * 2 (broadcast expression)",
                              [](auto&& d, auto const& v) { d -= pl::maximum(v, 0) * 2; },
                              [](F a, F b) { return a - (b > 0 ? b : 0.0f) * 2; });
}

}  // namespace

TEST_CASE("compound assignments into blocks with size-1 dimensions match a naive loop",
          "[expr][unit_dims]") {
  mp::mp_for_each<mp::mp_transform<mp::mp_identity, op_shapes>>(
      [](auto s) { sweep_compound<typename decltype(s)::type, typename decltype(s)::type>(); });
  mp::mp_for_each<mp::mp_transform<mp::mp_identity, unit_shapes>>([](auto s) {
    using S = typename decltype(s)::type;
    mp::mp_for_each<mp::mp_transform<mp::mp_identity, broadcast_forms_t<S>>>(
        [](auto form) { sweep_compound_broadcast<S, typename decltype(form)::type>(); });
  });
}
