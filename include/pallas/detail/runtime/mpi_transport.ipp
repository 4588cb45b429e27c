// SPDX-License-Identifier: Apache-2.0
#pragma once
// The MPI backend's launch start and end, remote copies and signals, compiled once per
// program under separate compilation (config.hpp) and inline in every translation unit
// otherwise.

#include <pallas/detail/runtime/mpi_transport.hpp>

#ifdef PALLAS_USE_MPI

namespace pallas::detail {

PALLAS_DECL std::chrono::duration<double> mpi_wait_timeout() {
  char const* env = std::getenv("PALLAS_MPI_WAIT_TIMEOUT");
  double const seconds = env ? std::atof(env) : 0.0;
  return std::chrono::duration<double>(seconds > 0 ? seconds : 30.0);
}

PALLAS_DECL mpi_transport::mpi_transport(mpi_world const& world, int cores_per_chip, std::vector<hbm_buffer> hbm)
    : world_(world), kept_(*world.windows), cores_per_chip_(cores_per_chip), hbm_(std::move(hbm)),
      timeout_(mpi_wait_timeout()), mailbox_(kept_.mailbox, world.rank, world.size, cores_per_chip),
      proof_(world.rank, world.size, cores_per_chip), incoming_(kept_.incoming, world.rank, world.size, cores_per_chip) {
  deferred_.resize(static_cast<std::size_t>(cores_per_chip));
  feeds_.reserve(static_cast<std::size_t>(cores_per_chip));
  for (int c = 0; c < cores_per_chip; ++c) feeds_.emplace_back(this, c);
}

PALLAS_DECL void mpi_transport::join(core_state& core) {
  launch_state& launch = *core.launch;
  if (local_core_index(core) == 0) {
    open(launch);
    if constexpr (checked_mode)  // the other cores wait for opened_, which publishes this
      if (opened_windows_)
        for (int c = 0; c < cores_per_chip_; ++c) {
          checked_.push_back(&launch.cores[c]->checked);  // the core outlives the launch's state
          launch.cores[c]->checked.feed = &feeds_[static_cast<std::size_t>(c)];
          launch.cores[c]->checked.remote_hint = incoming_.hint(c);
        }
    opened_.store(true, std::memory_order_release);
    return;
  }
  while (!opened_.load(std::memory_order_acquire)) {
    launch.check_aborted();
    std::this_thread::yield();
  }
}

PALLAS_DECL std::string mpi_transport::close() {
  if (!opened_windows_) return {};  // one chip: nothing was opened
  proof_.finished();
  if constexpr (!checked_mode) {
    for (auto const& b : hbm_) MPI_Win_detach(kept_.hbm, b.base);
    return {};
  }
  // A barrier that reads the cores' incoming descriptions meanwhile: a sender may wait
  // for room in a ring of a core that has finished.
  MPI_Request barrier = MPI_REQUEST_NULL;
  MPI_Ibarrier(world_.comm, &barrier);
  for (int done = 0;;) {
    MPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
    if (done) break;
    for (int c = 0; c < cores_per_chip_; ++c) read_incoming(c, *checked_[static_cast<std::size_t>(c)]);
    std::this_thread::yield();
  }
  for (checked_state* state : checked_) {  // the log's memory may move before the next launch
    state->feed = nullptr;
    state->remote_hint = nullptr;
  }
  for (auto const& b : hbm_) MPI_Win_detach(kept_.hbm, b.base);
  MPI_Win_sync(kept_.mailbox_win);  // what other ranks put is visible to these loads
  return mailbox_.untaken();  // (non-empty: the caller ends the job, so no later launch finds them)
}

PALLAS_DECL void mpi_transport::start_elsewhere(core_state& me, dma_task const& task, std::atomic<std::int32_t>* send, int target,
                                            std::int64_t recv_offset, place where) {
  int const rank = target / cores_per_chip_;
  int const target_core = target % cores_per_chip_;
  if (window_of(me, task.dst, rank, target_core).first == MPI_WIN_NULL)
    fail("pallas::make_async_remote_copy: the destination is not a buffer of this kernel (an operand, a scratch "
         "buffer or a run_scoped buffer), so it has no counterpart on chip ", rank, " (on ", core_name(me), ')');
  if constexpr (checked_mode) describe_to_receiver(me, task, rank, target_core, recv_offset, where);
  if (me.dma.order().order != dma_order::random) return send_now(me, {task, send, target, recv_offset});
  // The random order: this copy and those kept before go now or later, in a seeded order,
  // and all before the core next waits or ends (no other rank can move them).
  deferred_[static_cast<std::size_t>(local_core_index(me))].push_back({task, send, target, recv_offset});
  release_deferred(me, false);
}

PALLAS_DECL bool mpi_transport::pending_for(void const* cell) {
  if (!opened_windows_) return false;
  if (current_core && current_core->launch == launch_) {  // a wait (or semaphore_read) of a local core
    if constexpr (checked_mode) current_core->checked.read_feed();  // a sender may wait for room
    if (release_deferred(*current_core, true)) return true;  // its own kept copies go before it waits
  }
  std::lock_guard lock(mailbox_mutex_);  // taken and added as one step (stuck())
  for (int c = 0; c < cores_per_chip_; ++c) {
    core_state const& core = *launch_->cores[c];
    auto const* b = static_cast<std::byte const*>(cell);
    if (b < core.semaphores.base() || b >= core.semaphores.base() + core.semaphores.capacity()) continue;
    std::int32_t const got = mailbox_.take(c, b - core.semaphores.base());
    if (got == 0) return false;
    const_cast<std::atomic<std::int32_t>*>(static_cast<std::atomic<std::int32_t> const*>(cell))
        ->fetch_add(got, std::memory_order_acq_rel);
    return true;
  }
  return false;
}

PALLAS_DECL void mpi_transport::check_stalled(core_state& me, std::chrono::steady_clock::time_point since) {
  auto const stalled = std::chrono::steady_clock::now() - since;
  if (opened_windows_)
    proof_.on_stalled(
        *launch_, stalled, [&] { return stuck(); },
        [&](int c) { return describe_blocked_core(*launch_->cores[c]); });
  if (stalled < timeout_) return;
  fail<deadlock_error>("pallas::deadlock (MPI rank ", world_.rank, " of ", world_.size, "): ",
                       describe_blocked_core(me), ", for more than ", timeout_.count(),
                       " s (PALLAS_MPI_WAIT_TIMEOUT): a wait no chip signals (a mismatched send and receive?)");
}

PALLAS_DECL void mpi_transport::open(launch_state& launch) {
  launch_ = &launch;
  if (world_.size == 1) return;  // one chip: every copy stays in this process (and a lone rank may have no osc)
  std::vector<std::pair<std::byte const*, std::int64_t>> arenas;
  for (int c = 0; c < cores_per_chip_; ++c) {
    arenas.emplace_back(launch.cores[c]->vmem.base(), launch.cores[c]->vmem.capacity());
    arenas.emplace_back(launch.cores[c]->smem.base(), launch.cores[c]->smem.capacity());
  }
  // One collective for both: whether some rank's cores or arenas changed since the
  // windows were made, and where every rank's HBM shards of this launch are.
  std::size_t const k = hbm_.size() + 1;
  std::vector<MPI_Aint> mine(k, 0);
  mine[0] = arenas != kept_.made_for || kept_.hbm == MPI_WIN_NULL ? 1 : 0;
  for (std::size_t b = 0; b < hbm_.size(); ++b) MPI_Get_address(hbm_[b].base, &mine[b + 1]);
  bool const stale = mine[0] != 0;
  std::int64_t const seq = ++kept_.launches;
  if (!stale) {  // before the exchange, which no rank passes before this one joins it
    attach();
    mailbox_.clear();
    incoming_.clear();
    proof_.begin(kept_.status_win, seq);
  }
  std::vector<MPI_Aint> all(k * static_cast<std::size_t>(world_.size));
  MPI_Allgather(mine.data(), static_cast<int>(k), MPI_AINT, all.data(), static_cast<int>(k), MPI_AINT, world_.comm);
  hbm_remote_.assign(hbm_.size() * static_cast<std::size_t>(world_.size), 0);
  bool any_stale = false;
  for (std::size_t r = 0; r < static_cast<std::size_t>(world_.size); ++r) {
    any_stale = any_stale || all[r * k] != 0;
    for (std::size_t b = 0; b < hbm_.size(); ++b) hbm_remote_[r * hbm_.size() + b] = all[r * k + 1 + b];
  }
  opened_windows_ = true;
  if (!any_stale) return;
  // Every rank makes its windows again, then passes a barrier once its shards are attached.
  if (!stale)
    for (auto const& b : hbm_) MPI_Win_detach(kept_.hbm, b.base);
  kept_.release();
  for (auto const& [base, bytes] : arenas) kept_.arenas.push_back(create(const_cast<std::byte*>(base), bytes));
  kept_.made_for = arenas;
  kept_.mailbox.assign(mpi_mailbox::words(world_.size, cores_per_chip_), 0);
  kept_.mailbox_win = create(kept_.mailbox.data(), static_cast<std::int64_t>(kept_.mailbox.size() * sizeof(std::uint32_t)));
  kept_.status.assign(mpi_deadlock_proof::words(world_.size, cores_per_chip_), 0);
  kept_.status_win = create(kept_.status.data(), static_cast<std::int64_t>(kept_.status.size() * sizeof(std::int64_t)));
  if constexpr (checked_mode) {
    kept_.incoming.assign(mpi_incoming_log::words(world_.size, cores_per_chip_), 0);
    kept_.incoming_win =
        create(kept_.incoming.data(), static_cast<std::int64_t>(kept_.incoming.size() * sizeof(std::uint64_t)));
  }
  proof_.begin(kept_.status_win, seq);
  check(MPI_Win_create_dynamic(MPI_INFO_NULL, world_.comm, &kept_.hbm), "MPI_Win_create_dynamic");
  MPI_Win_lock_all(MPI_MODE_NOCHECK, kept_.hbm);
  attach();
  MPI_Barrier(world_.comm);
}

PALLAS_DECL bool mpi_transport::stuck() {
  std::lock_guard lock(mailbox_mutex_);
  for (int c = 0; c < cores_per_chip_; ++c) {
    core_state const& core = *launch_->cores[c];
    run_state const state = core.state.load(std::memory_order_seq_cst);
    if (state == run_state::finished) continue;
    void const* cell = core.wait_cell.load(std::memory_order_acquire);
    if (state != run_state::blocked || !cell) return false;
    std::int32_t const holds = read_cell(cell), wanted = core.wait_value.load(std::memory_order_relaxed);
    if (core.wait_who.load(std::memory_order_relaxed) == polling_who ? holds != wanted : holds >= wanted) return false;
  }
  for (int c = 0; c < cores_per_chip_; ++c)
    if (mailbox_.pending(c, launch_->cores[c]->semaphores_allocated.load(std::memory_order_acquire) /
                                static_cast<std::int64_t>(sizeof(std::int32_t))))
      return false;
  return true;
}

PALLAS_DECL void mpi_transport::check(int rc, char const* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, text, &length);
  fail("pallas (PALLAS_USE_MPI): ", what, " failed (", std::string(text, static_cast<std::size_t>(length)),
       "): this MPI has no one-sided (osc) component for windows over memory the program allocated under "
       "MPI_THREAD_MULTIPLE. Open MPI 4 on one node needs osc rdma over the vader transport with its single-copy "
       "mechanism: run with --mca btl self,vader, without btl_vader_single_copy_mechanism=none or --mca osc pt2pt");
}

PALLAS_DECL MPI_Win mpi_transport::create(void* base, std::int64_t bytes) const {
  MPI_Win w = MPI_WIN_NULL;
  check(MPI_Win_create(base, static_cast<MPI_Aint>(bytes), 1, MPI_INFO_NULL, world_.comm, &w), "MPI_Win_create");
  MPI_Win_lock_all(MPI_MODE_NOCHECK, w);
  return w;
}

PALLAS_DECL void mpi_transport::send_now(core_state& me, deferred_copy const& c) {
  int const rank = c.target / cores_per_chip_;
  int const target_core = c.target % cores_per_chip_;
  auto const [win, disp] = window_of(me, c.task.dst, rank, target_core);
  if (c.task.bytes > 0) {
    MPI_Datatype const src_type = layout_type(c.task, c.task.src_strides);
    MPI_Datatype const dst_type = layout_type(c.task, c.task.dst_strides);
    MPI_Put(c.task.src, 1, src_type, rank, disp, 1, dst_type, win);
    MPI_Win_flush(rank, win);  // the bytes have landed before the receiver can see its count
    free_type(src_type);
    free_type(dst_type);
  }
  mailbox_.add(local_core_index(me), rank, target_core, c.recv_offset, static_cast<std::int32_t>(c.task.bytes),
               kept_.mailbox_win);
  c.send->fetch_add(c.task.bytes, std::memory_order_acq_rel);  // the source has been read
}

PALLAS_DECL bool mpi_transport::release_deferred(core_state& me, bool all) {
  auto& kept = deferred_[static_cast<std::size_t>(local_core_index(me))];
  if (kept.empty()) return false;
  for (std::size_t k = kept.size(); k > 1; --k) std::swap(kept[k - 1], kept[me.dma.next_random() % k]);
  bool sent = false;
  for (std::size_t k = 0; k < kept.size();) {
    if (!all && (me.dma.next_random() & 1) == 0) {
      ++k;
      continue;
    }
    deferred_copy const c = kept[k];
    kept.erase(kept.begin() + static_cast<std::ptrdiff_t>(k));
    send_now(me, c);
    sent = true;
  }
  return sent;
}

PALLAS_DECL std::pair<int, std::int64_t> mpi_transport::space_of(core_state const& me, std::byte const* p) const {
  using d = remote_copy_description;
  auto const at = [&](arena const& a) { return p >= a.base() && p < a.base() + a.capacity(); };
  if (at(me.vmem)) return {d::vmem, p - me.vmem.base()};
  if (at(me.smem)) return {d::smem, p - me.smem.base()};
  for (std::size_t k = 0; k < hbm_.size(); ++k)
    if (p >= hbm_[k].base && p < hbm_[k].base + hbm_[k].bytes) return {d::first_hbm + static_cast<int>(k), p - hbm_[k].base};
  return {-1, 0};
}

PALLAS_DECL std::pair<MPI_Win, MPI_Aint> mpi_transport::window_of(core_state const& me, std::byte const* p, int rank,
                                                         int target_core) const {
  auto const [space, offset] = space_of(me, p);
  std::size_t const core = static_cast<std::size_t>(target_core) * 2;
  if (space < 0) return {MPI_WIN_NULL, 0};
  if (space == remote_copy_description::vmem) return {kept_.arenas[core], offset};
  if (space == remote_copy_description::smem) return {kept_.arenas[core + 1], offset};
  std::size_t const k = static_cast<std::size_t>(space - remote_copy_description::first_hbm);
  return {kept_.hbm, MPI_Aint_add(hbm_remote_[static_cast<std::size_t>(rank) * hbm_.size() + k], offset)};  // the target's address
}

PALLAS_DECL void mpi_transport::describe_to_receiver(core_state& me, dma_task const& task, int rank, int target_core,
                                                 std::int64_t recv_offset, place where) {
  remote_copy_description d;
  std::tie(d.space, d.offset) = space_of(me, task.dst);
  d.recv_offset = recv_offset;
  d.bytes = task.bytes;
  d.element_bytes = static_cast<std::int64_t>(task.element_bytes);
  d.rank = task.rank;
  for (int r = 0; r < task.rank; ++r) {
    d.extents[r] = task.extents[r];
    d.strides[r] = task.dst_strides[r];
  }
  d.set_from("a remote copy (" + std::to_string(task.bytes) + " bytes) from " + core_name(me) + " started at " +
             std::string(where.file_name()) + ':' + std::to_string(where.line));
  int const from = local_core_index(me);
  incoming_.post(from, rank, target_core, d, kept_.incoming_win, [&] { read_incoming(from, me.checked); });
}

PALLAS_DECL void mpi_transport::read_incoming(int c, checked_state& state) {
  incoming_.read(c, [&](remote_copy_description const& d) {
    using rd = remote_copy_description;
    std::byte const* base = d.space == rd::vmem   ? state.memory.vmem
                            : d.space == rd::smem ? state.memory.smem
                                                  : hbm_[static_cast<std::size_t>(d.space - rd::first_hbm)].base;
    region const dst = region::strided(base + d.offset, d.rank, d.extents, d.strides, d.element_bytes);
    state.add_incoming(dst, state.semaphore_base + d.recv_offset, d.bytes, d.from);
  });
}

PALLAS_DECL MPI_Datatype mpi_transport::layout_type(dma_task const& task, index_t const* strides) {
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

}  // namespace pallas::detail

#endif  // PALLAS_USE_MPI
