/*
 * hnsw_peer.h - hnswlib as the graph-based peer of sketchmm's top-k (mode
 * topk): whether its bridge (hnsw_peer_bridge.h: an HNSW graph over the
 * database, inner products by the reduction of maximum inner product search
 * to nearest neighbours) may be called here.
 *
 * The bridge is compiled in, and SKETCHMM_HAVE_HNSWLIB defined for
 * sketchmm_bench, when hnswlib's headers and a C++ compiler are found at
 * configure time on x86-64 (option SKETCHMM_BENCH_HNSWLIB, ON by default),
 * with the project's AVX-512 flags. Not compiled in, a CPU without those
 * instructions, or SKETCHMM_BENCH_NO_PEERS=1: hnsw_peer_ready() is 0 and
 * the smm_hnsw_bridge_* functions must not be called.
 */
#ifndef SKETCHMM_BENCH_HNSW_PEER_H
#define SKETCHMM_BENCH_HNSW_PEER_H

/* 1 when the bridge can be called here; otherwise 0, with the reason in hnsw_peer_status(). */
int hnsw_peer_ready(void);

/* One line: what runs (hnswlib's distance kernel, the reduction) or why nothing does. */
const char *hnsw_peer_status(void);

#endif /* SKETCHMM_BENCH_HNSW_PEER_H */
