// The ring all-reduce kernel (examples/ring_all_reduce; ring_all_reduce.hpp) on 4 MPI ranks,
// one chip each, against MPI_Allreduce on the same floats: `mpi_allreduce_kernel_vs_mpi` is
// time(MPI_Allreduce) / time(pl::shard_map launch of the kernel), goal >= 0.5. Both times
// are the slowest rank's, the least over the repetitions; the kernel's launch includes what
// every pl::shard_map launch does on MPI (opening and closing the windows). The result is
// checked against a plain sum first.
//
// Started without mpirun, the program runs itself under `mpirun -np 4` (the flags of the
// tests/mpi tests). Built without MPI (CMake found none), it prints that and no goal line.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#ifdef PALLAS_USE_MPI
#include <chrono>

#include <pallas/pallas.hpp>

#include "goals.hpp"
#include "ring_all_reduce.hpp"

namespace pl = pallas;

namespace {

constexpr int N = 4;          // chips = ranks
constexpr pl::index_t R = 256;  // rows of 128 floats per block: N blocks, 512 KiB per chip
constexpr int repetitions = 50;

using mesh = pl::device_mesh<"x", N>;
using shard = pl::Array<float, N, R, 128>;

/// The slowest rank's seconds for `f`, the least over the repetitions.
template <class F>
double slowest_rank_best(F&& f) {
  double best = 1e30;
  for (int r = 0; r < repetitions; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    auto const t0 = std::chrono::steady_clock::now();
    f();
    double mine = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), slowest = 0;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    best = std::min(best, slowest);
  }
  return best;
}

int run_ranks() {
  auto const& world = pl::detail::mpi_world::get();
  if (world.size != N) {
    std::fprintf(stderr, "bench_mpi_allreduce: run it on %d ranks, not %d\n", N, world.size);
    return 1;
  }
  std::vector<shard> xs(N);
  for (int d = 0; d < N; ++d)
    for (pl::index_t k = 0; k < xs[static_cast<std::size_t>(d)].size(); ++k)
      xs[static_cast<std::size_t>(d)].data()[k] = static_cast<float>((d * 31 + k * 7) % 97);
  auto const kernel = pallas_bench::ring_all_reduce_kernel<N, R>();
  auto sum = shard::full(0.0f);
  for (int d = 0; d < N; ++d)
    for (pl::index_t k = 0; k < sum.size(); ++k) sum.data()[k] += xs[static_cast<std::size_t>(d)].data()[k];
  int const me = world.rank;
  int const right = pl::shard_map<mesh>(kernel)(xs)[static_cast<std::size_t>(me)] == sum ? 1 : 0;
  int all_right = 0;
  MPI_Allreduce(&right, &all_right, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all_right) {
    if (me == 0) std::fprintf(stderr, "bench_mpi_allreduce: the kernel's sum is WRONG\n");
    return 1;
  }

  double const kernel_s = slowest_rank_best([&] { (void)pl::shard_map<mesh>(kernel)(xs); });
  shard reduced;
  auto const& mine = xs[static_cast<std::size_t>(me)];
  double const mpi_s = slowest_rank_best([&] {
    MPI_Allreduce(mine.data(), reduced.data(), static_cast<int>(mine.size()), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  });
  if (me == 0) {
    std::printf("ring all-reduce of %lld KiB per chip on %d ranks: kernel %.1f us, MPI_Allreduce %.1f us\n",
                static_cast<long long>(mine.size() * 4 / 1024), N, kernel_s * 1e6, mpi_s * 1e6);
    pallas_bench::print_goal("mpi_allreduce_kernel_vs_mpi", mpi_s / kernel_s, ">=", 0.5);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (!std::getenv("OMPI_COMM_WORLD_SIZE") && !std::getenv("PMI_SIZE")) {  // not under mpirun: start 4 ranks
    std::string command = std::string(PALLAS_BENCH_MPIEXEC) + " -np " + std::to_string(N) + " " PALLAS_BENCH_MPIEXEC_FLAGS " '" +
                          argv[0] + "'";
    for (int k = 1; k < argc; ++k) command += std::string(" '") + argv[k] + "'";
    return std::system(command.c_str()) == 0 ? 0 : 1;
  }
  return run_ranks();
}

#else

int main() {
  std::printf("bench_mpi_allreduce: built without MPI (CMake found none): no mpi_allreduce_kernel_vs_mpi line\n");
  return 0;
}

#endif
