// SPDX-License-Identifier: Apache-2.0
#pragma once
// The process-wide DMA schedule, compiled once per program under separate compilation
// (config.hpp) and inline in every translation unit otherwise.

#include <pallas/tpu/dma_schedule.hpp>

#include <cstdlib>
#include <string_view>

#include <pallas/detail/runtime/process_setting.hpp>
#include <pallas/error.hpp>

namespace pallas::detail {

PALLAS_DECL tpu::dma_schedule schedule_from(char const* order, char const* seed) {
  tpu::dma_schedule s;
  if (seed && *seed) {
    char* end = nullptr;
    s.seed = std::strtoull(seed, &end, 0);
    if (!end || *end != '\0')
      fail("pallas::dma_schedule: PALLAS_DMA_SEED='", seed, "' is not an unsigned integer");
    s.mode = tpu::dma_execution_mode::random;
  }
  if (order && *order) {
    std::string_view const o(order);
    if (o == "on_wait")
      s.mode = tpu::dma_execution_mode::on_wait;
    else if (o == "eager")
      s.mode = tpu::dma_execution_mode::eager;
    else if (o == "random")
      s.mode = tpu::dma_execution_mode::random;
    else
      fail("pallas::dma_schedule: PALLAS_DMA_ORDER='", o, "' is not one of on_wait, eager, random");
  }
  return s;
}

// The schedule the environment asks for (PALLAS_DMA_ORDER, PALLAS_DMA_SEED).
inline tpu::dma_schedule schedule_from_environment() {
  return schedule_from(std::getenv("PALLAS_DMA_ORDER"), std::getenv("PALLAS_DMA_SEED"));
}

using schedule_setting = process_setting<&schedule_from_environment>;

PALLAS_DECL dma_order_policy launch_dma_policy() {
  tpu::dma_schedule const s = tpu::get_dma_schedule();
  dma_order const order = s.mode == tpu::dma_execution_mode::eager    ? dma_order::eager
                          : s.mode == tpu::dma_execution_mode::random ? dma_order::random
                                                                      : dma_order::on_wait;
  return {order, s.seed, s.yield_cores};
}

}  // namespace pallas::detail

namespace pallas::tpu {

PALLAS_DECL dma_schedule get_dma_schedule() { return detail::schedule_setting::get(); }

PALLAS_DECL void set_dma_schedule(dma_schedule s) { detail::schedule_setting::set(s); }

}  // namespace pallas::tpu
