// Smoke test of the build: the umbrella header compiles in the test configuration
// (warnings as errors, PALLAS_CHECKED=1) and basic shape arithmetic holds.
#include <pallas/pallas.hpp>

#include <catch2/catch.hpp>

namespace pl = pallas;

TEST_CASE("smoke: the umbrella header works in the test build", "[smoke]") {
  STATIC_REQUIRE(pl::shape<2, 3>::static_size() == 6);
  STATIC_REQUIRE(pl::checked_mode);
  pl::shape<pl::dyn, 128> const s(8);
  CHECK(s.size() == 8 * 128);
  CHECK(s.extent(0) == 8);
  CHECK(s.extent(1) == 128);
}
