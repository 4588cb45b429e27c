#pragma once
// Element copies between strided refs: the data movement behind every DMA. Rows whose
// last dimension is contiguous on both sides move with memcpy; contiguous refs move in one.

#include <array>
#include <cstddef>
#include <cstring>
#include <type_traits>

#include <pallas/ref.hpp>
#include <pallas/shape.hpp>

namespace pallas::detail {

/// Copies every element of src into dst; the shapes must already agree.
template <AnyRef Src, AnyRef Dst>
void copy_elements(Src const& src, Dst const& dst) {
  using T = typename Src::value_type;
  constexpr std::size_t rank = Src::rank();
  if (src.size() == 0) return;
  if constexpr (rank == 0) {
    *dst.data() = *src.data();
  } else {
    if (src.is_contiguous() && dst.is_contiguous()) {
      std::memcpy(dst.data(), src.data(), static_cast<std::size_t>(src.size()) * sizeof(T));
      return;
    }
    index_t const row = src.extent(rank - 1);
    bool const rows_contiguous = src.stride(rank - 1) == 1 && dst.stride(rank - 1) == 1;
    std::array<index_t, rank> ix{};
    index_t const rows = src.size() / row;
    for (index_t r = 0; r < rows; ++r) {
      index_t so = 0, doff = 0;
      for (std::size_t d = 0; d + 1 < rank; ++d) {
        so += ix[d] * src.stride(d);
        doff += ix[d] * dst.stride(d);
      }
      T const* s = src.data() + so;
      T* o = dst.data() + doff;
      if (rows_contiguous) {
        std::memcpy(o, s, static_cast<std::size_t>(row) * sizeof(T));
      } else {
        index_t const ss = src.stride(rank - 1), ds = dst.stride(rank - 1);
        for (index_t k = 0; k < row; ++k) o[k * ds] = s[k * ss];
      }
      for (std::size_t d = rank - 1; d-- > 0;) {  // next row, last index fastest
        if (++ix[d] < src.extent(d)) break;
        ix[d] = 0;
      }
    }
  }
}

}  // namespace pallas::detail
