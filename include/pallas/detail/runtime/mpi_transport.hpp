// SPDX-License-Identifier: Apache-2.0
#pragma once
// The MPI backend of multi-chip launches (PALLAS_USE_MPI): one chip per rank, the same
// program on every rank under `mpirun -np N`, chip index = rank. The chip's cores are the
// rank's threads, all calling MPI (MPI_THREAD_MULTIPLE).
//
// Every rank exposes, in the same order, one MPI window per local core's VMEM and SMEM
// arena and one per HBM operand shard: they are allocated identically on every rank, so a
// destination is the sender's own buffer and offset (chip_set.hpp's symmetric heap). A
// remote copy is an MPI_Put into the target's window, flushed; then an MPI_Accumulate adds
// the byte count to the target core's receive semaphore, and the sender's send semaphore
// is signaled here. Remote semaphore_signal is the same MPI_Accumulate.
//
// Semaphores stay the cores' std::atomic counts; what other ranks add lands in a mailbox
// window (one int32 per semaphore slot of every core) that only MPI atomics touch. A core
// whose wait finds its count short swaps its mailbox slot to zero (MPI_Fetch_and_op, which
// also progresses MPI) and adds what it took. A wait that ends nowhere is reported by a
// timeout (PALLAS_MPI_WAIT_TIMEOUT seconds, 30 by default), naming the waiting core and
// semaphore: no rank sees the others' waits, so the in-process deadlock proof is off.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <pallas/detail/runtime/chip_set.hpp>
#include <pallas/detail/runtime/core.hpp>
#include <pallas/detail/runtime/deadlock.hpp>
#include <pallas/detail/runtime/dma_task.hpp>
#include <pallas/detail/runtime/launch.hpp>
#include <pallas/error.hpp>

#ifdef PALLAS_USE_MPI

#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1  // pallas uses MPI's C API; the removed C++ bindings need another library
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

namespace pallas::detail {

/// This process's place in MPI_COMM_WORLD. The first call initializes MPI (with
/// MPI_THREAD_MULTIPLE, finalized at exit) unless the program did; either way it checks
/// that threads may call MPI concurrently.
struct mpi_world {
  int rank = 0;
  int size = 1;
  /// pallas' own duplicate of MPI_COMM_WORLD: its collectives never interleave with the
  /// program's, and its errors come back as codes (MPI_ERRORS_RETURN) to be explained.
  MPI_Comm comm = MPI_COMM_NULL;

  static mpi_world const& get() {
    static mpi_world const world = [] {
      int initialized = 0;
      MPI_Initialized(&initialized);
      int provided = MPI_THREAD_SINGLE;
      if (!initialized) {
        MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
        std::atexit([] {
          int finalized = 0;
          MPI_Finalized(&finalized);
          if (!finalized) MPI_Finalize();
        });
      } else {
        MPI_Query_thread(&provided);
      }
      if (provided < MPI_THREAD_MULTIPLE)
        fail("pallas (PALLAS_USE_MPI): MPI gives thread support level ", provided,
             ", pallas needs MPI_THREAD_MULTIPLE (", MPI_THREAD_MULTIPLE,
             "): every core of a chip is a thread that calls MPI. Initialize MPI with MPI_Init_thread(..., "
             "MPI_THREAD_MULTIPLE, ...) or use an MPI built with thread support");
      mpi_world w;
      MPI_Comm_rank(MPI_COMM_WORLD, &w.rank);
      MPI_Comm_size(MPI_COMM_WORLD, &w.size);
      MPI_Comm_dup(MPI_COMM_WORLD, &w.comm);
      MPI_Comm_set_errhandler(w.comm, MPI_ERRORS_RETURN);
      return w;
    }();
    return world;
  }

  /// Prints `what` as this rank's error and ends the whole job (no rank hangs waiting for
  /// this one).
  [[noreturn]] void abort(char const* what) const {
    std::fprintf(stderr, "pallas: MPI rank %d of %d failed: %s\n", rank, size, what);
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    std::abort();
  }
};

/// How long a wait may stay short before it is reported (PALLAS_MPI_WAIT_TIMEOUT, seconds).
inline std::chrono::duration<double> mpi_wait_timeout() {
  char const* env = std::getenv("PALLAS_MPI_WAIT_TIMEOUT");
  double const seconds = env ? std::atof(env) : 0.0;
  return std::chrono::duration<double>(seconds > 0 ? seconds : 30.0);
}

/// One rank's side of a multi-chip launch over MPI (this file's header comment).
class mpi_transport final : public chip_transport {
 public:
  /// `hbm` lists this chip's operand shards (the same operands, in the same order, on
  /// every rank).
  mpi_transport(mpi_world const& world, int cores_per_chip, std::vector<hbm_buffer> hbm)
      : world_(world), cores_per_chip_(cores_per_chip), hbm_(std::move(hbm)), timeout_(mpi_wait_timeout()) {}
  mpi_transport(mpi_transport const&) = delete;
  mpi_transport& operator=(mpi_transport const&) = delete;

  /// Every core calls it once, after the launch's start barrier (every local core has
  /// allocated its scratch): core 0 exposes the windows (collective over the ranks) and
  /// passes a barrier of every rank; the others wait for it.
  void join(core_state& core) {
    launch_state& launch = *core.launch;
    if (local_core_index(core) == 0) {
      open(launch);
      opened_.store(true, std::memory_order_release);
      return;
    }
    while (!opened_.load(std::memory_order_acquire)) {
      launch.check_aborted();
      std::this_thread::yield();
    }
  }

  /// After the launch, on every rank: waits for every rank, closes the windows, and
  /// returns what other ranks signaled into this chip's semaphores and nobody waited
  /// for ("" when nothing).
  std::string close() {
    if (mailbox_win_ == MPI_WIN_NULL) return {};  // one chip: nothing was opened
    MPI_Barrier(world_.comm);
    for (auto& w : windows_) {
      MPI_Win_unlock_all(w);
      MPI_Win_free(&w);
    }
    windows_.clear();
    MPI_Win_unlock_all(mailbox_win_);
    MPI_Win_free(&mailbox_win_);
    std::string left;
    for (std::size_t k = 0; k < mailbox_.size(); ++k)
      if (mailbox_[k] != 0)
        left += (left.empty() ? "" : "; ") + std::string("chip ") + std::to_string(world_.rank) + " core " +
                std::to_string(k / slots_per_core) + " semaphore at byte " +
                std::to_string((k % slots_per_core) * sizeof(std::int32_t)) + " holds " + std::to_string(mailbox_[k]);
    return left;
  }

  bool in_this_process(int target) const override { return target / cores_per_chip_ == world_.rank; }

  void start_elsewhere(core_state& me, dma_task const& task, std::atomic<std::int32_t>* send, int target,
                       std::int64_t recv_offset) override {
    int const rank = target / cores_per_chip_;
    int const target_core = target % cores_per_chip_;
    auto [win, disp] = window_of(me, task.dst, target_core);
    if (win == MPI_WIN_NULL)
      fail("pallas::make_async_remote_copy: the destination is not a buffer of this kernel (an operand, a scratch "
           "buffer or a run_scoped buffer), so it has no counterpart on chip ", rank, " (on ", core_name(me), ')');
    if (task.bytes > 0) {
      MPI_Datatype const src_type = layout_type(task, task.src_strides);
      MPI_Datatype const dst_type = layout_type(task, task.dst_strides);
      MPI_Put(task.src, 1, src_type, rank, disp, 1, dst_type, win);
      MPI_Win_flush(rank, win);  // the bytes have landed before the receiver can see its count
      free_type(src_type);
      free_type(dst_type);
    }
    add_to_mailbox(rank, target_core, recv_offset, task.bytes);
    send->fetch_add(task.bytes, std::memory_order_acq_rel);  // the source has been read
  }

  void signal_elsewhere(core_state& /*me*/, int target, std::int64_t offset, std::int32_t inc) override {
    add_to_mailbox(target / cores_per_chip_, target % cores_per_chip_, offset, inc);
  }

  void start(launch_state& launch, remote_task const& t, bool /*now*/) override {
    run_remote_task(launch, t);  // a copy to a core of this chip: moves at once
  }
  bool progress(launch_state& /*launch*/, void const* /*cell*/) override { return false; }
  /// Takes what other ranks added to `cell`'s mailbox slot into `cell`; true if anything.
  bool pending_for(void const* cell) override {
    if (mailbox_win_ == MPI_WIN_NULL) return false;
    for (int c = 0; c < cores_per_chip_; ++c) {
      core_state const& core = *launch_->cores[c];
      auto const* b = static_cast<std::byte const*>(cell);
      if (b < core.semaphores.base() || b >= core.semaphores.base() + core.semaphores.capacity()) continue;
      std::int32_t const zero = 0;
      std::int32_t got = 0;
      MPI_Fetch_and_op(&zero, &got, MPI_INT32_T, world_.rank, slot(c, b - core.semaphores.base()), MPI_REPLACE,
                       mailbox_win_);
      MPI_Win_flush(world_.rank, mailbox_win_);
      if (got == 0) return false;
      const_cast<std::atomic<std::int32_t>*>(static_cast<std::atomic<std::int32_t> const*>(cell))
          ->fetch_add(got, std::memory_order_acq_rel);
      return true;
    }
    return false;
  }
  bool spans_processes() const override { return world_.size > 1; }
  std::size_t leftovers() override { return 0; }

  void check_stalled(core_state& me, std::chrono::steady_clock::time_point since) override {
    if (std::chrono::steady_clock::now() - since < timeout_) return;
    fail<deadlock_error>("pallas::deadlock (MPI rank ", world_.rank, " of ", world_.size, "): ",
                         describe_blocked_core(me), ", for more than ", timeout_.count(),
                         " s (PALLAS_MPI_WAIT_TIMEOUT): a wait no chip signals (a mismatched send and receive?)");
  }

 private:
  static constexpr std::int64_t slots_per_core = core_state::semaphore_arena_bytes / sizeof(std::int32_t);

  static MPI_Aint slot(int core, std::int64_t offset) {
    return static_cast<MPI_Aint>((core * slots_per_core + offset / static_cast<std::int64_t>(sizeof(std::int32_t))) *
                                 static_cast<std::int64_t>(sizeof(std::int32_t)));
  }

  void open(launch_state& launch) {
    launch_ = &launch;
    if (world_.size == 1) return;  // one chip: every copy stays in this process (and a lone rank may have no osc)
    auto create = [&](void* base, std::int64_t bytes) {
      MPI_Win w = MPI_WIN_NULL;
      if (int const rc = MPI_Win_create(base, static_cast<MPI_Aint>(bytes), 1, MPI_INFO_NULL, world_.comm, &w);
          rc != MPI_SUCCESS) {
        char text[MPI_MAX_ERROR_STRING];
        int length = 0;
        MPI_Error_string(rc, text, &length);
        fail("pallas (PALLAS_USE_MPI): MPI_Win_create failed (", std::string(text, static_cast<std::size_t>(length)),
             "): this MPI has no one-sided (osc) component for windows over memory the program allocated under "
             "MPI_THREAD_MULTIPLE. Open MPI 4 on one node needs osc rdma over the vader transport with its "
             "single-copy mechanism: run with --mca btl self,vader, without btl_vader_single_copy_mechanism=none "
             "or --mca osc pt2pt");
      }
      MPI_Win_lock_all(MPI_MODE_NOCHECK, w);
      return w;
    };
    auto expose = [&](std::byte* base, std::int64_t bytes) { windows_.push_back(create(base, bytes)); };
    for (int c = 0; c < cores_per_chip_; ++c) {
      expose(launch.cores[c]->vmem.base(), launch.cores[c]->vmem.capacity());
      expose(launch.cores[c]->smem.base(), launch.cores[c]->smem.capacity());
    }
    for (auto const& b : hbm_) expose(b.base, b.bytes);
    mailbox_.assign(static_cast<std::size_t>(cores_per_chip_ * slots_per_core), 0);
    mailbox_win_ = create(mailbox_.data(), static_cast<std::int64_t>(mailbox_.size() * sizeof(std::int32_t)));
    MPI_Barrier(world_.comm);  // every rank's windows are open and its scratch allocated
  }

  /// The window and displacement of `p` (an address of core `me`) on core `target_core`.
  std::pair<MPI_Win, MPI_Aint> window_of(core_state const& me, std::byte const* p, int target_core) const {
    auto const at = [&](arena const& a) { return p >= a.base() && p < a.base() + a.capacity(); };
    std::size_t const core = static_cast<std::size_t>(target_core) * 2;
    if (at(me.vmem)) return {windows_[core], p - me.vmem.base()};
    if (at(me.smem)) return {windows_[core + 1], p - me.smem.base()};
    for (std::size_t k = 0; k < hbm_.size(); ++k)
      if (p >= hbm_[k].base && p < hbm_[k].base + hbm_[k].bytes)
        return {windows_[static_cast<std::size_t>(cores_per_chip_) * 2 + k], p - hbm_[k].base};
    return {MPI_WIN_NULL, 0};
  }

  /// The copy's elements on one side, as an MPI type (strides in elements).
  static MPI_Datatype layout_type(dma_task const& task, index_t const* strides) {
    MPI_Datatype type;
    MPI_Type_contiguous(static_cast<int>(task.element_bytes), MPI_BYTE, &type);
    for (int d = task.rank - 1; d >= 0; --d) {
      MPI_Datatype outer;
      MPI_Type_create_hvector(static_cast<int>(task.extents[d]), 1,
                              static_cast<MPI_Aint>(strides[d] * static_cast<index_t>(task.element_bytes)), type, &outer);
      MPI_Type_free(&type);
      type = outer;
    }
    MPI_Type_commit(&type);
    return type;
  }
  static void free_type(MPI_Datatype t) { MPI_Type_free(&t); }

  void add_to_mailbox(int rank, int core, std::int64_t offset, std::int32_t inc) {
    MPI_Accumulate(&inc, 1, MPI_INT32_T, rank, slot(core, offset), 1, MPI_INT32_T, MPI_SUM, mailbox_win_);
    MPI_Win_flush(rank, mailbox_win_);
  }

  mpi_world const& world_;
  int cores_per_chip_;
  std::vector<hbm_buffer> hbm_;
  std::chrono::duration<double> timeout_;
  launch_state* launch_ = nullptr;
  std::atomic<bool> opened_{false};
  std::vector<MPI_Win> windows_;  ///< [core][VMEM, SMEM], then the HBM shards
  std::vector<std::int32_t> mailbox_;
  MPI_Win mailbox_win_ = MPI_WIN_NULL;
};

}  // namespace pallas::detail

#endif  // PALLAS_USE_MPI
