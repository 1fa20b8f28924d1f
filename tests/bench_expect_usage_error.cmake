# bench_expect_usage_error.cmake - run `cmake -DBENCH=<sketchmm_bench> -P
# bench_expect_usage_error.cmake`: a bad command line must make sketchmm_bench
# exit with status 2 (bad command line) and say why on stderr.

# expect_usage_error(<expected stderr regex> <argument>...)
function(expect_usage_error expected)
  execute_process(COMMAND "${BENCH}" ${ARGN}
                  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(JOIN " " command ${ARGN})
  if(NOT status EQUAL 2)
    message(FATAL_ERROR "sketchmm_bench ${command} exited with '${status}', expected 2\n${out}${err}")
  endif()
  if(NOT err MATCHES "${expected}")
    message(FATAL_ERROR "sketchmm_bench ${command} printed no clear message on stderr:\n${err}")
  endif()
endfunction()

expect_usage_error("unknown option '--bogus'" sgemm --bogus)
# a value out of its option's range, with the range in the message
expect_usage_error("sketchmm_bench sgemm-ladder: --min wants a multiple of 64 in \\[64, 8192\\], got '65'"
                   sgemm-ladder --min 65)
# a former mode name
expect_usage_error("unknown mode 'seed002' \\(renamed 'sgemm-ladder'\\)" seed002)
