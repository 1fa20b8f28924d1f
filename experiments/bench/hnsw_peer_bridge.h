/*
 * hnsw_peer_bridge.h - the C interface of the hnswlib bridge
 * (hnsw_peer_bridge.cpp), compiled into sketchmm_bench when hnswlib's
 * headers (Debian libhnswlib-dev, header-only C++) are found at configure
 * time. hnsw_peer.c calls it, and only on a CPU that runs the flags it is
 * compiled with (the project's AVX-512 set, so that hnswlib's distance
 * kernels take their AVX-512 path; hnswlib itself picks AVX-512, AVX or SSE
 * by cpuid at run time). Every function catches hnswlib's C++ exceptions
 * and reports them as a message in err (err_size bytes, NUL-terminated).
 *
 * Inner product through the reduction of maximum inner product search to
 * nearest neighbours (Bachrach et al. 2014): with R the largest norm of the
 * database, vector x becomes x' = [x, sqrt(R^2 - |x|^2)] and query q
 * becomes q' = [q, 0], so |q' - x'|^2 = |q|^2 + R^2 - 2 <q, x>: the nearest
 * x' in L2 is the x of the largest inner product. hnswlib's 'ip' space on
 * the raw vectors is not a metric and its graph search loses recall on
 * unnormalised data. Both are padded with zeros to a multiple of 16 floats
 * (hnswlib's widest distance kernel without a remainder loop).
 */
#ifndef SKETCHMM_BENCH_HNSW_PEER_BRIDGE_H
#define SKETCHMM_BENCH_HNSW_PEER_BRIDGE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One line: hnswlib's distance kernel (AVX-512, AVX or SSE, as its cpuid check chose) and the reduction. */
const char *smm_hnsw_bridge_describe(void);

/*
 * An HNSW graph (M links per node, 2 M on the bottom layer; ef_construction;
 * hnswlib's level generator seeded with seed) over the n x d row-major
 * database xb, reduced as above, the points inserted by `threads` OpenMP
 * threads (the first one alone: the graph's entry point). With more than
 * one thread the graph depends on the insertion order the threads make.
 * NULL on failure, with err set.
 */
void *smm_hnsw_bridge_build(int64_t d, int64_t n, const float *xb, int64_t M, int64_t ef_construction, uint64_t seed,
                            int threads, char *err, size_t err_size);

/*
 * The k largest inner products of each of the nq queries xq (nq x d row-major) by searching the graph with
 * breadth ef (ef < k searches with k), queries shared by `threads` OpenMP threads: their database indices in
 * I (nq x k, best first; -1 where the graph returned fewer). 0 on success, -1 with err set.
 */
int smm_hnsw_bridge_search(void *index, int64_t nq, const float *xq, int64_t k, int64_t ef, int threads, int64_t *I,
                           char *err, size_t err_size);

/* Free an index of smm_hnsw_bridge_build (NULL: nothing). */
void smm_hnsw_bridge_free(void *index);

#ifdef __cplusplus
}
#endif

#endif /* SKETCHMM_BENCH_HNSW_PEER_BRIDGE_H */
