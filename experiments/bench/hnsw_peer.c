/*
 * hnsw_peer.c - whether the hnswlib bridge may be called here (see
 * hnsw_peer.h).
 */
#include "hnsw_peer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/smm_runtime.h"
#ifdef SKETCHMM_HAVE_HNSWLIB
#include "hnsw_peer_bridge.h"
#endif

static char status_line[512];

int hnsw_peer_ready(void)
{
    const char *skip = getenv("SKETCHMM_BENCH_NO_PEERS");
    if (skip != NULL && skip[0] != '\0' && strcmp(skip, "0") != 0) {
        snprintf(status_line, sizeof status_line, "hnswlib: skipped (SKETCHMM_BENCH_NO_PEERS is set)");
        return 0;
    }
#ifndef SKETCHMM_HAVE_HNSWLIB
    snprintf(status_line, sizeof status_line,
             "hnswlib: not built (libhnswlib-dev or a C++ compiler not found at configure time, not x86-64, or "
             "-DSKETCHMM_BENCH_HNSWLIB=OFF)");
    return 0;
#else
    /* the bridge is compiled with the library's AVX-512 flags (F, BW, DQ, VL, VPOPCNTDQ) */
    if (!smm_cpu()->avx512_vpopcntdq) {
        snprintf(status_line, sizeof status_line,
                 "hnswlib: left out (its bridge is built for AVX-512 with VPOPCNTDQ, which this CPU lacks)");
        return 0;
    }
    snprintf(status_line, sizeof status_line, "%s", smm_hnsw_bridge_describe());
    return 1;
#endif
}

const char *hnsw_peer_status(void)
{
    if (status_line[0] == '\0')
        hnsw_peer_ready();
    return status_line;
}
