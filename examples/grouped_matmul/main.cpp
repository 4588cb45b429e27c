// Grouped matmul, ported from megablox `gmm`
// (jax/experimental/pallas/ops/tpu/megablox/gmm.py: gmm and make_group_metadata): the rows
// of lhs (m, k) are split into consecutive groups of uneven sizes (some empty), and group g's
// rows are multiplied by rhs[g] (k, n). make_group_metadata's arrays (group_offsets,
// group_ids, m_tile_ids) and group_offset are scalar-prefetched to SMEM
// (PrefetchScalarGridSpec with num_scalar_prefetch): the grid is (tiles_n, num_active_tiles,
// tiles_k), its middle axis of run-time length, one step per (m tile, group) pair, so a tile
// shared by two groups is visited once per group, consecutively. The index maps pick the lhs
// and output m tile (m_tile_ids) and rhs's group (group_ids - group_offset); the f32 VMEM
// accumulator is stored at the last k with a row mask of the group's rows (select between
// the accumulator and the output block already there). Empty groups get no grid steps. f32
// and bf16 (f32 accumulation), compared with a per-row loop in double.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <numeric>
#include <string>
#include <vector>

#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

namespace {

constexpr pl::index_t m = 512, k = 256, n = 256;
using I32 = std::int32_t;
using Ints = pl::Array<I32, pl::dyn>;

// make_group_metadata: group_offsets (num_groups + 1: the cumulative sizes), and for each
// (m tile, group) pair that has rows, in row order, its group id and m tile id.
struct group_metadata {
  Ints group_offsets, group_ids, m_tile_ids;
  pl::index_t num_tiles;
};

group_metadata make_group_metadata(std::vector<I32> const& group_sizes, pl::index_t tm) {
  std::vector<I32> offsets(group_sizes.size() + 1, 0), ids, tiles;
  std::partial_sum(group_sizes.begin(), group_sizes.end(), offsets.begin() + 1);
  for (std::size_t g = 0; g < group_sizes.size(); ++g) {
    if (group_sizes[g] == 0) continue;  // empty groups get no tiles
    for (I32 t = static_cast<I32>(offsets[g] / tm); t <= static_cast<I32>((offsets[g + 1] - 1) / tm); ++t) {
      ids.push_back(static_cast<I32>(g));
      tiles.push_back(t);
    }
  }
  auto const num_tiles = static_cast<pl::index_t>(ids.size());
  return {Ints::from(offsets, static_cast<pl::index_t>(offsets.size())), Ints::from(ids, num_tiles),
          Ints::from(tiles, num_tiles), num_tiles};
}

// gmm's kernel: acc += lhs @ rhs over k; at the last k, store the rows of this step's group.
template <pl::index_t tm, pl::index_t tn>
struct gmm_kernel {
  void operator()(auto group_offsets, auto group_ids, auto m_tile_ids, auto /*group_offset*/, auto lhs, auto rhs,
                  auto out, auto acc_scratch) const {
    using out_t = typename decltype(out)::value_type;
    pl::index_t const grid_id = pl::program_id(1);
    pl::index_t const k_i = pl::program_id(2);
    pl::when(k_i == 0, [&] { acc_scratch[pl::ellipsis] = pl::zeros_like(acc_scratch); });
    acc_scratch[pl::ellipsis] += pl::dot(lhs[pl::ellipsis], rhs[pl::ellipsis], pl::preferred_element_type<float>);
    pl::when(k_i == pl::num_programs(2) - 1, [&] {
      // _get_store_mask: the tile's rows that belong to the step's group.
      I32 const group_id = group_ids[grid_id];
      I32 const group_start = group_offsets[group_id];
      I32 const group_end = group_offsets[group_id + 1];
      I32 const m_id = m_tile_ids[grid_id] * static_cast<I32>(tm);
      auto const rows = pl::iota<I32, pl::shape<tm, tn>>(0) + m_id;
      auto const mask = pl::eval(pl::logical_and(rows >= group_start, rows < group_end));
      out[pl::ellipsis] =
          pl::astype<out_t>(pl::select(mask, acc_scratch[pl::ellipsis], pl::astype<float>(out[pl::ellipsis])));
    });
  }
};

template <pl::index_t tm, pl::index_t tk, pl::index_t tn, class T>
pl::Array<T, m, n> gmm(pl::Array<T, m, k> const& lhs, pl::Array<T, pl::dyn, k, n> const& rhs,
                       std::vector<I32> const& group_sizes) {
  auto const meta = make_group_metadata(group_sizes, tm);
  auto const group_offset = Ints::from(std::vector<I32>{0}, 1);  // the first group this shard holds
  auto const lhs_map = [](auto, auto grid_id, auto k_i, auto, auto, auto m_tile_ids, auto) {
    return pl::idx(m_tile_ids[grid_id], k_i);
  };
  auto const rhs_map = [](auto n_i, auto grid_id, auto k_i, auto, auto group_ids, auto, auto group_offset_ref) {
    return pl::idx(group_ids[grid_id] - group_offset_ref[0], k_i, n_i);
  };
  auto const out_map = [](auto n_i, auto grid_id, auto, auto, auto, auto m_tile_ids, auto) {
    return pl::idx(m_tile_ids[grid_id], n_i);
  };
  return pl::pallas_call(gmm_kernel<tm, tn>{}, pl::out_shape<pl::ShapeDtypeStruct<T, m, n>>,
                         pltpu::num_scalar_prefetch<4>,  // gmm's 2: the metadata tuple (3 arrays) and group_offset
                         pl::grid<n / tn, pl::dyn, k / tk>(meta.num_tiles),
                         pl::in_specs(pl::BlockSpec<tm, tk>(lhs_map), pl::BlockSpec<pl::squeezed, tk, tn>(rhs_map)),
                         pl::out_specs(pl::BlockSpec<tm, tn>(out_map)), pl::scratch_shapes<pltpu::VMEM<float, tm, tn>>,
                         pltpu::compiler_params(
                             pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::ARBITRARY, pltpu::ARBITRARY>))(
      meta.group_offsets, meta.group_ids, meta.m_tile_ids, group_offset, lhs, rhs);
}

// out[r, :] = lhs[r, :] @ rhs[group of r] in double.
template <class T>
std::vector<double> reference(pl::Array<T, m, k> const& lhs, pl::Array<T, pl::dyn, k, n> const& rhs,
                              std::vector<I32> const& group_sizes) {
  auto const value = [](auto const& x, pl::index_t e) { return static_cast<double>(static_cast<float>(x.data()[e])); };
  std::vector<double> out(static_cast<std::size_t>(m * n), 0.0);
  pl::index_t row = 0;
  for (std::size_t g = 0; g < group_sizes.size(); ++g)
    for (I32 r = 0; r < group_sizes[g]; ++r, ++row)
      for (pl::index_t p = 0; p < k; ++p) {
        double const a = value(lhs, row * k + p);
        for (pl::index_t j = 0; j < n; ++j)
          out[static_cast<std::size_t>(row * n + j)] +=
              a * value(rhs, (static_cast<pl::index_t>(g) * k + p) * n + j);
      }
  return out;
}

template <class T>
bool report(std::string const& what, pl::Array<T, m, n> const& o, std::vector<double> const& ref, double rtol,
            double atol) {
  double worst = 0;
  bool ok = true;
  for (pl::index_t e = 0; e < o.size(); ++e) {
    double const r = ref[static_cast<std::size_t>(e)];
    double const err = std::abs(static_cast<double>(static_cast<float>(o.data()[e])) - r);  // NaN fails below
    worst = std::max(worst, err);
    ok &= err <= rtol * std::abs(r) + atol;
  }
  std::cout << what << ": max |out - ref| = " << worst << (ok ? "  ok" : "  WRONG") << '\n';
  return ok;
}

float hashed(pl::index_t a, pl::index_t b, pl::index_t c, std::uint32_t salt) {
  std::uint32_t h = static_cast<std::uint32_t>((a * 1024 + b) * 1024 + c) * 2654435761u ^ salt * 40503u;
  h ^= h >> 15;
  h *= 2246822519u;
  h ^= h >> 13;
  return static_cast<float>(h % 4096) / 2048.0f - 1.0f;
}

template <class T>
bool run(std::string const& dtype, std::vector<I32> const& group_sizes, double rtol, double atol, bool print) {
  auto const num_groups = static_cast<pl::index_t>(group_sizes.size());
  auto const lhs = pl::Array<T, m, k>::generate([](auto i, auto p) { return T(hashed(0, i, p, 1)); });
  auto rhs = pl::Array<T, pl::dyn, k, n>(num_groups);
  for (pl::index_t g = 0; g < num_groups; ++g)
    for (pl::index_t p = 0; p < k; ++p)
      for (pl::index_t j = 0; j < n; ++j) rhs(g, p, j) = T(hashed(g, p, j, 2));
  auto const ref = reference(lhs, rhs, group_sizes);
  std::string sizes;
  for (auto s : group_sizes) sizes += (sizes.empty() ? "" : ", ") + std::to_string(s);
  std::string const what = dtype + ", group sizes {" + sizes + "}";
  auto const out = gmm<128, 128, 128>(lhs, rhs, group_sizes);
  if (print) std::cout << "gmm(lhs, rhs, group_sizes), " << what << ":\n" << out << "\n\n";
  bool ok = report(what + ", tiles (128, 128, 128)", out, ref, rtol, atol);
  ok &= report(what + ", tiles (64, 256, 128)", gmm<64, 256, 128>(lhs, rhs, group_sizes), ref, rtol, atol);
  ok &= report(what + ", tiles (256, 128, 256)", gmm<256, 128, 256>(lhs, rhs, group_sizes), ref, rtol, atol);
  return ok;
}

}  // namespace

int main() {
  bool ok = true;
  // Uneven groups crossing tile boundaries, one inside a tile, empty groups first, in the
  // middle and last; sizes sum to m.
  std::vector<I32> const uneven{0, 100, 0, 200, 37, 175, 0};
  ok &= run<float>("f32", uneven, 1e-5, 1e-4, true);
  ok &= run<float>("f32", {512}, 1e-5, 1e-4, false);                   // one group: a plain matmul
  ok &= run<float>("f32", {1, 1, 126, 129, 255}, 1e-5, 1e-4, false);  // one-row groups
  // bf16 inputs and output, f32 accumulation: the final rounding to bf16 costs 2^-8 relative.
  ok &= run<pl::bfloat16>("bf16", uneven, 1.0 / 128, 1e-2, false);

  std::cout << (ok ? "ok: every variant matches the loop" : "WRONG") << '\n';
  return ok ? 0 : 1;
}
