// The one Catch2 main of pallas_unit_tests, compiled once.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
