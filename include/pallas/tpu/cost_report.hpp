// SPDX-License-Identifier: Apache-2.0
#pragma once
// What a launch would cost on a TPU: `pltpu::last_launch_report()` describes the calling
// thread's last completed launch (pl::kernel or pl::pallas_call):
//
//   auto out = matmul(x, y);
//   std::cout << pltpu::last_launch_report();
//
// It lists, per operand, the bytes moved between HBM and VMEM/SMEM (pipeline operands by
// spec, `in_specs[0]`, `out_specs[0]`; copies by hand by kind and direction; the
// scalar-prefetch arguments, which every core copies to its SMEM), the FLOPs of every pl::dot / pl::dot_general (2 * batch * M * N * K each),
// and from the chip's facts (pltpu::get_tpu_info(): mem_bw_bytes_per_second,
// bf16_ops_per_second, both per TensorCore) the time the launch would take on that TPU:
// per core max(HBM bytes / bandwidth, FLOPs / MXU rate), the slowest core's being the
// launch's, with its bound (HBM or MXU) and the arithmetic intensity (FLOPs / HBM byte).
//
// Counting rules:
// - Bytes are counted where a copy is issued, so every DMA order and executor gives the
//   same counts. A pipeline input is fetched only when its block index changes, an output
//   written back once per visit; a ragged edge block moves only its part inside the array.
// - HBM traffic: a copy with HBM (or ANY) on one side counts its bytes once, HBM to HBM
//   twice (read and write), VMEM/SMEM to VMEM/SMEM not at all (listed, not counted).
// - The MXU rate: products of 8- and 16-bit operands at bf16_ops_per_second; products with
//   a 32-bit operand at a sixth of it. pl::dot computes f32 operands at HIGHEST precision
//   (dot.hpp: not rounded to bf16), which a TPU's MXU performs as six bf16 passes
//   (each f32 split into three bf16 parts); integer products are counted like floats of
//   their width (v5e and later run int8 faster: the estimate is then an upper bound).
// - Element-wise work (VPU, EUP) is not counted: the estimate is a roofline of HBM and MXU.
//
// A pl::CostEstimate passed to pallas_call is kept in the report beside the measured
// counts (measured / estimated ratios of flops and bytes_accessed).

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <pallas/config.hpp>
#include <pallas/cost_estimate.hpp>
#include <pallas/detail/runtime/cost_counters.hpp>
#include <pallas/memory_space.hpp>
#include <pallas/tpu/chip.hpp>

namespace pallas::tpu {

/// How much slower than bf16 the MXU multiplies 32-bit operands (HIGHEST precision: six
/// bf16 passes).
inline constexpr double f32_mxu_passes = 6.0;

/// What limits a launch's estimated time.
enum class Bound { none, hbm, mxu };

/// "HBM-bound", "MXU-bound", or why neither.
constexpr std::string_view name(Bound b) noexcept {
  switch (b) {
    case Bound::none: return "nothing (no traffic, no products)";
    case Bound::hbm: return "HBM-bound";
    case Bound::mxu: return "MXU-bound";
  }
  return "?";
}

/// One row of a report: a pipeline operand, a scalar-prefetch argument, or copies by hand
/// of one kind in one direction.
struct OperandTraffic {
  std::string name;  ///< `in_specs[0]`, `pipeline 2 out_specs[1]`, `sync_copy`, `scalar_prefetch`, ...
  memory_space src = memory_space::hbm;  ///< where the bytes came from
  memory_space dst = memory_space::hbm;  ///< where they went
  std::int64_t copies = 0;  ///< copies made
  std::int64_t bytes = 0;      ///< bytes copied
  std::int64_t hbm_bytes = 0;  ///< of which HBM traffic (x2 for HBM to HBM, 0 for local copies)
};

/// The cost of one launch (see the header comment for the rules).
struct LaunchReport {
  bool valid = false;                 ///< false before the thread's first launch
  std::string_view launcher;          ///< "pl::kernel" or "pl::pallas_call"
  int num_cores = 0;  ///< cores of the launch
  TpuInfo chip = get_tpu_info();  ///< the chip whose facts the estimate uses
  std::vector<OperandTraffic> operands;  ///< one row per operand or kind of copy
  std::int64_t hbm_bytes = 0;         ///< total HBM traffic
  std::int64_t dots = 0;              ///< products computed
  std::int64_t flops = 0;             ///< their FLOPs
  std::int64_t f32_flops = 0;         ///< of which with a 32-bit operand
  double f32_ops_per_second = 0;      ///< the MXU rate used for those (bf16 rate / 6)
  double estimated_seconds = 0;       ///< the slowest core's max(memory, compute)
  double memory_seconds = 0;          ///< that core's HBM bytes / mem_bw_bytes_per_second
  double compute_seconds = 0;         ///< that core's FLOPs / MXU rate
  int slowest_core = 0;  ///< the core with the largest estimate
  Bound bound = Bound::none;  ///< what limits the estimate
  double arithmetic_intensity = 0;    ///< flops / hbm_bytes (0 without traffic)
  std::optional<CostEstimate> estimate;  ///< the pl::CostEstimate given to pallas_call

  /// measured / estimated, or nullopt without an estimate (or an estimate of 0).
  std::optional<double> flops_ratio() const { return ratio(flops, estimate ? estimate->flops : 0); }
  /// measured / estimated HBM bytes, or nullopt.
  std::optional<double> bytes_ratio() const { return ratio(hbm_bytes, estimate ? estimate->bytes_accessed : 0); }

  /// The row named `row_name`, or nullptr.
  OperandTraffic const* operand(std::string_view row_name) const;

 private:
  static std::optional<double> ratio(std::int64_t measured, std::int64_t estimated) {
    if (estimated == 0) return std::nullopt;
    return static_cast<double>(measured) / static_cast<double>(estimated);
  }
};

}  // namespace pallas::tpu

namespace pallas::detail {

/// The calling thread's last launch, as counted (names are made when the report is read,
/// so that a launch pays no allocation once the vectors have grown).
struct raw_report {
  bool valid = false;
  char const* launcher = "";
  int num_cores = 0;
  tpu::TpuInfo chip = tpu::get_tpu_info();
  std::vector<traffic_row> rows;
  std::vector<std::int64_t> core_hbm, core_narrow, core_wide;
  std::int64_t dots = 0;
  std::optional<CostEstimate> estimate;
};

// Not a thread_local raw_report: the main thread's thread_locals are destroyed at exit()
// before atexit handlers and global destructors run, and those may still launch kernels
// (tests/lifetime). The report lives on the heap instead; a thread's owner frees it when the
// thread ends, and a launch after that makes a new one, reachable from the thread's pointer
// until the process is gone.
inline raw_report*& raw_report_slot() noexcept {
  thread_local raw_report* report = nullptr;
  return report;
}

struct raw_report_owner {
  raw_report_owner() = default;
  raw_report_owner(raw_report_owner const&) = delete;
  raw_report_owner& operator=(raw_report_owner const&) = delete;
  ~raw_report_owner();
};

raw_report& last_raw_report();

/// The HBM traffic of `bytes` copied from `src` to `dst`.
constexpr std::int64_t hbm_traffic(memory_space src, memory_space dst, std::int64_t bytes) noexcept {
  return bytes * ((is_dma_only(src) ? 1 : 0) + (is_dma_only(dst) ? 1 : 0));
}

std::string seconds_string(double s);

}  // namespace pallas::detail

namespace pallas::tpu {

/// The calling thread's last completed launch (valid == false before its first).
[[gnu::cold]] LaunchReport last_launch_report();

/// The report as text: a table of the operands, the totals, the estimate, and the
/// comparison with a pl::CostEstimate.
[[gnu::cold]] std::ostream& operator<<(std::ostream& out, LaunchReport const& r);

/// The report as operator<< prints it.
std::string to_string(LaunchReport const& r);

}  // namespace pallas::tpu

namespace pallas::detail {

/// Merges the counters of a launch's `num_cores` cores into the launching thread's report
/// (and the trace, when tracing).
PALLAS_DECL void publish_launch_costs(core_costs const* cores, int num_cores, char const* launcher,
                                      tpu::TpuInfo const& chip, std::optional<CostEstimate> const& estimate);

/// The counters of one launch on Cores cores: each core's job holds a `scope(core)` for its
/// extent; `publish` merges them into the launching thread's report once every core is done.
template <int Cores>
struct launch_costs {
  core_costs cores[Cores];

  costs_scope scope(int core) noexcept { return costs_scope(cores[core]); }

  void publish(char const* launcher, tpu::TpuInfo const& chip, std::optional<CostEstimate> const& estimate = {}) {
    publish_launch_costs(cores, Cores, launcher, chip, estimate);
  }
};

}  // namespace pallas::detail

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/tpu/cost_report.ipp>
#endif
