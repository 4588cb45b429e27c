// Remote DMAs between chips (pltpu::make_async_remote_copy, remote semaphore signals) in a
// pl::shard_map launch: right permutes and ring all-gathers on 1, 2, 4 and 8 chips with 1
// and 2 cores per chip, HBM and VMEM destinations, MESH / named / LOGICAL device ids on 1-D
// and 2-D meshes, under every DMA order, each against a naive reference; and the misuse
// reports (ids out of range, deadlocks naming every chip's waiting core, leaks).
#include <pallas/pallas.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "../support/error_of.hpp"
#include "watchdog.hpp"

namespace pl = pallas;
namespace pltpu = pallas::tpu;

namespace {

using pallas_test::error_of;

using Catch::Matchers::Contains;

std::vector<pltpu::dma_schedule> all_schedules() {
  std::vector<pltpu::dma_schedule> s{{pltpu::dma_execution_mode::on_wait, 0, true},
                                     {pltpu::dma_execution_mode::eager, 0, true}};
  for (std::uint64_t seed = 1; seed <= 4; ++seed) s.push_back({pltpu::dma_execution_mode::random, seed, true});
  return s;
}

std::string name(pltpu::dma_schedule const& s) {
  return s.mode == pltpu::dma_execution_mode::on_wait ? "on_wait"
         : s.mode == pltpu::dma_execution_mode::eager ? "eager"
                                                      : "random seed " + std::to_string(s.seed);
}

template <pl::index_t R, pl::index_t C>
std::vector<pl::Array<float, R, C>> shards(int chips) {
  std::vector<pl::Array<float, R, C>> xs;
  for (int c = 0; c < chips; ++c) {
    pl::Array<float, R, C> x;
    for (pl::index_t k = 0; k < x.size(); ++k) x.data()[k] = static_cast<float>(c * 1000 + k % 997);
    xs.push_back(x);
  }
  return xs;
}

template <class A>
bool same(A const& a, A const& b) {
  for (pl::index_t k = 0; k < a.size(); ++k)
    if (a.data()[k] != b.data()[k]) return false;
  return true;
}

/// ppermute to the right: each core sends its 8 rows of its chip's shard to the same rows
/// of the next chip's output, HBM to HBM.
template <int Chips, int Cores>
void right_permute_hbm() {
  auto const xs = shards<8 * Cores, 128>(Chips);
  auto k = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 8 * Cores, 128>>,
                      pl::mesh<pltpu::TensorCoreMesh<"core", Cores>>,
                      pl::scratch_types<pltpu::SemaphoreType::DMA<>, pltpu::SemaphoreType::DMA<>>)(
      [](auto x, auto o, auto send, auto recv) {
        pl::index_t const right = (pl::axis_index<"x">() + 1) % pl::axis_size<"x">();
        pl::index_t const row = pl::axis_index<"core">() * 8;
        auto c = pltpu::make_async_remote_copy(x.at(pl::ds<8>(row)), o.at(pl::ds<8>(row)), send, recv, {right},
                                               pltpu::DeviceIdType::MESH);
        c.start();
        c.wait();
      });
  for (auto const& schedule : all_schedules()) {
    INFO(Chips << " chips, " << Cores << " cores, " << name(schedule));
    pltpu::scoped_dma_schedule use(schedule);
    auto const ys = pl::shard_map<pl::device_mesh<"x", Chips>>(k)(xs);
    for (int c = 0; c < Chips; ++c) REQUIRE(same(ys[static_cast<std::size_t>(c)], xs[static_cast<std::size_t>((c + Chips - 1) % Chips)]));
  }
}

/// The same through VMEM: shard -> VMEM, VMEM -> the left chip's VMEM scratch (a LOGICAL
/// id), then + 1 back to HBM; the receiver only waits on its receive semaphore.
template <int Chips, int Cores>
void left_permute_vmem() {
  auto const xs = shards<8 * Cores, 128>(Chips);
  auto k = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 8 * Cores, 128>>,
                      pl::mesh<pltpu::TensorCoreMesh<"core", Cores>>,
                      pl::scratch_types<pltpu::VMEM<float, 8, 128>, pltpu::VMEM<float, 8, 128>,
                                        pltpu::SemaphoreType::DMA<2>>)([](auto x, auto o, auto mine, auto got, auto sems) {
    pl::index_t const n = pl::axis_size<"x">();
    pl::index_t const left = (pl::axis_index<"x">() + n - 1) % n;
    pl::index_t const row = pl::axis_index<"core">() * 8;
    pltpu::sync_copy(x.at(pl::ds<8>(row)), mine);
    auto c = pltpu::async_remote_copy(mine, got, sems.at(0), sems.at(1), left, pltpu::DeviceIdType::LOGICAL);
    c.wait_send();
    c.wait_recv();
    for (pl::index_t i = 0; i < 8; ++i)
      for (pl::index_t j = 0; j < 128; ++j) got(i, j) = got(i, j) + 1.0f;
    pltpu::sync_copy(got, o.at(pl::ds<8>(row)));
  });
  for (auto const& schedule : all_schedules()) {
    INFO(Chips << " chips, " << Cores << " cores, " << name(schedule));
    pltpu::scoped_dma_schedule use(schedule);
    auto const ys = pl::shard_map<pl::device_mesh<"x", Chips>>(k)(xs);
    for (int c = 0; c < Chips; ++c) {
      auto const& from = xs[static_cast<std::size_t>((c + 1) % Chips)];
      auto const& y = ys[static_cast<std::size_t>(c)];
      for (pl::index_t e = 0; e < y.size(); ++e) REQUIRE(y.data()[e] == from.data()[e] + 1.0f);
    }
  }
}

/// The guide's ring all-gather: step s sends the block that arrived at step s - 1 on to
/// the right; after N - 1 steps every chip holds every chip's block.
template <int Chips>
void ring_all_gather() {
  auto const xs = shards<8, 128>(Chips);
  auto k = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 8 * Chips, 128>>,
                      pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                      pl::scratch_types<pltpu::SemaphoreType::DMA<>, pltpu::SemaphoreType::DMA<>>)(
      [](auto x, auto o, auto send, auto recv) {
        pl::index_t const me = pl::axis_index<"x">(), n = pl::axis_size<"x">();
        pltpu::sync_copy(x, o.at(pl::ds<8>(me * 8)));
        for (pl::index_t step = 0; step + 1 < n; ++step) {
          pl::index_t const slot = (me + n - step) % n;
          auto c = pltpu::make_async_remote_copy(o.at(pl::ds<8>(slot * 8)), o.at(pl::ds<8>(slot * 8)), send, recv,
                                                 {(me + 1) % n}, pltpu::DeviceIdType::MESH);
          c.start();
          c.wait();
        }
      });
  for (auto const& schedule : all_schedules()) {
    INFO(Chips << " chips, " << name(schedule));
    pltpu::scoped_dma_schedule use(schedule);
    auto const ys = pl::shard_map<pl::device_mesh<"x", Chips>>(k)(xs);
    for (int c = 0; c < Chips; ++c)
      for (int b = 0; b < Chips; ++b)
        for (int i = 0; i < 8; ++i)
          for (int j = 0; j < 128; ++j)
            REQUIRE(ys[static_cast<std::size_t>(c)](b * 8 + i, j) == xs[static_cast<std::size_t>(b)](i, j));
  }
}

}  // namespace

TEST_CASE("remote copy: right permute HBM -> HBM on 1, 2, 4, 8 chips, 1 and 2 cores, every order", "[remote_copy]") {
  pallas_test::watchdog dog("right permutes", std::chrono::seconds(300));
  right_permute_hbm<1, 1>();
  right_permute_hbm<2, 1>();
  right_permute_hbm<2, 2>();
  right_permute_hbm<4, 1>();
  right_permute_hbm<4, 2>();
  right_permute_hbm<8, 1>();
  right_permute_hbm<8, 2>();
}

TEST_CASE("remote copy: VMEM -> VMEM scratch of the left chip, LOGICAL ids, wait_send / wait_recv", "[remote_copy]") {
  pallas_test::watchdog dog("left permutes", std::chrono::seconds(300));
  left_permute_vmem<1, 2>();
  left_permute_vmem<2, 1>();
  left_permute_vmem<4, 2>();
  left_permute_vmem<8, 1>();
}

TEST_CASE("remote copy: ring all-gather on 2, 4 and 8 chips", "[remote_copy]") {
  pallas_test::watchdog dog("ring all-gathers", std::chrono::seconds(300));
  ring_all_gather<2>();
  ring_all_gather<4>();
  ring_all_gather<8>();
}

TEST_CASE("remote copy: 2-D meshes, coordinates and named axes", "[remote_copy]") {
  pallas_test::watchdog dog("2-D meshes", std::chrono::seconds(120));
  // x: 2, y: 4. Output 0 comes from the chip before along 'y' (named id), output 1 from the
  // chip before along 'x' (full coordinates).
  auto const xs = shards<8, 128>(8);
  auto k = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 8, 128>, pl::ShapeDtypeStruct<float, 8, 128>>,
                      pl::mesh<pltpu::TensorCoreMesh<"core", 1>>, pl::scratch_types<pltpu::SemaphoreType::DMA<4>>)(
      [](auto x, auto oy, auto ox, auto sems) {
        pl::index_t const cx = pl::axis_index<"x">(), cy = pl::axis_index<"y">();
        pl::index_t const nx = pl::axis_size<"x">(), ny = pl::axis_size<"y">();
        auto a = pltpu::make_async_remote_copy(x, oy, sems.at(0), sems.at(1), {{"y", (cy + 1) % ny}},
                                               pltpu::DeviceIdType::MESH);
        auto b = pltpu::make_async_remote_copy(x, ox, sems.at(2), sems.at(3), {(cx + 1) % nx, cy},
                                               pltpu::DeviceIdType::MESH);
        a.start();
        b.start();
        b.wait();
        a.wait();
      });
  for (auto const& schedule : all_schedules()) {
    INFO(name(schedule));
    pltpu::scoped_dma_schedule use(schedule);
    auto const outs = pl::shard_map<pl::device_mesh<"x", 2, "y", 4>>(k)(xs);
    for (int c = 0; c < 8; ++c) {
      int const x = c / 4, y = c % 4;
      auto const& [oy, ox] = outs[static_cast<std::size_t>(c)];
      REQUIRE(same(oy, xs[static_cast<std::size_t>(x * 4 + (y + 3) % 4)]));
      REQUIRE(same(ox, xs[static_cast<std::size_t>(((x + 1) % 2) * 4 + y)]));
    }
  }
}

TEST_CASE("remote semaphore_signal: a token around the ring, and to another chip's other core", "[remote_copy]") {
  pallas_test::watchdog dog("remote signals", std::chrono::seconds(120));
  for (auto const& schedule : all_schedules()) {
    INFO(name(schedule));
    pltpu::scoped_dma_schedule use(schedule);
    std::atomic<int> ticket{0};
    // Core 0 of chip c waits for chip c - 1's token, takes a ticket, passes the token on;
    // then tells core 1 of the next chip (a named core axis) that it is done.
    auto k = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 2, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 2>>,
                        pl::scratch_types<pltpu::SemaphoreType::REGULAR<2>, pltpu::VMEM<float, 128>>)(
        [&](auto o, auto sems, auto row) {
          pl::index_t const me = pl::axis_index<"x">(), n = pl::axis_size<"x">(), core = pl::axis_index<"core">();
          pl::index_t const right = (me + 1) % n;
          float value = 0;
          if (core == 0) {
            if (me != 0) pl::semaphore_wait(sems.at(0));
            value = static_cast<float>(ticket.fetch_add(1));
            if (right != 0) pl::semaphore_signal(sems.at(0), 1, {right}, pltpu::DeviceIdType::MESH);
            pl::semaphore_signal(sems.at(1), 1, {{"x", right}, {"core", 1}}, pltpu::DeviceIdType::MESH);
          } else {
            pl::semaphore_wait(sems.at(1));
            value = -1;
          }
          for (pl::index_t e = 0; e < 128; ++e) row(e) = value;
          pltpu::sync_copy(row, o.at(core));
        });
    auto const outs = pl::shard_map<pl::device_mesh<"x", 4>>(k)();
    for (int c = 0; c < 4; ++c) {
      REQUIRE(outs[static_cast<std::size_t>(c)](0, 5) == static_cast<float>(c));
      REQUIRE(outs[static_cast<std::size_t>(c)](1, 5) == -1.0f);
    }
  }
}

TEST_CASE("remote copy: device ids out of range or malformed are errors naming chip, core and id", "[remote_copy]") {
  auto run = [](auto make_id, pltpu::DeviceIdType type) {
    auto k = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                        pl::scratch_types<pltpu::SemaphoreType::DMA<2>>)([=](auto x, auto o, auto sems) {
      if (pl::axis_index<"x">() != 1) return;
      pltpu::make_async_remote_copy(x, o, sems.at(0), sems.at(1), make_id(), type).start();
    });
    std::vector<pl::Array<float, 128>> xs(4, pl::Array<float, 128>::full(1.0f));
    pl::shard_map<pl::device_mesh<"x", 4>>(k)(xs);
  };
  auto msg = error_of<pl::index_error>(
      [&] { run([] { return pltpu::device_id{4}; }, pltpu::DeviceIdType::MESH); });
  CHECK_THAT(msg, Contains("device id (4) is out of range: axis 'x' has 4 chips"));
  CHECK_THAT(msg, Contains("on chip 1 core 0"));
  msg = error_of<pl::index_error>([&] { run([] { return pltpu::device_id(-1); }, pltpu::DeviceIdType::LOGICAL); });
  CHECK_THAT(msg, Contains("device id -1 is out of range: the mesh has 4 chips"));
  CHECK_THAT(error_of([&] { run([] { return pltpu::device_id{0, 1}; }, pltpu::DeviceIdType::MESH); }),
             Contains("one coordinate per mesh axis ('x'), got (0, 1)"));
  CHECK_THAT(error_of([&] { run([] { return pltpu::device_id{0, 1}; }, pltpu::DeviceIdType::LOGICAL); }),
             Contains("a LOGICAL device id is one integer"));
  CHECK_THAT(error_of([&] { run([] { return pltpu::device_id{{"z", 0}}; }, pltpu::DeviceIdType::MESH); }),
             Contains("names axis 'z', which is not an axis of the mesh"));
  CHECK_THAT(error_of<pl::index_error>([&] { run([] { return pltpu::device_id{{"core", 1}}; }, pltpu::DeviceIdType::MESH); }),
             Contains("axis 'core' has 1 cores"));
  // Outside a device mesh there is no other chip.
  CHECK_THAT(error_of([] {
               pl::kernel(pl::mesh<pltpu::TensorCoreMesh<"core", 1>>, pl::scratch_types<pltpu::SemaphoreType::REGULAR<>>)(
                   [](auto sem) { pl::semaphore_signal(sem, 1, 0, pltpu::DeviceIdType::LOGICAL); })();
             }),
             Contains("need a launch on a device mesh (pl::shard_map)"));
}

TEST_CASE("remote copy: a mismatched send and receive is a deadlock naming every chip's waiting core", "[remote_copy]") {
  pallas_test::watchdog dog("cross-chip deadlocks", std::chrono::seconds(120));
  for (auto const& schedule : {pltpu::dma_schedule{pltpu::dma_execution_mode::on_wait, 0, true},
                               pltpu::dma_schedule{pltpu::dma_execution_mode::random, 3, true}}) {
    INFO(name(schedule));
    pltpu::scoped_dma_schedule use(schedule);
    // Every core sends with receive semaphore 0 but waits on receive semaphore 1.
    auto body = [](auto x, auto o, auto sems) {
      pl::index_t const right = (pl::axis_index<"x">() + 1) % pl::axis_size<"x">();
      pl::index_t const core = pl::axis_index<"core">();
      pltpu::async_remote_copy(x.at(core), o.at(core), sems.at(0), sems.at(1), {right}, pltpu::DeviceIdType::MESH)
          .wait_send();
      pltpu::make_async_remote_copy(x.at(core), o.at(core), sems.at(0), sems.at(2), {right}, pltpu::DeviceIdType::MESH)
          .wait_recv();
    };
    std::vector<pl::Array<float, 2, 128>> xs(4, pl::Array<float, 2, 128>::full(1.0f));
    auto const msg = error_of<pl::deadlock_error>([&] {
      pl::shard_map<pl::device_mesh<"x", 4>>(pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 2, 128>>,
                                                        pl::mesh<pltpu::TensorCoreMesh<"core", 2>>,
                                                        pl::scratch_types<pltpu::SemaphoreType::DMA<3>>)(body))(xs);
    });
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 2; ++r)
        CHECK_THAT(msg, Contains("chip " + std::to_string(c) + " core " + std::to_string(r) +
                                 " waits in async_remote_copy.wait_recv"));
  }
}

TEST_CASE("remote copy: a copy never waited on either chip is a leak in checked mode", "[remote_copy]") {
  if constexpr (pl::checked_mode) {
    pltpu::scoped_dma_schedule use({pltpu::dma_execution_mode::on_wait, 0, true});
    auto k = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                        pl::scratch_types<pltpu::SemaphoreType::DMA<2>>)([](auto x, auto o, auto sems) {
      pltpu::async_remote_copy(x, o, sems.at(0), sems.at(1), {(pl::axis_index<"x">() + 1) % 2}, pltpu::DeviceIdType::MESH);
    });
    std::vector<pl::Array<float, 128>> xs(2, pl::Array<float, 128>::full(1.0f));
    CHECK_THAT(error_of<pl::leak_error>([&] { pl::shard_map<pl::device_mesh<"x", 2>>(k)(xs); }),
               Contains("2 remote copies were started and never waited"));
  }
}

TEST_CASE("remote copy: reading an HBM destination before wait_recv is a race naming both chips", "[remote_copy]") {
  if constexpr (pl::checked_mode) {
    pltpu::scoped_interpret_params raise({.detect_races = pltpu::race_detection::throw_error});
    for (bool early : {true, false}) {
      INFO((early ? "read before wait_recv" : "read after wait_recv"));
      // Chip 0 sends its shard into chip 1's output; chip 1 reads that output into VMEM,
      // before or after its wait_recv.
      auto k = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 8, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                          pl::scratch_types<pltpu::VMEM<float, 8, 128>, pltpu::SemaphoreType::DMA<2>>)(
          [early](auto x, auto o, auto buf, auto sems) {
            auto c = pltpu::make_async_remote_copy(x, o, sems.at(0), sems.at(1), {1}, pltpu::DeviceIdType::MESH);
            if (pl::axis_index<"x">() == 0) {
              c.start();
              c.wait_send();
              return;
            }
            if (early) pltpu::sync_copy(o, buf);
            c.wait_recv();
            if (!early) pltpu::sync_copy(o, buf);
          });
      auto const xs = shards<8, 128>(2);
      if (early) {
        auto const msg = error_of<pl::race_error>([&] { pl::shard_map<pl::device_mesh<"x", 2>>(k)(xs); });
        CHECK_THAT(msg, Contains("chip 0 core 0"));
        CHECK_THAT(msg, Contains("chip 1 core 0"));
        CHECK_THAT(msg, Contains("remote copy"));
      } else {
        auto const ys = pl::shard_map<pl::device_mesh<"x", 2>>(k)(xs);
        CHECK(same(ys[1], xs[0]));
      }
    }
  }
}

TEST_CASE("remote copy: into the right chip's run_scoped buffer, after a ready handshake", "[remote_copy]") {
  pallas_test::watchdog dog("run_scoped destinations", std::chrono::seconds(120));
  // Inside run_scoped, each core tells its left neighbour it is ready (a remote signal),
  // waits until its right neighbour is, then sends its rows into the right neighbour's
  // scoped buffer; the receiver adds 1 and writes its output.
  auto const xs = shards<16, 128>(4);
  auto k = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 16, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 2>>,
                      pl::scratch_types<pltpu::SemaphoreType::REGULAR<>>)([](auto x, auto o, auto ready) {
    pl::index_t const n = pl::axis_size<"x">(), me = pl::axis_index<"x">();
    pl::index_t const row = pl::axis_index<"core">() * 8;
    pl::run_scoped(
        [&](auto mine, auto got, auto sems) {
          pltpu::sync_copy(x.at(pl::ds<8>(row)), mine);
          pl::semaphore_signal(ready, 1, {(me + n - 1) % n}, pltpu::DeviceIdType::MESH);
          pl::semaphore_wait(ready);
          auto c = pltpu::async_remote_copy(mine, got, sems.at(0), sems.at(1), {(me + 1) % n}, pltpu::DeviceIdType::MESH);
          c.wait();
          for (pl::index_t i = 0; i < 8; ++i)
            for (pl::index_t j = 0; j < 128; ++j) got(i, j) = got(i, j) + 1.0f;
          pltpu::sync_copy(got, o.at(pl::ds<8>(row)));
        },
        pltpu::VMEM<float, 8, 128>{}, pltpu::VMEM<float, 8, 128>{}, pltpu::SemaphoreType::DMA<2>{});
  });
  for (auto const& schedule : all_schedules()) {
    INFO(name(schedule));
    pltpu::scoped_dma_schedule use(schedule);
    auto const ys = pl::shard_map<pl::device_mesh<"x", 4>>(k)(xs);
    for (int c = 0; c < 4; ++c) {
      auto const& from = xs[static_cast<std::size_t>((c + 3) % 4)];
      for (pl::index_t e = 0; e < from.size(); ++e) REQUIRE(ys[static_cast<std::size_t>(c)].data()[e] == from.data()[e] + 1.0f);
    }
  }
}

TEST_CASE("remote copy: touching a VMEM destination before wait_recv is a race naming both chips", "[remote_copy]") {
  if constexpr (pl::checked_mode) {
    pallas_test::watchdog dog("VMEM destination races", std::chrono::seconds(60));
    for (int mode : {0, 1, 2}) {  // read before wait_recv, write before it, read after it
      INFO("mode " << mode);
      // Chip 0 starts a copy into chip 1's VMEM scratch and then tells chip 1 (a remote
      // signal), so chip 1's access is certain to come after the start.
      auto k = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 8, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                          pl::scratch_types<pltpu::VMEM<float, 8, 128>, pltpu::VMEM<float, 8, 128>,
                                            pltpu::SemaphoreType::DMA<2>, pltpu::SemaphoreType::REGULAR<>>)(
          [mode](auto x, auto o, auto mine, auto got, auto sems, auto started) {
            auto c = pltpu::make_async_remote_copy(mine, got, sems.at(0), sems.at(1), {1}, pltpu::DeviceIdType::MESH);
            if (pl::axis_index<"x">() == 0) {
              pltpu::sync_copy(x, mine);
              c.start();
              pl::semaphore_signal(started, 1, {1}, pltpu::DeviceIdType::MESH);
              c.wait_send();
              return;
            }
            pl::semaphore_wait(started);
            if (mode == 0) got(0, 0) = got(0, 0) + 1.0f;
            if (mode == 1) pltpu::sync_copy(x, got);
            c.wait_recv();
            pltpu::sync_copy(got, o);
          });
      auto const xs = shards<8, 128>(2);
      if (mode < 2) {
        auto const msg = error_of<pl::race_error>([&] { pl::shard_map<pl::device_mesh<"x", 2>>(k)(xs); });
        CHECK_THAT(msg, Contains("the destination of a remote copy (4096 bytes) from chip 0 core 0"));
        CHECK_THAT(msg, Contains("chip 1 core 0"));
      } else {
        auto const ys = pl::shard_map<pl::device_mesh<"x", 2>>(k)(xs);
        CHECK(same(ys[1], xs[0]));
      }
    }
  }
}

TEST_CASE("get_barrier_semaphore: the neighbours' handshake before a copy, on 1, 2 and 4 chips", "[remote_copy]") {
  pallas_test::watchdog dog("barrier semaphores", std::chrono::seconds(120));
  auto k = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 8, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                      pl::scratch_types<pltpu::SemaphoreType::DMA<2>>)([](auto x, auto o, auto sems) {
    pl::index_t const n = pl::axis_size<"x">(), me = pl::axis_index<"x">();
    auto barrier = pltpu::get_barrier_semaphore();
    pl::semaphore_signal(barrier, 1, {(me + n - 1) % n}, pltpu::DeviceIdType::MESH);
    pl::semaphore_signal(barrier, 1, {(me + 1) % n}, pltpu::DeviceIdType::MESH);
    pl::semaphore_wait(barrier, 2);
    pltpu::async_remote_copy(x, o, sems.at(0), sems.at(1), {(me + 1) % n}, pltpu::DeviceIdType::MESH).wait();
  });
  auto check = [&]<int Chips>() {
    auto const xs = shards<8, 128>(Chips);
    for (auto const& schedule : all_schedules()) {
      INFO(Chips << " chips, " << name(schedule));
      pltpu::scoped_dma_schedule use(schedule);
      auto const ys = pl::shard_map<pl::device_mesh<"x", Chips>>(k)(xs);
      for (int c = 0; c < Chips; ++c) REQUIRE(same(ys[static_cast<std::size_t>(c)], xs[static_cast<std::size_t>((c + Chips - 1) % Chips)]));
    }
  };
  check.template operator()<1>();
  check.template operator()<2>();
  check.template operator()<4>();
  CHECK_THAT(error_of([] { pl::kernel(pl::mesh<pltpu::TensorCoreMesh<"core", 1>>)([] { (void)pltpu::get_barrier_semaphore(); })(); }),
             Contains("only in a launch on a device mesh"));
}
