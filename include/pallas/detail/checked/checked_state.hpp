// SPDX-License-Identifier: Apache-2.0
#pragma once
// A core's checked-mode bookkeeping: its copies in flight (started, not yet retired by a
// wait), the semaphores it allocated (for names in messages and the end-of-kernel check),
// and the error types that checked mode throws.
//
// A copy is in flight from start() until a wait on its semaphore consumes its bytes: waits
// consume the bytes of the copies that moved, in the order they moved, so a wait retires
// exactly the copies whose signal it used (as on hardware, whatever the completion order).
// While in flight, its destination may not be read or written and its source may not be
// written. Accesses are checked against the in-flight regions when they happen (block
// reads/writes through check_access, copies, sync_copy); writes the hooks do not see
// (element stores) are caught by a hash of the source taken at start() and verified when
// the copy retires, and of the destination taken when the bytes move, and by a poisoned
// destination that must still be poisoned when the bytes move (region_snapshot.hpp).

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <pallas/detail/checked/checked_access.hpp>
#include <pallas/detail/checked/memory_map.hpp>
#include <pallas/detail/checked/race_detector.hpp>
#include <pallas/memory_space.hpp>

namespace pallas::detail {

/// One started copy, as checked mode sees it.
struct copy_record {
  std::uint64_t id = 0;        ///< "copy #id" on its core, in start order from 1
  region src, dst;
  memory_space src_space = memory_space::any, dst_space = memory_space::any;
  std::string_view dtype;      ///< jnp name
  int rank = 0;
  std::int64_t extents[region::max_rank]{};
  std::atomic<std::int32_t> const* semaphore = nullptr;
  std::int32_t bytes = 0;
  place started;
  bool moved = false;
  std::uint64_t move_order = 0;  ///< when its bytes moved, among this core's copies
  std::uint64_t src_hash = 0;
  bool check_src_hash = false;
  std::uint64_t dst_hash = 0;    ///< after the bytes moved (taken when user code may run next)
  bool has_dst_hash = false;
  bool poisoned_dst = false;     ///< the destination was poisoned at start
  std::byte poison[8]{};         ///< one element of poison
  std::int64_t element_bytes = 0;
};

/// One allocation of semaphores (a scratch operand or a run_scoped type).
struct semaphore_block {
  std::int64_t offset = 0;     ///< bytes into the core's semaphore memory
  std::int64_t count = 0;      ///< semaphores in the block
  std::int64_t first_id = 0;   ///< "#id" of its first semaphore (allocation order)
  std::int64_t element_bytes = 4;
  char const* kind = "";       ///< REGULAR, DMA, BARRIER
  char const* origin = "";     ///< "scratch", "run_scoped"
};

class checked_state;

/// Over MPI, where a core's incoming remote copies come from (mpi_incoming.hpp): read them
/// into the state with add_incoming.
class incoming_feed {
 public:
  virtual void read_into(checked_state& state) = 0;

 protected:
  ~incoming_feed() = default;
};

/// A core's checked-mode state. The core itself changes it; other cores read the copies
/// (cross-core HBM checks) and the semaphore blocks (deadlock reports) under `mutex`.
class checked_state final : public access_checker {
 public:
  /// Other ranks' copies into this core arrive through it (remote_hint set with it); in
  /// one process their senders call add_incoming.
  incoming_feed* feed = nullptr;
  mutable std::mutex mutex;
  int core = 0;
  memory_map memory;
  std::byte const* semaphore_base = nullptr;
  std::int64_t semaphore_bytes = 0;
  std::vector<copy_record> copies;             ///< in flight, in start order
  std::vector<semaphore_block> semaphores;     ///< allocated, in allocation order
  char const* allocation_origin = "scratch";   ///< what semaphore allocations come from now
  bool in_wait = false;  ///< inside wait_on_semaphore: no user code runs until it returns
  std::uint64_t next_copy_id = 1;
  std::uint64_t next_move = 1;

  struct credit {
    std::atomic<std::int32_t> const* semaphore;
    std::int64_t bytes;
  };
  std::vector<credit> credits;  ///< bytes waited on a semaphore and not yet matched to copies
  /// A remote copy into this core (tpu/remote_copy.hpp) until its wait_recv here.
  struct incoming_copy {
    region dst;
    void const* semaphore;
    std::int64_t bytes;  ///< not yet covered by the receiver's waits
    std::string from;  ///< "a remote copy (...) from chip 0 core 0 started at main.cpp:12"
  };
  std::vector<incoming_copy> incoming_copies;
  race_detector* races = nullptr;  ///< the launch's race detector while it runs, else nullptr

  /// Forgets everything (start of a launch).
  void reset(int core_index, memory_map const& mem, std::byte const* sem_base, std::int64_t sem_bytes);

  // ---- the race detector (race_detector.hpp) -------------------------------------------

  /// Lets the core's accesses of shared memory through to `detector` (nullptr: off). On
  /// several chips the core's own VMEM and SMEM count as shared too: other chips' remote
  /// copies write them, and only the receiver's own accesses show a copy that overwrites
  /// what it is still reading.
  void attach_races(race_detector* detector, bool several_chips);

  /// An element access may read or write: it counts as a read (no false reports).
  PALLAS_DECL void note_shared(region const& r, access_kind kind, char const* what, place where) override;

  /// This core signals `cell`: what it did so far happens before a wait that sees it.
  void race_release(void const* cell) {
    if (races) races->release(core, cell);
  }

  /// A wait of this core on `cell` returned.
  void race_acquire(void const* cell) {
    if (races) races->acquire(core, cell);
  }

  /// A copy starts (or, semaphore null, runs now): it reads `src` and writes `dst` at this
  /// core's clock, and its completion releases the clock into its DMA semaphore.
  void race_copy(region const& src, region const& dst, void const* semaphore, char const* what, place where);

  // ---- semaphores --------------------------------------------------------------------

  void add_semaphores(std::int64_t offset, std::int64_t count, std::int64_t element_bytes, char const* kind);

  /// Forgets the blocks at or after `offset` (run_scoped's release).
  void drop_semaphores_from(std::int64_t offset);

  /// "DMA semaphore #3 (element [1] of 2, run_scoped)"; the caller holds `mutex`.
  std::string semaphore_name_locked(void const* cell) const;

  std::string semaphore_name(void const* cell) const;

  // ---- copies ------------------------------------------------------------------------

  /// "copy #3 (HBM float32[16,128] -> VMEM+0 float32[16,128], 8192 bytes, DMA semaphore
  /// #1 (scratch)) started at main.cpp:40 on core 0"; the caller holds `mutex`.
  std::string describe_locked(copy_record const& c) const;

  std::string describe(copy_record const& c) const;

  /// The first copy in flight that an access conflicts with: one reading `reads` (may be
  /// null) and writing `writes` (may be null). Returns "" when there is none, else
  /// "<reads|writes> the <destination|source> of <copy description>".
  [[gnu::cold]] std::string conflict(region const* reads, region const* writes, char const* reads_verb = "reads") const;

  /// The access hook (block reads and writes, element accesses).
  PALLAS_DECL void check(region const& r, access_kind kind, char const* what, place where) override;

  /// Reads what other ranks described since the hint was last cleared.
  void read_feed() {
    if (feed && remote_hint && std::atomic_ref<std::uint64_t>(*remote_hint).load(std::memory_order_acquire) != 0)
      feed->read_into(*this);
  }

  /// Registers a remote copy into this core (called by its sender).
  void add_incoming(region const& dst, void const* semaphore, std::int64_t bytes, std::string from);

  /// Registers a started copy; returns its id.
  std::uint64_t add_copy(copy_record c);

  copy_record* find_locked(std::uint64_t id) {
    for (auto& c : copies)
      if (c.id == id) return &c;
    return nullptr;
  }

  /// Before copy `id` moves its bytes: its destination must still hold the poison put
  /// there at start (else something wrote it before the wait).
  void before_move(std::uint64_t id, place where);

  /// After copy `id` moved its bytes. Inside a wait, the destination's snapshot waits
  /// until the wait ends (no user code runs meanwhile), and is not needed at all when the
  /// wait retires the copy.
  void after_move(std::uint64_t id);

  /// The end of a wait: snapshot the destinations of the copies that moved during it and
  /// are still in flight.
  void wait_ended();

  /// A wait consumed `bytes` of `semaphore`: retire the moved copies whose signals that
  /// covers, in the order they moved, verifying that nothing wrote their source or
  /// destination meanwhile.
  void waited(std::atomic<std::int32_t> const* semaphore, std::int64_t bytes, char const* who, place where);

  /// Copies in flight that touch [lo, hi) (run_scoped's release) or signal a semaphore in it.
  std::string in_flight_within(std::byte const* lo, std::byte const* hi) const;

  /// Every copy still in flight, described.
  std::string unwaited() const;
};

}  // namespace pallas::detail

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/detail/checked/checked_state.ipp>
#endif
