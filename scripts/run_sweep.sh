#!/usr/bin/env bash
# The main job: install what is missing, build, run the default accuracy-versus-
# speed sweep (SimHash approx_sgemm against exact_sgemm on a Fashion-MNIST Gram
# product), write the HDF5 results file and a PNG plot, and say where both are.
# Extra arguments go to the sweep driver (see: build/sketchmm_sweep --help).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install_deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$(nproc)"

mkdir -p results
build/sketchmm_sweep --out results/sweep.h5 "$@"
/usr/bin/python3 experiments/analysis/plot_sweep.py results/sweep.h5 -o results/sweep.png

echo
echo "results table: $(pwd)/results/sweep.h5"
echo "plot:          $(pwd)/results/sweep.png"
