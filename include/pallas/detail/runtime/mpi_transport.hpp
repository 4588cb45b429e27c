// SPDX-License-Identifier: Apache-2.0
#pragma once
// The MPI backend of multi-chip launches (PALLAS_USE_MPI): one chip per rank, the same
// program on every rank under `mpirun -np N`, chip index = rank. The chip's cores are the
// rank's threads, all calling MPI (MPI_THREAD_MULTIPLE).
//
// Every rank exposes, in the same order, one MPI window per local core's VMEM and SMEM
// arena, allocated identically on every rank, so a destination is the sender's own buffer
// and offset (chip_set.hpp's symmetric heap); and one dynamic window to which each launch
// attaches its HBM operand shards (their addresses are exchanged at the launch's start).
// The arena windows and the mailbox below outlive a launch (creating a window is a
// collective that costs about as much as a small all-reduce) and are recreated only when
// some rank's cores or arenas changed. A remote copy is an MPI_Put into the target's
// window, flushed; then the byte count goes into the target core's mailbox for its receive
// semaphore, and the sender's send semaphore is signaled here. Remote semaphore_signal is
// the same mailbox write.
//
// Semaphores stay the cores' std::atomic counts; what other ranks add lands in a mailbox
// window (mpi_mailbox.hpp: each sender's running total, MPI_Put, no MPI atomics). A core
// whose wait finds its count short takes what arrived in its own memory and adds it;
// pl::semaphore_read does the same before it reads. One launch at a time per process: a launch's start is a collective over the
// ranks (pallas' own duplicate of MPI_COMM_WORLD). No rank sees the others' waits, so the
// in-process deadlock proof is off; a deadlock of every chip is proven across the ranks
// instead (mpi_deadlock.hpp: a status window, two rounds of questions) and reported naming
// every chip's cores. A wait that ends nowhere while some rank does not wait in pallas is
// reported by a timeout (PALLAS_MPI_WAIT_TIMEOUT seconds, 30 by default). In checked mode
// a sender describes each copy to its receiver first (mpi_incoming.hpp), so the receiver's
// access of a destination before its wait_recv is a race, as in one process.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <pallas/detail/runtime/chip_set.hpp>
#include <pallas/detail/runtime/core.hpp>
#include <pallas/detail/runtime/deadlock.hpp>
#include <pallas/detail/runtime/dma_order.hpp>
#include <pallas/detail/runtime/dma_task.hpp>
#include <pallas/detail/runtime/launch.hpp>
#include <pallas/detail/runtime/mpi_api.hpp>
#include <pallas/detail/runtime/mpi_deadlock.hpp>
#include <pallas/detail/runtime/mpi_incoming.hpp>
#include <pallas/detail/runtime/mpi_mailbox.hpp>
#include <pallas/detail/runtime/mpi_world.hpp>
#include <pallas/error.hpp>

#ifdef PALLAS_USE_MPI

namespace pallas::detail {

/// How long a wait may stay short before it is reported (PALLAS_MPI_WAIT_TIMEOUT, seconds).
std::chrono::duration<double> mpi_wait_timeout();

/// One rank's side of a multi-chip launch over MPI (this file's header comment).
class mpi_transport final : public chip_transport {
 public:
  /// `hbm` lists this chip's operand shards (the same operands, in the same order, on
  /// every rank).
  mpi_transport(mpi_world const& world, int cores_per_chip, std::vector<hbm_buffer> hbm);
  mpi_transport(mpi_transport const&) = delete;
  mpi_transport& operator=(mpi_transport const&) = delete;

  /// Every core calls it once, after the launch's start barrier (every local core has
  /// allocated its scratch): core 0 exposes the windows (collective over the ranks) and
  /// passes a barrier of every rank; the others wait for it.
  void join(core_state& core);

  /// After the launch, on every rank: detaches the HBM shards and, in checked mode, waits
  /// for every rank and returns what other ranks signaled into this chip's semaphores and
  /// nobody waited for ("" when nothing). Unchecked, a rank goes on at once: every copy
  /// into it landed before the signal its wait consumed (a program that does not wait is
  /// wrong, and only checked mode tells).
  std::string close();

  bool in_this_process(int target) const override { return target / cores_per_chip_ == world_.rank; }

  void start_elsewhere(core_state& me, dma_task const& task, std::atomic<std::int32_t>* send, int target,
                       std::int64_t recv_offset, place where) override;

  /// The end of core `me`'s body: its kept copies go.
  void body_done(core_state& me) override { release_deferred(me, true); }

  void signal_elsewhere(core_state& me, int target, std::int64_t offset, std::int32_t inc) override {
    mailbox_.add(local_core_index(me), target / cores_per_chip_, target % cores_per_chip_, offset, inc,
                 kept_.mailbox_win);
  }

  void start(launch_state& launch, remote_task const& t, bool /*now*/) override {
    run_remote_task(launch, t);  // a copy to a core of this chip: moves at once
  }
  bool progress(launch_state& /*launch*/, void const* /*cell*/) override { return false; }
  /// Takes what other ranks added to `cell`'s mailbox slot into `cell`; true if anything.
  bool pending_for(void const* cell) override;
  bool spans_processes() const override { return world_.size > 1; }
  std::size_t leftovers() override { return 0; }

  void check_stalled(core_state& me, std::chrono::steady_clock::time_point since) override;

 private:
  void open(launch_state& launch);

  /// Whether this rank is stuck (mpi_deadlock.hpp): every local core waits on a semaphore
  /// that is still short, polls one that has not changed, or has finished, and no other
  /// chip's signal waits in a mailbox slot of an allocated semaphore.
  bool stuck();

  void attach() {
    for (auto const& b : hbm_) MPI_Win_attach(kept_.hbm, b.base, static_cast<MPI_Aint>(b.bytes));
  }

  /// Fails with MPI's explanation when `rc` is an error.
  static void check(int rc, char const* what);

  MPI_Win create(void* base, std::int64_t bytes) const;

  /// One remote copy of the random order not sent yet.
  struct deferred_copy {
    dma_task task;
    std::atomic<std::int32_t>* send;
    int target;
    std::int64_t recv_offset;
  };

  /// Puts the copy's bytes into the target's window, then its count into the target's
  /// mailbox, then signals the send semaphore.
  void send_now(core_state& me, deferred_copy const& c);

  /// The random order: sends core `me`'s kept copies in a seeded order, each with
  /// probability 1/2 or (`all`) every one. Only `me`'s thread touches its list. Returns
  /// whether it sent any.
  bool release_deferred(core_state& me, bool all);

  /// Where `p` (an address of core `me`) is: VMEM, SMEM or HBM operand k
  /// (remote_copy_description's spaces) and the bytes into it; space -1 when none.
  std::pair<int, std::int64_t> space_of(core_state const& me, std::byte const* p) const;

  /// The window and displacement of `p` (an address of core `me`) on core `target_core`.
  std::pair<MPI_Win, MPI_Aint> window_of(core_state const& me, std::byte const* p, int rank, int target_core) const;

  /// Checked mode: tells core `target_core` of `rank` about the copy before its bytes go.
  void describe_to_receiver(core_state& me, dma_task const& task, int rank, int target_core, std::int64_t recv_offset,
                            place where);

  /// Checked mode: what other ranks described for local core `c` becomes its incoming
  /// copies (its memory map says where its VMEM, SMEM and semaphores are).
  void read_incoming(int c, checked_state& state);

  /// The feed of one local core's checked state (checked_state.hpp).
  struct core_feed final : incoming_feed {
    core_feed(mpi_transport* t, int c) : transport(t), core(c) {}
    void read_into(checked_state& state) override { transport->read_incoming(core, state); }
    mpi_transport* transport;
    int core;
  };

  /// The copy's elements on one side, as an MPI type (strides in elements).
  static MPI_Datatype layout_type(dma_task const& task, index_t const* strides);
  static void free_type(MPI_Datatype t) { MPI_Type_free(&t); }

  mpi_world const& world_;
  mpi_world::kept_windows& kept_;
  int cores_per_chip_;
  std::vector<hbm_buffer> hbm_;
  std::vector<MPI_Aint> hbm_remote_;  ///< [rank][operand]: the shards' addresses on every rank
  std::chrono::duration<double> timeout_;
  launch_state* launch_ = nullptr;
  std::atomic<bool> opened_{false};
  bool opened_windows_ = false;
  std::mutex mailbox_mutex_;  ///< a mailbox slot's take and its add to the semaphore are one step
  mpi_mailbox mailbox_;
  mpi_deadlock_proof proof_;
  mpi_incoming_log incoming_;
  std::vector<core_feed> feeds_;  ///< one per local core, never reallocated after construction
  std::vector<checked_state*> checked_;  ///< checked mode: the local cores' states, by local index
  std::vector<std::vector<deferred_copy>> deferred_;  ///< the random order's kept copies, per local core
};

}  // namespace pallas::detail

#endif  // PALLAS_USE_MPI

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/detail/runtime/mpi_transport.ipp>
#endif
