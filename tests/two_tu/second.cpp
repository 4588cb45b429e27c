// The second translation unit of pallas_two_tu_test (see first.cpp).
#include <pallas/pallas.hpp>

namespace pl = pallas;

pl::index_t size_from_second_tu() { return pl::shape<3, pl::dyn>(4).size(); }
