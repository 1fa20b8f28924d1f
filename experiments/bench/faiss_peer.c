/*
 * faiss_peer.c - open the FAISS bridge module with dlopen and resolve its
 * functions (see faiss_peer.h, faiss_peer_bridge.h).
 */
#include "faiss_peer.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "faiss_peer_bridge.h"

struct faiss_peer {
    void *handle;
    int (*abi)(void);
    const char *(*describe)(void);
    void (*set_threads)(int);
    void *(*flat_ip)(int64_t, int64_t, const float *, char *, size_t);
    void *(*pq_refine)(int64_t, int64_t, const float *, int64_t, int64_t, int, char *, size_t);
    int (*search)(void *, int64_t, const float *, int64_t, double, float *, int64_t *, char *, size_t);
    void (*free_index)(void *);
    int ready;
    char status[1024];
};

#ifdef SKETCHMM_FAISS_BRIDGE_PATH
/* dlsym into *slot (an object pointer's storage, as POSIX recommends for function pointers). */
static int resolve(faiss_peer *p, const char *symbol, void *slot, size_t slot_size)
{
    void *address = dlsym(p->handle, symbol);
    if (address == NULL) {
        snprintf(p->status, sizeof p->status, "FAISS: the bridge module lacks %s", symbol);
        return 0;
    }
    memcpy(slot, &address, slot_size);
    return 1;
}
#endif

faiss_peer *faiss_peer_open(void)
{
    faiss_peer *p = calloc(1, sizeof *p);
    if (p == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    const char *skip = getenv("SKETCHMM_BENCH_NO_PEERS");
    if (skip != NULL && skip[0] != '\0' && strcmp(skip, "0") != 0) {
        snprintf(p->status, sizeof p->status, "FAISS: skipped (SKETCHMM_BENCH_NO_PEERS is set)");
        return p;
    }
#ifndef SKETCHMM_FAISS_BRIDGE_PATH
    snprintf(p->status, sizeof p->status,
             "FAISS: not built (libfaiss-dev or a C++ compiler not found at configure time, or "
             "-DSKETCHMM_BENCH_FAISS=OFF)");
    return p;
#else
    const char *path = SKETCHMM_FAISS_BRIDGE_PATH;
    /*
     * RTLD_LOCAL: the module's symbols (and those of the BLAS it links) stay
     * out of the global scope, so the dlopen'ed BLAS peers never see them.
     * No RTLD_DEEPBIND: the executable exports no BLAS symbols the module
     * could pick up, and deep binding does not mix well with libstdc++.
     */
    p->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (p->handle == NULL) {
        const char *error = dlerror();
        snprintf(p->status, sizeof p->status, "FAISS: dlopen failed: %s", error != NULL ? error : path);
        return p;
    }
    if (!resolve(p, "smm_faiss_bridge_abi", &p->abi, sizeof p->abi) ||
        !resolve(p, "smm_faiss_bridge_describe", &p->describe, sizeof p->describe) ||
        !resolve(p, "smm_faiss_bridge_set_threads", &p->set_threads, sizeof p->set_threads) ||
        !resolve(p, "smm_faiss_bridge_flat_ip", &p->flat_ip, sizeof p->flat_ip) ||
        !resolve(p, "smm_faiss_bridge_pq_refine", &p->pq_refine, sizeof p->pq_refine) ||
        !resolve(p, "smm_faiss_bridge_search", &p->search, sizeof p->search) ||
        !resolve(p, "smm_faiss_bridge_free", &p->free_index, sizeof p->free_index))
        return p;
    if (p->abi() != SMM_FAISS_BRIDGE_ABI) {
        snprintf(p->status, sizeof p->status, "FAISS: the bridge module %s has interface %d, this program %d", path,
                 p->abi(), SMM_FAISS_BRIDGE_ABI);
        return p;
    }
    snprintf(p->status, sizeof p->status, "%s [bridge %s]", p->describe(), path);
    p->ready = 1;
    return p;
#endif
}

void faiss_peer_free(faiss_peer *p)
{
    free(p); /* no dlclose: FAISS's thread pools may outlive this call */
}

int faiss_peer_ready(const faiss_peer *p)
{
    return p->ready;
}

const char *faiss_peer_status(const faiss_peer *p)
{
    return p->status;
}

void faiss_peer_set_threads(faiss_peer *p, int threads)
{
    if (p->ready)
        p->set_threads(threads);
}

void *faiss_peer_build(faiss_peer *p, int kind, int64_t d, int64_t n, const float *xb, int64_t pq_m,
                       int build_threads, char *err, size_t err_size)
{
    if (!p->ready) {
        snprintf(err, err_size, "FAISS is not available");
        return NULL;
    }
    if (kind == FAISS_PEER_FLAT_IP)
        return p->flat_ip(d, n, xb, err, err_size);
    return p->pq_refine(d, n, xb, pq_m, 4, build_threads, err, err_size);
}

int faiss_peer_search(faiss_peer *p, void *index, int64_t nq, const float *xq, int64_t k, double k_factor, float *D,
                      int64_t *I, char *err, size_t err_size)
{
    if (!p->ready) {
        snprintf(err, err_size, "FAISS is not available");
        return -1;
    }
    return p->search(index, nq, xq, k, k_factor, D, I, err, err_size);
}

void faiss_peer_index_free(faiss_peer *p, void *index)
{
    if (p->ready && index != NULL)
        p->free_index(index);
}
