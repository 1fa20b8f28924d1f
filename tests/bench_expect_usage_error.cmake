# bench_expect_usage_error.cmake - run `cmake -DBENCH=<sketchmm_bench> -P
# bench_expect_usage_error.cmake`: a bad flag must make sketchmm_bench exit
# with status 2 (bad command line) and say why on stderr.
execute_process(COMMAND "${BENCH}" sgemm --bogus
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 2)
  message(FATAL_ERROR "sketchmm_bench sgemm --bogus exited with '${status}', expected 2\n${out}${err}")
endif()
if(NOT err MATCHES "unknown option '--bogus'")
  message(FATAL_ERROR "sketchmm_bench sgemm --bogus printed no clear message on stderr:\n${err}")
endif()
