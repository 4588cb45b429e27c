// Asynchronous copies: make_async_copy / async_copy descriptors, DMA semaphores counting
// bytes, shared semaphores, wait-only descriptors, semaphore arrays, every direction and a
// few dtypes and strides, under every DMA schedule. Each result is compared with a plain
// loop over the same indices.
#include <pallas/pallas.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

namespace {

template <class T, pl::index_t... D>
pl::Array<T, D...> iota_array(int offset = 0) {
  pl::Array<T, D...> a;
  pl::index_t const n = (pl::index_t{1} * ... * D);
  for (pl::index_t k = 0; k < n; ++k) a.data()[k] = static_cast<T>(static_cast<float>((k + offset) % 101));
  return a;
}

std::vector<pltpu::dma_schedule> all_schedules() {
  std::vector<pltpu::dma_schedule> s{{pltpu::dma_execution_mode::on_wait, 0, true},
                                     {pltpu::dma_execution_mode::eager, 0, true}};
  for (std::uint64_t seed = 1; seed <= 6; ++seed) s.push_back({pltpu::dma_execution_mode::random, seed, true});
  return s;
}

std::string name(pltpu::dma_schedule const& s) {
  return s.mode == pltpu::dma_execution_mode::on_wait ? "on_wait"
         : s.mode == pltpu::dma_execution_mode::eager ? "eager"
                                                      : "random seed " + std::to_string(s.seed);
}

}  // namespace

TEST_CASE("async_copy: start and wait move HBM -> VMEM -> HBM, under every schedule", "[async_copy]") {
  auto const x = iota_array<float, 16, 128>();
  for (auto const& schedule : all_schedules()) {
    INFO(name(schedule));
    pltpu::scoped_dma_schedule use(schedule);
    auto out = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 16, 128>>,
                          pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                          pl::scratch_types<pltpu::VMEM<float, 16, 128>, pltpu::SemaphoreType::DMA<2>>)(
        [](auto x_hbm, auto o_hbm, auto buf, auto sems) {
          auto in = pltpu::make_async_copy(x_hbm, buf, sems.at(0));
          in.start();
          in.wait();
          for (int i = 0; i < 16; ++i)
            for (int j = 0; j < 128; ++j) buf(i, j) = buf(i, j) * 2.0f;
          pltpu::async_copy(buf, o_hbm, sems.at(1)).wait();
        })(x);
    bool same = true;
    for (int i = 0; i < 16 * 128; ++i) same &= out.data()[i] == x.data()[i] * 2.0f;
    CHECK(same);
  }
}

TEST_CASE("async_copy: a DMA semaphore counts the bytes of completed copies", "[async_copy]") {
  auto const x = iota_array<float, 8, 128>();
  std::vector<std::int32_t> seen;
  auto kernel = pl::kernel(pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                           pl::scratch_types<pltpu::VMEM<float, 8, 128>, pltpu::SemaphoreType::DMA<>>)(
      [&](auto x_hbm, auto buf, auto sem) {
        auto copy = pltpu::make_async_copy(x_hbm, buf, sem);
        CHECK(copy.bytes() == 8 * 128 * 4);
        copy.start();
        seen.push_back(pl::semaphore_read(sem));
        copy.wait();
        seen.push_back(pl::semaphore_read(sem));  // a completed wait leaves 0
      });
  {
    pltpu::scoped_dma_schedule eager({pltpu::dma_execution_mode::eager});
    kernel(x);  // the bytes moved at start: the semaphore holds them until the wait
  }
  CHECK(seen == std::vector<std::int32_t>{4096, 0});
  seen.clear();
  {
    pltpu::scoped_dma_schedule on_wait({pltpu::dma_execution_mode::on_wait});
    kernel(x);  // the bytes move at the wait
  }
  CHECK(seen == std::vector<std::int32_t>{0, 0});
}

TEST_CASE("async_copy: several copies share one semaphore, each wait consumes one copy's bytes",
          "[async_copy]") {
  auto const x = iota_array<float, 16, 128>();
  for (auto const& schedule : all_schedules()) {
    INFO(name(schedule));
    pltpu::scoped_dma_schedule use(schedule);
    auto out = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 16, 128>>,
                          pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                          pl::scratch_types<pltpu::VMEM<float, 16, 128>, pltpu::SemaphoreType::DMA<>>)(
        [](auto x_hbm, auto o_hbm, auto buf, auto sem) {
          // Pallas' test: two 8-row copies on one semaphore, then two waits.
          auto top = pltpu::make_async_copy(x_hbm.at(pl::ds<8>(0)), buf.at(pl::ds<8>(0)), sem);
          auto bottom = pltpu::make_async_copy(x_hbm.at(pl::ds<8>(8)), buf.at(pl::ds<8>(8)), sem);
          top.start();
          bottom.start();
          top.wait();
          bottom.wait();
          pltpu::sync_copy(buf, o_hbm);
        })(x);
    bool same = true;
    for (int i = 0; i < 16 * 128; ++i) same &= out.data()[i] == x.data()[i];
    CHECK(same);
  }
}

TEST_CASE("async_copy: a descriptor made only to wait waits for a copy started elsewhere", "[async_copy]") {
  auto const x = iota_array<std::int32_t, 8, 128>(3);
  auto out = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<std::int32_t, 8, 128>>,
                        pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                        pl::scratch_types<pltpu::VMEM<std::int32_t, 8, 128>, pltpu::SemaphoreType::DMA<>>)(
      [](auto x_hbm, auto o_hbm, auto buf, auto sem) {
        auto start_it = [&] { pltpu::async_copy(x_hbm, buf, sem); };  // the descriptor is dropped
        start_it();
        pltpu::make_async_copy(buf, buf, sem).wait();  // same byte count, never started
        pltpu::sync_copy(buf, o_hbm);
      })(x);
  bool same = true;
  for (int i = 0; i < 8 * 128; ++i) same &= out.data()[i] == x.data()[i];
  CHECK(same);
}

TEST_CASE("async_copy: the wait amount comes from the descriptor: two half waits for one copy",
          "[async_copy]") {
  auto const x = iota_array<float, 8, 128>(1);
  std::vector<std::int32_t> seen;
  auto out = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 8, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                        pl::scratch_types<pltpu::VMEM<float, 8, 128>, pltpu::SemaphoreType::DMA<>>)(
      [&](auto x_hbm, auto o_hbm, auto buf, auto sem) {
        pltpu::async_copy(x_hbm, buf, sem);
        auto half = pltpu::make_async_copy(x_hbm.at(pl::ds<4>(0)), buf.at(pl::ds<4>(0)), sem);
        half.wait();
        seen.push_back(pl::semaphore_read(sem));
        half.wait();
        seen.push_back(pl::semaphore_read(sem));
        pltpu::sync_copy(buf, o_hbm);
      })(x);
  CHECK(seen == std::vector<std::int32_t>{2048, 0});
  bool same = true;
  for (int i = 0; i < 8 * 128; ++i) same &= out.data()[i] == x.data()[i];
  CHECK(same);
}

TEST_CASE("async_copy: strided views, rank 3, SMEM, VMEM -> VMEM, HBM -> HBM and several dtypes",
          "[async_copy]") {
  for (auto const& schedule : all_schedules()) {
    INFO(name(schedule));
    pltpu::scoped_dma_schedule use(schedule);

    // A column block of a row-major array into VMEM, and back into the other columns.
    auto const x = iota_array<float, 16, 256>();
    auto cols = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 16, 256>>,
                           pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                           pl::scratch_types<pltpu::VMEM<float, 16, 128>, pltpu::SemaphoreType::DMA<2>>)(
        [](auto x_hbm, auto o_hbm, auto buf, auto sems) {
          pltpu::async_copy(x_hbm.at(pl::ellipsis, pl::ds<128>(128)), buf, sems.at(0)).wait();
          auto a = pltpu::async_copy(buf, o_hbm.at(pl::ellipsis, pl::ds<128>(0)), sems.at(0));
          auto b = pltpu::async_copy(x_hbm.at(pl::ellipsis, pl::ds<128>(0)), o_hbm.at(pl::ellipsis, pl::ds<128>(128)),
                                     sems.at(1));  // HBM -> HBM
          b.wait();
          a.wait();
        })(x);
    bool swapped = true;
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 256; ++j) swapped &= cols.data()[i * 256 + j] == x.data()[i * 256 + (j + 128) % 256];
    CHECK(swapped);

    // Rank 3 with an integer index (a leading dim dropped) into SMEM, then VMEM -> VMEM.
    auto const y = iota_array<std::int32_t, 4, 8, 16>(5);
    auto r3 = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<std::int32_t, 8, 16>>,
                         pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                         pl::scratch_types<pltpu::SMEM<std::int32_t, 8, 16>, pltpu::VMEM<std::int32_t, 2, 8, 16>,
                                           pltpu::SemaphoreType::DMA<>>)(
        [](auto y_hbm, auto o_hbm, auto s, auto v, auto sem) {
          pltpu::async_copy(y_hbm.at(2), s, sem).wait();
          pltpu::async_copy(s, v.at(1), sem).wait();
          pltpu::async_copy(v.at(1), v.at(0), sem).wait();
          pltpu::async_copy(v.at(0), o_hbm, sem).wait();
        })(y);
    bool same3 = true;
    for (int i = 0; i < 8 * 16; ++i) same3 &= r3.data()[i] == y.data()[2 * 8 * 16 + i];
    CHECK(same3);

    // bfloat16, int8 and bool, one row of each.
    auto const h = iota_array<pl::bfloat16, 4, 128>();
    auto const c = iota_array<std::int8_t, 4, 128>();
    pl::Array<bool, 4, 128> flags;
    for (int i = 0; i < 4 * 128; ++i) flags.data()[i] = i % 3 == 0;
    auto [h2, c2, f2] = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<pl::bfloat16, 128>, pl::ShapeDtypeStruct<std::int8_t, 128>,
                                                pl::ShapeDtypeStruct<bool, 128>>,
                                   pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                                   pl::scratch_types<pltpu::SemaphoreType::DMA<3>>)(
        [](auto hi, auto ci, auto fi, auto ho, auto co, auto fo, auto sems) {
          auto a = pltpu::async_copy(hi.at(3), ho, sems.at(0));
          auto b = pltpu::async_copy(ci.at(1), co, sems.at(1));
          auto d = pltpu::async_copy(fi.at(2), fo, sems.at(2));
          d.wait();
          b.wait();
          a.wait();
        })(h, c, flags);
    bool ok = true;
    for (int j = 0; j < 128; ++j) {
      ok &= static_cast<float>(h2.data()[j]) == static_cast<float>(h.data()[3 * 128 + j]);
      ok &= c2.data()[j] == c.data()[128 + j];
      ok &= f2.data()[j] == flags.data()[2 * 128 + j];
    }
    CHECK(ok);
  }
}

TEST_CASE("async_copy: every core copies its own rows through its own VMEM", "[async_copy]") {
  auto const x = iota_array<float, 64, 128>(7);
  for (auto const& schedule : all_schedules()) {
    INFO(name(schedule));
    pltpu::scoped_dma_schedule use(schedule);
    // Under TSan, sync_copy once held a lock while waiting for its turn: the seeded
    // interleaving deadlocked and was given up after a second.
    auto const given_up_before = pallas::detail::interleavings_given_up().load();
    auto out = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 64, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 4>>,
                          pl::scratch_types<pltpu::VMEM<float, 2, 8, 128>, pltpu::SemaphoreType::DMA<2>>)(
        [](auto x_hbm, auto o_hbm, auto buf, auto sems) {
          auto const core = pl::axis_index<"core">();
          for (int b = 0; b < 2; ++b) {
            auto rows = pl::ds<8>((core * 2 + b) * 8);
            pltpu::async_copy(x_hbm.at(rows), buf.at(b), sems.at(b));
          }
          for (int b = 0; b < 2; ++b) {
            auto rows = pl::ds<8>((core * 2 + b) * 8);
            pltpu::make_async_copy(x_hbm.at(rows), buf.at(b), sems.at(b)).wait();
            pltpu::sync_copy(buf.at(b), o_hbm.at(rows));
          }
        })(x);
    bool same = true;
    for (int i = 0; i < 64 * 128; ++i) same &= out.data()[i] == x.data()[i];
    CHECK(same);
    CHECK(pallas::detail::interleavings_given_up().load() == given_up_before);
  }
}

TEST_CASE("async_copy: run-time shapes must agree", "[async_copy]") {
  pl::Array<float, pl::dyn, 128> x(16);
  for (int i = 0; i < 16 * 128; ++i) x.data()[i] = 1.0f;
  auto kernel = pl::kernel(pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                           pl::scratch_types<pltpu::VMEM<float, 8, 128>, pltpu::SemaphoreType::DMA<>>)(
      [](auto x_hbm, auto buf, auto sem) { pltpu::make_async_copy(x_hbm, buf, sem); });
  CHECK_THROWS_AS(kernel(x), pl::shape_error);
}

TEST_CASE("async_copy: outside a kernel it is an error", "[async_copy]") {
  pl::Array<float, 8> a;
  pltpu::semaphore<pltpu::semaphore_kind::dma> cell;
  pl::Ref<pltpu::semaphore<pltpu::semaphore_kind::dma>, pl::shape<>, pl::memory_space::semaphore> sem(&cell, pl::shape<>{});
  auto copy = pltpu::make_async_copy(a.ref(), a.ref(), sem);
  CHECK_THROWS_WITH(copy.start(), Catch::Matchers::Contains("called outside a kernel"));
}
