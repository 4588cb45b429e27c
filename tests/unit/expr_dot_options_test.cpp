// pl::dot / pl::dot_general with pl::precision<...> (DEFAULT, HIGH, HIGHEST, one per
// operand), alone and with the other options: accepted, and the products are those of the
// same call without it, equal to a naive loop on small integers (exact in f32).
#include <catch2/catch.hpp>

#include <cstdint>
#include <type_traits>

#include <pallas/block_view.hpp>
#include <pallas/dot.hpp>
#include <pallas/expr/creation.hpp>
#include <pallas/expr/elementwise.hpp>

namespace pl = pallas;
using pl::index_t;

namespace {

constexpr index_t M = 16, K = 24, N = 8;

template <class B>
bool equal(B const& a, B const& b) {
  for (index_t i = 0; i < a.size(); ++i)
    if (a.data()[i] != b.data()[i]) return false;
  return true;
}

}  // namespace

TEST_CASE("pl::precision is accepted by pl::dot and pl::dot_general and does not change results",
          "[dot][precision]") {
  using P = pl::Precision;
  pl::block<float, pl::shape<M, K>> x = (pl::iota<float, pl::shape<M, K>>(0) * 3 + pl::iota<float, pl::shape<M, K>>(1)) % 7 - 3;
  pl::block<float, pl::shape<K, N>> y = (pl::iota<float, pl::shape<K, N>>(0) + pl::iota<float, pl::shape<K, N>>(1) * 5) % 9 - 4;
  pl::block<float, pl::shape<M, N>> naive;
  for (index_t i = 0; i < M; ++i)
    for (index_t j = 0; j < N; ++j) {
      float s = 0;
      for (index_t k = 0; k < K; ++k) s += x(i, k) * y(k, j);
      naive(i, j) = s;
    }
  pl::block<float, pl::shape<M, N>> const plain = pl::dot(x, y);
  REQUIRE(equal(plain, naive));
  pl::block<float, pl::shape<M, N>> const highest = pl::dot(x, y, pl::precision<P::HIGHEST>);
  pl::block<float, pl::shape<M, N>> const deflt = pl::dot(x, y, pl::precision<P::DEFAULT>);
  pl::block<float, pl::shape<M, N>> const high = pl::dot(x[pl::ellipsis], y[pl::ellipsis], pl::precision<P::HIGH>);
  pl::block<float, pl::shape<M, N>> const pair = pl::dot(x, y, pl::precision<P::HIGHEST, P::DEFAULT>);
  CHECK(equal(highest, naive));
  CHECK(equal(deflt, naive));
  CHECK(equal(high, naive));
  CHECK(equal(pair, naive));

  // with the other options, in any order
  pl::block<pl::bfloat16, pl::shape<N, K>> yt = pl::astype<pl::bfloat16>(pl::transpose(y));
  pl::block<pl::bfloat16, pl::shape<M, K>> xb = pl::astype<pl::bfloat16>(x);
  auto const d = pl::dot(xb, yt, pl::precision<P::HIGHEST>, pl::trans_b, pl::preferred_element_type<float>);
  STATIC_REQUIRE(std::is_same_v<typename decltype(d)::value_type, float>);
  pl::block<float, pl::shape<M, N>> const dv = d;
  CHECK(equal(dv, naive));
  pl::block<float, pl::shape<M, N>> const g =
      pl::dot_general(x, y, pl::contracting_dims<1, 0>, pl::precision<P::DEFAULT>, pl::preferred_element_type<float>);
  CHECK(equal(g, naive));
  pl::block<float, pl::shape<M, N>> acc = pl::zeros<float, pl::shape<M, N>>();
  acc[pl::ellipsis] += pl::dot(x, y, pl::precision<P::HIGHEST>);
  CHECK(equal(acc, naive));
}
