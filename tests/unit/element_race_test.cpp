// Checked mode's element hook: reading or writing one element of an in-flight copy's
// destination (`dst(i, j)`, `s[i]`, `pl::load(s)`) before the wait is a pl::race_error that
// names the line of the access, in every DMA order; reading a source in flight, or the
// destination after the wait, is fine.
#include <pallas/pallas.hpp>

#include <cstdint>
#include <string>

#include <catch2/catch.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;
using Catch::Matchers::Contains;

namespace {

template <class F>
std::string race_of(F&& f) {
  try {
    f();
  } catch (pl::race_error const& e) {
    return e.what();
  }
  return "no race_error";
}

std::string at_line(int line) { return "(element_race_test.cpp:" + std::to_string(line) + ")"; }

using X = pl::Array<float, 16, 128>;

template <class F>
void one_core(X const& x, F body) {
  pl::kernel(pl::like(x), pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
             pl::scratch_types<pltpu::VMEM<float, 16, 128>, pltpu::SMEM<std::int32_t, 8>, pltpu::VMEM<float>,
                               pltpu::SemaphoreType::DMA<2>>)(body)(x);
}

}  // namespace

TEST_CASE("checked: an element read of an in-flight copy's destination is a race at the reading line",
          "[checked][race][element]") {
  X const x = X::full(2.0f);
  for (auto mode : {pltpu::dma_execution_mode::on_wait, pltpu::dma_execution_mode::eager,
                    pltpu::dma_execution_mode::random}) {
    pltpu::scoped_dma_schedule use({mode, 3});
    INFO("DMA order " << static_cast<int>(mode));
    int line = 0;
    auto const msg = race_of([&] {
      one_core(x, [&](auto x_hbm, auto o, auto buf, auto, auto, auto sems) {
        auto in = pltpu::async_copy(x_hbm, buf, sems.at(0));
        line = __LINE__ + 1;
        float const v = buf(3, 5);
        in.wait();
        buf(0, 0) = v;
        pltpu::sync_copy(buf, o);
      });
    });
    CHECK_THAT(msg, Contains("pallas::race: an element access (ref(i, ...)) of 4 bytes at VMEM+" +
                             std::to_string((3 * 128 + 5) * 4) + " " + at_line(line)));
    CHECK_THAT(msg, Contains("reads or writes the destination of copy #1 (HBM"));
    CHECK_THAT(msg, Contains("started at element_race_test.cpp:" + std::to_string(line - 2)));
    CHECK_THAT(msg, Contains("before that copy's wait (core 0)"));
  }
}

TEST_CASE("checked: an element write of an in-flight copy's destination is a race at the writing line",
          "[checked][race][element]") {
  X const x = X::full(2.0f);
  int line = 0;
  auto const msg = race_of([&] {
    one_core(x, [&](auto x_hbm, auto o, auto buf, auto, auto, auto sems) {
      auto in = pltpu::async_copy(x_hbm.at(pl::ds<8>(8)), buf.at(pl::ds<8>(8)), sems.at(0));
      buf(0, 0) = 1.0f;  // rows 0-7 are not the copy's: fine
      line = __LINE__ + 1;
      buf(15, 127) = 1.0f;
      in.wait();
      pltpu::sync_copy(buf, o);
    });
  });
  CHECK_THAT(msg, Contains("an element access (ref(i, ...)) of 4 bytes at VMEM+" + std::to_string((15 * 128 + 127) * 4) +
                           " " + at_line(line)));
}

TEST_CASE("checked: SMEM scalars of an in-flight copy's destination: s[i], s(i), a rank-0 ref, pl::load",
          "[checked][race][element]") {
  X const x = X::full(2.0f);
  int line = 0;
  SECTION("s[i]") {
    auto const msg = race_of([&] {
      one_core(x, [&](auto, auto o, auto buf, auto smem, auto, auto sems) {
        smem[0] = 7;
        auto c = pltpu::async_copy(smem.at(pl::ds<1>(0)), smem.at(pl::ds<1>(4)), sems.at(1));
        std::int32_t const fine = smem[0];  // the source: reading it is fine
        line = __LINE__ + 1;
        std::int32_t const racy = smem[4];
        c.wait();
        buf(0, 0) = static_cast<float>(fine + racy);
        pltpu::sync_copy(buf, o);
      });
    });
    CHECK_THAT(msg, Contains("an element access (ref(i, ...)) of 4 bytes at SMEM+16 " + at_line(line)));
  }
  SECTION("s(i)") {
    auto const msg = race_of([&] {
      one_core(x, [&](auto, auto, auto, auto smem, auto, auto sems) {
        auto c = pltpu::async_copy(smem.at(pl::ds<2>(0)), smem.at(pl::ds<2>(2)), sems.at(1));
        line = __LINE__ + 1;
        smem(3) = 1;
        c.wait();
      });
    });
    CHECK_THAT(msg, Contains("of 4 bytes at SMEM+12 " + at_line(line)));
  }
  SECTION("a rank-0 VMEM ref") {
    auto const msg = race_of([&] {
      one_core(x, [&](auto x_hbm, auto, auto, auto, auto scalar, auto sems) {
        auto c = pltpu::async_copy(x_hbm.at(0, 0), scalar, sems.at(0));
        line = __LINE__ + 1;
        float const v = scalar();
        c.wait();
        (void)v;
      });
    });
    CHECK_THAT(msg, Contains("an element access (ref(i, ...)) of 4 bytes at VMEM+") && Contains(at_line(line)));
  }
  SECTION("pl::load of a rank-0 SMEM ref") {
    auto const msg = race_of([&] {
      one_core(x, [&](auto, auto, auto, auto smem, auto, auto sems) {
        auto c = pltpu::async_copy(smem.at(pl::ds<1>(0)), smem.at(pl::ds<1>(1)), sems.at(1));
        line = __LINE__ + 1;
        std::int32_t const v = pl::load(smem.at(1));
        c.wait();
        (void)v;
      });
    });
    CHECK_THAT(msg, Contains("of 4 bytes at SMEM+4 " + at_line(line)));
  }
}

TEST_CASE("checked: element reads of a source in flight, and of a destination after its wait, are fine",
          "[checked][race][element]") {
  X const x = X::generate([](auto i, auto j) { return static_cast<float>(i * 128 + j); });
  X const o = pl::kernel(pl::like(x), pl::mesh<pltpu::TensorCoreMesh<"core", 2>>,
                         pl::scratch_types<pltpu::VMEM<float, 8, 128>, pltpu::VMEM<float, 8, 128>,
                                           pltpu::SemaphoreType::DMA<2>>)(
      [](auto x_hbm, auto o_hbm, auto a, auto b, auto sems) {
        pl::index_t const c = pl::axis_index<"core">();
        pltpu::sync_copy(x_hbm.at(pl::ds<8>(c * 8)), a);
        auto out = pltpu::async_copy(a, o_hbm.at(pl::ds<8>(c * 8)), sems.at(0));
        auto in = pltpu::async_copy(x_hbm.at(pl::ds<8>(c * 8)), b, sems.at(1));
        float sum = 0;
        for (pl::index_t i = 0; i < 8; ++i)
          for (pl::index_t j = 0; j < 128; ++j) sum += a(i, j);  // the source of `out`
        in.wait();
        sum -= b(7, 127);  // after its wait
        out.wait();
        a(0, 0) = sum;
        pltpu::sync_copy(a.at(pl::ds<1>(0)), o_hbm.at(pl::ds<1>(c * 8)));
      })(x);
  for (pl::index_t c = 0; c < 2; ++c) {
    float sum = 0;
    for (pl::index_t i = 0; i < 8; ++i)
      for (pl::index_t j = 0; j < 128; ++j) sum += x(c * 8 + i, j);
    CHECK(o(c * 8, 0) == sum - x(c * 8 + 7, 127));
    CHECK(o(c * 8, 1) == x(c * 8, 1));
    CHECK(o(c * 8 + 7, 127) == x(c * 8 + 7, 127));
  }
}
