#!/usr/bin/python3
"""Top-k over a database sharded across MPI ranks, from Python: mpi4py, h5py and the C library
sketchmm_mpi (sketchmm/shard_topk.h) through cffi.

    mpirun -n 4 /usr/bin/python3 mpi/examples/shard_topk.py --file digits.h5 --check
    mpirun -n 4 /usr/bin/python3 mpi/examples/shard_topk.py --file digits.h5 --method lowrank --size 8 \\
        --candidates 100 --check

FILE is an ann-benchmarks file (build/sketchmm_make_ann writes one: /train the database, /test the
queries, /neighbors the exact top-K). Rank r reads only its block of /train (an h5py slice reads just
those rows), every rank reads the queries, and the library merges the ranks' top-k lists with one MPI
reduction into the global top-k on rank 0. --check compares it there with the file's /neighbors and
/distances: identical for the exact method (exit status 1 otherwise), the recall for an approximate one.

The library is looked for next to the libsketchmm.so the Python package sketchmm uses (build/ in the
repository: run with PYTHONPATH=python), or at --library. MPI_Comm crosses into C by value: its C
type is a pointer in Open MPI and an int in MPICH, so the declaration follows mpi4py's handle size.
"""
import argparse
import os
import sys

import h5py
import numpy as np
from mpi4py import MPI

import sketchmm
from sketchmm import _lib

DECLARATIONS = """
typedef struct {
    int exact;
    approx_options approx;
} shard_options;
typedef struct shard_plan shard_plan;
void shard_options_init(shard_options *opts);
const char *shard_status_str(smm_status s);
smm_status shard_plan_create(MPI_Comm comm, int64_t k, int64_t first, int64_t rows, const float *B,
                             int64_t ldb, const shard_options *opts, shard_plan **plan);
smm_status shard_plan_topk(const shard_plan *plan, int64_t m, const float *A, int64_t lda,
                           int64_t topk, int root, int64_t *idx, float *val, int64_t ldk);
void shard_plan_free(shard_plan *plan);
"""


def open_library(path):
    """cffi's view of libsketchmm_mpi: sketchmm's types (approx_options, smm_status) and the shard calls."""
    ffi = _lib.ffi.__class__()
    ffi.include(_lib.ffi)
    handle = "struct ompi_communicator_t *" if MPI._sizeof(MPI.Comm) == ffi.sizeof("void *") else "int"
    ffi.cdef(f"typedef {handle} MPI_Comm;" + DECLARATIONS)
    return ffi, ffi.dlopen(path or os.path.join(os.path.dirname(_lib.path), "libsketchmm_mpi.so"))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--file", required=True, help="an ann-benchmarks HDF5 file (/train, /test, /neighbors)")
    p.add_argument("--method", default="exact", help="exact, or a sketchmm method name (lowrank, pq, ...)")
    p.add_argument("--size", type=int, default=0, help="bits or s of the method (0: the library default)")
    p.add_argument("--candidates", type=int, default=0, help="candidates per query over the whole database")
    p.add_argument("--topk", type=int, default=0, help="vectors per query (default: the file's K)")
    p.add_argument("--library", default=None, help="path of libsketchmm_mpi.so")
    p.add_argument("--check", action="store_true", help="compare with the file's exact answer on rank 0")
    args = p.parse_args()

    comm = MPI.COMM_WORLD
    rank, ranks = comm.Get_rank(), comm.Get_size()
    ffi, lib = open_library(args.library)
    with h5py.File(args.file, "r") as f:
        n, k = f["train"].shape
        first, rows = n * rank // ranks, n * (rank + 1) // ranks - n * rank // ranks
        block = np.ascontiguousarray(f["train"][first:first + rows], dtype=np.float32)  # this rank's rows only
        queries = np.ascontiguousarray(f["test"][...], dtype=np.float32)                 # every rank reads them
        neighbors = f["neighbors"][...] if rank == 0 else None
        distances = f["distances"][...] if rank == 0 else None
    topk = args.topk or (neighbors.shape[1] if rank == 0 else 0)
    topk = comm.bcast(topk, root=0)
    m = queries.shape[0]

    opts = ffi.new("shard_options *")
    lib.shard_options_init(opts)
    if args.method != "exact":
        opts.exact = 0
        opts.approx.method = sketchmm._methods.method_value(args.method)
        opts.approx.size = args.size
        opts.approx.candidates = args.candidates
    c_comm = ffi.cast("MPI_Comm *", MPI._addressof(comm))[0]
    plan = ffi.new("shard_plan **")
    floats = lambda a: ffi.cast("float *", a.ctypes.data)  # noqa: E731 (the arrays outlive the calls)
    s = lib.shard_plan_create(c_comm, k, first, rows, floats(block) if rows else ffi.NULL, k, opts, plan)
    if s != 0:  # the same status on every rank
        sys.exit(f"rank {rank}: shard_plan_create: {ffi.string(lib.shard_status_str(s)).decode()}")
    idx = np.empty((m, topk), dtype=np.int64) if rank == 0 else None
    val = np.empty((m, topk), dtype=np.float32) if rank == 0 else None
    t0 = MPI.Wtime()
    s = lib.shard_plan_topk(plan[0], m, floats(queries), k, topk, 0,
                            ffi.cast("int64_t *", idx.ctypes.data) if rank == 0 else ffi.NULL,
                            floats(val) if rank == 0 else ffi.NULL, topk)
    seconds = MPI.Wtime() - t0
    lib.shard_plan_free(plan[0])
    if s != 0:
        sys.exit(f"rank {rank}: shard_plan_topk: {ffi.string(lib.shard_status_str(s)).decode()}")
    if rank != 0:
        return 0
    print(f"{args.method}: top-{topk} of {m} queries over {n} vectors of {k} on {ranks} ranks in {seconds:.4f} s")
    if not args.check:
        return 0
    want_idx, want_val = neighbors[:, :topk].astype(np.int64), distances[:, :topk].astype(np.float32)
    if args.method == "exact":
        same = np.array_equal(idx, want_idx) and np.array_equal(val.view(np.uint32), want_val.view(np.uint32))
        print("identical to the single-process exact_topk of the file" if same else "DIFFERS from the file")
        return 0 if same else 1
    recall = np.mean([len(set(a) & set(b)) for a, b in zip(idx.tolist(), want_idx.tolist())]) / topk
    print(f"recall@{topk} by index against the file's exact answer: {recall:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
