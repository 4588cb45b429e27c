# cmake -P script behind the lifetime.* tests: runs a helper program that ends the process
# in some way, and passes only if it exited with status 0 within TIMEOUT seconds and its
# output matches EXPECT. (ctest's PASS_REGULAR_EXPRESSION would ignore the exit status,
# which is how LeakSanitizer and a killed child report.)
#   -DPROGRAM=<path>  -DARGS=<a|b|...>  -DEXPECT=<regex>  -DTIMEOUT=<seconds>
#   [-DEXPECT_STDERR=<regex>]
cmake_minimum_required(VERSION 3.21)
foreach(_var PROGRAM EXPECT TIMEOUT)
  if(NOT DEFINED ${_var} OR "${${_var}}" STREQUAL "")
    message(FATAL_ERROR "run_helper.cmake: -D${_var}=... is required")
  endif()
endforeach()
string(REPLACE "|" ";" _args "${ARGS}")
execute_process(COMMAND "${PROGRAM}" ${_args}
                RESULT_VARIABLE _status OUTPUT_VARIABLE _out ERROR_VARIABLE _err
                TIMEOUT ${TIMEOUT})
message("${_out}${_err}")
if(NOT _status STREQUAL "0")
  message(FATAL_ERROR "${PROGRAM} ${ARGS}: exit status '${_status}' (expected 0; a timeout or a signal "
                      "means it hung or crashed)")
endif()
if(NOT _out MATCHES "${EXPECT}")
  message(FATAL_ERROR "${PROGRAM} ${ARGS}: the output does not match '${EXPECT}'")
endif()
if(DEFINED EXPECT_STDERR AND NOT _err MATCHES "${EXPECT_STDERR}")
  message(FATAL_ERROR "${PROGRAM} ${ARGS}: stderr does not match '${EXPECT_STDERR}'")
endif()
