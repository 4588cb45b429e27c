// astype between every pair of dtypes, against pallas::convert (tested by dtype_test) and
// hand-written expectations for the rules: RNE into bf16/f16, truncation to integers,
// NaN -> 0 and saturation, integer wrap-around, x != 0 to bool.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

// Only the block-compute headers: cheaper to compile than pallas.hpp.
#include <pallas/expr/astype.hpp>
#include <pallas/expr/block.hpp>

namespace pl = pallas;
namespace mp = boost::mp11;

namespace {

using dtypes = mp::mp_list<bool, std::int8_t, std::int16_t, std::int32_t, std::uint32_t,
                           pl::bfloat16, pl::float16, float>;

float const values[] = {0.0f, -0.0f, 1.0f, -1.0f, 2.5f, -2.5f, 3.7f, -3.7f, 127.0f, 128.0f,
                        -129.0f, 255.5f, 65504.0f, 70000.0f, 3e9f, -3e9f, 1e-6f,
                        std::numeric_limits<float>::infinity(),
                        -std::numeric_limits<float>::infinity(),
                        std::numeric_limits<float>::quiet_NaN()};
constexpr int count = sizeof(values) / sizeof(values[0]);

template <class T>
bool same(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return a == b;
  } else {
    float const x = static_cast<float>(a), y = static_cast<float>(b);
    return (x != x && y != y) || x == y;
  }
}

}  // namespace

TEST_CASE("astype between every pair of dtypes", "[expr][astype]") {
  mp::mp_for_each<dtypes>([](auto from) {
    using From = decltype(from);
    pl::block<From, pl::shape<count>> src;
    for (int i = 0; i < count; ++i) src(i) = pl::convert<From>(values[i]);
    mp::mp_for_each<dtypes>([&](auto to) {
      using To = decltype(to);
      auto out = pl::astype<To>(src).eval();
      STATIC_REQUIRE(std::is_same_v<typename decltype(out)::value_type, To>);
      for (int i = 0; i < count; ++i) {
        INFO(pl::dtype_traits<From>::name << " -> " << pl::dtype_traits<To>::name << ", value " << values[i]);
        CHECK(same(out(i), pl::convert<To>(src(i))));
      }
    });
  });
}

TEST_CASE("astype rules by hand", "[expr][astype]") {
  pl::block<float, pl::shape<6>> x;
  float const xs[6] = {2.9f, -2.9f, std::numeric_limits<float>::quiet_NaN(), 1e10f, -1e10f, 0.5f};
  for (int i = 0; i < 6; ++i) x(i) = xs[i];
  auto i = x.astype<std::int32_t>().eval();
  CHECK(i(0) == 2);
  CHECK(i(1) == -2);
  CHECK(i(2) == 0);
  CHECK(i(3) == std::numeric_limits<std::int32_t>::max());
  CHECK(i(4) == std::numeric_limits<std::int32_t>::min());
  auto b = x.astype<bool>().eval();
  CHECK(b(2));
  CHECK(b(5));
  // int -> int8 wraps
  pl::block<std::int32_t, pl::shape<2>> n;
  n(0) = 200, n(1) = -129;
  auto w = pl::astype<std::int8_t>(n).eval();
  CHECK(w(0) == -56);
  CHECK(w(1) == 127);
  // f32 -> bf16 rounds to nearest even: 1 + 2^-8 ties to 1, 1 + 3 * 2^-8 ties to 1 + 2^-6
  pl::block<float, pl::shape<3>> r;
  r(0) = 1.0f + 0x1p-8f, r(1) = 1.0f + 3 * 0x1p-8f, r(2) = 1.0f + 0x1p-8f + 0x1p-20f;
  auto h = pl::astype<pl::bfloat16>(r).eval();
  CHECK(static_cast<float>(h(0)) == 1.0f);
  CHECK(static_cast<float>(h(1)) == 1.0f + 0x1p-6f);
  CHECK(static_cast<float>(h(2)) == 1.0f + 0x1p-7f);
  // weak scalars convert too
  auto s = pl::astype<pl::float16>(3).eval();
  STATIC_REQUIRE(std::is_same_v<decltype(s), pl::block<pl::float16, pl::shape<>>>);
  CHECK(static_cast<float>(s.item()) == 3.0f);
}
