/*
 * faiss_peer.h - FAISS as a peer of sketchmm's top-k (mode topk): its exact
 * brute force (IndexFlatIP) and PQ fast scan with exact re-ranking
 * (IndexRefineFlat around IndexPQFastScan), through the bridge module of
 * faiss_peer_bridge.h, opened at run time with dlopen.
 *
 * The module is built when FAISS (Debian libfaiss-dev) is found at configure
 * time (option SKETCHMM_BENCH_FAISS, ON by default) and its path compiled in
 * as SKETCHMM_FAISS_BRIDGE_PATH. Not built, not loadable, or
 * SKETCHMM_BENCH_NO_PEERS=1: faiss_peer_ready() is 0 and faiss_peer_status()
 * says why ("FAISS: not built ...").
 */
#ifndef SKETCHMM_BENCH_FAISS_PEER_H
#define SKETCHMM_BENCH_FAISS_PEER_H

#include <stddef.h>
#include <stdint.h>

typedef struct faiss_peer faiss_peer;

/* Never NULL: a peer that could not be loaded has faiss_peer_ready() == 0. */
faiss_peer *faiss_peer_open(void);

/* Free p (NULL allowed); the module stays loaded (FAISS's OpenMP and BLAS threads may still run). */
void faiss_peer_free(faiss_peer *p);

int faiss_peer_ready(const faiss_peer *p);

/* One line: what was loaded (FAISS version, compile options, BLAS) or why nothing was. */
const char *faiss_peer_status(const faiss_peer *p);

/* The thread count of FAISS's OpenMP loops and of the BLAS it calls. */
void faiss_peer_set_threads(faiss_peer *p, int threads);

/*
 * Build an index over the n x d row-major database xb: kind 0 IndexFlatIP
 * (pq_m, build_threads ignored), kind 1 IndexRefineFlat(IndexPQFastScan(d,
 * pq_m, 4 bits, inner product)) trained on xb with build_threads threads
 * (0: those of faiss_peer_set_threads). NULL on failure, with the reason in
 * err.
 */
enum { FAISS_PEER_FLAT_IP = 0, FAISS_PEER_PQ_FASTSCAN_REFINE = 1 };
void *faiss_peer_build(faiss_peer *p, int kind, int64_t d, int64_t n, const float *xb, int64_t pq_m,
                       int build_threads, char *err, size_t err_size);

/* Search: see smm_faiss_bridge_search. 0 on success, -1 with err set. */
int faiss_peer_search(faiss_peer *p, void *index, int64_t nq, const float *xq, int64_t k, double k_factor, float *D,
                      int64_t *I, char *err, size_t err_size);

void faiss_peer_index_free(faiss_peer *p, void *index);

#endif /* SKETCHMM_BENCH_FAISS_PEER_H */
