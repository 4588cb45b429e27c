// Checked mode sees block reads and stores (x[pl::ellipsis]) that race with a copy in
// flight: reading or storing a copy's destination, or storing its source, before its wait.

#include <catch2/catch.hpp>

#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

namespace {
using mesh = pltpu::TensorCoreMesh<"core", 1>;
using scratch = decltype(pl::scratch_types<pltpu::VMEM<float, 8, 128>, pltpu::VMEM<float, 8, 128>, pltpu::SemaphoreType::DMA<>>);

// Copies x into a VMEM buffer and runs `between` before the copy's wait.
template <class Between>
pl::Array<float, 8, 128> run(Between between) {
  auto x = pl::Array<float, 8, 128>::full(1.0f);
  auto k = pl::kernel(pl::like(x), pl::mesh<mesh>, scratch{})([&](auto x_hbm, auto o_hbm, auto buf, auto other, auto sem) {
    other[pl::ellipsis] = pl::zeros_like(other);
    auto copy = pltpu::make_async_copy(x_hbm, buf, sem);
    copy.start();
    between(buf, other);
    copy.wait();
    other[pl::ellipsis] += buf[pl::ellipsis];
    pltpu::sync_copy(other, o_hbm);
  });
  return k(x);
}
}  // namespace

TEST_CASE("checked mode: block reads and stores of a copy's destination before its wait are races", "[checked][block]") {
  auto ok = run([](auto, auto other) { other[pl::ellipsis] = other[pl::ellipsis] + 1.0f; });
  REQUIRE(ok(3, 5) == 2.0f);  // unrelated buffers: no race
  if constexpr (pl::checked_mode) {
    REQUIRE_THROWS_AS(run([](auto buf, auto other) { other[pl::ellipsis] = buf[pl::ellipsis]; }), pl::race_error);
    REQUIRE_THROWS_AS(run([](auto buf, auto) { buf[pl::ellipsis] = pl::zeros_like(buf); }), pl::race_error);
  }
}

TEST_CASE("checked mode: a block store into a copy's source before its wait is a race", "[checked][block]") {
  auto x = pl::Array<float, 8, 128>::full(1.0f);
  auto k = pl::kernel(pl::like(x), pl::mesh<mesh>, scratch{})([](auto, auto o_hbm, auto src, auto, auto sem) {
    src[pl::ellipsis] = pl::full_like(src, 2.0f);
    auto copy = pltpu::make_async_copy(src, o_hbm, sem);
    copy.start();
    src[pl::ellipsis] = pl::full_like(src, 3.0f);  // the copy may not have read src yet
    copy.wait();
  });
  if constexpr (pl::checked_mode)
    REQUIRE_THROWS_WITH(k(x), Catch::Contains("source") && Catch::Contains("block store"));
}
