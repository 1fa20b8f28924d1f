# tune_cli.cmake - run `cmake -DTUNE=<sketchmm_tune> [-DEMULATOR=<command;args>] -P tune_cli.cmake`: the
# tuner's command line (run through EMULATOR, e.g. qemu-aarch64, in a cross build).
# --show and --help exit 0; bad command lines exit 2 and say why on stderr; a short run that writes
# nothing (--out none) exits 0, logs its stages on stderr (not a terminal: a line per stage) and
# prints the configuration it made active, with source=tuned.

function(run_tune expect_status out_regex err_regex)
  execute_process(COMMAND ${EMULATOR} "${TUNE}" ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(JOIN " " command ${ARGN})
  if(NOT status EQUAL expect_status)
    message(FATAL_ERROR "sketchmm_tune ${command} exited with '${status}', expected ${expect_status}\n${out}${err}")
  endif()
  if(NOT out MATCHES "${out_regex}")
    message(FATAL_ERROR "sketchmm_tune ${command}: stdout does not match '${out_regex}':\n${out}")
  endif()
  if(NOT err MATCHES "${err_regex}")
    message(FATAL_ERROR "sketchmm_tune ${command}: stderr does not match '${err_regex}':\n${err}")
  endif()
endfunction()

run_tune(0 "isa=[a-z0-9]+ source=(model|table|tuned) kernel=" "^$" --show)
run_tune(0 "--budget SECONDS" "^$" --help)
run_tune(2 "^$" "--budget wants a number in \\[10, 86400\\], not '5'" --budget 5)
run_tune(2 "^$" "--threads wants a number" --threads x)
run_tune(2 "^$" "unknown option or missing value: --bogus" --bogus)
run_tune(2 "^$" "unknown option or missing value: --out" --out)
run_tune(0 "source=tuned .* file=- note=\"tuned in this process; not written\"" "\\[1/8\\] kernel shape.*\\[8/8\\] done"
         --budget 10 --threads 2 --out none)
