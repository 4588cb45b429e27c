// SPDX-License-Identifier: Apache-2.0
#pragma once
// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11): a
// counter-based generator. Block n of a stream is philox(counter n, key), so a stream is
// reproducible from its key alone and any block can be computed without the ones before.
// The PRNG of pltpu (tpu/prng.hpp) is built on it.

#include <array>
#include <cstdint>

namespace pallas::detail {

using philox_block = std::array<std::uint32_t, 4>;
using philox_key = std::array<std::uint32_t, 2>;

/// Ten rounds of Philox4x32 on `ctr` with `key`.
constexpr philox_block philox4x32_10(philox_block ctr, philox_key key) noexcept {
  constexpr std::uint32_t m0 = 0xD2511F53u, m1 = 0xCD9E8D57u;  // round multipliers
  constexpr std::uint32_t w0 = 0x9E3779B9u, w1 = 0xBB67AE85u;  // key schedule (Weyl)
  for (int round = 0; round < 10; ++round) {
    std::uint64_t const p0 = std::uint64_t{m0} * ctr[0];
    std::uint64_t const p1 = std::uint64_t{m1} * ctr[2];
    ctr = {static_cast<std::uint32_t>(p1 >> 32) ^ ctr[1] ^ key[0], static_cast<std::uint32_t>(p1),
           static_cast<std::uint32_t>(p0 >> 32) ^ ctr[3] ^ key[1], static_cast<std::uint32_t>(p0)};
    key = {key[0] + w0, key[1] + w1};
  }
  return ctr;
}

}  // namespace pallas::detail
