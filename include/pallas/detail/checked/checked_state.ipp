// SPDX-License-Identifier: Apache-2.0
#pragma once
// checked_state's definitions, compiled once per program under separate compilation.

#include <pallas/detail/checked/checked_state.hpp>

#include <algorithm>
#include <sstream>

#include <pallas/detail/checked/region_snapshot.hpp>
#include <pallas/error.hpp>

namespace pallas::detail {

PALLAS_DECL void checked_state::reset(int core_index, memory_map const& mem, std::byte const* sem_base, std::int64_t sem_bytes) {
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

PALLAS_DECL void checked_state::attach_races(race_detector* detector, bool several_chips) {
  races = detector;
  track_shared = detector != nullptr;
  if (!detector) return;
  detector->name_memory(core, memory);
  if (several_chips)
    for (int m = 0; m < 2; ++m) local_lo[m] = local_hi[m] = nullptr;
}

PALLAS_DECL void checked_state::note_shared(region const& r, access_kind kind, char const* what, place where) {
  if (races) races->access(core, r, kind == access_kind::write, {what ? what : "an access", where});
}

PALLAS_DECL void checked_state::race_copy(region const& src, region const& dst, void const* semaphore, char const* what, place where) {
  if (!races) return;
  if (!src.empty() && is_shared(src.lo)) races->access(core, src, false, {what, where});
  if (!dst.empty() && is_shared(dst.lo)) races->access(core, dst, true, {what, where});
  if (semaphore) races->release(core, semaphore);
}

PALLAS_DECL void checked_state::add_semaphores(std::int64_t offset, std::int64_t count, std::int64_t element_bytes, char const* kind) {
  std::lock_guard lock(mutex);
  std::int64_t const first = semaphores.empty() ? 0 : semaphores.back().first_id + semaphores.back().count;
  semaphores.push_back({offset, count, first, element_bytes, kind, allocation_origin});
}

PALLAS_DECL void checked_state::drop_semaphores_from(std::int64_t offset) {
  std::lock_guard lock(mutex);
  while (!semaphores.empty() && semaphores.back().offset >= offset) semaphores.pop_back();
}

PALLAS_DECL std::string checked_state::semaphore_name_locked(void const* cell) const {
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

PALLAS_DECL std::string checked_state::semaphore_name(void const* cell) const {
  std::lock_guard lock(mutex);
  return semaphore_name_locked(cell);
}

PALLAS_DECL std::string checked_state::describe_locked(copy_record const& c) const {
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

PALLAS_DECL std::string checked_state::describe(copy_record const& c) const {
  std::lock_guard lock(mutex);
  return describe_locked(c);
}

PALLAS_DECL std::string checked_state::conflict(region const* reads, region const* writes, char const* reads_verb) const {
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

PALLAS_DECL void checked_state::check(region const& r, access_kind kind, char const* what, place where) {
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

PALLAS_DECL void checked_state::add_incoming(region const& dst, void const* semaphore, std::int64_t bytes, std::string from) {
  std::lock_guard lock(mutex);
  incoming_copies.push_back({dst, semaphore, bytes, std::move(from)});
  incoming.store(static_cast<int>(incoming_copies.size()), std::memory_order_relaxed);
}

PALLAS_DECL std::uint64_t checked_state::add_copy(copy_record c) {
  std::lock_guard lock(mutex);
  c.id = next_copy_id++;
  copies.push_back(c);
  in_flight.store(static_cast<int>(copies.size()), std::memory_order_relaxed);
  return c.id;
}

PALLAS_DECL void checked_state::before_move(std::uint64_t id, place where) {
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

PALLAS_DECL void checked_state::after_move(std::uint64_t id) {
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

PALLAS_DECL void checked_state::wait_ended() {
  in_wait = false;
  if (in_flight.load(std::memory_order_relaxed) == 0) return;
  std::lock_guard lock(mutex);
  for (auto& c : copies)
    if (c.moved && !c.has_dst_hash) {
      c.dst_hash = hash_region(c.dst);
      c.has_dst_hash = true;
    }
}

PALLAS_DECL void checked_state::waited(std::atomic<std::int32_t> const* semaphore, std::int64_t bytes, char const* who, place where) {
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

PALLAS_DECL std::string checked_state::in_flight_within(std::byte const* lo, std::byte const* hi) const {
  std::lock_guard lock(mutex);
  std::string found;
  for (auto const& c : copies) {
    auto const* s = reinterpret_cast<std::byte const*>(c.semaphore);
    if (c.src.intersects(lo, hi) || c.dst.intersects(lo, hi) || (s >= lo && s < hi))
      found += (found.empty() ? "" : "; ") + describe_locked(c);
  }
  return found;
}

PALLAS_DECL std::string checked_state::unwaited() const {
  std::lock_guard lock(mutex);
  std::string found;
  for (auto const& c : copies) {
    found += (found.empty() ? "" : "; ") + describe_locked(c);
    found += c.moved ? " (it moved but no wait consumed its bytes)" : " (its bytes never moved)";
  }
  return found;
}

}  // namespace pallas::detail
