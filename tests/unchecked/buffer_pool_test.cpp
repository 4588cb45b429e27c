// SPDX-License-Identifier: Apache-2.0
// The Array buffer pool (array.hpp), which is off in checked mode, so the unit tests never
// see it: this program is built without PALLAS_CHECKED. A freed Array of 128 KiB or more is
// handed to the next Array of the same size (the latest freed first), zeroed when asked
// for, never to an Array of another size; a kernel whose output lands in a reused buffer
// gives the right values. Exits 0 and prints "buffer_pool: ok" when all of that holds.
#include <pallas/pallas.hpp>

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

  if (failures != 0) return EXIT_FAILURE;
  std::printf("buffer_pool: ok\n");
  return EXIT_SUCCESS;
}
