// expect-error: pallas::Ref: SMEM refs take scalar loads and stores only
// Reading an SMEM scratch buffer as a block, `s[...]`: SMEM takes scalar loads and stores
// only. The positive twin reads and writes it element by element.
#include <pallas/pallas.hpp>

#include <cstdint>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

int main() {
  auto k = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<std::int32_t, 8>>,
                      pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                      pl::scratch_types<pltpu::SMEM<std::int32_t, 8>>)([](auto o_hbm, auto s) {
#ifdef PALLAS_COMPILE_FAIL
    (void)s[pl::ellipsis];
#else
    for (pl::index_t k = 0; k < 8; ++k) s[k] = static_cast<std::int32_t>(k);
#endif
    pltpu::sync_copy(s, o_hbm);
  });
  auto const y = k();
  return y(7) == 7 ? 0 : 1;
}
