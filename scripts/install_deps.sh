#!/usr/bin/env bash
# Install the Debian 12 packages sketchmm needs to build, run its sweep, plot,
# and run its whole test suite (including the aarch64 build under qemu), then
# prove that each toolchain works: a package list alone is not trusted.
# Uses apt-get as root, or through sudo otherwise. Safe to run again: when
# every package is present it only runs the checks (a few seconds).
# Exit status: 0 when every check passed; 1 naming the missing piece and the
# package that provides it otherwise.
set -euo pipefail

if [ "$(id -u)" -eq 0 ]; then SUDO=(); else SUDO=(sudo); fi
export DEBIAN_FRONTEND=noninteractive

# Every package is named, even where another one would pull it in: the install
# runs with --no-install-recommends, and a package that only arrives as a
# Recommends (libc6-dev-arm64-cross, the cross C library) arrives nowhere.
native=(
  build-essential cmake make pkg-config git python3     # build tools; git: the sweep records its commit
  libxxhash-dev libgomp1                                 # library: xxHash seeds, OpenMP runtime
  check libsubunit-dev                                   # Check unit tests
  libhdf5-dev zlib1g-dev libjson-c-dev                   # data loaders, sweep driver, spec files
  dataset-fashion-mnist                                  # the default sweep's data
  python3-h5py python3-numpy python3-matplotlib python3-pandas   # analysis and plot (/usr/bin/python3)
  python3-cffi                  # the Python package sketchmm (python/) opens libsketchmm.so through cffi
  python3-pytest                # its test suite (python/tests), run by scripts/run_tests.sh
  python3-setuptools python3-pip   # pip install --no-build-isolation ./python, and the suite's test of it
  gcc-aarch64-linux-gnu libc6-dev-arm64-cross libgomp1-arm64-cross   # aarch64 cross build ...
  qemu-user                                              # ... run under qemu-aarch64
  libopenblas-dev libblis-dev   # the peers sketchmm_bench compares exact_sgemm with
  libxsmm-dev                   # the BRGEMM peer of sketchmm_bench brgemm (static, linked in)
  libfaiss-dev                  # the FAISS peers of sketchmm_bench topk (libfaiss.a and no C library: a C++
                                # bridge module, built with g++ from build-essential)
  libhnswlib-dev                # the HNSW graph peer of sketchmm_bench topk (header-only C++: a bridge
                                # compiled into the benchmark with g++)
  clang libclang-rt-14-dev libomp-14-dev   # the libFuzzer targets (tests/fuzz): clang, the libFuzzer and
                                           # sanitizer runtimes, OpenMP for clang,
  llvm-14                                  # and llvm-symbolizer: named stack frames in their reports
  openmpi-bin libopenmpi-dev python3-mpi4py  # top-k over a database sharded across MPI ranks (mpi/), its Python example
  slurmctld slurmd slurm-client munge        # the real single-node SLURM the sweep's job-array test starts
)
# Check and xxHash for the aarch64 test build (Debian multiarch).
arm64=(check:arm64 libsubunit-dev:arm64 libxxhash-dev:arm64)

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

missing=()
for p in "${native[@]}" "${arm64[@]}"; do installed "$p" || missing+=("$p"); done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install_deps: every package is already installed"
else
  if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    "${SUDO[@]}" dpkg --add-architecture arm64
  fi
  echo "install_deps: installing ${missing[*]}"
  "${SUDO[@]}" apt-get update -q
  "${SUDO[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# ---------------------------------------------------------------------------
# Smoke checks: each toolchain does the job the build and the tests ask of it.
# ---------------------------------------------------------------------------
problems=()
# fail WHAT PACKAGE: record a missing piece and the package that provides it.
fail() { problems+=("$1 (package $2)"); }
# need_cmd COMMAND PACKAGE
need_cmd() { command -v "$1" >/dev/null 2>&1 || fail "command $1 not found" "$2"; }

for tool in "gcc build-essential" "g++ build-essential" "make make" "cmake cmake" "ctest cmake" "pkg-config pkg-config" \
            "git git" "aarch64-linux-gnu-gcc gcc-aarch64-linux-gnu" "qemu-aarch64 qemu-user" "clang clang" \
            "/usr/lib/llvm-14/bin/llvm-symbolizer llvm-14" "mpicc libopenmpi-dev" "mpirun openmpi-bin" \
            "munged munge" "mungekey munge" "munge munge" "unmunge munge" "slurmctld slurmctld" "slurmd slurmd" \
            "sbatch slurm-client" "squeue slurm-client" "scontrol slurm-client" "scancel slurm-client" \
            "sinfo slurm-client"; do
  need_cmd $tool
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/hello.c" <<'EOF'
#include <omp.h>
#include <stdio.h>
#include <xxhash.h>
int main(void) {
  int n = 0;
#pragma omp parallel reduction(+ : n)
  n += 1;
  printf("%d %llx\n", n > 0, (unsigned long long)XXH3_64bits("sketchmm", 8));
  return 0;
}
EOF

# native: C compiler, OpenMP and xxHash link and run
if gcc -fopenmp "$tmp/hello.c" -o "$tmp/hello_native" -lxxhash >"$tmp/native.log" 2>&1; then
  "$tmp/hello_native" >"$tmp/native.out" 2>&1 || fail "the native test program does not run: $(head -c 300 "$tmp/native.out")" "libgomp1, libxxhash0"
else
  fail "gcc cannot build an OpenMP + xxHash program: $(head -c 300 "$tmp/native.log")" "build-essential, libgomp1, libxxhash-dev"
fi

# aarch64: the cross compiler links against the cross C library, OpenMP and arm64 xxHash; qemu runs it
if command -v aarch64-linux-gnu-gcc >/dev/null 2>&1; then
  if aarch64-linux-gnu-gcc -fopenmp "$tmp/hello.c" -o "$tmp/hello_arm64" -lxxhash >"$tmp/arm64.log" 2>&1; then
    if command -v qemu-aarch64 >/dev/null 2>&1; then
      if qemu-aarch64 -L /usr/aarch64-linux-gnu -E LD_LIBRARY_PATH=/usr/aarch64-linux-gnu/lib \
           "$tmp/hello_arm64" >"$tmp/arm64.out" 2>&1; then
        [ -f "$tmp/native.out" ] && ! cmp -s "$tmp/native.out" "$tmp/arm64.out" &&
          fail "the aarch64 program printed '$(cat "$tmp/arm64.out")', the native one '$(cat "$tmp/native.out")'" "qemu-user"
      else
        fail "qemu-aarch64 cannot run a cross-built program: $(head -c 300 "$tmp/arm64.out")" "qemu-user, libgomp1-arm64-cross, libxxhash0:arm64"
      fi
    fi
  else
    hint="libc6-dev-arm64-cross, libgomp1-arm64-cross, libxxhash-dev:arm64"
    grep -q "crt1.o\|crti.o\|stdio.h" "$tmp/arm64.log" && hint="libc6-dev-arm64-cross"
    fail "aarch64-linux-gnu-gcc cannot link an OpenMP + xxHash program: $(grep -m 2 -i 'error\|cannot' "$tmp/arm64.log" | tr '\n' ' ')" "$hint"
  fi
fi

# clang for the fuzz build (tests/fuzz): OpenMP + xxHash as with gcc, and a libFuzzer target linked
# with -fsanitize=fuzzer,address,undefined that runs 10 inputs
if command -v clang >/dev/null 2>&1; then
  if clang -fopenmp "$tmp/hello.c" -o "$tmp/hello_clang" -lxxhash >"$tmp/clang.log" 2>&1; then
    "$tmp/hello_clang" >"$tmp/clang.out" 2>&1 ||
      fail "the clang-built test program does not run: $(head -c 300 "$tmp/clang.out")" "libomp5-14"
  else
    fail "clang cannot build an OpenMP + xxHash program: $(grep -m 2 -i 'error' "$tmp/clang.log" | tr '\n' ' ')" "libomp-14-dev"
  fi
  cat >"$tmp/fuzz.c" <<'EOF'
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  volatile uint8_t sum = 0;
  for (size_t i = 0; i < size; i++)
    sum += data[i];
  return 0;
}
EOF
  if clang -fsanitize=fuzzer,address,undefined "$tmp/fuzz.c" -o "$tmp/fuzz" >"$tmp/fuzz.log" 2>&1; then
    (cd "$tmp" && ./fuzz -runs=10 >fuzz.out 2>&1) && grep -q '^Done 10 runs' "$tmp/fuzz.out" ||
      fail "the libFuzzer test program does not run 10 inputs: $(tail -n 2 "$tmp/fuzz.out" | tr '\n' ' ')" "libclang-rt-14-dev"
  else
    fail "clang cannot link a libFuzzer program (-fsanitize=fuzzer,address,undefined): $(grep -m 2 -i 'error\|cannot' "$tmp/fuzz.log" | tr '\n' ' ')" "libclang-rt-14-dev"
  fi
fi

# FAISS for sketchmm_bench topk: Debian ships libfaiss.a and the C API's headers but no libfaiss_c, so the
# benchmark reaches FAISS through a C++ bridge: g++ builds a shared module that links libfaiss.a (PIC) with
# OpenMP and the system BLAS and LAPACK, a C program opens it, and an IndexFlatIP answers a search
cat >"$tmp/faiss.cpp" <<'EOF'
#include <faiss/IndexFlat.h>
extern "C" int smm_faiss_smoke(void);
extern "C" int smm_faiss_smoke(void)
{
  const float xb[4] = { 1.0f, 0.0f, 0.0f, 1.0f }, xq[2] = { 0.2f, 0.9f };
  faiss::IndexFlatIP index(2);
  index.add(2, xb);
  float distance = 0.0f;
  faiss::Index::idx_t label = -1;
  index.search(1, xq, 1, &distance, &label);
  return label == 1 ? 0 : 1;
}
EOF
cat >"$tmp/faiss_main.c" <<'EOF'
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv)
{
  void *module = dlopen(argc > 1 ? argv[1] : "", RTLD_NOW | RTLD_LOCAL);
  if (module == NULL) {
    printf("%s\n", dlerror());
    return 1;
  }
  int (*smoke)(void) = (int (*)(void))dlsym(module, "smm_faiss_smoke");
  return smoke != NULL ? smoke() : 1;
}
EOF
if command -v g++ >/dev/null 2>&1; then
  faiss_lib=$(dpkg -L libfaiss-dev 2>/dev/null | grep -m 1 '/libfaiss\.a$' || true)
  if [ -z "$faiss_lib" ]; then
    fail "libfaiss.a not found" "libfaiss-dev"
  elif g++ -shared -fPIC -fopenmp "$tmp/faiss.cpp" -o "$tmp/faiss_smoke.so" -Wl,--no-undefined \
         "$faiss_lib" -llapack -lblas >"$tmp/faiss.log" 2>&1 &&
       gcc "$tmp/faiss_main.c" -o "$tmp/faiss_main" -ldl >>"$tmp/faiss.log" 2>&1; then
    "$tmp/faiss_main" "$tmp/faiss_smoke.so" >"$tmp/faiss.out" 2>&1 ||
      fail "a program using FAISS's IndexFlatIP does not run or finds the wrong neighbour: $(head -c 300 "$tmp/faiss.out")" "libfaiss-dev"
  else
    fail "g++ cannot build a module with FAISS's IndexFlatIP: $(grep -m 2 -i 'error\|cannot\|undefined' "$tmp/faiss.log" | tr '\n' ' ')" "libfaiss-dev"
  fi
fi

# hnswlib for sketchmm_bench topk: header-only C++, so g++ compiles a program against its headers with the
# flags of the benchmark's bridge (AVX-512, OpenMP), and on a CPU with AVX-512 the program finds the nearest
# of three points
cat >"$tmp/hnsw.cpp" <<'EOF'
#include <hnswlib/hnswlib.h>
int main()
{
  hnswlib::L2Space space(16);
  hnswlib::HierarchicalNSW<float> graph(&space, 3, 16, 200, 100);
  float p[3][16] = { { 0.0f }, { 1.0f }, { 2.0f } }, q[16] = { 1.2f };
  for (int i = 0; i < 3; i++)
    graph.addPoint(p[i], (hnswlib::labeltype)i);
  return graph.searchKnn(q, 1).top().second == 1 ? 0 : 1;
}
EOF
if command -v g++ >/dev/null 2>&1; then
  if g++ -std=c++17 -O2 -fopenmp -mavx512f -mavx512bw -mavx512dq -mavx512vl -mavx2 -mfma "$tmp/hnsw.cpp" \
       -o "$tmp/hnsw_smoke" >"$tmp/hnsw.log" 2>&1; then
    if grep -qw avx512f /proc/cpuinfo 2>/dev/null && ! "$tmp/hnsw_smoke"; then
      fail "a program using hnswlib's HierarchicalNSW finds the wrong neighbour" "libhnswlib-dev"
    fi
  else
    fail "g++ cannot compile a program with hnswlib: $(grep -m 2 -i 'error' "$tmp/hnsw.log" | tr '\n' ' ')" "libhnswlib-dev"
  fi
fi

# Open MPI for the sharded top-k (mpi/): mpicc builds a program that mpirun runs on 2 ranks of this machine
# (--oversubscribe; --allow-run-as-root as root, as CI runs), and Debian's python3 starts MPI through mpi4py
cat >"$tmp/mpi_hello.c" <<'EOF'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
  int rank = 0, size = 0, sum = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("%d %d\n", size, sum);
  MPI_Finalize();
  return 0;
}
EOF
if command -v mpicc >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1; then
  mpi_root=()
  [ "$(id -u)" -ne 0 ] || mpi_root=(--allow-run-as-root)
  if ! mpicc "$tmp/mpi_hello.c" -o "$tmp/mpi_hello" >"$tmp/mpi.log" 2>&1; then
    fail "mpicc cannot build an MPI program: $(grep -m 2 -i 'error' "$tmp/mpi.log" | tr '\n' ' ')" "libopenmpi-dev"
  elif [ "$(timeout 60 mpirun "${mpi_root[@]}" --oversubscribe -n 2 "$tmp/mpi_hello" 2>"$tmp/mpi.err")" != "2 1" ]; then
    fail "mpirun -n 2 does not run an MPI program: $(head -c 300 "$tmp/mpi.err")" "openmpi-bin"
  fi
  [ "$(timeout 60 /usr/bin/python3 -c 'from mpi4py import MPI; print(MPI.COMM_WORLD.Get_size())' 2>/dev/null)" = 1 ] ||
    fail "/usr/bin/python3 cannot start MPI through mpi4py" "python3-mpi4py"
fi

# munge and SLURM for the sweep's job-array test (experiments/slurm/local_cluster.sh): munged starts on a key
# made here, with its own socket (its directory searchable by everyone, as munged requires), and a
# credential round-trips; slurmd -C reads this machine's node line
if command -v munged >/dev/null 2>&1 && command -v mungekey >/dev/null 2>&1; then
  munge_dir="$tmp/munge"
  mkdir -p "$munge_dir/key" "$munge_dir/run"
  chmod 755 "$tmp" "$munge_dir" "$munge_dir/run"
  chmod 700 "$munge_dir/key"
  if mungekey --create --keyfile="$munge_dir/key/munge.key" >/dev/null 2>&1 &&
     munged --key-file="$munge_dir/key/munge.key" --socket="$munge_dir/run/sock" --pid-file="$munge_dir/run/pid" \
       --log-file="$munge_dir/log" --seed-file="$munge_dir/key/seed" >/dev/null 2>&1; then
    munge -S "$munge_dir/run/sock" -n 2>/dev/null | unmunge -S "$munge_dir/run/sock" >/dev/null 2>&1 ||
      fail "a munge credential does not decode: $(tail -n 2 "$munge_dir/log" 2>/dev/null | tr '\n' ' ')" "munge"
    munge_pid=$(cat "$munge_dir/run/pid" 2>/dev/null || true)
    if [ -n "$munge_pid" ] && [ "$(cat "/proc/$munge_pid/comm" 2>/dev/null)" = munged ]; then kill "$munge_pid"; fi
  else
    fail "munged does not start on a key of its own: $(tail -n 2 "$munge_dir/log" 2>/dev/null | tr '\n' ' ')" "munge"
  fi
fi
if command -v slurmd >/dev/null 2>&1; then
  slurmd -C 2>/dev/null | grep -q '^NodeName=' || fail "slurmd -C prints no node line" "slurmd"
fi

# pkg-config: what CMake looks up, for the architectures that use it (the aarch64 test build is the
# core library and its Check suites: check and xxhash only)
for mod in "check check" "libxxhash libxxhash-dev" "json-c libjson-c-dev" "hdf5 libhdf5-dev" "zlib zlib1g-dev"; do
  set -- $mod
  pkg-config --exists "$1" 2>/dev/null || fail "pkg-config does not find $1 (x86_64)" "$2"
done
for mod in "check check:arm64" "libxxhash libxxhash-dev:arm64"; do
  set -- $mod
  PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig pkg-config --exists "$1" 2>/dev/null ||
    fail "pkg-config does not find $1 for aarch64" "$2"
done

# Python: Debian's interpreter (a pyenv python3 may come first on PATH) with the analysis modules and
# those of the Python package, its tests and its pip install
if [ -x /usr/bin/python3 ]; then
  for mod in "h5py python3-h5py" "numpy python3-numpy" "matplotlib python3-matplotlib" "pandas python3-pandas" \
             "cffi python3-cffi" "pytest python3-pytest" "setuptools python3-setuptools" "pip python3-pip"; do
    set -- $mod
    /usr/bin/python3 -c "import $1" >/dev/null 2>&1 || fail "/usr/bin/python3 cannot import $1" "$2"
  done
else
  fail "/usr/bin/python3 not found" "python3"
fi

# the default sweep's data
for f in train-images-idx3-ubyte.gz t10k-images-idx3-ubyte.gz; do
  [ -r "/usr/share/datasets/fashion-mnist/$f" ] || fail "/usr/share/datasets/fashion-mnist/$f missing" "dataset-fashion-mnist"
done

if [ ${#problems[@]} -ne 0 ]; then
  echo "install_deps: the set-up is incomplete:" >&2
  printf '  - %s\n' "${problems[@]}" >&2
  exit 1
fi
echo "install_deps: checked: gcc + OpenMP + xxHash, g++ + FAISS (IndexFlatIP), g++ + hnswlib (AVX-512 build, a search), aarch64 cross build under qemu, clang + OpenMP + libFuzzer, Open MPI (mpicc, mpirun -n 2, mpi4py), munge + SLURM (munged, slurmd -C), pkg-config (x86_64, aarch64), /usr/bin/python3 modules, Fashion-MNIST"
