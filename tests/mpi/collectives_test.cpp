// The MPI backend (PALLAS_USE_MPI): the guide's right permute, ring all-gather and ring
// all-reduce, one chip per rank under `mpirun -np 2` and `-np 4` (tests/CMakeLists.txt),
// each rank checking its own chip's result against a naive reference computed from every
// chip's inputs (which every rank builds). The kernels are the in-process examples'.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

namespace {

int world_size() { return pl::detail::mpi_world::get().size; }

/// Calls `f.template operator()<N>()` with N the world size (the tests run on 2 and 4 ranks).
template <int Extra = 0, class F>
void on_world_mesh(F&& f) {
  switch (world_size()) {
    case 1: return f.template operator()<1 + Extra>();
    case 2: return f.template operator()<2 + Extra>();
    case 4: return f.template operator()<4 + Extra>();
    default: FAIL("run these tests on 1, 2 or 4 ranks, not " << world_size());
  }
}

/// Chip d's (Rows, 128) shard: distinct values per chip and element.
template <int N, pl::index_t Rows = 8>
std::vector<pl::Array<float, Rows, 128>> shards(int seed) {
  std::vector<pl::Array<float, Rows, 128>> xs(N);
  for (int d = 0; d < N; ++d)
    for (pl::index_t k = 0; k < xs[static_cast<std::size_t>(d)].size(); ++k)
      xs[static_cast<std::size_t>(d)].data()[k] = static_cast<float>((d * seed + k * 7) % 4093);
  return xs;
}

}  // namespace

TEST_CASE("mpi: right permute sends every chip's block to its right neighbour", "[mpi]") {
  on_world_mesh([]<int N>() {
    auto kernel = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 8, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                             pl::scratch_types<pltpu::SemaphoreType::DMA<>, pltpu::SemaphoreType::DMA<>>)(
        [](auto in, auto out, auto send_sem, auto recv_sem) {
          pl::index_t const right = (pl::axis_index<"x">() + 1) % N;
          auto copy = pltpu::make_async_remote_copy(in, out, send_sem, recv_sem, {right}, pltpu::DeviceIdType::MESH);
          copy.start();
          copy.wait();
        });
    auto const xs = shards<N>(1000);
    auto const ys = pl::shard_map<pl::device_mesh<"x", N>>(kernel)(xs);
    auto const mine = pl::local_chips<pl::device_mesh<"x", N>>();
    REQUIRE(mine.size() == 1);
    int const d = mine[0];
    REQUIRE(d == pl::detail::mpi_world::get().rank);
    CHECK(ys[static_cast<std::size_t>(d)] == xs[static_cast<std::size_t>((d + N - 1) % N)]);
  });
}

TEST_CASE("mpi: two cores per chip each send half the columns, after a barrier-semaphore handshake", "[mpi]") {
  on_world_mesh([]<int N>() {
    // LOGICAL ids, strided copies (half of every row), and remote semaphore_signal.
    auto kernel = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 8, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 2>>,
                             pl::scratch_types<pltpu::SemaphoreType::DMA<>, pltpu::SemaphoreType::DMA<>>)(
        [](auto in, auto out, auto send_sem, auto recv_sem) {
          pl::index_t const me = pl::axis_index<"x">();
          pl::index_t const core = pl::axis_index<"core">();
          pl::index_t const left = (me + N - 1) % N, right = (me + 1) % N;
          auto barrier = pltpu::get_barrier_semaphore();
          pl::semaphore_signal(barrier, 1, left, pltpu::DeviceIdType::LOGICAL);
          pl::semaphore_signal(barrier, 1, right, pltpu::DeviceIdType::LOGICAL);
          pl::semaphore_wait(barrier, 2);
          auto const half = pl::ds<64>(core * 64);  // core c: columns [64c, 64c + 64) of every row
          auto copy = pltpu::make_async_remote_copy(in.at(pl::full_extent, half), out.at(pl::full_extent, half),
                                                    send_sem, recv_sem, right, pltpu::DeviceIdType::LOGICAL);
          copy.start();
          copy.wait();
        });
    auto const xs = shards<N>(313);
    auto const ys = pl::shard_map<pl::device_mesh<"x", N>>(kernel)(xs);
    int const d = pl::local_chips<pl::device_mesh<"x", N>>()[0];
    CHECK(ys[static_cast<std::size_t>(d)] == xs[static_cast<std::size_t>((d + N - 1) % N)]);
  });
}

TEST_CASE("mpi: a device id naming the core axis reaches the other core's VMEM on the next chip", "[mpi]") {
  on_world_mesh([]<int N>() {
    // Core c sends its half of the columns into the VMEM scratch of core 1 - c of the right
    // chip; each core then writes what it received (the left chip's other half) out.
    auto kernel = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 8, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 2>>,
                             pl::scratch_types<pltpu::VMEM<float, 8, 64>, pltpu::SemaphoreType::DMA<>,
                                               pltpu::SemaphoreType::DMA<>>)(
        [](auto in, auto out, auto buf, auto send_sem, auto recv_sem) {
          pl::index_t const right = (pl::axis_index<"x">() + 1) % N;
          pl::index_t const core = pl::axis_index<"core">(), other = 1 - core;
          auto copy = pltpu::make_async_remote_copy(in.at(pl::full_extent, pl::ds<64>(core * 64)), buf, send_sem, recv_sem,
                                                    {{"x", right}, {"core", other}}, pltpu::DeviceIdType::MESH);
          copy.start();
          copy.wait();  // ours left; the left chip's core `other` filled our buf
          pltpu::sync_copy(buf, out.at(pl::full_extent, pl::ds<64>(other * 64)));
        });
    auto const xs = shards<N>(211);
    auto const ys = pl::shard_map<pl::device_mesh<"x", N>>(kernel)(xs);
    int const d = pl::local_chips<pl::device_mesh<"x", N>>()[0];
    CHECK(ys[static_cast<std::size_t>(d)] == xs[static_cast<std::size_t>((d + N - 1) % N)]);
  });
}

TEST_CASE("mpi: on a 2-D mesh, named and MESH device ids reach the chip they name", "[mpi]") {
  on_world_mesh([]<int N>() {
    constexpr int Y = N >= 2 ? 2 : 1, X = N / Y;
    using mesh = pl::device_mesh<"x", X, "y", Y>;
    // Each chip sends its block one step along 'y' ({{"y", ...}}: 'x' stays the caller's),
    // then one step along 'x' (a full MESH coordinate), into two outputs.
    auto kernel =
        pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 8, 128>, pl::ShapeDtypeStruct<float, 8, 128>>,
                   pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                   pl::scratch_types<pltpu::SemaphoreType::DMA<>, pltpu::SemaphoreType::DMA<2>>)(
            [](auto in, auto along_y, auto along_x, auto send_sem, auto recv_sems) {
              pl::index_t const x = pl::axis_index<"x">(), y = pl::axis_index<"y">();
              auto a = pltpu::make_async_remote_copy(in, along_y, send_sem, recv_sems.at(0), {{"y", (y + 1) % Y}},
                                                     pltpu::DeviceIdType::MESH);
              a.start();
              a.wait();
              auto b = pltpu::make_async_remote_copy(in, along_x, send_sem, recv_sems.at(1), {(x + 1) % X, y},
                                                     pltpu::DeviceIdType::MESH);
              b.start();
              b.wait();
            });
    auto const xs = shards<N>(541);
    auto const ys = pl::shard_map<mesh>(kernel)(xs);
    int const d = pl::local_chips<mesh>()[0];
    int const x = d / Y, y = d % Y;  // row-major, 'y' fastest
    CHECK(std::get<0>(ys[static_cast<std::size_t>(d)]) == xs[static_cast<std::size_t>(x * Y + (y + Y - 1) % Y)]);
    CHECK(std::get<1>(ys[static_cast<std::size_t>(d)]) == xs[static_cast<std::size_t>(((x + X - 1) % X) * Y + y)]);
  });
}

TEST_CASE("mpi: a loop polling the barrier semaphore sees the other chips' signals", "[mpi]") {
  on_world_mesh([]<int N>() {
    auto kernel = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 8, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>)(
        [](auto in, auto out) {
          pl::index_t const me = pl::axis_index<"x">();
          auto barrier = pltpu::get_barrier_semaphore();
          pl::semaphore_signal(barrier, 1, (me + N - 1) % N, pltpu::DeviceIdType::LOGICAL);
          pl::semaphore_signal(barrier, 1, (me + 1) % N, pltpu::DeviceIdType::LOGICAL);
          while (pl::semaphore_read(barrier) < 2) {
          }
          pl::semaphore_wait(barrier, 2);
          pltpu::sync_copy(in, out);
        });
    auto const xs = shards<N>(97);
    auto const ys = pl::shard_map<pl::device_mesh<"x", N>>(kernel)(xs);
    int const d = pl::local_chips<pl::device_mesh<"x", N>>()[0];
    CHECK(ys[static_cast<std::size_t>(d)] == xs[static_cast<std::size_t>(d)]);
  });
}

TEST_CASE("mpi: ring all-gather gives every chip every chip's block", "[mpi]") {
  on_world_mesh([]<int N>() {
    auto kernel = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, N, 8, 128>>,
                             pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                             pl::scratch_types<pltpu::SemaphoreType::DMA<>, pltpu::SemaphoreType::DMA<>,
                                               pltpu::SemaphoreType::DMA<N>>)(
        [](auto in, auto out, auto local_sem, auto send_sem, auto recv_sems) {
          pl::index_t const me = pl::axis_index<"x">();
          pl::index_t const right = (me + 1) % N;
          auto local = pltpu::make_async_copy(in, out.at(me), local_sem);
          local.start();
          local.wait();
          for (pl::index_t step = 0; step + 1 < N; ++step) {
            pl::index_t const slot = (me - step + N) % N;
            auto copy = pltpu::make_async_remote_copy(out.at(slot), out.at(slot), send_sem, recv_sems.at(step), {right},
                                                      pltpu::DeviceIdType::MESH);
            copy.start();
            copy.wait();
          }
        });
    auto const xs = shards<N>(7919);
    auto const ys = pl::shard_map<pl::device_mesh<"x", N>>(kernel)(xs);
    int const d = pl::local_chips<pl::device_mesh<"x", N>>()[0];
    bool ok = true;  // the reference: block b is chip b's shard
    for (int b = 0; b < N; ++b)
      for (pl::index_t i = 0; i < 8; ++i)
        for (pl::index_t j = 0; j < 128; ++j)
          ok = ok && ys[static_cast<std::size_t>(d)](b, i, j) == xs[static_cast<std::size_t>(b)](i, j);
    CHECK(ok);
  });
}

TEST_CASE("mpi: ring all-reduce gives every chip the sum over chips", "[mpi]") {
  on_world_mesh([]<int N>() {
    // N - 1 reduce-scatter steps into an inbox, then N - 1 all-gather steps (the example's kernel).
    auto kernel =
        pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, N, 8, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                   pl::scratch_types<pltpu::VMEM<float, N, 8, 128>, pltpu::VMEM<float, N, 8, 128>,
                                     pltpu::SemaphoreType::DMA<>, pltpu::SemaphoreType::DMA<N>,
                                     pltpu::SemaphoreType::DMA<N>>)(
            [](auto x, auto o, auto work, auto inbox, auto send_sem, auto scatter_sems, auto gather_sems) {
              pl::index_t const me = pl::axis_index<"x">();
              pl::index_t const right = (me + 1) % N;
              auto const block = [](pl::index_t b) { return (b % N + N) % N; };
              pltpu::sync_copy(x, work);
              for (pl::index_t s = 0; s + 1 < N; ++s) {
                auto send = pltpu::make_async_remote_copy(work.at(block(me - s)), inbox.at(s), send_sem,
                                                          scatter_sems.at(s), {right}, pltpu::DeviceIdType::MESH);
                send.start();
                send.wait();
                pl::index_t const b = block(me - 1 - s);
                for (pl::index_t i = 0; i < 8; ++i)
                  for (pl::index_t j = 0; j < 128; ++j) work(b, i, j) = work(b, i, j) + inbox(s, i, j);
              }
              pl::index_t const mine = block(me + 1);
              pltpu::sync_copy(work.at(mine), o.at(mine));
              for (pl::index_t s = 0; s + 1 < N; ++s) {
                pl::index_t const slot = block(mine - s);
                auto c = pltpu::make_async_remote_copy(o.at(slot), o.at(slot), send_sem, gather_sems.at(s), {right},
                                                       pltpu::DeviceIdType::MESH);
                c.start();
                c.wait();
              }
            });
    std::vector<pl::Array<float, N, 8, 128>> xs(N);
    for (int d = 0; d < N; ++d)
      for (pl::index_t k = 0; k < xs[static_cast<std::size_t>(d)].size(); ++k)
        xs[static_cast<std::size_t>(d)].data()[k] = static_cast<float>((d * 31 + k * 7) % 97);
    auto const ys = pl::shard_map<pl::device_mesh<"x", N>>(kernel)(xs);
    auto sum = pl::Array<float, N, 8, 128>::full(0.0f);  // the reference: a plain loop over chips
    for (int d = 0; d < N; ++d)
      for (pl::index_t k = 0; k < sum.size(); ++k) sum.data()[k] += xs[static_cast<std::size_t>(d)].data()[k];
    int const d = pl::local_chips<pl::device_mesh<"x", N>>()[0];
    CHECK(ys[static_cast<std::size_t>(d)] == sum);
  });
}

TEST_CASE("mpi: with PartitionSpecs each rank reads its block of the global input and fills its block of the output",
          "[mpi]") {
  on_world_mesh([]<int N>() {
    auto kernel = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 2, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                             pl::scratch_types<pltpu::SemaphoreType::DMA<>, pltpu::SemaphoreType::DMA<>>)(
        [](auto in, auto out, auto send_sem, auto recv_sem) {
          pl::index_t const right = (pl::axis_index<"x">() + 1) % N;
          auto copy = pltpu::make_async_remote_copy(in, out, send_sem, recv_sem, {right}, pltpu::DeviceIdType::MESH);
          copy.start();
          copy.wait();
        });
    pl::Array<float, 2 * N, 128> x;
    for (pl::index_t k = 0; k < x.size(); ++k) x.data()[k] = static_cast<float>((k * 7) % 4093);
    using spec = pl::P<"x">;
    auto const y = pl::shard_map<pl::device_mesh<"x", N>>(kernel, pl::shard_in_specs<spec>, pl::shard_out_specs<spec>)(x);
    int const d = pl::detail::mpi_world::get().rank;
    int const left = (d + N - 1) % N;
    for (pl::index_t i = 0; i < 2; ++i)
      for (pl::index_t j = 0; j < 128; ++j) REQUIRE(y(2 * d + i, j) == x(2 * left + i, j));
  });
}

// The ranks that wait for chip 0 ask whether every chip is stuck while chip 0 still computes
// (sleeps 600 ms, six times the deadlock grace): chip 0 never confirms, so nothing is
// reported and the permute completes.
TEST_CASE("mpi: chips waiting for a chip that computes are not a deadlock", "[mpi]") {
  on_world_mesh([]<int N>() {
    auto kernel = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 8, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                             pl::scratch_types<pltpu::SemaphoreType::DMA<>, pltpu::SemaphoreType::DMA<>>)(
        [](auto in, auto out, auto send_sem, auto recv_sem) {
          pl::index_t const right = (pl::axis_index<"x">() + 1) % N;
          if (pl::axis_index<"x">() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(600));
          auto copy = pltpu::make_async_remote_copy(in, out, send_sem, recv_sem, {right}, pltpu::DeviceIdType::MESH);
          copy.start();
          copy.wait();
        });
    auto const xs = shards<N>(77);
    auto const ys = pl::shard_map<pl::device_mesh<"x", N>>(kernel)(xs);
    int const d = pl::detail::mpi_world::get().rank;
    CHECK(ys[static_cast<std::size_t>(d)] == xs[static_cast<std::size_t>((d + N - 1) % N)]);
  });
}

TEST_CASE("mpi: a mesh whose chip count is not the world size is a pallas::error on every rank", "[mpi]") {
  on_world_mesh<1>([]<int N>() {
    auto kernel = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 8, 128>>,
                             pl::mesh<pltpu::TensorCoreMesh<"core", 1>>)([](auto in, auto out) { pltpu::sync_copy(in, out); });
    auto const xs = shards<N>(1);
    std::string const expected = "the mesh has " + std::to_string(N) + " chips but MPI_COMM_WORLD has " +
                                 std::to_string(N - 1) + " ranks";
    using mesh = pl::device_mesh<"x", N>;
    auto const launch = [&] { (void)pl::shard_map<mesh>(kernel)(xs); };
    REQUIRE_THROWS_AS(launch(), pl::error);
    REQUIRE_THROWS_WITH(launch(), Catch::Matchers::Contains(expected));
    REQUIRE_THROWS_WITH(pl::local_chips<mesh>(), Catch::Matchers::Contains(expected));
  });
}

namespace {
std::atomic<int> first_landed{0};  ///< chip 1's observation: 1 copy A, 2 copy B, 3 both at once
}

// The random order under MPI: a copy moves at start() or later (at the latest when its core
// next waits), kept copies go in a seeded order. Chip 0 starts copy A, then copy B, into
// chip 1, and waits 20 ms before its waits; chip 1 polls both receive semaphores and notes
// which landed first. At start()-order (on_wait) A always lands first or with B; some of 60
// random seeds land B alone first (each seed about 3 in 16). Every order delivers both.
TEST_CASE("mpi: the random DMA order varies which of two remote copies lands first", "[mpi]") {
  on_world_mesh([]<int N>() {
    auto kernel = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 16, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                             pl::scratch_types<pltpu::VMEM<float, 16, 128>, pltpu::SemaphoreType::DMA<>,
                                               pltpu::SemaphoreType::DMA<>, pltpu::SemaphoreType::DMA<>>)(
        [](auto in, auto out, auto inbox, auto send_sem, auto sem_a, auto sem_b) {
          auto a = pltpu::make_async_remote_copy(in.at(pl::ds(0, 8)), inbox.at(pl::ds(0, 8)), send_sem, sem_a, {1},
                                                 pltpu::DeviceIdType::MESH);
          auto b = pltpu::make_async_remote_copy(in.at(pl::ds(8, 8)), inbox.at(pl::ds(8, 8)), send_sem, sem_b, {1},
                                                 pltpu::DeviceIdType::MESH);
          pl::index_t const me = pl::axis_index<"x">();
          if (me == 0) {
            a.start();
            b.start();
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            a.wait_send();
            b.wait_send();
          } else if (me == 1) {
            int seen = 0;
            while (seen == 0) {  // B first: had A landed before B, this read of A would see it
              int const b_landed = pl::semaphore_read(sem_b) > 0 ? 2 : 0;
              seen = b_landed | (pl::semaphore_read(sem_a) > 0 ? 1 : 0);
            }
            first_landed.store(seen);
            a.wait_recv();
            b.wait_recv();
            pltpu::sync_copy(inbox, out);
          }
        });
    auto const xs = shards<N, 16>(11);
    int const d = pl::detail::mpi_world::get().rank;
    auto run = [&](pltpu::dma_schedule const& schedule) {
      pltpu::scoped_dma_schedule use(schedule);
      auto const ys = pl::shard_map<pl::device_mesh<"x", N>>(kernel)(xs);
      if (d == 1) CHECK(ys[1] == xs[0]);
      return first_landed.load();
    };
    if (N < 2) return;
    bool a_not_first = false;
    for (int k = 0; k < 3; ++k) a_not_first |= run({pltpu::dma_execution_mode::on_wait}) == 2;
    if (d == 1) CHECK_FALSE(a_not_first);
    int b_first = 0;
    for (std::uint64_t seed = 1; seed <= 60; ++seed) b_first += run({pltpu::dma_execution_mode::random, seed}) == 2;
    if (d == 1) CHECK(b_first > 0);
  });
}

// Run alone (tests/CMakeLists.txt): on every chip core 0 waits for a copy nobody sends and
// core 1 finishes, so the ranks prove the deadlock together and report every chip's cores
// (long before the 30 s wait timeout), and the job aborts.
TEST_CASE("mpi: a receive nobody sends is a deadlock naming every chip's cores", "[.mpi_deadlock]") {
  on_world_mesh([]<int N>() {
    auto kernel = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 8, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 2>>,
                             pl::scratch_types<pltpu::SemaphoreType::DMA<>, pltpu::SemaphoreType::DMA<>>)(
        [](auto in, auto out, auto send_sem, auto recv_sem) {
          if (pl::axis_index<"core">() != 0) return;
          pl::index_t const right = (pl::axis_index<"x">() + 1) % N;
          pltpu::make_async_remote_copy(in, out, send_sem, recv_sem, {right}, pltpu::DeviceIdType::MESH).wait_recv();
        });
    auto const xs = shards<N>(1);
    (void)pl::shard_map<pl::device_mesh<"x", N>>(kernel)(xs);
    FAIL("the launch returned");
  });
}

// Run alone (tests/CMakeLists.txt, with PALLAS_MPI_WAIT_TIMEOUT=1): chip 0 waits for a copy
// that chip 1, busy in its body, never sends. A busy chip is not stuck, so no deadlock is
// proven; chip 0's wait times out naming its core and semaphore, and the job aborts.
TEST_CASE("mpi: a receive from a chip that never waits times out naming the waiting core", "[.mpi_timeout]") {
  on_world_mesh([]<int N>() {
    auto kernel = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 8, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                             pl::scratch_types<pltpu::SemaphoreType::DMA<>, pltpu::SemaphoreType::DMA<>>)(
        [](auto in, auto out, auto send_sem, auto recv_sem) {
          if (pl::axis_index<"x">() != 0) {
            std::this_thread::sleep_for(std::chrono::seconds(20));  // longer than the timeout: the job ends first
            return;
          }
          pltpu::make_async_remote_copy(in, out, send_sem, recv_sem, {1}, pltpu::DeviceIdType::MESH).wait_recv();
        });
    auto const xs = shards<N>(1);
    (void)pl::shard_map<pl::device_mesh<"x", N>>(kernel)(xs);
    FAIL("the launch returned");
  });
}

// Run alone (tests/CMakeLists.txt): every chip signals its right neighbour's semaphore, which
// nobody waits for; the launch's end reports it (a leak) and the job aborts.
TEST_CASE("mpi: a remote signal nobody waits for is reported at the launch's end", "[.mpi_leak]") {
  on_world_mesh([]<int N>() {
    auto kernel = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 8, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                             pl::scratch_types<pltpu::SemaphoreType::REGULAR<>>)([](auto in, auto out, auto sem) {
      pltpu::sync_copy(in, out);
      pl::semaphore_signal(sem, 3, (pl::axis_index<"x">() + 1) % N, pltpu::DeviceIdType::LOGICAL);
    });
    auto const xs = shards<N>(1);
    (void)pl::shard_map<pl::device_mesh<"x", N>>(kernel)(xs);
    FAIL("the launch returned");
  });
}

// Checked mode's remote-copy descriptions (mpi_incoming.hpp): every chip starts 100 copies
// of one row into its right neighbour's inbox before that neighbour reads anything, more
// than a ring holds (64), so senders wait for room while their receivers wait for the
// bytes; the receivers then read every row after their wait_recv (no race) and check it.
TEST_CASE("mpi: more remote copies in flight than checked mode's description ring holds", "[mpi]") {
  on_world_mesh([]<int N>() {
    constexpr pl::index_t rows = 100;
    auto kernel = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, rows, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                             pl::scratch_types<pltpu::VMEM<float, rows, 128>, pltpu::SemaphoreType::DMA<>,
                                               pltpu::SemaphoreType::DMA<>>)(
        [](auto in, auto out, auto inbox, auto send_sem, auto recv_sem) {
          pl::index_t const right = (pl::axis_index<"x">() + 1) % N;
          for (pl::index_t r = 0; r < rows; ++r)
            pltpu::make_async_remote_copy(in.at(pl::ds(r, 1)), inbox.at(pl::ds(r, 1)), send_sem, recv_sem, {right},
                                          pltpu::DeviceIdType::MESH)
                .start();
          auto const all = pltpu::make_async_remote_copy(in, inbox, send_sem, recv_sem, {right}, pltpu::DeviceIdType::MESH);
          all.wait_send();  // one wait for the bytes of all 100 (as many as the whole block)
          all.wait_recv();
          pltpu::sync_copy(inbox, out);
        });
    auto const xs = shards<N, rows>(37);
    auto const ys = pl::shard_map<pl::device_mesh<"x", N>>(kernel)(xs);
    int const d = pl::detail::mpi_world::get().rank;
    CHECK(ys[static_cast<std::size_t>(d)] == xs[static_cast<std::size_t>((d + N - 1) % N)]);
  });
}

// Run alone (tests/CMakeLists.txt): chip 0 starts a copy into chip 1's inbox, then tells
// chip 1 so with a remote signal; chip 1 reads the inbox before its wait_recv, a race that
// checked mode reports on chip 1 naming chip 0's copy, and the job aborts.
TEST_CASE("mpi: reading a remote copy's destination before its wait_recv is a race naming both chips", "[.mpi_race]") {
  on_world_mesh([]<int N>() {
    auto kernel = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 8, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                             pl::scratch_types<pltpu::VMEM<float, 8, 128>, pltpu::VMEM<float, 8, 128>,
                                               pltpu::SemaphoreType::DMA<>, pltpu::SemaphoreType::DMA<>,
                                               pltpu::SemaphoreType::REGULAR<>>)(
        [](auto in, auto out, auto inbox, auto seen, auto send_sem, auto recv_sem, auto started) {
          auto copy = pltpu::make_async_remote_copy(in, inbox, send_sem, recv_sem, {1}, pltpu::DeviceIdType::MESH);
          if (pl::axis_index<"x">() == 0) {
            copy.start();
            pl::semaphore_signal(started, 1, 1, pltpu::DeviceIdType::LOGICAL);
            copy.wait_send();
          } else if (pl::axis_index<"x">() == 1) {
            pl::semaphore_wait(started, 1);
            seen[pl::ellipsis] = inbox[pl::ellipsis];  // before the wait_recv: the race
            copy.wait_recv();
            pltpu::sync_copy(seen, out);
          }
        });
    auto const xs = shards<N>(1);
    (void)pl::shard_map<pl::device_mesh<"x", N>>(kernel)(xs);
    FAIL("the launch returned");
  });
}
