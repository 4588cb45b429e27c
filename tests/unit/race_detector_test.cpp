// Checked mode's happens-before race detector across cores (interpret mode's detect_races):
// unsynchronized conflicting accesses of the same HBM bytes from two cores are races, found
// whatever the DMA order and executor; accesses ordered by a semaphore signal -> wait, a
// core barrier or a DMA wait are not, nor are disjoint bytes or two reads; pipelines over
// PARALLEL axes and pallas_call on several cores report nothing. The report names both
// cores and lines; throw_error raises pl::race_error; races_found() tells after a launch.
#include <pallas/pallas.hpp>

#include <catch2/catch.hpp>

#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace pl = pallas;
namespace pltpu = pallas::tpu;
using Catch::Contains;
using pl::index_t;

namespace {

/// Under ThreadSanitizer, kernels whose cores really race (async copies, a read of what
/// another core writes) are C++ data races that TSan reports; those cases only run in the
/// other builds (sync_copy's HBM writes are serialized under TSan, so those still run).
constexpr bool under_tsan = PALLAS_DETAIL_TSAN != 0;

template <int Cores>
using mesh = pltpu::TensorCoreMesh<"core", Cores>;

/// Every DMA order (random with several seeds) times both executors.
struct dma_setup {
  pltpu::dma_schedule schedule;
  pltpu::dma_executor executor;
};

std::vector<dma_setup> every_dma_setup() {
  std::vector<dma_setup> all;
  for (auto executor : {pltpu::dma_executor::on_core, pltpu::dma_executor::dma_thread}) {
    all.push_back({{pltpu::dma_execution_mode::on_wait}, executor});
    all.push_back({{pltpu::dma_execution_mode::eager}, executor});
    for (std::uint64_t seed : {1u, 2u, 3u}) all.push_back({{pltpu::dma_execution_mode::random, seed}, executor});
  }
  return all;
}

/// Captures what std::cerr receives while it lives.
class cerr_capture {
 public:
  cerr_capture() : previous_(std::cerr.rdbuf(text_.rdbuf())) {}
  ~cerr_capture() { std::cerr.rdbuf(previous_); }
  cerr_capture(cerr_capture const&) = delete;
  cerr_capture& operator=(cerr_capture const&) = delete;
  std::string str() const { return text_.str(); }

 private:
  std::ostringstream text_;
  std::streambuf* previous_;
};

pltpu::InterpretParams with_races(pltpu::race_detection mode) {
  pltpu::InterpretParams p = pltpu::get_interpret_params();
  p.detect_races = mode;
  return p;
}

/// Core c's value: its rows hold c + 1.
float value_of(index_t core) { return static_cast<float>(core + 1); }

template <index_t Rows>
bool rows_hold(pl::Array<float, Rows, 128> const& a, index_t first, index_t count, float value) {
  for (index_t r = first; r < first + count; ++r)
    for (index_t c = 0; c < 128; ++c)
      if (a(r, c) != value) return false;
  return true;
}

/// One of the cores' values everywhere (a racy write: any core may be last).
bool some_core_everywhere(pl::Array<float, 8, 128> const& a, int cores) {
  for (int c = 0; c < cores; ++c)
    if (rows_hold(a, 0, 8, value_of(c))) return true;
  return false;
}

/// Every core writes rows [0, 8) of the output with sync_copy, with no synchronisation.
template <int Cores>
pl::Array<float, 8, 128> all_write_sync() {
  return pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 8, 128>>, pl::mesh<mesh<Cores>>,
                    pl::scratch_types<pltpu::VMEM<float, 8, 128>>)([](auto o_hbm, auto v) {
    v[pl::ellipsis] = pl::full_like(v, value_of(pl::axis_index<"core">()));
    pltpu::sync_copy(v, o_hbm);
  })();
}

/// The same with async copies: start, then wait. Two copies in flight at once are the
/// in-flight checker's race_error; else the race detector reports.
template <int Cores>
pl::Array<float, 8, 128> all_write_async() {
  return pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 8, 128>>, pl::mesh<mesh<Cores>>,
                    pl::scratch_types<pltpu::VMEM<float, 8, 128>, pltpu::SemaphoreType::DMA<>>)(
      [](auto o_hbm, auto v, auto sem) {
        v[pl::ellipsis] = pl::full_like(v, value_of(pl::axis_index<"core">()));
        auto copy = pltpu::make_async_copy(v, o_hbm, sem);
        copy.start();
        copy.wait();
      })();
}

/// Whether all_write_async raced, by either checker.
template <int Cores>
bool all_write_async_races() {
  try {
    auto const out = all_write_async<Cores>();
    CHECK(some_core_everywhere(out, Cores));
    return pltpu::races_found();
  } catch (pl::race_error const& e) {
    CHECK_THAT(e.what(), Contains("started at race_detector_test.cpp:"));  // the in-flight checker's
    CHECK_THAT(e.what(), !Contains("pallas::race: core"));                  // (a copy was in flight)
    return true;
  }
}

/// Core i copies after core i - 1 finished its copy, learning so by polling a semaphore
/// with semaphore_read: a read is not a wait, so nothing orders the copies (no copy is
/// ever in flight while another is: only the race detector sees this race).
template <int Cores>
pl::Array<float, 8, 128> polled_async_writes() {
  return pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 8, 128>>, pl::mesh<mesh<Cores>>,
                    pl::scratch_types<pltpu::VMEM<float, 8, 128>, pltpu::SemaphoreType::DMA<>,
                                      pltpu::SemaphoreType::REGULAR<>>)([](auto o_hbm, auto v, auto dma, auto done) {
    index_t const i = pl::axis_index<"core">();
    while (i > 0 && pl::semaphore_read(done) == 0) std::this_thread::yield();
    v[pl::ellipsis] = pl::full_like(v, value_of(i));
    auto copy = pltpu::make_async_copy(v, o_hbm, dma);
    copy.start();
    copy.wait();
    if (i + 1 < Cores) pl::semaphore_signal(done, 1, i + 1);
    if (i > 0) pl::semaphore_wait(done);  // every semaphore ends at zero
  })();
}

/// Core i waits for core i - 1's signal, writes rows [0, 8), then signals core i + 1.
template <int Cores>
pl::Array<float, 8, 128> chained_writes() {
  return pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 8, 128>>, pl::mesh<mesh<Cores>>,
                    pl::scratch_types<pltpu::VMEM<float, 8, 128>, pltpu::SemaphoreType::DMA<>,
                                      pltpu::SemaphoreType::REGULAR<>>)([](auto o_hbm, auto v, auto dma, auto turn) {
    index_t const i = pl::axis_index<"core">();
    if (i > 0) pl::semaphore_wait(turn);
    v[pl::ellipsis] = pl::full_like(v, value_of(i));
    auto copy = pltpu::make_async_copy(v, o_hbm, dma);
    copy.start();
    copy.wait();  // the copy's completion is part of what the signal releases
    if (i + 1 < Cores) pl::semaphore_signal(turn, 1, i + 1);
  })();
}

/// Core 0 writes, every core passes a core barrier, then the last core writes.
template <int Cores>
pl::Array<float, 8, 128> barrier_ordered_writes() {
  return pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 8, 128>>, pl::mesh<mesh<Cores>>,
                    pl::scratch_types<pltpu::VMEM<float, 8, 128>, pltpu::SemaphoreType::REGULAR<>>)(
      [](auto o_hbm, auto v, auto barrier) {
        index_t const i = pl::axis_index<"core">();
        v[pl::ellipsis] = pl::full_like(v, value_of(i));
        pltpu::run_on_first_core<"core">([&] { pltpu::sync_copy(v, o_hbm); });
        pltpu::core_barrier<"core">(barrier);
        if (i == Cores - 1) pltpu::sync_copy(v, o_hbm);
      })();
}

/// Core i writes its own rows [8i, 8i + 8).
template <int Cores>
pl::Array<float, 8 * Cores, 128> disjoint_writes() {
  return pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 8 * Cores, 128>>, pl::mesh<mesh<Cores>>,
                    pl::scratch_types<pltpu::VMEM<float, 8, 128>>)([](auto o_hbm, auto v) {
    index_t const i = pl::axis_index<"core">();
    v[pl::ellipsis] = pl::full_like(v, value_of(i));
    pltpu::sync_copy(v, o_hbm.at(pl::ds<8>(i * 8)));
  })();
}

}  // namespace

TEST_CASE("race detector: cores writing the same HBM rows unsynchronized race (sync_copy)", "[race_detector]") {
  pltpu::scoped_interpret_params report(with_races(pltpu::race_detection::report));
  auto const one = all_write_sync<1>();
  CHECK_FALSE(pltpu::races_found());  // one core cannot race with itself
  CHECK(rows_hold(one, 0, 8, 1.0f));
  std::string printed;
  {
    cerr_capture capture;
    auto const two = all_write_sync<2>();
    CHECK(pltpu::races_found());
    CHECK(some_core_everywhere(two, 2));
    printed = capture.str();
  }
  if constexpr (pl::checked_mode) {
    CHECK_THAT(printed, Contains("pallas::race: core"));
    CHECK_THAT(printed, Contains("core 0"));
    CHECK_THAT(printed, Contains("core 1"));
    CHECK_THAT(printed, Contains("sync_copy at race_detector_test.cpp:"));
    CHECK_THAT(printed, Contains("(4096 bytes)"));  // the whole block overlaps
  }
  auto const four = all_write_sync<4>();
  CHECK(pltpu::races_found() == pl::checked_mode);
  CHECK(some_core_everywhere(four, 4));
  // Reported once per pair of sites: the same race again prints nothing.
  cerr_capture again;
  (void)all_write_sync<2>();
  CHECK(pltpu::races_found() == pl::checked_mode);
  CHECK(again.str().empty());
}

TEST_CASE("race detector: async copies to the same rows race, in every DMA order and executor", "[race_detector]") {
  pltpu::scoped_interpret_params report(with_races(pltpu::race_detection::report));
  for (auto const& setup : every_dma_setup()) {
    pltpu::scoped_dma_schedule schedule(setup.schedule);
    pltpu::scoped_dma_executor executor(setup.executor);
    CHECK_FALSE(all_write_async_races<1>());
    // The last core of the chain copies last; only the detector can see these races.
    CHECK(rows_hold(polled_async_writes<2>(), 0, 8, 2.0f));
    CHECK(pltpu::races_found() == pl::checked_mode);
    CHECK(rows_hold(polled_async_writes<4>(), 0, 8, 4.0f));
    CHECK(pltpu::races_found() == pl::checked_mode);
    if constexpr (!under_tsan) {  // copies that run at once are data races in C++ too
      CHECK(all_write_async_races<2>() == pl::checked_mode);
      CHECK(all_write_async_races<4>() == pl::checked_mode);
    }
  }
}

TEST_CASE("race detector: writes ordered by semaphore signal -> wait are not races", "[race_detector]") {
  pltpu::scoped_interpret_params report(with_races(pltpu::race_detection::throw_error));
  for (auto const& setup : every_dma_setup()) {
    pltpu::scoped_dma_schedule schedule(setup.schedule);
    pltpu::scoped_dma_executor executor(setup.executor);
    // The last core in the chain writes last.
    CHECK(rows_hold(chained_writes<2>(), 0, 8, 2.0f));
    CHECK_FALSE(pltpu::races_found());
    CHECK(rows_hold(chained_writes<4>(), 0, 8, 4.0f));
    CHECK_FALSE(pltpu::races_found());
  }
}

TEST_CASE("race detector: writes ordered by a core barrier are not races", "[race_detector]") {
  pltpu::scoped_interpret_params report(with_races(pltpu::race_detection::throw_error));
  for (auto const& setup : every_dma_setup()) {
    pltpu::scoped_dma_schedule schedule(setup.schedule);
    pltpu::scoped_dma_executor executor(setup.executor);
    CHECK(rows_hold(barrier_ordered_writes<2>(), 0, 8, 2.0f));
    CHECK_FALSE(pltpu::races_found());
    CHECK(rows_hold(barrier_ordered_writes<4>(), 0, 8, 4.0f));
    CHECK_FALSE(pltpu::races_found());
  }
}

TEST_CASE("race detector: disjoint rows are not races", "[race_detector]") {
  pltpu::scoped_interpret_params report(with_races(pltpu::race_detection::throw_error));
  auto const two = disjoint_writes<2>();
  CHECK_FALSE(pltpu::races_found());
  for (index_t c = 0; c < 2; ++c) CHECK(rows_hold(two, c * 8, 8, value_of(c)));
  auto const four = disjoint_writes<4>();
  CHECK_FALSE(pltpu::races_found());
  for (index_t c = 0; c < 4; ++c) CHECK(rows_hold(four, c * 8, 8, value_of(c)));
}

TEST_CASE("race detector: a read and a write of the same bytes race, two reads do not", "[race_detector]") {
  pltpu::scoped_interpret_params report(with_races(pltpu::race_detection::report));
  auto const x = pl::Array<float, 16, 128>::generate([](auto i, auto j) { return static_cast<float>(i * 128 + j); });
  // Both cores read all of x (read/read); each writes its half of the output.
  auto const halves = pl::kernel(pl::like(x), pl::mesh<mesh<2>>, pl::scratch_types<pltpu::VMEM<float, 16, 128>>)(
      [](auto x_hbm, auto o_hbm, auto v) {
        index_t const i = pl::axis_index<"core">();
        pltpu::sync_copy(x_hbm, v);
        pltpu::sync_copy(v.at(pl::ds<8>(i * 8)), o_hbm.at(pl::ds<8>(i * 8)));
      })(x);
  CHECK_FALSE(pltpu::races_found());
  CHECK(halves == x);
  if constexpr (under_tsan) return;
  // Core 1 reads rows [4, 12) of the output while core 0 writes rows [0, 8): bytes of rows
  // 4..7 conflict; the read sees poison or 1s, whichever came first.
  cerr_capture capture;
  auto const out = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 16, 128>>, pl::mesh<mesh<2>>,
                              pl::scratch_types<pltpu::VMEM<float, 8, 128>>)([](auto o_hbm, auto v) {
    if (pl::axis_index<"core">() == 0) {
      v[pl::ellipsis] = pl::ones_like(v);
      pltpu::sync_copy(v, o_hbm.at(pl::ds<8>(0)));
    } else {
      pltpu::sync_copy(o_hbm.at(pl::ds<8>(4)), v);
    }
  })();
  CHECK(pltpu::races_found() == pl::checked_mode);
  CHECK(rows_hold(out, 0, 8, 1.0f));
  if constexpr (pl::checked_mode) {
    std::string const printed = capture.str();
    CHECK_THAT(printed, Contains("core 0"));
    CHECK_THAT(printed, Contains("core 1"));
    CHECK_THAT(printed, Contains("(2048 bytes)"));  // rows 4..7 only
    bool const one_way = printed.find("core 1 reads") != std::string::npos &&
                         printed.find("core 0 wrote") != std::string::npos;
    bool const other_way = printed.find("core 0 writes") != std::string::npos &&
                           printed.find("core 1 read ") != std::string::npos;
    CHECK((one_way || other_way));
  }
}

TEST_CASE("race detector: throw_error raises pl::race_error naming both cores", "[race_detector]") {
  pltpu::scoped_interpret_params raise(with_races(pltpu::race_detection::throw_error));
  if constexpr (pl::checked_mode) {
    std::string message;
    try {
      (void)all_write_sync<2>();
    } catch (pl::race_error const& e) {
      message = e.what();
    }
    CHECK_THAT(message, Contains("pallas::race: core"));
    CHECK_THAT(message, Contains("core 0"));
    CHECK_THAT(message, Contains("core 1"));
    CHECK_THAT(message, Contains("sync_copy at race_detector_test.cpp:"));
    CHECK(pltpu::races_found());
    // The device stays usable.
    CHECK(rows_hold(chained_writes<2>(), 0, 8, 2.0f));
    CHECK_FALSE(pltpu::races_found());
  } else {
    CHECK_NOTHROW(all_write_sync<2>());
  }
}

TEST_CASE("race detector: off detects nothing and leaves races_found alone", "[race_detector]") {
  {
    pltpu::scoped_interpret_params report(with_races(pltpu::race_detection::report));
    (void)disjoint_writes<2>();
    CHECK_FALSE(pltpu::races_found());
  }
  pltpu::scoped_interpret_params off(with_races(pltpu::race_detection::off));
  cerr_capture capture;
  CHECK(some_core_everywhere(all_write_sync<2>(), 2));
  CHECK_FALSE(pltpu::races_found());
  CHECK(capture.str().empty());
}

TEST_CASE("race detector: PALLAS_DETECT_RACES spells off, report, throw", "[race_detector]") {
  CHECK(pl::detail::race_detection_from(nullptr) == pltpu::race_detection::report);
  CHECK(pl::detail::race_detection_from("") == pltpu::race_detection::report);
  CHECK(pl::detail::race_detection_from("off") == pltpu::race_detection::off);
  CHECK(pl::detail::race_detection_from("report") == pltpu::race_detection::report);
  CHECK(pl::detail::race_detection_from("throw") == pltpu::race_detection::throw_error);
  CHECK_THROWS_WITH(pl::detail::race_detection_from("loud"), Contains("PALLAS_DETECT_RACES='loud'"));
}

TEST_CASE("race detector: emit_pipeline over PARALLEL axes and pallas_call on several cores report nothing",
          "[race_detector]") {
  pltpu::scoped_interpret_params raise(with_races(pltpu::race_detection::throw_error));
  constexpr auto ij = [](auto i, auto j) { return pl::idx(i, j); };
  auto const x = pl::Array<float, 64, 256>::generate([](auto i, auto j) { return static_cast<float>(i * 256 + j); });
  auto expect_doubled = [&](pl::Array<float, 64, 256> const& o) {
    for (index_t i = 0; i < 64; ++i)
      for (index_t j = 0; j < 256; ++j)
        if (o(i, j) != 2 * x(i, j)) return false;
    return true;
  };
  auto pipelined = [&]<int Cores>() {
    return pl::kernel(pl::like(x), pl::mesh<mesh<Cores>>)([=](auto x_hbm, auto o_hbm) {
      pltpu::emit_pipeline([](auto xv, auto ov) { ov[pl::ellipsis] = xv[pl::ellipsis] * 2.0f; },
                           pl::grid<64 / 8, 256 / 128>, pl::in_specs(pl::BlockSpec<8, 128>(ij)),
                           pl::out_specs(pl::BlockSpec<8, 128>(ij)), pltpu::core_axis_name<"core">,
                           pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::PARALLEL>)(x_hbm, o_hbm);
    })(x);
  };
  for (auto const& setup : every_dma_setup()) {
    pltpu::scoped_dma_schedule schedule(setup.schedule);
    pltpu::scoped_dma_executor executor(setup.executor);
    CHECK(expect_doubled(pipelined.template operator()<2>()));
    CHECK_FALSE(pltpu::races_found());
    CHECK(expect_doubled(pipelined.template operator()<4>()));
    CHECK_FALSE(pltpu::races_found());
    auto const called = pl::pallas_call([](auto x_ref, auto o_ref) { o_ref[pl::ellipsis] = x_ref[pl::ellipsis] * 2.0f; },
                                        pl::like(x), pl::grid<64 / 8, 256 / 128>,
                                        pl::in_specs(pl::BlockSpec<8, 128>(ij)), pl::out_specs(pl::BlockSpec<8, 128>(ij)),
                                        pltpu::compiler_params(pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::PARALLEL>),
                                        pltpu::num_cores<2>)(x);
    CHECK(expect_doubled(called));
    CHECK_FALSE(pltpu::races_found());
  }
}

TEST_CASE("race detector: a pipeline's write-back and another core's sync_copy race", "[race_detector]") {
  // emit_pipeline itself makes cores write disjoint output blocks (a run-time error
  // otherwise); here core 0 then overwrites the block core 1's pipeline wrote back.
  if constexpr (under_tsan) return;
  pltpu::scoped_interpret_params report(with_races(pltpu::race_detection::report));
  auto const x = pl::Array<float, 16, 128>::full(3.0f);
  cerr_capture capture;
  auto const out = pl::kernel(pl::like(x), pl::mesh<mesh<2>>, pl::scratch_types<pltpu::VMEM<float, 8, 128>>)(
      [](auto x_hbm, auto o_hbm, auto v) {
        pltpu::emit_pipeline([](auto xv, auto ov) { ov[pl::ellipsis] = xv[pl::ellipsis]; }, pl::grid<2>,
                             pl::in_specs(pl::BlockSpec<8, 128>([](auto i) { return pl::idx(i, 0); })),
                             pl::out_specs(pl::BlockSpec<8, 128>([](auto i) { return pl::idx(i, 0); })),
                             pltpu::core_axis_name<"core">, pltpu::dimension_semantics<pltpu::PARALLEL>)(x_hbm, o_hbm);
        if (pl::axis_index<"core">() == 0) {
          v[pl::ellipsis] = pl::full_like(v, 7.0f);
          pltpu::sync_copy(v, o_hbm.at(pl::ds<8>(8)));
        }
      })(x);
  CHECK(pltpu::races_found() == pl::checked_mode);
  CHECK(rows_hold(out, 0, 8, 3.0f));
  CHECK((rows_hold(out, 8, 8, 3.0f) || rows_hold(out, 8, 8, 7.0f)));
  if constexpr (pl::checked_mode) {
    std::string const printed = capture.str();
    CHECK_THAT(printed, Contains("(4096 bytes)"));
    CHECK_THAT(printed, Contains("pipeline copy"));
    CHECK_THAT(printed, Contains("sync_copy at race_detector_test.cpp:"));
  }
}
