// Checked mode: DMA races (reported with the copy and both places), copies never waited,
// poisoned memory, the exact region test behind the race checks, and the seeded DMA
// schedules that expose races the default order hides.
#include <pallas/pallas.hpp>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "../support/error_of.hpp"

namespace pl = pallas;
namespace pltpu = pallas::tpu;
using Catch::Matchers::Contains;

namespace {

using pallas_test::error_of;

std::string at_line(int line) { return "checked_mode_test.cpp:" + std::to_string(line); }

pl::Array<float, 16, 128> rows() {
  pl::Array<float, 16, 128> a;
  for (int i = 0; i < 16 * 128; ++i) a.data()[i] = static_cast<float>(i);
  return a;
}

/// A one-core kernel over x (16x128 f32) with an output like it, a VMEM buffer like it and
/// two DMA semaphores.
template <class F>
auto one_core(F body) {
  return pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 16, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                    pl::scratch_types<pltpu::VMEM<float, 16, 128>, pltpu::SemaphoreType::DMA<2>>)(body);
}

}  // namespace

TEST_CASE("checked: region intersection is exact for strided views (against a byte set)", "[checked]") {
  std::mt19937 rng(12345);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  alignas(64) static std::byte memory[1 << 14];
  auto make = [&](std::set<std::ptrdiff_t>& bytes) {
    int const rank = pick(1, 3);
    std::int64_t ext[3], str[3];
    std::int64_t const elem = pick(0, 1) ? 4 : 2;
    for (int d = 0; d < rank; ++d) ext[d] = pick(1, 5);
    // Strides: row-major-ish, padded, transposed or overlapping.
    std::int64_t s = pick(1, 3);
    for (int d = rank; d-- > 0;) {
      str[d] = s;
      s = s * ext[d] + pick(0, 4);
    }
    if (pick(0, 3) == 0 && rank > 1) std::swap(str[0], str[rank - 1]);
    std::int64_t const offset = pick(0, 256);
    auto r = pl::detail::region::strided(memory + offset * 2, rank, ext, str, elem);
    std::int64_t ix[3] = {0, 0, 0};
    for (;;) {
      std::int64_t off = 0;
      for (int d = 0; d < rank; ++d) off += ix[d] * str[d];
      for (std::int64_t b = 0; b < elem; ++b) bytes.insert(offset * 2 + off * elem + b);
      int d = rank - 1;
      for (; d >= 0; --d) {
        if (++ix[d] < ext[d]) break;
        ix[d] = 0;
      }
      if (d < 0) break;
    }
    return r;
  };
  int mismatches = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::set<std::ptrdiff_t> a_bytes, b_bytes;
    auto const a = make(a_bytes);
    auto const b = make(b_bytes);
    bool expected = false;
    for (auto x : a_bytes) expected |= b_bytes.count(x) != 0;
    mismatches += a.intersects(b) != expected;
    std::ptrdiff_t const lo = pick(0, 700), len = pick(1, 24);
    bool in_interval = false;
    for (auto x : a_bytes) in_interval |= x >= lo && x < lo + len;
    mismatches += a.intersects(memory + lo, memory + lo + len) != in_interval;
  }
  CHECK(mismatches == 0);
}

TEST_CASE("checked: reading a copy's destination before its wait is a race naming the copy and both places",
          "[checked][race]") {
  int start_line = 0, read_line = 0;
  auto kernel = one_core([&](auto x, auto o, auto buf, auto sems) {
    auto copy = pltpu::make_async_copy(x, buf, sems.at(0));
    start_line = __LINE__ + 1;
    copy.start();
    read_line = __LINE__ + 1;
    pltpu::sync_copy(buf.at(pl::ds<8>(8)), o.at(pl::ds<8>(8)));  // reads the destination
    copy.wait();
  });
  auto const msg = error_of<pl::race_error>([&] { kernel(rows()); });
  CHECK_THAT(msg, Contains("pallas::race: sync_copy from VMEM+4096 to HBM"));
  CHECK_THAT(msg, Contains(at_line(read_line)));
  CHECK_THAT(msg, Contains("reads the destination of copy #1 (HBM"));
  CHECK_THAT(msg, Contains("-> VMEM+0 float32[16,128], 8192 bytes, DMA semaphore #0 (element [0] of 2, scratch))"));
  CHECK_THAT(msg, Contains("started at " + at_line(start_line) + " on core 0"));
  CHECK_THAT(msg, Contains("before that copy's wait (core 0)"));
}

TEST_CASE("checked: writing a copy's source, or its destination, before its wait is a race", "[checked][race]") {
  auto const x = rows();
  SECTION("sync_copy into the source") {
    auto const msg = error_of<pl::race_error>([&] {
      one_core([](auto x_hbm, auto o, auto buf, auto sems) {
        pltpu::sync_copy(x_hbm, buf);
        auto out = pltpu::async_copy(buf, o, sems.at(0));
        pltpu::sync_copy(x_hbm.at(pl::ds<1>(3)), buf.at(pl::ds<1>(0)));
        out.wait();
      })(x);
    });
    CHECK_THAT(msg, Contains("writes the source of copy #1 (VMEM+0 float32[16,128] -> HBM"));
  }
  SECTION("sync_copy into the destination") {
    auto const msg = error_of<pl::race_error>([&] {
      one_core([](auto x_hbm, auto, auto buf, auto sems) {
        auto in = pltpu::async_copy(x_hbm, buf, sems.at(0));
        pltpu::sync_copy(x_hbm.at(pl::ds<2>(0)), buf.at(pl::ds<2>(14)));
        in.wait();
      })(x);
    });
    CHECK_THAT(msg, Contains("writes the destination of copy #1"));
  }
  SECTION("a second copy reading the first one's destination") {
    auto const msg = error_of<pl::race_error>([&] {
      one_core([](auto x_hbm, auto o, auto buf, auto sems) {
        auto in = pltpu::async_copy(x_hbm, buf, sems.at(0));
        auto out = pltpu::async_copy(buf, o, sems.at(1));  // should wait for `in` first
        in.wait();
        out.wait();
      })(x);
    });
    CHECK_THAT(msg, Contains("pallas::race: copy #2 (VMEM+0 float32[16,128] -> HBM"));
    CHECK_THAT(msg, Contains("reads the destination of copy #1"));
  }
  SECTION("two copies into the same rows") {
    auto const msg = error_of<pl::race_error>([&] {
      one_core([](auto x_hbm, auto, auto buf, auto sems) {
        auto a = pltpu::async_copy(x_hbm.at(pl::ds<8>(0)), buf.at(pl::ds<8>(0)), sems.at(0));
        auto b = pltpu::async_copy(x_hbm.at(pl::ds<8>(8)), buf.at(pl::ds<8>(4)), sems.at(1));
        a.wait();
        b.wait();
      })(x);
    });
    CHECK_THAT(msg, Contains("copy #2"));
    CHECK_THAT(msg, Contains("writes the destination of copy #1"));
  }
}

TEST_CASE("checked: the access hook for block reads and writes is exact on strided views", "[checked][race]") {
  auto const x = rows();
  auto kernel = [&](auto access) {
    return one_core([access](auto x_hbm, auto o, auto buf, auto sems) {
      // Left half of every row in flight.
      auto in = pltpu::async_copy(x_hbm.at(pl::ellipsis, pl::ds<64>(0)), buf.at(pl::ellipsis, pl::ds<64>(0)), sems.at(0));
      pltpu::sync_copy(x_hbm.at(pl::ellipsis, pl::ds<64>(64)), buf.at(pl::ellipsis, pl::ds<64>(64)));
      access(buf);
      in.wait();
      pltpu::sync_copy(buf, o);
    })(x);
  };
  // The right half is not in flight: reads and writes are fine.
  CHECK_NOTHROW(kernel([](auto buf) {
    pl::detail::check_ref_access(buf.at(pl::ellipsis, pl::ds<64>(64)), false, "block read of buf");
    pl::detail::check_ref_access(buf.at(pl::ellipsis, pl::ds<64>(64)), true, "block write of buf");
    pl::detail::check_access(&buf(3, 64), 64 * sizeof(float), true, "block write of buf");
  }));
  // One element of the left half is.
  int line = 0;
  auto const msg = error_of<pl::race_error>([&] {
    kernel([&](auto buf) {
      line = __LINE__ + 1;
      pl::detail::check_ref_access(buf.at(pl::ds<1>(7), pl::ds<1>(63)), false, "block read of buf");
    });
  });
  CHECK_THAT(msg, Contains("pallas::race: block read of buf of 4 bytes at VMEM+" + std::to_string((7 * 128 + 63) * 4)));
  CHECK_THAT(msg, Contains(at_line(line)));
  CHECK_THAT(msg, Contains("reads the destination of copy #1"));
  // Reading a source in flight is fine, writing it is not.
  auto src_kernel = [&](bool write) {
    one_core([write](auto, auto o, auto buf, auto sems) {
      auto out = pltpu::async_copy(buf, o, sems.at(0));
      pl::detail::check_access(buf.data(), 16, write, write ? "block write of buf" : "block read of buf");
      out.wait();
    })(x);
  };
  CHECK_NOTHROW(src_kernel(false));
  CHECK_THAT(error_of<pl::race_error>([&] { src_kernel(true); }), Contains("block write of buf of 16 bytes at VMEM+0"));
}

TEST_CASE("checked: writes the hooks do not see are caught by snapshots", "[checked][race]") {
  // An element write of a copy's source (ref(i, j) may read or write, so the element hook
  // checks it as an access of destinations only), and a raw-pointer write of a destination.
  auto const x = rows();
  for (auto mode : {pltpu::dma_execution_mode::on_wait, pltpu::dma_execution_mode::eager}) {
    pltpu::scoped_dma_schedule use({mode});
    INFO((mode == pltpu::dma_execution_mode::eager ? "eager" : "on_wait"));
    int wait_line = 0;
    auto const src_msg = error_of<pl::race_error>([&] {
      one_core([&](auto x_hbm, auto o, auto buf, auto sems) {
        pltpu::sync_copy(x_hbm, buf);
        auto out = pltpu::make_async_copy(buf, o, sems.at(0));
        out.start();
        buf(5, 5) = -1.0f;  // writes the source before the wait
        wait_line = __LINE__ + 1;
        out.wait();
      })(x);
    });
    CHECK_THAT(src_msg, Contains("pallas::race: the source of copy #1 (VMEM+0 float32[16,128] -> HBM"));
    CHECK_THAT(src_msg, Contains("was written before its async_copy.wait at " + at_line(wait_line)));

    auto const dst_msg = error_of<pl::race_error>([&] {
      one_core([&](auto x_hbm, auto, auto buf, auto sems) {
        auto in = pltpu::async_copy(x_hbm, buf, sems.at(0));
        buf.data()[15 * 128 + 127] = 1.0f;  // writes the destination before the wait, unseen
        in.wait();
      })(x);
    });
    CHECK_THAT(dst_msg, Contains("the destination of copy #1 (HBM"));
    CHECK_THAT(dst_msg, Contains("was written before"));
  }
}

TEST_CASE("checked: a destination written between a partial wait and the copy's last wait is a race",
          "[checked][race]") {
  // The first half-size wait moves the whole copy but consumes only half its bytes: the
  // copy is still in flight, and its destination may not be written yet.
  auto const x = rows();
  auto const msg = error_of<pl::race_error>([&] {
    one_core([](auto x_hbm, auto, auto buf, auto sems) {
      pltpu::async_copy(x_hbm, buf, sems.at(0));
      auto half = pltpu::make_async_copy(x_hbm.at(pl::ds<8>(0)), buf.at(pl::ds<8>(0)), sems.at(0));
      half.wait();
      buf(0, 0) = 3.0f;  // the element hook sees it
      half.wait();
    })(x);
  });
  CHECK_THAT(msg, Contains("an element access (ref(i, ...)) of 4 bytes at VMEM+0 (checked_mode_test.cpp:"));
  CHECK_THAT(msg, Contains("reads or writes the destination of copy #1 (HBM"));
  auto const unseen = error_of<pl::race_error>([&] {
    one_core([](auto x_hbm, auto, auto buf, auto sems) {
      pltpu::async_copy(x_hbm, buf, sems.at(0));
      auto half = pltpu::make_async_copy(x_hbm.at(pl::ds<8>(0)), buf.at(pl::ds<8>(0)), sems.at(0));
      half.wait();
      buf.data()[0] = 3.0f;  // a raw write: the destination's snapshot sees it
      half.wait();
    })(x);
  });
  CHECK_THAT(unseen, Contains("the destination of copy #1 (HBM"));
  CHECK_THAT(unseen, Contains("was written before its async_copy.wait"));
}

TEST_CASE("checked: the destination of a copy in flight reads as poison, scratch starts poisoned", "[checked]") {
  auto const x = rows();
  float seen = 0;
  std::int32_t seen_int = 0;
  float scratch_vmem = 0;
  std::int32_t scratch_smem = 0;
  pltpu::scoped_dma_schedule use({pltpu::dma_execution_mode::on_wait});
  pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 16, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
             pl::scratch_types<pltpu::VMEM<float, 16, 128>, pltpu::SMEM<std::int32_t, 4>, pltpu::VMEM<float, 8>,
                               pltpu::SemaphoreType::DMA<2>>)(
      [&](auto x_hbm, auto o, auto buf, auto smem, auto vmem8, auto sems) {
        scratch_vmem = vmem8(3);
        scratch_smem = smem(2);
        smem(0) = 42;
        auto in = pltpu::async_copy(x_hbm, buf, sems.at(0));
        seen = buf.data()[1 * 128 + 1];  // a racy raw read (no hook sees it): poison
        in.wait();
        auto s = pltpu::async_copy(smem.at(pl::ds<1>(0)), smem.at(pl::ds<1>(1)), sems.at(1));
        seen_int = smem.data()[1];
        s.wait();
        pltpu::sync_copy(buf, o);
      })(x);
  CHECK(std::isnan(seen));
  CHECK(seen_int == INT32_MIN);
  CHECK(std::isnan(scratch_vmem));
  CHECK(scratch_smem == INT32_MIN);
}

TEST_CASE("checked: a race between cores on HBM names the other core's copy", "[checked][race]") {
  auto const x = rows();
  auto const msg = error_of<pl::race_error>([&] {
    pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 16, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 2>>,
               pl::scratch_types<pltpu::VMEM<float, 8, 128>, pltpu::SemaphoreType::DMA<>,
                                 pltpu::SemaphoreType::REGULAR<>>)(
        [](auto x_hbm, auto o, auto buf, auto dma, auto ready) {
          if (pl::axis_index<"core">() == 0) {
            pltpu::sync_copy(x_hbm.at(pl::ds<8>(0)), buf);
            auto out = pltpu::async_copy(buf, o.at(pl::ds<8>(0)), dma);  // in flight ...
            pl::semaphore_signal(ready, 1, 1);
            pl::semaphore_wait(ready, 1);  // ... until core 1 answers
            out.wait();
          } else {
            pl::semaphore_wait(ready, 1);
            pltpu::sync_copy(o.at(pl::ds<4>(4)), buf.at(pl::ds<4>(0)));  // reads core 0's destination
            pl::semaphore_signal(ready, 1, 0);
          }
        })(x);
  });
  CHECK_THAT(msg, Contains("pallas::race: sync_copy from HBM"));
  CHECK_THAT(msg, Contains("reads the destination of copy #1 (VMEM+0 float32[8,128] -> HBM"));
  CHECK_THAT(msg, Contains("on core 0, before that copy's wait (core 1)"));
}

TEST_CASE("checked: correct double buffering raises nothing under any schedule", "[checked]") {
  auto const x = rows();
  for (int s = 0; s < 10; ++s) {
    pltpu::scoped_dma_schedule use(s == 0   ? pltpu::dma_schedule{pltpu::dma_execution_mode::on_wait}
                                   : s == 1 ? pltpu::dma_schedule{pltpu::dma_execution_mode::eager}
                                            : pltpu::dma_schedule{pltpu::dma_execution_mode::random,
                                                                  static_cast<std::uint64_t>(s)});
    auto out = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 16, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                          pl::scratch_types<pltpu::VMEM<float, 2, 2, 128>, pltpu::SemaphoreType::DMA<2>,
                                            pltpu::SemaphoreType::DMA<2>>)(
        [](auto x_hbm, auto o, auto buf, auto in_sems, auto out_sems) {
          auto fetch = [&](int b) {
            return pltpu::make_async_copy(x_hbm.at(pl::ds<2>(2 * b)), buf.at(b % 2), in_sems.at(b % 2));
          };
          auto store = [&](int b) {
            return pltpu::make_async_copy(buf.at(b % 2), o.at(pl::ds<2>(2 * b)), out_sems.at(b % 2));
          };
          fetch(0).start();
          for (int b = 0; b < 8; ++b) {
            if (b + 1 < 8) {
              if (b >= 1) store(b - 1).wait();  // the slot fetch(b+1) reuses
              fetch(b + 1).start();
            }
            fetch(b).wait();
            for (int i = 0; i < 2; ++i)
              for (int j = 0; j < 128; ++j) buf.at(b % 2)(i, j) += 1.0f;
            store(b).start();
          }
          store(6).wait();
          store(7).wait();
        })(x);
    bool same = true;
    for (int i = 0; i < 16 * 128; ++i) same &= out.data()[i] == x.data()[i] + 1.0f;
    CHECK(same);
  }
}

TEST_CASE("checked: copies started and never waited are leak_errors naming the copy and core", "[checked][leak]") {
  auto const x = rows();
  int line = 0;
  pltpu::scoped_dma_schedule const on_wait({pltpu::dma_execution_mode::on_wait});  // whatever PALLAS_DMA_ORDER says
  auto const never = error_of<pl::leak_error>([&] {
    one_core([&](auto x_hbm, auto, auto buf, auto sems) {
      line = __LINE__ + 1;
      pltpu::async_copy(x_hbm.at(pl::ds<8>(8)), buf.at(pl::ds<8>(0)), sems.at(1));
    })(x);
  });
  CHECK_THAT(never, Contains("pallas::kernel: copies were started and never waited: copy #1 (HBM"));
  CHECK_THAT(never, Contains("DMA semaphore #1 (element [1] of 2, scratch)) started at " + at_line(line)));
  CHECK_THAT(never, Contains("on core 0 (its bytes never moved) (core 0)"));
  // Two copies on one semaphore and one wait: the second one is never waited, whether or
  // not its bytes moved (eager: they did, and its signal is still in the semaphore).
  for (auto mode : {pltpu::dma_execution_mode::on_wait, pltpu::dma_execution_mode::eager}) {
    pltpu::scoped_dma_schedule use({mode});
    auto const half = error_of<pl::leak_error>([&] {
      one_core([](auto x_hbm, auto, auto buf, auto sems) {
        auto a = pltpu::async_copy(x_hbm.at(pl::ds<8>(0)), buf.at(pl::ds<8>(0)), sems.at(0));
        pltpu::async_copy(x_hbm.at(pl::ds<8>(8)), buf.at(pl::ds<8>(8)), sems.at(0));
        a.wait();
      })(x);
    });
    CHECK_THAT(half, Contains("never waited: copy #2 (HBM"));
    CHECK_THAT(half, Contains(mode == pltpu::dma_execution_mode::eager ? "(it moved but no wait consumed its bytes)"
                                                                       : "(its bytes never moved)"));
  }
}

TEST_CASE("checked: a copy whose source and destination overlap is an error", "[checked]") {
  auto const x = rows();
  auto const msg = error_of<pl::race_error>([&] {
    one_core([](auto, auto, auto buf, auto sems) {
      pltpu::async_copy(buf.at(pl::ds<8>(0)), buf.at(pl::ds<8>(4)), sems.at(0)).wait();
    })(x);
  });
  CHECK_THAT(msg, Contains("the source and destination of copy #1 (VMEM+0 float32[8,128] -> VMEM+2048"));
  CHECK_THAT(msg, Contains("overlap"));
}

TEST_CASE("checked: waiting for more bytes than any copy sends is a deadlock naming the DMA semaphore",
          "[checked][deadlock]") {
  auto const x = rows();
  auto const msg = error_of<pl::deadlock_error>([&] {
    one_core([](auto x_hbm, auto, auto buf, auto sems) {
      pltpu::async_copy(x_hbm.at(pl::ds<8>(0)), buf.at(pl::ds<8>(0)), sems.at(0));
      pltpu::make_async_copy(x_hbm, buf, sems.at(0)).wait();  // 8192 bytes, 4096 come
    })(x);
  });
  CHECK_THAT(msg, Contains("core 0 waits in async_copy.wait (checked_mode_test.cpp:"));
  CHECK_THAT(msg, Contains("for DMA semaphore #0 (element [0] of 2, scratch) to reach 8192, it holds 4096"));
}

TEST_CASE("checked: a random DMA schedule exposes a race the default order hides, reproducibly",
          "[checked][schedule]") {
  // The bug: two copies share a semaphore, and the kernel reads the first one's rows after
  // the first wait. Hardware may complete the second copy first; the default order never
  // does.
  auto const x = rows();
  auto run = [&](pltpu::dma_schedule s) {
    pltpu::scoped_dma_schedule use(s);
    try {
      one_core([](auto x_hbm, auto o, auto buf, auto sems) {
        auto a = pltpu::async_copy(x_hbm.at(pl::ds<8>(0)), buf.at(pl::ds<8>(0)), sems.at(0));
        auto b = pltpu::async_copy(x_hbm.at(pl::ds<8>(8)), buf.at(pl::ds<8>(8)), sems.at(0));
        a.wait();
        pltpu::sync_copy(buf.at(pl::ds<8>(0)), o.at(pl::ds<8>(0)));  // assumes `a` is done
        b.wait();
        pltpu::sync_copy(buf.at(pl::ds<8>(8)), o.at(pl::ds<8>(8)));
      })(x);
    } catch (pl::race_error const& e) {
      CHECK_THAT(std::string(e.what()), Contains("reads the destination of copy #1"));
      return true;
    }
    return false;
  };
  CHECK_FALSE(run({pltpu::dma_execution_mode::on_wait}));
  CHECK_FALSE(run({pltpu::dma_execution_mode::eager}));
  std::vector<bool> found;
  for (std::uint64_t seed = 1; seed <= 24; ++seed) found.push_back(run({pltpu::dma_execution_mode::random, seed}));
  int const exposed = static_cast<int>(std::count(found.begin(), found.end(), true));
  CHECK(exposed > 0);
  CHECK(exposed < 24);
  for (std::uint64_t seed = 1; seed <= 24; ++seed)  // the same seed, the same outcome
    CHECK(run({pltpu::dma_execution_mode::random, seed}) == found[seed - 1]);
}

TEST_CASE("checked: PALLAS_DMA_ORDER and PALLAS_DMA_SEED describe the schedule", "[checked][schedule]") {
  using pl::detail::schedule_from;
  CHECK(schedule_from(nullptr, nullptr) == pltpu::dma_schedule{});
  CHECK(schedule_from("eager", nullptr).mode == pltpu::dma_execution_mode::eager);
  CHECK(schedule_from("on_wait", "").mode == pltpu::dma_execution_mode::on_wait);
  auto const seeded = schedule_from(nullptr, "42");
  CHECK(seeded.mode == pltpu::dma_execution_mode::random);
  CHECK(seeded.seed == 42);
  CHECK(schedule_from("on_wait", "7").mode == pltpu::dma_execution_mode::on_wait);
  CHECK_THROWS_WITH(schedule_from("later", nullptr), Contains("PALLAS_DMA_ORDER='later'"));
  CHECK_THROWS_WITH(schedule_from(nullptr, "x1"), Contains("PALLAS_DMA_SEED='x1'"));
  pltpu::dma_schedule const before = pltpu::get_dma_schedule();
  {
    pltpu::scoped_dma_schedule use({pltpu::dma_execution_mode::random, 9});
    CHECK(pltpu::get_dma_schedule().seed == 9);
  }
  CHECK(pltpu::get_dma_schedule() == before);
}
