# analysis_plot_driver: the analysis end to end on a real results file.
# Runs sketchmm_sweep on tiny synthetic data (dense and top-k), then
# experiments/analysis/plot_sweep.py on its file, and checks that the PNG
# exists, is not empty and starts with the PNG signature.
#   cmake -DSWEEP=<sketchmm_sweep> -DPYTHON=/usr/bin/python3 -DPLOT=<plot_sweep.py> -DWORKDIR=<dir>
#         -P analysis_plot_driver.cmake
file(REMOVE_RECURSE "${WORKDIR}")
file(MAKE_DIRECTORY "${WORKDIR}")
set(results "${WORKDIR}/tiny.h5")
set(png "${WORKDIR}/tiny.png")

execute_process(
  COMMAND "${SWEEP}" --datasets gaussian --k 16 --shapes 32x32 --topk-shapes 16x64 --topk 5
          --methods simhash,srht --bits 64 --sketch-dims 8 --candidates 10,20 --reps 1 --topk-reps 1
          --threads 1 --out "${results}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "sketchmm_sweep exited ${rc}:\n${out}\n${err}")
endif()

execute_process(COMMAND "${PYTHON}" "${PLOT}" "${results}" -o "${png}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "plot_sweep.py exited ${rc}:\n${out}\n${err}")
endif()
if(NOT EXISTS "${png}")
  message(FATAL_ERROR "plot_sweep.py wrote no ${png}:\n${out}")
endif()
file(SIZE "${png}" size)
file(READ "${png}" magic LIMIT 8 HEX)
if(size LESS 10000 OR NOT magic STREQUAL "89504e470d0a1a0a")
  message(FATAL_ERROR "${png}: ${size} bytes, signature ${magic}: not a plot")
endif()
message(STATUS "${png}: ${size} bytes")
