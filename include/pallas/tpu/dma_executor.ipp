// SPDX-License-Identifier: Apache-2.0
#pragma once
// The process-wide DMA executor, compiled once per program under separate compilation
// (config.hpp) and inline in every translation unit otherwise.

#include <pallas/tpu/dma_executor.hpp>

#include <cstdlib>
#include <mutex>
#include <string_view>

#include <pallas/detail/runtime/fork_guard.hpp>
#include <pallas/error.hpp>

namespace pallas::detail {

PALLAS_DECL tpu::dma_executor executor_from(char const* name) {
  if (!name || !*name) return tpu::dma_executor::automatic;
  std::string_view const n(name);
  if (n == "auto") return tpu::dma_executor::automatic;
  if (n == "inline") return tpu::dma_executor::on_core;
  if (n == "thread") return tpu::dma_executor::dma_thread;
  fail("pallas::dma_executor: PALLAS_DMA_ENGINE='", n, "' is not one of inline, thread, auto");
}

struct executor_holder {
  std::mutex mutex;
  tpu::dma_executor value = executor_from(std::getenv("PALLAS_DMA_ENGINE"));
};

PALLAS_DECL std::mutex& executor_mutex();

PALLAS_DECL executor_holder& executor_storage() {
  static executor_holder* const holder = [] {
    auto* h = new executor_holder;  // never destroyed: launches may run at exit
    hold_across_fork<&executor_mutex>();
    return h;
  }();
  return *holder;
}

PALLAS_DECL std::mutex& executor_mutex() { return executor_storage().mutex; }

PALLAS_DECL dma_executor_choice launch_dma_executor() {
  switch (tpu::get_dma_executor()) {
    case tpu::dma_executor::on_core: return dma_executor_choice::on_core;
    case tpu::dma_executor::dma_thread: return dma_executor_choice::thread;
    default: return dma_executor_choice::automatic;
  }
}

}  // namespace pallas::detail

namespace pallas::tpu {

PALLAS_DECL dma_executor get_dma_executor() {
  auto& h = detail::executor_storage();
  std::lock_guard lock(h.mutex);
  return h.value;
}

PALLAS_DECL void set_dma_executor(dma_executor e) {
  auto& h = detail::executor_storage();
  std::lock_guard lock(h.mutex);
  h.value = e;
}

}  // namespace pallas::tpu
