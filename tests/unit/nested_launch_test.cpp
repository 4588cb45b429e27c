// Launches that overlap: from a thread that a kernel body starts (it would wait forever
// for the launch that waits for it, if launches only took turns), from every core of a
// launch at once, with the DMA thread on both, failing inside, and from several user
// threads. A kernel body itself cannot launch: the error names the running launch.
#include <pallas/pallas.hpp>

#include <atomic>
#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "watchdog.hpp"

namespace pl = pallas;
namespace pltpu = pallas::tpu;
using Catch::Matchers::Contains;

namespace {

constexpr pl::index_t M = 64, N = 256;
using matrix = pl::Array<float, M, N>;
constexpr auto ij = [](auto i, auto j) { return pl::idx(i, j); };

// x + y through a pipeline of 16x128 blocks on `Cores` cores.
template <int Cores>
matrix add_on(matrix const& x, matrix const& y) {
  auto k = pl::kernel(pl::like(x), pl::mesh<pltpu::TensorCoreMesh<"core", Cores>>)([](auto x_hbm, auto y_hbm, auto o_hbm) {
    pltpu::emit_pipeline([](auto xv, auto yv, auto ov) { ov[pl::ellipsis] = xv[pl::ellipsis] + yv[pl::ellipsis]; },
                         pl::grid<M / 16, N / 128>,
                         pl::in_specs(pl::BlockSpec<16, 128>(ij), pl::BlockSpec<16, 128>(ij)),
                         pl::out_specs(pl::BlockSpec<16, 128>(ij)), pltpu::core_axis_name<"core">,
                         pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::ARBITRARY>)(x_hbm, y_hbm, o_hbm);
  });
  return k(x, y);
}

matrix distinct(float salt) {
  return matrix::generate([=](auto i, auto j) { return static_cast<float>(i * 1000 + j) + salt; });
}

bool is_sum(matrix const& o, matrix const& x, matrix const& y) {
  for (pl::index_t i = 0; i < M; ++i)
    for (pl::index_t j = 0; j < N; ++j)
      if (o(i, j) != x(i, j) + y(i, j)) return false;
  return true;
}

template <int Cores, class F>
void run_on(F body) {
  pl::kernel(pl::mesh<pltpu::TensorCoreMesh<"core", Cores>>)(body)();
}

template <int Outer, int Inner>
void thread_from_body_launches() {
  pallas_test::watchdog guard("a launch from a thread started inside a kernel body", std::chrono::seconds(120));
  auto const x = distinct(0.5f), y = distinct(7.0f);
  std::optional<matrix> inner;
  run_on<Outer>([&] {
    if (pl::axis_index<"core">() != 0) return;
    std::thread t([&] { inner = add_on<Inner>(x, y); });
    t.join();  // the body waits for the thread, which launches while this launch runs
  });
  REQUIRE(inner);
  CHECK(is_sum(*inner, x, y));
}

}  // namespace

TEST_CASE("launch: a thread started inside a kernel body launches a kernel, which runs on other cores",
          "[device][nesting]") {
  SECTION("1-core launch, 1-core inner launch") { thread_from_body_launches<1, 1>(); }
  SECTION("1-core launch, 2-core inner launch") { thread_from_body_launches<1, 2>(); }
  SECTION("2-core launch, 2-core inner launch") { thread_from_body_launches<2, 2>(); }
  SECTION("2-core launch, 4-core inner launch") { thread_from_body_launches<2, 4>(); }
  CHECK(pl::detail::device::instance().num_spare_sets() >= 1);
}

TEST_CASE("launch: every core of a launch starts a thread that launches, all at once", "[device][nesting]") {
  pallas_test::watchdog guard("launches from threads started on every core", std::chrono::seconds(120));
  std::vector<matrix> x, y;
  for (int c = 0; c < 4; ++c) {
    x.push_back(distinct(static_cast<float>(c)));
    y.push_back(distinct(100.0f * static_cast<float>(c)));
  }
  std::vector<std::optional<matrix>> inner(4);
  run_on<4>([&] {
    auto const c = static_cast<std::size_t>(pl::axis_index<"core">());
    std::thread t([&, c] { inner[c] = add_on<2>(x[c], y[c]); });
    t.join();
  });
  for (std::size_t c = 0; c < 4; ++c) {
    REQUIRE(inner[c]);
    CHECK(is_sum(*inner[c], x[c], y[c]));
  }
}

TEST_CASE("launch: the DMA thread serves an inner launch and the launch that started it at the same time",
          "[device][nesting][dma_engine]") {
  pallas_test::watchdog guard("overlapping launches on the DMA thread", std::chrono::seconds(120));
  pltpu::scoped_dma_executor on_thread(pltpu::dma_executor::dma_thread);
  auto const x = distinct(1.0f), y = distinct(2.0f), u = distinct(3.0f), v = distinct(4.0f);
  std::optional<matrix> inner;
  auto outer = pl::kernel(pl::like(x), pl::mesh<pltpu::TensorCoreMesh<"core", 2>>)([&](auto x_hbm, auto y_hbm,
                                                                                         auto o_hbm) {
    std::optional<std::thread> t;
    if (pl::axis_index<"core">() == 0) t.emplace([&] { inner = add_on<2>(u, v); });
    // This launch's pipeline copies move on the DMA thread while the inner launch's do.
    pltpu::emit_pipeline([](auto xv, auto yv, auto ov) { ov[pl::ellipsis] = xv[pl::ellipsis] + yv[pl::ellipsis]; },
                         pl::grid<M / 16, N / 128>,
                         pl::in_specs(pl::BlockSpec<16, 128>(ij), pl::BlockSpec<16, 128>(ij)),
                         pl::out_specs(pl::BlockSpec<16, 128>(ij)), pltpu::core_axis_name<"core">,
                         pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::ARBITRARY>)(x_hbm, y_hbm, o_hbm);
    if (t) t->join();
  });
  for (int round = 0; round < 5; ++round) {
    inner.reset();
    matrix const o = outer(x, y);
    CHECK(is_sum(o, x, y));
    REQUIRE(inner);
    CHECK(is_sum(*inner, u, v));
  }
}

TEST_CASE("launch: an error in an inner launch reaches its thread, and the outer launch goes on", "[device][nesting]") {
  pallas_test::watchdog guard("a failing launch from a thread started inside a kernel body", std::chrono::seconds(120));
  std::string caught;
  std::atomic<int> outer_ran{0};
  run_on<2>([&] {
    if (pl::axis_index<"core">() == 0) {
      std::thread t([&] {
        try {
          run_on<2>([] {
            if (pl::axis_index<"core">() == 1) throw std::runtime_error("inner core 1 fails");
          });
        } catch (std::exception const& e) {
          caught = e.what();
        }
      });
      t.join();
    }
    outer_ran.fetch_add(1);
  });
  CHECK(caught == "inner core 1 fails");
  CHECK(outer_ran.load() == 2);
}

TEST_CASE("launch: launches from several user threads all complete with their own results", "[device][nesting]") {
  pallas_test::watchdog guard("launches from 4 user threads", std::chrono::seconds(300));
  std::atomic<int> wrong{0};
  std::vector<std::thread> users;
  for (int u = 0; u < 4; ++u)
    users.emplace_back([&, u] {
      auto const x = distinct(static_cast<float>(u)), y = distinct(0.25f);
      for (int k = 0; k < 40; ++k) {
        matrix const o = (k % 2 == 0) ? add_on<2>(x, y) : add_on<1>(x, y);
        if (!is_sum(o, x, y)) wrong.fetch_add(1);
      }
    });
  for (auto& t : users) t.join();
  CHECK(wrong.load() == 0);
  // A launch waits for another only up to device::spill_after: at most one set per user thread.
  CHECK(pl::detail::device::instance().num_spare_sets() <= 4 + 4);
}

TEST_CASE("launch: a kernel body cannot launch a kernel, the error names the running launch", "[device][nesting]") {
  CHECK_THROWS_WITH(run_on<1>([] { run_on<1>([] {}); }),
                    Contains("pallas::kernel: a kernel cannot be launched from inside a kernel (this body runs on "
                             "core 0 of launch #") &&
                        Contains(", a pl::kernel on 1 core); launch it after that kernel returns"));
  CHECK_THROWS_WITH(run_on<2>([] {
                      if (pl::axis_index<"core">() == 1) run_on<1>([] {});
                    }),
                    Contains("(this body runs on core 1 of launch #") && Contains("a pl::kernel on 2 cores)"));
  auto nested_in_call = pl::pallas_call(
      [](auto x, auto o) {
        o[pl::ellipsis] = x[pl::ellipsis];
        run_on<1>([] {});
      },
      pl::out_shape<pl::ShapeDtypeStruct<float, 16, 128>>, pltpu::num_cores<2>, pl::grid<2>,
      pl::in_specs(pl::BlockSpec<8, 128>([](auto i) { return pl::idx(i, 0); })),
      pl::out_specs(pl::BlockSpec<8, 128>([](auto i) { return pl::idx(i, 0); })),
      pltpu::dimension_semantics<pltpu::PARALLEL>);
  CHECK_THROWS_WITH(nested_in_call(pl::Array<float, 16, 128>::full(1.0f)), Contains("a pl::pallas_call on 2 cores)"));
  // The device stays usable.
  auto const x = distinct(0.0f), y = distinct(1.0f);
  CHECK(is_sum(add_on<2>(x, y), x, y));
}
