/*
 * bench_modes.h - the modes of sketchmm_bench. Each takes the arguments that
 * follow the mode name, returns the process exit status (0, BENCH_EXIT_FAILED
 * or BENCH_EXIT_USAGE from bench_cli.h) and has a help text.
 */
#ifndef SKETCHMM_BENCH_MODES_H
#define SKETCHMM_BENCH_MODES_H

#include <stdio.h>

/* sgemm: exact_sgemm against OpenBLAS and BLIS (bench_sgemm.c). */
int bench_sgemm_main(int argc, char **argv);
void bench_sgemm_help(FILE *out);

/* seed002: the kernels of seed article 002 (bench_seed002.c). */
int bench_seed002_main(int argc, char **argv);
void bench_seed002_help(FILE *out);

/* padded: naive and tiled kernels on padded and unpadded matrices (bench_padded.c). */
int bench_padded_main(int argc, char **argv);
void bench_padded_help(FILE *out);

/* probe: peak FMA throughput (bench_probe.c). */
int bench_probe_main(int argc, char **argv);
void bench_probe_help(FILE *out);

/* hamming: all-pairs Hamming distances and top-k, pairs/s per kernel (bench_hamming.c). */
int bench_hamming_main(int argc, char **argv);
void bench_hamming_help(FILE *out);

/* encode: sketch_encode speed and accuracy of every sketch family (bench_encode.c). */
int bench_encode_main(int argc, char **argv);
void bench_encode_help(FILE *out);

/* unary: zero, identity and ReLU, plain and transposed, GiB/s (bench_unary.c). */
int bench_unary_main(int argc, char **argv);
void bench_unary_help(FILE *out);

/* mat4: 4x4 multiply, inverse and copy, M ops/s per ISA path, 1 and all threads (bench_mat4.c). */
int bench_mat4_main(int argc, char **argv);
void bench_mat4_help(FILE *out);

/* brgemm: batch-reduce GEMM against libxsmm, OpenBLAS and plain loops, GFLOPS over a grid (bench_brgemm.c). */
int bench_brgemm_main(int argc, char **argv);
void bench_brgemm_help(FILE *out);

#endif /* SKETCHMM_BENCH_MODES_H */
