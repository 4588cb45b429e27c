// SPDX-License-Identifier: Apache-2.0
#pragma once
// The process-wide DMA schedule, compiled once per program under separate compilation
// (config.hpp) and inline in every translation unit otherwise.

#include <pallas/tpu/dma_schedule.hpp>

#include <cstdlib>
#include <mutex>
#include <string_view>

#include <pallas/detail/runtime/fork_guard.hpp>
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

struct schedule_holder {
  std::mutex mutex;
  tpu::dma_schedule value = schedule_from(std::getenv("PALLAS_DMA_ORDER"), std::getenv("PALLAS_DMA_SEED"));
};

PALLAS_DECL std::mutex& schedule_mutex();

PALLAS_DECL schedule_holder& schedule_storage() {
  static schedule_holder* const holder = [] {
    auto* h = new schedule_holder;  // never destroyed: launches may run at exit
    hold_across_fork<&schedule_mutex>();
    return h;
  }();
  return *holder;
}

PALLAS_DECL std::mutex& schedule_mutex() { return schedule_storage().mutex; }

PALLAS_DECL dma_order_policy launch_dma_policy() {
  tpu::dma_schedule const s = tpu::get_dma_schedule();
  dma_order const order = s.mode == tpu::dma_execution_mode::eager    ? dma_order::eager
                          : s.mode == tpu::dma_execution_mode::random ? dma_order::random
                                                                      : dma_order::on_wait;
  return {order, s.seed, s.yield_cores};
}

}  // namespace pallas::detail

namespace pallas::tpu {

PALLAS_DECL dma_schedule get_dma_schedule() {
  auto& h = detail::schedule_storage();
  std::lock_guard lock(h.mutex);
  return h.value;
}

PALLAS_DECL void set_dma_schedule(dma_schedule s) {
  auto& h = detail::schedule_storage();
  std::lock_guard lock(h.mutex);
  h.value = s;
}

}  // namespace pallas::tpu
