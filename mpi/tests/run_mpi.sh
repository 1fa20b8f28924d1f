#!/usr/bin/env bash
# run_mpi.sh MPIEXEC RANKS SECONDS PROGRAM [ARGS...]: run PROGRAM on RANKS ranks of this machine under
# Open MPI's mpiexec, for ctest: --oversubscribe (more ranks than cores), --allow-run-as-root when run
# as root (CI runs as root), no binding of a rank to one core (--bind-to none: a rank may run several
# OpenMP threads), and a time limit (--timeout SECONDS): a rank that hangs ends the job
# instead of the test run. One OpenMP thread per rank unless OMP_NUM_THREADS is set.
set -euo pipefail
mpiexec=$1 ranks=$2 seconds=$3
shift 3
flags=(--oversubscribe --bind-to none --timeout "$seconds" -n "$ranks")
if [ "$(id -u)" -eq 0 ]; then flags=(--allow-run-as-root "${flags[@]}"); fi
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
exec "$mpiexec" "${flags[@]}" "$@"
