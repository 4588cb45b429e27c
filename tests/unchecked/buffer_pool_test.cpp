// SPDX-License-Identifier: Apache-2.0
// The Array buffer pool (array.hpp), which is off in checked mode, so the unit tests never
// see it: this program is built without PALLAS_CHECKED. A freed Array of 128 KiB or more is
// handed to the next Array of the same size (the latest freed first), zeroed when asked
// for, never to an Array of another size; a kernel whose output lands in a reused buffer
// gives the right values. Block values (pl::block, pl::eval) of 128 KiB or more share the
// pool, so a kernel body's values reuse one buffer from grid step to grid step, and the
// softmax computed through them matches a loop. Exits 0 and prints "buffer_pool: ok" when
// all of that holds.
#include <pallas/pallas.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

namespace {

int failures = 0;

void expect(bool ok, char const* what) {
  if (ok) return;
  std::printf("buffer_pool: FAILED: %s\n", what);
  ++failures;
}

using big = pl::Array<float, 512, 128>;  // 256 KiB: pooled
using other = pl::Array<float, 513, 128>;
using small = pl::Array<float, 8, 128>;  // 4 KiB: malloc's own

}  // namespace

int main() {
  static_assert(!pl::checked_mode, "build this test without PALLAS_CHECKED: the pool is off in checked mode");
  float const* first = nullptr;
  float const* second = nullptr;
  {
    auto a = big::full(7.0f);
    auto b = big::full(8.0f);
    first = a.data();
    second = b.data();
  }  // a is freed first, then b
  {
    big c;  // zeroed
    expect(c.data() == first || c.data() == second, "a freed 256 KiB buffer is reused for the next Array of its size");
    expect(c.data() == first, "the buffer freed last is reused first");
    bool zero = true;
    for (pl::index_t k = 0; k < c.size(); ++k) zero = zero && c.data()[k] == 0.0f;
    expect(zero, "a zeroed Array over a reused buffer is all zeros");
    other d;
    expect(d.data() != second, "a buffer is not handed to an Array of another size");
  }
  {
    auto s = small::full(1.0f);
    expect(s.data()[0] == 1.0f && s.data()[s.size() - 1] == 1.0f, "small Arrays still work");
  }

  // A kernel launched twice: its second output lands in the first one's storage.
  auto const spec = pl::BlockSpec<64, 128>([](auto i) { return pl::idx(i, 0); });
  auto const add_one = pl::pallas_call([](auto x_ref, auto o_ref) { o_ref[pl::ellipsis] = x_ref[pl::ellipsis] + 1.0f; },
                                       pl::out_shape<pl::ShapeDtypeStruct<float, 512, 128>>, pl::in_specs(spec),
                                       pl::out_specs(spec), pl::grid<8>);
  big x(pl::uninitialized);
  for (pl::index_t k = 0; k < x.size(); ++k) x.data()[k] = static_cast<float>(k % 1000);
  float const* out_storage = nullptr;
  {
    auto o = add_one(x);
    out_storage = o.data();
  }
  auto o2 = add_one(x);
  expect(o2.data() == out_storage, "the second launch's output reuses the first one's buffer");
  bool right = true;
  for (pl::index_t k = 0; k < x.size(); ++k) right = right && o2.data()[k] == static_cast<float>(k % 1000) + 1.0f;
  expect(right, "a kernel's output in a reused buffer holds the kernel's values");

  // Block values: a freed 256 KiB block's storage goes to the next block of that size, with
  // the new block's values; a small block is malloc's own.
  {
    using block_shape = pl::shape<512, 128>;
    // Views of o2's values as a kernel body sees its blocks (VMEM).
    pl::Ref<float const, block_shape, pl::memory_space::vmem> const ref(o2.data(), block_shape{});
    pl::Ref<float const, pl::shape<8, 16>, pl::memory_space::vmem> const small_ref(o2.data(), pl::shape<8, 16>{});
    float const* first_block = nullptr;
    {
      auto const b = pl::eval(ref[pl::ellipsis] * 2.0f);
      first_block = b.data();
    }
    auto const b2 = pl::eval(ref[pl::ellipsis] + 3.0f);
    expect(b2.data() == first_block, "a freed 256 KiB block value's storage is reused for the next one");
    bool values = true;
    for (pl::index_t k = 0; k < b2.size(); ++k) values = values && b2.data()[k] == o2.data()[k] + 3.0f;
    expect(values, "a block value in reused storage holds its own values");
    pl::block<float, block_shape> zeros;
    bool zero = true;
    for (pl::index_t k = 0; k < zeros.size(); ++k) zero = zero && zeros.data()[k] == 0.0f;
    expect(zero, "a default block over pooled storage is all zeros");
    auto const tiny = pl::eval(small_ref[pl::ellipsis] + 1.0f);
    expect(tiny.data()[0] == o2.data()[0] + 1.0f && tiny.data()[127] == o2.data()[127] + 1.0f,
           "small block values still work");
  }

  // A softmax kernel whose body makes two (64, 1024) f32 values (256 KiB each) per grid step:
  // the values reuse pooled storage across steps and cores, and the rows match a loop.
  constexpr pl::index_t sm_rows = 256, sm_cols = 1024;
  auto const sm_spec = pl::BlockSpec<64, sm_cols>([](auto i) { return pl::idx(i, 0); });
  auto const softmax = pl::pallas_call(
      [](auto x_ref, auto o_ref) {
        auto const v = pl::load(x_ref);
        auto const e = pl::eval(pl::exp(v - pl::max(v, pl::axis<1>, pl::keepdims)));
        o_ref[pl::ellipsis] = e / pl::sum(e, pl::axis<1>, pl::keepdims);
      },
      pl::out_shape<pl::ShapeDtypeStruct<float, sm_rows, sm_cols>>, pl::grid<sm_rows / 64>, pl::in_specs(sm_spec),
      pl::out_specs(sm_spec), pltpu::compiler_params(pltpu::dimension_semantics<pltpu::PARALLEL>));
  auto const sx = pl::Array<float, sm_rows, sm_cols>::generate(
      [](auto i, auto j) { return static_cast<float>((i * 37 + j * 11) % 97) / 16.0f - 3.0f; });
  for (int launch = 0; launch < 2; ++launch) {
    auto const so = softmax(sx);
    double worst = 0;
    for (pl::index_t i = 0; i < sm_rows; ++i) {
      double m = -INFINITY, sum = 0;
      for (pl::index_t j = 0; j < sm_cols; ++j) m = std::max(m, static_cast<double>(sx(i, j)));
      for (pl::index_t j = 0; j < sm_cols; ++j) sum += std::exp(static_cast<double>(sx(i, j)) - m);
      for (pl::index_t j = 0; j < sm_cols; ++j)
        worst = std::max(worst, std::abs(so(i, j) - std::exp(static_cast<double>(sx(i, j)) - m) / sum));
    }
    expect(worst < 1e-6, "a softmax whose block values live in pooled storage matches the loop");
  }

  if (failures != 0) return EXIT_FAILURE;
  std::printf("buffer_pool: ok\n");
  return EXIT_SUCCESS;
}
