// Checked mode sees block reads and stores (x[pl::ellipsis]) that race with a copy in
// flight: reading or storing a copy's destination, or storing its source, before its wait.

#include <string>

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

TEST_CASE("checked mode: a racy block read or store names the line of x[pl::ellipsis]", "[checked][block]") {
  if constexpr (pl::checked_mode) {
    int line = 0;
    auto message_of = [](auto&& f) -> std::string {
      try {
        f();
      } catch (pl::race_error const& e) {
        return e.what();
      }
      return "no race_error";
    };
    auto const read = message_of([&] {
      run([&](auto buf, auto other) {
        line = __LINE__ + 1;
        other[pl::ellipsis] = buf[pl::ellipsis];
      });
    });
    CHECK_THAT(read, Catch::Contains("a block read or store (x[pl::ellipsis]) of 4096 bytes at VMEM+0 (block_race_test.cpp:" +
                                     std::to_string(line) + ")"));
    // A store into a copy's source: the view is taken and stored on the user's line.
    auto x = pl::Array<float, 8, 128>::full(1.0f);
    int store_line = 0;
    auto const store = message_of([&] {
      pl::kernel(pl::like(x), pl::mesh<mesh>, scratch{})([&](auto, auto o_hbm, auto src, auto, auto sem) {
        src[pl::ellipsis] = pl::full_like(src, 2.0f);
        auto copy = pltpu::make_async_copy(src, o_hbm, sem);
        copy.start();
        store_line = __LINE__ + 1;
        src[pl::ellipsis] = pl::full_like(src, 3.0f);
        copy.wait();
      })(x);
    });
    CHECK_THAT(store, Catch::Contains("a block store (o[pl::ellipsis] = ...) of 4096 bytes at VMEM+0 (block_race_test.cpp:" +
                                      std::to_string(store_line) + ")"));
  }
}
