#!/usr/bin/env bash
# The main job: install what is missing, build, install the library and the
# Python package into ~/.local, run the default accuracy-versus-speed sweep,
# write the HDF5 results file and a PNG plot, and say where both are.
# The default sweep runs every approximate method of sketchmm/approx.h on
# Fashion-MNIST in two modes: dense (approx_sgemm against exact_sgemm on a
# 4096 x 784 times 784 x 4096 Gram product of training images) and top-k
# (approx_topk against exact_topk: the 10 largest inner products of each of the
# 10,000 test images against the 60,000 training images), then the same methods
# on i.i.d. Gaussian data (experiments/specs/gaussian.json, the hard case) and on
# texture-like images (experiments/specs/texture.json, the learned methods' hard case). About
# 18 minutes on 2 cores. The first sweep is the spec experiments/specs/default.json
# (the driver's defaults, written out). Extra arguments go to the sweep driver and override
# the spec (see: build/sketchmm_sweep --help), e.g. --shard I/N for one slice.
# Rerunning after an interruption resumes: rows already in results/sweep.h5
# are kept and only the missing configurations run (--overwrite starts over).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install_deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$(nproc)"
# The library, its headers and the Python package into ~/.local (no root needed): /usr/bin/python3
# then imports sketchmm from its user site (python/README: other prefixes, pip).
cmake --install build --prefix "$HOME/.local" >/dev/null
/usr/bin/python3 -c "import sketchmm; print('Python package: sketchmm', sketchmm.version(), 'in', sketchmm.__path__[0])"

mkdir -p results
build/sketchmm_sweep --spec experiments/specs/default.json --out results/sweep.h5 "$@"
/usr/bin/python3 experiments/analysis/plot_sweep.py results/sweep.h5 -o results/sweep.png
# The hard case: i.i.d. Gaussian data of the same dimension, where no approximate method should pay
# (no low-rank structure, no clusters): the same methods' frontier for contrast (about 2 minutes).
build/sketchmm_sweep --spec experiments/specs/gaussian.json --out results/sweep_gaussian.h5 "$@"
/usr/bin/python3 experiments/analysis/plot_sweep.py results/sweep_gaussian.h5 -o results/sweep_gaussian.png
# The learned methods' hard case: texture-like images (random fields with a natural image's 1/f^2
# spectrum, experiments/specs/texture.json), variance spread over every pixel, where MADDNESS and PQ at
# few codebooks lose what Fashion-MNIST lets them keep (about 2 minutes).
build/sketchmm_sweep --spec experiments/specs/texture.json --out results/sweep_texture.h5 "$@"
/usr/bin/python3 experiments/analysis/plot_sweep.py results/sweep_texture.h5 -o results/sweep_texture.png

echo
echo "results table: $(pwd)/results/sweep.h5 (Gaussian data: $(pwd)/results/sweep_gaussian.h5, textures: $(pwd)/results/sweep_texture.h5)"
echo "plot:          $(pwd)/results/sweep.png (Gaussian data: $(pwd)/results/sweep_gaussian.png, textures: $(pwd)/results/sweep_texture.png)"
