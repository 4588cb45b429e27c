// SPDX-License-Identifier: Apache-2.0
#pragma once
// The cost report's counters (tpu/cost_report.hpp): per core, plain integers that only the
// core's own thread writes, merged by the launching thread after every core finished.
// Nothing here is atomic: each core finds its counters through a thread-local pointer
// set for the extent of its job, so the hooks on the hot paths (a copy started, a product
// computed) are a thread-local load, a null test and an add.
//
// What is counted, where the work is issued (so every DMA order and executor counts the
// same, whoever moves the bytes):
//   pipeline fetches / write-backs   per operand (pipeline, in_specs[k] / out_specs[k]),
//                                    the bytes of the block inside the array
//   sync_copy / make_async_copy      per (kind, source space, destination space)
//   scalar-prefetch arguments        all in one row, HBM -> SMEM, on every core
//   pl::dot / pl::dot_general        2 * batch * M * N * K, split by operand width

#include <cstdint>

#include <pallas/memory_space.hpp>

namespace pallas::detail {

/// What moved the bytes of one row of the report.
enum class traffic_kind : std::uint8_t { pipeline, scalar_prefetch, sync_copy, async_copy, other };

/// One row's identity: a pipeline operand (pipeline tag, output flag, position), the
/// scalar-prefetch arguments, or hand copies of one kind in one direction.
struct traffic_key {
  traffic_kind kind = traffic_kind::other;
  void const* pipeline = nullptr;  ///< the pipeline's type tag (pipeline_tag<E>)
  bool output = false;
  int position = 0;
  memory_space src = memory_space::hbm;
  memory_space dst = memory_space::hbm;

  constexpr bool operator==(traffic_key const&) const = default;
};

/// Bytes and copies of one row. Trivial on purpose: a core's rows are not zeroed at launch,
/// only the rows it uses are written.
struct traffic_row {
  traffic_key key;
  std::int64_t bytes;
  std::int64_t copies;

  void add(std::int64_t n) noexcept {
    bytes += n;
    ++copies;
  }
};

/// The counters of one core in one launch (a cache line of its own, against false sharing).
struct alignas(64) core_costs {
  /// Rows a core keeps; further distinct rows are added into the last one (kind `other`).
  static constexpr int max_rows = 24;

  int used = 0;
  std::int64_t narrow_flops = 0;  ///< products of 8/16-bit operands (the MXU's bf16 rate)
  std::int64_t wide_flops = 0;    ///< products with a 32-bit operand (see cost_report.hpp)
  std::int64_t dots = 0;
  traffic_row rows[max_rows];

  /// The row of `key`, created on first use.
  traffic_row& row(traffic_key const& key) noexcept {
    for (int r = 0; r < used; ++r)
      if (rows[r].key == key) return rows[r];
    if (used == max_rows) {
      rows[max_rows - 1].key = traffic_key{};  // overflow: one row for the rest
      return rows[max_rows - 1];
    }
    rows[used] = traffic_row{key, 0, 0};
    return rows[used++];
  }
};

/// The counters of the core the calling thread runs, or nullptr (outside launches).
inline thread_local core_costs* current_costs = nullptr;

/// Points the calling core's hooks at `costs` for its lifetime.
class costs_scope {
 public:
  explicit costs_scope(core_costs& costs) noexcept : previous_(current_costs) { current_costs = &costs; }
  ~costs_scope() { current_costs = previous_; }
  costs_scope(costs_scope const&) = delete;
  costs_scope& operator=(costs_scope const&) = delete;

 private:
  core_costs* previous_;
};

/// A tag whose address names pipeline E in the report (one row per operand of E, however
/// often E runs).
template <class E>
inline constexpr char pipeline_tag = 0;

/// The row a pipeline operand counts into, or nullptr outside launches.
inline traffic_row* pipeline_traffic_row(void const* pipeline, bool output, int position, memory_space local) noexcept {
  core_costs* const c = current_costs;
  if (!c) return nullptr;
  traffic_key key{traffic_kind::pipeline, pipeline, output, position, memory_space::hbm, memory_space::hbm};
  (output ? key.src : key.dst) = local;
  return &c->row(key);
}

/// A copy started by hand (sync_copy, make_async_copy(...).start()) or a scalar-prefetch
/// argument, of `bytes` bytes from space `src` to `dst`.
inline void count_copy(traffic_kind kind, memory_space src, memory_space dst, std::int64_t bytes,
                       int position = 0) noexcept {
  if (core_costs* const c = current_costs) c->row(traffic_key{kind, nullptr, false, position, src, dst}).add(bytes);
}

/// One product of `flops` floating-point (or integer) operations; `wide` when an operand
/// has 32-bit elements.
inline void count_dot(std::int64_t flops, bool wide) noexcept {
  if (core_costs* const c = current_costs) {
    (wide ? c->wide_flops : c->narrow_flops) += flops;
    ++c->dots;
  }
}

}  // namespace pallas::detail
