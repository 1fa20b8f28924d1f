#!/usr/bin/env bash
# Install the Debian 12 packages sketchmm needs to build, run its sweep, plot,
# and run its whole test suite (including the aarch64 build under qemu).
# Uses apt-get as root, or through sudo otherwise. Safe to run again.
set -euo pipefail

if [ "$(id -u)" -eq 0 ]; then SUDO=(); else SUDO=(sudo); fi
export DEBIAN_FRONTEND=noninteractive

native=(build-essential cmake pkg-config git libxxhash-dev check libhdf5-dev zlib1g-dev libjson-c-dev
        dataset-fashion-mnist python3-h5py python3-numpy python3-matplotlib python3-pandas
        gcc-aarch64-linux-gnu qemu-user
        libopenblas-dev libblis-dev   # the peers sketchmm_bench compares exact_sgemm with
        libxsmm-dev)                  # optional: the BRGEMM peer of sketchmm_bench brgemm (static, linked in)
# Check and xxHash for the aarch64 test build (Debian multiarch).
arm64=(check:arm64 libsubunit-dev:arm64 libxxhash-dev:arm64)

missing=()
for p in "${native[@]}" "${arm64[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install_deps: every package is already installed"
  exit 0
fi

if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  "${SUDO[@]}" dpkg --add-architecture arm64
fi
echo "install_deps: installing ${missing[*]}"
"${SUDO[@]}" apt-get update -q
"${SUDO[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
