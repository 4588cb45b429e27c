// SPDX-License-Identifier: Apache-2.0
#pragma once
// The process-wide DMA executor, compiled once per program under separate compilation
// (config.hpp) and inline in every translation unit otherwise.

#include <pallas/tpu/dma_executor.hpp>

#include <cstdlib>
#include <string_view>

#include <pallas/detail/runtime/process_setting.hpp>
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

// The executor the environment asks for (PALLAS_DMA_ENGINE).
inline tpu::dma_executor executor_from_environment() { return executor_from(std::getenv("PALLAS_DMA_ENGINE")); }

using executor_setting = process_setting<&executor_from_environment>;

PALLAS_DECL dma_executor_choice launch_dma_executor() {
  switch (tpu::get_dma_executor()) {
    case tpu::dma_executor::on_core: return dma_executor_choice::on_core;
    case tpu::dma_executor::dma_thread: return dma_executor_choice::thread;
    default: return dma_executor_choice::automatic;
  }
}

}  // namespace pallas::detail

namespace pallas::tpu {

PALLAS_DECL dma_executor get_dma_executor() { return detail::executor_setting::get(); }

PALLAS_DECL void set_dma_executor(dma_executor e) { detail::executor_setting::set(e); }

}  // namespace pallas::tpu
