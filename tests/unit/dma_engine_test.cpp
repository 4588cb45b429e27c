// The DMA engine: chunked copies move exactly the bytes a whole copy moves, whatever the
// chunk size and layout; the executor can be chosen (environment, call, scope); and with
// the DMA thread a pipeline's next block arrives while the core computes, before any wait.
#include <pallas/pallas.hpp>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;
using pl::index_t;

namespace {

/// A copy between two strided 3-D views of byte buffers, described as a dma_task.
struct strided_case {
  index_t extents[3];
  index_t src_strides[3];
  index_t dst_strides[3];
  std::size_t element_bytes;
};

pl::detail::dma_task make_task(strided_case const& c, std::byte const* src, std::byte* dst) {
  pl::detail::dma_task t;
  t.src = src;
  t.dst = dst;
  t.rank = 3;
  t.element_bytes = c.element_bytes;
  index_t n = 1;
  for (int d = 0; d < 3; ++d) {
    t.extents[d] = c.extents[d];
    t.src_strides[d] = c.src_strides[d];
    t.dst_strides[d] = c.dst_strides[d];
    n *= c.extents[d];
  }
  t.bytes = static_cast<std::int32_t>(n * static_cast<index_t>(c.element_bytes));
  return t;
}

/// The naive copy: element by element.
void naive_copy(strided_case const& c, std::byte const* src, std::byte* dst) {
  for (index_t i = 0; i < c.extents[0]; ++i)
    for (index_t j = 0; j < c.extents[1]; ++j)
      for (index_t k = 0; k < c.extents[2]; ++k) {
        index_t const s = i * c.src_strides[0] + j * c.src_strides[1] + k * c.src_strides[2];
        index_t const d = i * c.dst_strides[0] + j * c.dst_strides[1] + k * c.dst_strides[2];
        std::memcpy(dst + d * static_cast<index_t>(c.element_bytes), src + s * static_cast<index_t>(c.element_bytes),
                    c.element_bytes);
      }
}

}  // namespace

TEST_CASE("dma_engine: a copy moved chunk by chunk, in any order, equals the naive copy", "[dma_engine]") {
  std::mt19937 rng(7);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < 300; ++trial) {
    strided_case c{};
    c.element_bytes = std::size_t{1} << pick(0, 3);
    for (int d = 0; d < 3; ++d) c.extents[d] = pick(1, 40);
    // Row-major destination; the source row-major, padded, or transposed in its last two dims.
    c.dst_strides[2] = 1;
    c.dst_strides[1] = c.extents[2];
    c.dst_strides[0] = c.extents[1] * c.extents[2];
    int const layout = pick(0, 2);
    if (layout == 0) {
      for (int d = 0; d < 3; ++d) c.src_strides[d] = c.dst_strides[d];
    } else if (layout == 1) {
      c.src_strides[2] = 1;
      c.src_strides[1] = c.extents[2] + pick(1, 5);
      c.src_strides[0] = c.src_strides[1] * c.extents[1];
    } else {
      c.src_strides[1] = 1;
      c.src_strides[2] = c.extents[1];
      c.src_strides[0] = c.extents[1] * c.extents[2];
    }
    index_t span = 1;
    for (int d = 0; d < 3; ++d) span += (c.extents[d] - 1) * std::max(c.src_strides[d], c.dst_strides[d]);
    std::vector<std::byte> src(static_cast<std::size_t>(span) * c.element_bytes);
    for (auto& b : src) b = static_cast<std::byte>(pick(0, 255));
    std::vector<std::byte> expected(src.size(), std::byte{0xAB}), got(src.size(), std::byte{0xAB});
    naive_copy(c, src.data(), expected.data());
    auto task = make_task(c, src.data(), got.data());
    task.streaming = pick(0, 1) == 1;
    std::int64_t const target = std::int64_t{1} << pick(0, 15);
    std::int64_t const chunks = task.chunk_count(target);
    REQUIRE(chunks >= 1);
    std::vector<std::int64_t> order(static_cast<std::size_t>(chunks));
    for (std::int64_t k = 0; k < chunks; ++k) order[static_cast<std::size_t>(k)] = k;
    std::shuffle(order.begin(), order.end(), rng);
    for (std::int64_t k : order) task.move_chunk(k, target);
    INFO("trial " << trial << ": extents " << c.extents[0] << "x" << c.extents[1] << "x" << c.extents[2] << ", "
                  << c.element_bytes << "-byte elements, layout " << layout << ", " << chunks << " chunks of "
                  << target << " bytes");
    CHECK(got == expected);
    std::vector<std::byte> whole(src.size(), std::byte{0xAB});
    make_task(c, src.data(), whole.data()).move_bytes();
    CHECK(whole == expected);
  }
}

TEST_CASE("dma_engine: the executor comes from PALLAS_DMA_ENGINE, a call or a scope", "[dma_engine]") {
  CHECK(pl::detail::executor_from(nullptr) == pltpu::dma_executor::automatic);
  CHECK(pl::detail::executor_from("auto") == pltpu::dma_executor::automatic);
  CHECK(pl::detail::executor_from("inline") == pltpu::dma_executor::on_core);
  CHECK(pl::detail::executor_from("thread") == pltpu::dma_executor::dma_thread);
  CHECK_THROWS_WITH(pl::detail::executor_from("gpu"), Catch::Contains("PALLAS_DMA_ENGINE='gpu'"));
  auto const before = pltpu::get_dma_executor();
  {
    pltpu::scoped_dma_executor use(pltpu::dma_executor::dma_thread);
    CHECK(pltpu::get_dma_executor() == pltpu::dma_executor::dma_thread);
    {
      pltpu::scoped_dma_executor inner(pltpu::dma_executor::on_core);
      CHECK(pltpu::get_dma_executor() == pltpu::dma_executor::on_core);
    }
    CHECK(pltpu::get_dma_executor() == pltpu::dma_executor::dma_thread);
  }
  CHECK(pltpu::get_dma_executor() == before);
}

namespace {

constexpr index_t rows = 256, cols = 1024;  // 1 MiB blocks of f32

/// A pipelined copy through VMEM, x -> o, four blocks; the body of step 0 runs `during`.
template <class During>
pl::Array<float, 4 * rows, cols> pipelined_copy(pl::Array<float, 4 * rows, cols> const& x, During during) {
  return pl::kernel(pl::like(x), pl::mesh<pltpu::TensorCoreMesh<"core", 1>>)([&](auto x_hbm, auto o_hbm) {
    pltpu::emit_pipeline(
        [&](auto xv, auto ov) {
          if (pl::program_id(0) == 0) during();
          ov[pl::ellipsis] = xv[pl::ellipsis];
        },
        pl::grid<4>, pl::in_specs(pl::BlockSpec<rows, cols>([](auto i) { return pl::idx(i, 0); })),
        pl::out_specs(pl::BlockSpec<rows, cols>([](auto i) { return pl::idx(i, 0); })))(x_hbm, o_hbm);
  })(x);
}

}  // namespace

TEST_CASE("dma_engine: with the DMA thread, the next block arrives while the core computes and before its wait",
          "[dma_engine]") {
  pl::Array<float, 4 * rows, cols> x;
  for (index_t k = 0; k < x.size(); ++k) x.data()[k] = static_cast<float>(k % 977);
  pltpu::scoped_dma_executor use(pltpu::dma_executor::dma_thread);
  pltpu::scoped_dma_schedule on_wait({pltpu::dma_execution_mode::on_wait});
  pl::trace::clear();
  pl::trace::start();
  // Step 0's body, before any wait for block 1: wait (sleeping, so that the DMA thread gets
  // a CPU even on a busy machine) until the DMA thread has moved all of block 1.
  bool arrived = false;
  std::int64_t body_seen_ns = 0;
  auto const o = pipelined_copy(x, [&] {
    auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!arrived && std::chrono::steady_clock::now() < deadline) {
      for (auto const& e : pl::trace::events())
        arrived |= e.lane_name == "DMA thread" && e.name.find("64 of 64 chunks") != std::string::npos;
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    body_seen_ns = pl::detail::now_ns();
  });
  pl::trace::stop();
  CHECK(arrived);
  bool same = true;
  for (index_t k = 0; k < x.size(); ++k) same &= o.data()[k] == x.data()[k];
  CHECK(same);
  // The trace: the DMA thread's span ended inside step 0's body, before the fetch's wait.
  std::int64_t thread_end = 0, step0_end = 0;
  for (auto const& e : pl::trace::events()) {
    if (e.lane_name == "DMA thread" && thread_end == 0 && e.name.find("64 of 64") != std::string::npos)
      thread_end = e.end_ns;
    if (!e.dma && e.name == "step (0,)") step0_end = e.end_ns;
  }
  CHECK(thread_end > 0);
  CHECK(thread_end <= body_seen_ns);
  CHECK(body_seen_ns <= step0_end);
  pl::trace::clear();
}

TEST_CASE("dma_engine: every executor and order gives the same pipelined result", "[dma_engine]") {
  pl::Array<float, 4 * rows, cols> x;
  for (index_t k = 0; k < x.size(); ++k) x.data()[k] = static_cast<float>((k * 7) % 1013);
  for (auto executor : {pltpu::dma_executor::on_core, pltpu::dma_executor::dma_thread, pltpu::dma_executor::automatic})
    for (auto mode : {pltpu::dma_execution_mode::on_wait, pltpu::dma_execution_mode::eager,
                      pltpu::dma_execution_mode::random}) {
      pltpu::scoped_dma_executor use(executor);
      pltpu::scoped_dma_schedule order({mode, 5});
      auto const o = pipelined_copy(x, [] {});
      bool same = true;
      for (index_t k = 0; k < x.size(); ++k) same &= o.data()[k] == x.data()[k];
      CHECK(same);
    }
}

TEST_CASE("dma_engine: a starved DMA thread is left alone for a window that grows only while it keeps starving",
          "[dma_engine]") {
  using health = pl::detail::dma_thread_health;
  using std::chrono::milliseconds;
  STATIC_REQUIRE(health::next_window(milliseconds(0), milliseconds(5)) == milliseconds(100));  // the first
  STATIC_REQUIRE(health::next_window(milliseconds(100), milliseconds(50)) == milliseconds(400));  // again soon: 4x
  STATIC_REQUIRE(health::next_window(milliseconds(400), milliseconds(199)) == milliseconds(1280));  // capped
  STATIC_REQUIRE(health::next_window(milliseconds(1280), milliseconds(1)) == milliseconds(1280));
  STATIC_REQUIRE(health::next_window(milliseconds(1280), milliseconds(200)) == milliseconds(100));  // a later blip
  STATIC_REQUIRE(health::next_window(milliseconds(400), std::chrono::seconds(3)) == milliseconds(100));
}
