/*
 * bench_modes.h - the modes of sketchmm_bench, one descriptor each
 * (bench_cli.h), in the order of the list of modes.
 */
#ifndef SKETCHMM_BENCH_MODES_H
#define SKETCHMM_BENCH_MODES_H

#include "bench_cli.h"

extern const bench_mode bench_mode_sgemm;        /* exact_sgemm against OpenBLAS and BLIS (bench_sgemm.c) */
extern const bench_mode bench_mode_sgemm_ladder; /* the SGEMM kernels of seed article 002 (bench_sgemm_ladder.c) */
extern const bench_mode bench_mode_sgemm_padded; /* naive and tiled SGEMM, padded and unpadded (bench_sgemm_padded.c) */
extern const bench_mode bench_mode_sgemm_small;  /* small products: generated and precompiled kernels (bench_sgemm_small.c) */
extern const bench_mode bench_mode_probe;        /* peak FMA, xor+popcount and byte-shuffle throughput (bench_probe.c) */
extern const bench_mode bench_mode_hamming;      /* Hamming all-pairs and top-k, pairs/s (bench_hamming.c) */
extern const bench_mode bench_mode_encode;       /* sketch_encode speed and accuracy (bench_encode.c) */
extern const bench_mode bench_mode_unary;        /* zero, identity and ReLU, plain and transposed (bench_unary.c) */
extern const bench_mode bench_mode_mat4;         /* 4x4 multiply, inverse and copy (bench_mat4.c) */
extern const bench_mode bench_mode_brgemm;       /* batch-reduce GEMM against libxsmm and others (bench_brgemm.c) */
extern const bench_mode bench_mode_topk;         /* top-10 inner products: sketchmm, OpenBLAS, FAISS (bench_topk.c) */
extern const bench_mode bench_mode_pqscan;       /* PQ fast-scan lookups/s against the shuffle probes (bench_pqscan.c) */
extern const bench_mode bench_mode_smallk;       /* dense rank-s product against exact_sgemm and the write bandwidth (bench_smallk.c) */

#endif /* SKETCHMM_BENCH_MODES_H */
