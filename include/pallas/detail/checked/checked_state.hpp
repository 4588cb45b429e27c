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

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <pallas/detail/checked/checked_access.hpp>
#include <pallas/detail/checked/memory_map.hpp>
#include <pallas/detail/checked/race_detector.hpp>
#include <pallas/detail/checked/region_snapshot.hpp>
#include <pallas/error.hpp>
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
  void reset(int core_index, memory_map const& mem, std::byte const* sem_base, std::int64_t sem_bytes) {
    std::lock_guard lock(mutex);
    core = core_index;
    memory = mem;
    semaphore_base = sem_base;
    semaphore_bytes = sem_bytes;
    copies.clear();
    semaphores.clear();
    credits.clear();
    incoming_copies.clear();
    incoming.store(0, std::memory_order_relaxed);
    feed = nullptr;
    remote_hint = nullptr;
    allocation_origin = "scratch";
    in_wait = false;
    next_copy_id = 1;
    next_move = 1;
    in_flight.store(0, std::memory_order_relaxed);
    races = nullptr;
    track_shared = false;
    local_lo[0] = mem.vmem;
    local_hi[0] = mem.vmem + mem.vmem_bytes;
    local_lo[1] = mem.smem;
    local_hi[1] = mem.smem + mem.smem_bytes;
  }

  // ---- the race detector (race_detector.hpp) -------------------------------------------

  /// Lets the core's accesses of shared memory through to `detector` (nullptr: off). On
  /// several chips the core's own VMEM and SMEM count as shared too: other chips' remote
  /// copies write them, and only the receiver's own accesses show a copy that overwrites
  /// what it is still reading.
  void attach_races(race_detector* detector, bool several_chips) {
    races = detector;
    track_shared = detector != nullptr;
    if (!detector) return;
    detector->name_memory(core, memory);
    if (several_chips)
      for (int m = 0; m < 2; ++m) local_lo[m] = local_hi[m] = nullptr;
  }

  /// An element access may read or write: it counts as a read (no false reports).
  void note_shared(region const& r, access_kind kind, char const* what, place where) override {
    if (races) races->access(core, r, kind == access_kind::write, {what ? what : "an access", where});
  }

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
  void race_copy(region const& src, region const& dst, void const* semaphore, char const* what, place where) {
    if (!races) return;
    if (!src.empty() && is_shared(src.lo)) races->access(core, src, false, {what, where});
    if (!dst.empty() && is_shared(dst.lo)) races->access(core, dst, true, {what, where});
    if (semaphore) races->release(core, semaphore);
  }

  // ---- semaphores --------------------------------------------------------------------

  void add_semaphores(std::int64_t offset, std::int64_t count, std::int64_t element_bytes, char const* kind) {
    std::lock_guard lock(mutex);
    std::int64_t const first = semaphores.empty() ? 0 : semaphores.back().first_id + semaphores.back().count;
    semaphores.push_back({offset, count, first, element_bytes, kind, allocation_origin});
  }

  /// Forgets the blocks at or after `offset` (run_scoped's release).
  void drop_semaphores_from(std::int64_t offset) {
    std::lock_guard lock(mutex);
    while (!semaphores.empty() && semaphores.back().offset >= offset) semaphores.pop_back();
  }

  /// "DMA semaphore #3 (element [1] of 2, run_scoped)"; the caller holds `mutex`.
  std::string semaphore_name_locked(void const* cell) const {
    auto const* b = static_cast<std::byte const*>(cell);
    std::ostringstream out;
    if (semaphore_base && b >= semaphore_base && b < semaphore_base + semaphore_bytes) {
      std::int64_t const offset = b - semaphore_base;
      for (auto const& blk : semaphores) {
        if (offset >= blk.offset && offset < blk.offset + blk.count * blk.element_bytes) {
          std::int64_t const k = (offset - blk.offset) / blk.element_bytes;
          out << blk.kind << " semaphore #" << blk.first_id + k << " (";
          if (blk.count > 1) out << "element [" << k << "] of " << blk.count << ", ";
          out << blk.origin << ")";
          return out.str();
        }
      }
      out << "semaphore at offset " << offset;
      return out.str();
    }
    out << "semaphore at " << cell << " (not in the core's semaphore memory)";
    return out.str();
  }

  std::string semaphore_name(void const* cell) const {
    std::lock_guard lock(mutex);
    return semaphore_name_locked(cell);
  }

  // ---- copies ------------------------------------------------------------------------

  /// "copy #3 (HBM float32[16,128] -> VMEM+0 float32[16,128], 8192 bytes, DMA semaphore
  /// #1 (scratch)) started at main.cpp:40 on core 0"; the caller holds `mutex`.
  std::string describe_locked(copy_record const& c) const {
    std::ostringstream out;
    auto shape = [&] {
      std::ostringstream s;
      s << c.dtype << '[';
      for (int d = 0; d < c.rank; ++d) s << (d ? "," : "") << c.extents[d];
      s << ']';
      return s.str();
    };
    std::string const sh = shape();
    out << "copy #" << c.id << " (" << memory.address(c.src.base) << ' ' << sh << " -> "
        << memory.address(c.dst.base) << ' ' << sh << ", " << c.bytes << " bytes, "
        << semaphore_name_locked(c.semaphore) << ") started at " << c.started.file_name() << ':'
        << c.started.line << " on core " << core;
    return out.str();
  }

  std::string describe(copy_record const& c) const {
    std::lock_guard lock(mutex);
    return describe_locked(c);
  }

  /// The first copy in flight that an access conflicts with: one reading `reads` (may be
  /// null) and writing `writes` (may be null). Returns "" when there is none, else
  /// "<reads|writes> the <destination|source> of <copy description>".
  [[gnu::cold]] std::string conflict(region const* reads, region const* writes, char const* reads_verb = "reads") const {
    std::lock_guard lock(mutex);
    for (auto const& c : copies) {
      if (reads && c.dst.intersects(*reads)) return std::string(reads_verb) + " the destination of " + describe_locked(c);
      if (writes && c.dst.intersects(*writes)) return "writes the destination of " + describe_locked(c);
      if (writes && c.src.intersects(*writes)) return "writes the source of " + describe_locked(c);
    }
    for (auto const& c : incoming_copies) {
      if (reads && c.dst.intersects(*reads)) return std::string(reads_verb) + " the destination of " + c.from;
      if (writes && c.dst.intersects(*writes)) return "writes the destination of " + c.from;
    }
    return {};
  }

  /// The access hook (block reads and writes, element accesses).
  void check(region const& r, access_kind kind, char const* what, place where) override {
    read_feed();
    bool const is_write = kind == access_kind::write;
    std::string const hit = conflict(is_write ? nullptr : &r, is_write ? &r : nullptr,
                                     kind == access_kind::read_or_write ? "reads or writes" : "reads");
    if (hit.empty()) return;
    std::ostringstream out;
    out << "pallas::race: " << (what ? what : "an access") << " of " << r.bytes_spanned() << " bytes at "
        << memory.address(r.lo);
    if (where.known()) out << " (" << where.file_name() << ':' << where.line << ')';
    out << ' ' << hit << ", before that copy's wait";
    fail<race_error>(out.str());
  }

  /// Reads what other ranks described since the hint was last cleared.
  void read_feed() {
    if (feed && remote_hint && std::atomic_ref<std::uint64_t>(*remote_hint).load(std::memory_order_acquire) != 0)
      feed->read_into(*this);
  }

  /// Registers a remote copy into this core (called by its sender).
  void add_incoming(region const& dst, void const* semaphore, std::int64_t bytes, std::string from) {
    std::lock_guard lock(mutex);
    incoming_copies.push_back({dst, semaphore, bytes, std::move(from)});
    incoming.store(static_cast<int>(incoming_copies.size()), std::memory_order_relaxed);
  }

  /// Registers a started copy; returns its id.
  std::uint64_t add_copy(copy_record c) {
    std::lock_guard lock(mutex);
    c.id = next_copy_id++;
    copies.push_back(c);
    in_flight.store(static_cast<int>(copies.size()), std::memory_order_relaxed);
    return c.id;
  }

  copy_record* find_locked(std::uint64_t id) {
    for (auto& c : copies)
      if (c.id == id) return &c;
    return nullptr;
  }

  /// Before copy `id` moves its bytes: its destination must still hold the poison put
  /// there at start (else something wrote it before the wait).
  void before_move(std::uint64_t id, place where) {
    std::lock_guard lock(mutex);
    copy_record* c = find_locked(id);
    if (!c || !c->poisoned_dst) return;
    if (!region_holds(c->dst, c->poison, c->element_bytes)) {
      std::ostringstream out;
      out << "pallas::race: the destination of " << describe_locked(*c)
          << " was written before the copy's wait";
      if (where.known()) out << " (its bytes moved at " << where.file_name() << ':' << where.line << ')';
      fail<race_error>(out.str());
    }
  }

  /// After copy `id` moved its bytes. Inside a wait, the destination's snapshot waits
  /// until the wait ends (no user code runs meanwhile), and is not needed at all when the
  /// wait retires the copy.
  void after_move(std::uint64_t id) {
    std::lock_guard lock(mutex);
    copy_record* c = find_locked(id);
    if (!c) return;
    c->moved = true;
    c->move_order = next_move++;
    if (!in_wait) {
      c->dst_hash = hash_region(c->dst);
      c->has_dst_hash = true;
    }
  }

  /// The end of a wait: snapshot the destinations of the copies that moved during it and
  /// are still in flight.
  void wait_ended() {
    in_wait = false;
    if (in_flight.load(std::memory_order_relaxed) == 0) return;
    std::lock_guard lock(mutex);
    for (auto& c : copies)
      if (c.moved && !c.has_dst_hash) {
        c.dst_hash = hash_region(c.dst);
        c.has_dst_hash = true;
      }
  }

  /// A wait consumed `bytes` of `semaphore`: retire the moved copies whose signals that
  /// covers, in the order they moved, verifying that nothing wrote their source or
  /// destination meanwhile.
  void waited(std::atomic<std::int32_t> const* semaphore, std::int64_t bytes, char const* who, place where) {
    if (feed) feed->read_into(*this);  // the copies this wait covers were described before they signaled
    std::lock_guard lock(mutex);
    // Remote copies into this core that the wait covers arrived, in the order they started
    // (a wait may cover several, or part of one).
    std::int64_t covered = bytes;
    for (auto in = incoming_copies.begin(); in != incoming_copies.end() && covered > 0;) {
      if (in->semaphore != semaphore) {
        ++in;
        continue;
      }
      std::int64_t const used = std::min(covered, in->bytes);
      covered -= used;
      in->bytes -= used;
      in = in->bytes == 0 ? incoming_copies.erase(in) : in + 1;
    }
    incoming.store(static_cast<int>(incoming_copies.size()), std::memory_order_relaxed);
    bool any = false;
    for (auto const& c : copies) any |= c.semaphore == semaphore;
    auto it = std::find_if(credits.begin(), credits.end(), [&](credit const& k) { return k.semaphore == semaphore; });
    if (!any) {
      if (it != credits.end()) credits.erase(it);
      return;
    }
    if (it == credits.end()) {
      credits.push_back({semaphore, 0});
      it = credits.end() - 1;
    }
    it->bytes += bytes;
    for (;;) {
      copy_record* next = nullptr;
      for (auto& c : copies)
        if (c.semaphore == semaphore && c.moved && (!next || c.move_order < next->move_order)) next = &c;
      if (!next || next->bytes > it->bytes) break;
      it->bytes -= next->bytes;
      auto report = [&](char const* part) {
        std::ostringstream out;
        out << "pallas::race: the " << part << " of " << describe_locked(*next) << " was written before its "
            << (who ? who : "wait");
        if (where.known()) out << " at " << where.file_name() << ':' << where.line;
        fail<race_error>(out.str());
      };
      if (next->check_src_hash && hash_region(next->src) != next->src_hash) report("source");
      if (next->has_dst_hash && hash_region(next->dst) != next->dst_hash) report("destination");
      copies.erase(copies.begin() + (next - copies.data()));
      in_flight.store(static_cast<int>(copies.size()), std::memory_order_relaxed);
    }
    bool left = false;
    for (auto const& c : copies) left |= c.semaphore == semaphore;
    if (!left) credits.erase(it);
  }

  /// Copies in flight that touch [lo, hi) (run_scoped's release) or signal a semaphore in it.
  std::string in_flight_within(std::byte const* lo, std::byte const* hi) const {
    std::lock_guard lock(mutex);
    std::string found;
    for (auto const& c : copies) {
      auto const* s = reinterpret_cast<std::byte const*>(c.semaphore);
      if (c.src.intersects(lo, hi) || c.dst.intersects(lo, hi) || (s >= lo && s < hi))
        found += (found.empty() ? "" : "; ") + describe_locked(c);
    }
    return found;
  }

  /// Every copy still in flight, described.
  std::string unwaited() const {
    std::lock_guard lock(mutex);
    std::string found;
    for (auto const& c : copies) {
      found += (found.empty() ? "" : "; ") + describe_locked(c);
      found += c.moved ? " (it moved but no wait consumed its bytes)" : " (its bytes never moved)";
    }
    return found;
  }
};

}  // namespace pallas::detail
