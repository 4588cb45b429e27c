// SPDX-License-Identifier: Apache-2.0
#pragma once
// The DMA engine's copies shared with the device's DMA thread (the thread executor,
// dma_engine.hpp): a started copy is published in chunks, which the DMA thread (serve) and
// the waiting core (help, quiesce) claim; the mover of the last chunk signals. The
// operations are declared by dma_engine and defined in dma_shared_copies.ipp.

#include <pallas/config.hpp>
#include <pallas/detail/runtime/dma_engine.hpp>

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/detail/runtime/dma_shared_copies.ipp>
#endif
