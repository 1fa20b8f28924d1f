/*
 * faiss_peer_bridge.h - the C interface of the FAISS bridge module
 * (faiss_peer_bridge.cpp, built as the shared module sketchmm_bench_faiss
 * when FAISS is found at configure time) that faiss_peer.c opens with
 * dlopen. Every function catches FAISS's C++ exceptions and reports them
 * as a message in err (err_size bytes, NUL-terminated).
 *
 * Why a module and not FAISS linked into sketchmm_bench: Debian ships FAISS
 * as a static library (libfaiss.a, no libfaiss_c: the C API headers come
 * without their library) that calls the Fortran BLAS (sgemm_). Linked into
 * sketchmm_bench, its sgemm_ would bind to the stubs libxsmmnoblas.a puts
 * in the executable (see experiments/CMakeLists.txt) and abort. The module
 * links libfaiss.a with the system BLAS (libblas.so.3, OpenBLAS on this
 * project's machines) and is opened RTLD_LOCAL, like the BLAS peers.
 */
#ifndef SKETCHMM_BENCH_FAISS_PEER_BRIDGE_H
#define SKETCHMM_BENCH_FAISS_PEER_BRIDGE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped when any signature below changes: faiss_peer.c refuses a module of another version. */
#define SMM_FAISS_BRIDGE_ABI 1

int smm_faiss_bridge_abi(void);

/* One line: FAISS version and compile options (GENERIC, AVX2, ...), the BLAS it calls and that BLAS's kernel. */
const char *smm_faiss_bridge_describe(void);

/* Threads of FAISS's OpenMP loops (omp_set_num_threads) and of its BLAS (openblas_set_num_threads /
 * bli_thread_set_num_threads when that BLAS has them). */
void smm_faiss_bridge_set_threads(int threads);

/* IndexFlatIP over the n x d row-major database xb (added, ready to search); NULL on failure. */
void *smm_faiss_bridge_flat_ip(int64_t d, int64_t n, const float *xb, char *err, size_t err_size);

/*
 * IndexRefineFlat around IndexPQFastScan(d, M, nbits, METRIC_INNER_PRODUCT): the PQ trained on xb, then
 * xb added (codes to the fast-scan index, vectors to the refinement index), on build_threads threads
 * (OpenMP and BLAS; 0: those of smm_faiss_bridge_set_threads). NULL on failure.
 */
void *smm_faiss_bridge_pq_refine(int64_t d, int64_t n, const float *xb, int64_t M, int64_t nbits,
                                 int build_threads, char *err, size_t err_size);

/*
 * The k best of each of the nq queries xq (nq x d row-major): labels I and inner products D, nq x k, best
 * first. k_factor: the refinement index asks its base index for k * k_factor candidates (ignored by
 * IndexFlatIP). 0 on success, -1 with err set.
 */
int smm_faiss_bridge_search(void *index, int64_t nq, const float *xq, int64_t k, double k_factor, float *D,
                            int64_t *I, char *err, size_t err_size);

void smm_faiss_bridge_free(void *index);

#ifdef __cplusplus
}
#endif

#endif /* SKETCHMM_BENCH_FAISS_PEER_BRIDGE_H */
