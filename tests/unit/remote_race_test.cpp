// Races between chips that only the receiver's own accesses reveal: a ring in which each
// chip forwards, round after round, into the same VMEM slot of its right neighbour. Without
// the capacity handshake (the receiver tells its left neighbour that it has read the slot,
// and the sender waits for that before the next round), the next round's copy may overwrite
// the slot while the receiver still reads it: checked mode reports it naming both chips,
// under every DMA order and both DMA executors, on 2, 4 and 8 chips. With the handshake the
// result is the ring all-gather's sum, checked against a naive loop, and nothing is reported.
#include <pallas/pallas.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "../support/error_of.hpp"
#include "watchdog.hpp"

namespace pl = pallas;
namespace pltpu = pallas::tpu;

namespace {

using Catch::Matchers::Contains;
using pallas_test::error_of;

std::vector<pltpu::dma_schedule> every_order() {
  std::vector<pltpu::dma_schedule> s{{pltpu::dma_execution_mode::on_wait, 0, true},
                                     {pltpu::dma_execution_mode::eager, 0, true}};
  for (std::uint64_t seed = 1; seed <= 3; ++seed) s.push_back({pltpu::dma_execution_mode::random, seed, true});
  return s;
}

std::string order_name(pltpu::dma_schedule const& s) {
  return s.mode == pltpu::dma_execution_mode::on_wait ? "on_wait"
         : s.mode == pltpu::dma_execution_mode::eager ? "eager"
                                                      : "random seed " + std::to_string(s.seed);
}

constexpr pl::index_t rows = 8, cols = 128;
using Shard = pl::Array<float, rows, cols>;

std::vector<Shard> shards(int chips) {
  std::vector<Shard> xs(static_cast<std::size_t>(chips));
  for (int c = 0; c < chips; ++c)
    for (pl::index_t k = 0; k < xs[0].size(); ++k)
      xs[static_cast<std::size_t>(c)].data()[k] = static_cast<float>((c + 1) * 100 + k % 61);
  return xs;
}

/// The ring's sum over every chip's shard: what each chip's output must hold.
Shard naive_sum(std::vector<Shard> const& xs) {
  Shard s;
  for (pl::index_t k = 0; k < s.size(); ++k) {
    float v = 0;
    for (auto const& x : xs) v += x.data()[k];
    s.data()[k] = v;
  }
  return s;
}

/// Round r: send `mine` (round 0) or the slot just read (later rounds) into the right
/// neighbour's `slot` through a staging buffer, wait, read the own slot into the sum.
auto ring_sum_kernel(bool capacity_wait, bool slow_sender) {
  return pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, rows, cols>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                    pl::scratch_types<pltpu::VMEM<float, rows, cols>, pltpu::VMEM<float, rows, cols>,
                                      pltpu::VMEM<float, rows, cols>, pltpu::SemaphoreType::DMA<2>,
                                      pltpu::SemaphoreType::REGULAR<>>)(
      [capacity_wait, slow_sender](auto x, auto o, auto acc, auto stage, auto slot, auto sems, auto capacity) {
        pl::index_t const n = pl::axis_size<"x">(), me = pl::axis_index<"x">();
        pl::index_t const right = (me + 1) % n, left = (me + n - 1) % n;
        pltpu::sync_copy(x, stage);
        pltpu::sync_copy(x, acc);
        for (pl::index_t round = 0; round + 1 < n; ++round) {
          if (capacity_wait && round > 0) pl::semaphore_wait(capacity);  // the right chip has read its slot
          // The next copy starts well after the right chip's read of its slot (so a detector
          // that only checks reads against copies already started misses the race).
          if (slow_sender && round > 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
          auto c = pltpu::make_async_remote_copy(stage, slot, sems.at(0), sems.at(1), {right}, pltpu::DeviceIdType::MESH);
          c.start();
          c.wait_send();
          c.wait_recv();
          acc[pl::ellipsis] = acc[pl::ellipsis] + slot[pl::ellipsis];
          stage[pl::ellipsis] = slot[pl::ellipsis];
          if (capacity_wait && round + 2 < n)  // tell the left chip its next copy may come
            pl::semaphore_signal(capacity, 1, {left}, pltpu::DeviceIdType::MESH);
        }
        pltpu::sync_copy(acc, o);
      });
}

template <int Chips>
void ring(bool capacity_wait) {
  auto const xs = shards(Chips);
  auto const want = naive_sum(xs);
  for (bool slow_sender : {false, true}) {
    auto k = ring_sum_kernel(capacity_wait, slow_sender);
    for (auto executor : {pltpu::dma_executor::on_core, pltpu::dma_executor::dma_thread}) {
      pltpu::scoped_dma_executor use_executor(executor);
      for (auto const& order : every_order()) {
        INFO(Chips << " chips, " << (capacity_wait ? "with" : "without") << " the capacity wait, "
                   << (slow_sender ? "slow sender, " : "")
                   << (executor == pltpu::dma_executor::on_core ? "on_core" : "dma_thread") << ", "
                   << order_name(order));
        pltpu::scoped_dma_schedule use_order(order);
        if (capacity_wait) {
          auto const ys = pl::shard_map<pl::device_mesh<"x", Chips>>(k)(xs);
          for (int c = 0; c < Chips; ++c)
            for (pl::index_t e = 0; e < want.size(); ++e)
              REQUIRE(ys[static_cast<std::size_t>(c)].data()[e] == want.data()[e]);
          CHECK_FALSE(pltpu::races_found());
        } else {
          auto const msg = error_of<pl::race_error>([&] { (void)pl::shard_map<pl::device_mesh<"x", Chips>>(k)(xs); });
          INFO(msg);
          CHECK_THAT(msg, Contains("pallas::race"));
          CHECK_THAT(msg, Contains("VMEM"));
          CHECK_THAT(msg, Contains("remote copy"));
          // Both chips are named: the receiver's read and the sender's next copy.
          int named = 0;
          for (int c = 0; c < Chips; ++c) named += msg.find("chip " + std::to_string(c) + " core 0") != std::string::npos;
          CHECK(named >= 2);
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("remote races: forwarding into the neighbour's slot without a capacity wait is a race naming both chips",
          "[remote_copy][races]") {
  if constexpr (pl::checked_mode) {
    pallas_test::watchdog dog("ring without capacity wait", std::chrono::seconds(240));
    pltpu::scoped_interpret_params raise({.detect_races = pltpu::race_detection::throw_error});
    SECTION("3 chips (two rounds)") { ring<3>(false); }
    SECTION("4 chips") { ring<4>(false); }
    SECTION("8 chips") { ring<8>(false); }
  }
}

TEST_CASE("remote races: with the capacity wait the ring's sum is right and no race is reported",
          "[remote_copy][races]") {
  pallas_test::watchdog dog("ring with capacity wait", std::chrono::seconds(240));
  pltpu::scoped_interpret_params raise({.detect_races = pltpu::race_detection::throw_error});
  SECTION("2 chips") { ring<2>(true); }
  SECTION("3 chips") { ring<3>(true); }
  SECTION("4 chips") { ring<4>(true); }
  SECTION("8 chips") { ring<8>(true); }
}

TEST_CASE("remote races: one wait_recv covers two copies on its semaphore, half a wait covers only the first",
          "[remote_copy][races]") {
  if constexpr (pl::checked_mode) {
    pallas_test::watchdog dog("one wait for two copies", std::chrono::seconds(120));
    pltpu::scoped_interpret_params raise({.detect_races = pltpu::race_detection::throw_error});
    // Chip 0 sends the two halves of its shard into chip 1's slot as two copies on one
    // receive semaphore. Chip 1 waits for the whole slot at once (a descriptor of the whole
    // slot: 4096 bytes), or only for the first half, then reads the whole slot.
    for (bool whole_wait : {true, false}) {
      INFO((whole_wait ? "one wait for both halves" : "a wait for the first half only"));
      auto k = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, rows, cols>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                          pl::scratch_types<pltpu::VMEM<float, rows, cols>, pltpu::VMEM<float, rows, cols>,
                                            pltpu::SemaphoreType::DMA<2>>)(
          [whole_wait](auto x, auto o, auto mine, auto slot, auto sems) {
            auto top = pltpu::make_async_remote_copy(mine.at(pl::ds<rows / 2>(0)), slot.at(pl::ds<rows / 2>(0)),
                                                     sems.at(0), sems.at(1), {1}, pltpu::DeviceIdType::MESH);
            auto bottom = pltpu::make_async_remote_copy(mine.at(pl::ds<rows / 2>(rows / 2)),
                                                        slot.at(pl::ds<rows / 2>(rows / 2)), sems.at(0), sems.at(1),
                                                        {1}, pltpu::DeviceIdType::MESH);
            auto whole = pltpu::make_async_remote_copy(mine, slot, sems.at(0), sems.at(1), {1}, pltpu::DeviceIdType::MESH);
            if (pl::axis_index<"x">() == 0) {
              pltpu::sync_copy(x, mine);
              top.start();
              bottom.start();
              whole.wait_send();  // both halves' send signals
              return;
            }
            if (whole_wait) {
              whole.wait_recv();
            } else {
              top.wait_recv();
            }
            pltpu::sync_copy(slot, o);
            if (!whole_wait) bottom.wait_recv();  // so that the kernel ends without a leak
          });
      auto const xs = shards(2);
      for (auto const& order : every_order()) {
        INFO(order_name(order));
        pltpu::scoped_dma_schedule use_order(order);
        if (whole_wait) {
          auto const ys = pl::shard_map<pl::device_mesh<"x", 2>>(k)(xs);
          for (pl::index_t e = 0; e < xs[0].size(); ++e) REQUIRE(ys[1].data()[e] == xs[0].data()[e]);
        } else {
          auto const msg = error_of<pl::race_error>([&] { (void)pl::shard_map<pl::device_mesh<"x", 2>>(k)(xs); });
          CHECK_THAT(msg, Contains("pallas::race"));
          CHECK_THAT(msg, Contains("chip 0 core 0"));
          CHECK_THAT(msg, Contains("chip 1 core 0"));
        }
      }
    }
  }
}
