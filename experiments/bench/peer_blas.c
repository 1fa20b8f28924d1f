/*
 * peer_blas.c - open OpenBLAS and BLIS with dlopen and resolve cblas_sgemm
 * and their thread and kernel queries (see peer_blas.h).
 */
#define _GNU_SOURCE /* RTLD_DEEPBIND */
#include "peer_blas.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * RTLD_DEEPBIND: each library resolves its own symbols first, so neither
 * picks up the other's BLAS entry points. AddressSanitizer refuses to load a
 * library with it; in sanitizer builds the two are still RTLD_LOCAL and the
 * executable exports no BLAS symbols, which keeps them apart as well.
 */
#if defined(__SANITIZE_ADDRESS__)
#define PEER_DLOPEN_FLAGS (RTLD_NOW | RTLD_LOCAL)
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PEER_DLOPEN_FLAGS (RTLD_NOW | RTLD_LOCAL)
#endif
#endif
#ifndef PEER_DLOPEN_FLAGS
#define PEER_DLOPEN_FLAGS (RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND)
#endif

struct peer_blas {
    peer_kind kind;
    void *handle;
    peer_sgemm_fn sgemm;
    void (*openblas_set_threads)(int);
    void (*blis_set_threads)(int64_t); /* dim_t: int64_t or int32_t, passed in a 64-bit register either way */
    char kernel[64];
    char status[512];
};

static const char *const peer_names[PEER_COUNT] = { "OpenBLAS", "BLIS" };

/* Configure-time paths (absent when find_library found nothing). */
static const char *configured_path(peer_kind kind)
{
    if (kind == PEER_OPENBLAS) {
#ifdef SKETCHMM_OPENBLAS_PATH
        return SKETCHMM_OPENBLAS_PATH;
#endif
    } else {
#ifdef SKETCHMM_BLIS_PATH
        return SKETCHMM_BLIS_PATH;
#endif
    }
    return NULL;
}

/* dlsym into *slot (an object pointer's storage, as POSIX recommends for function pointers). */
static int resolve(peer_blas *p, const char *symbol, void *slot, size_t slot_size)
{
    void *address = dlsym(p->handle, symbol);
    if (address == NULL) {
        snprintf(p->status, sizeof p->status, "%s: symbol %s missing", peer_names[p->kind], symbol);
        return 0;
    }
    memcpy(slot, &address, slot_size);
    return 1;
}

static int open_openblas(peer_blas *p, const char *path)
{
    const char *(*get_corename)(void) = NULL;
    const char *(*get_config)(void) = NULL;
    if (!resolve(p, "cblas_sgemm", &p->sgemm, sizeof p->sgemm) ||
        !resolve(p, "openblas_set_num_threads", &p->openblas_set_threads, sizeof p->openblas_set_threads) ||
        !resolve(p, "openblas_get_corename", &get_corename, sizeof get_corename) ||
        !resolve(p, "openblas_get_config", &get_config, sizeof get_config))
        return 0;
    const char *config = get_config();
    if (config != NULL && strstr(config, "USE64BITINT") != NULL) {
        snprintf(p->status, sizeof p->status, "OpenBLAS at %s uses 64-bit integers (%s): left out", path, config);
        return 0;
    }
    const char *core = get_corename();
    snprintf(p->kernel, sizeof p->kernel, "%s", core != NULL ? core : "?");
    snprintf(p->status, sizeof p->status, "OpenBLAS %s: core %s [%s]", path, p->kernel,
             config != NULL ? config : "?");
    return 1;
}

static int open_blis(peer_blas *p, const char *path)
{
    void (*initialize)(void) = NULL;
    const char *(*int_size_str)(void) = NULL;
    int64_t (*blas_int_size)(void) = NULL;
    const char *(*version_str)(void) = NULL;
    int (*arch_query_id)(void) = NULL;
    const char *(*arch_string)(int) = NULL;
    if (!resolve(p, "cblas_sgemm", &p->sgemm, sizeof p->sgemm) ||
        !resolve(p, "bli_init", &initialize, sizeof initialize) ||
        !resolve(p, "bli_thread_set_num_threads", &p->blis_set_threads, sizeof p->blis_set_threads) ||
        !resolve(p, "bli_arch_query_id", &arch_query_id, sizeof arch_query_id) ||
        !resolve(p, "bli_arch_string", &arch_string, sizeof arch_string) ||
        !resolve(p, "bli_info_get_int_type_size_str", &int_size_str, sizeof int_size_str) ||
        !resolve(p, "bli_info_get_blas_int_type_size", &blas_int_size, sizeof blas_int_size) ||
        !resolve(p, "bli_info_get_version_str", &version_str, sizeof version_str))
        return 0;
    /*
     * Initialise first: BLIS 0.9 aborts when BLIS_ARCH_TYPE is set and the
     * architecture is queried before its kernel table is filled in.
     */
    initialize();
    /* gint_t is 32 or 64 bits wide; a 32-bit return leaves the upper half of the register undefined */
    int64_t width = blas_int_size();
    if (strcmp(int_size_str(), "32") == 0)
        width = (int32_t)width;
    if (width != 32) {
        snprintf(p->status, sizeof p->status, "BLIS at %s uses %lld-bit BLAS integers: left out", path,
                 (long long)width);
        return 0;
    }
    const char *arch = arch_string(arch_query_id());
    snprintf(p->kernel, sizeof p->kernel, "%s", arch != NULL ? arch : "?");
    snprintf(p->status, sizeof p->status, "BLIS %s %s: arch %s", version_str(), path, p->kernel);
    return 1;
}

peer_blas *peer_blas_open(peer_kind kind)
{
    peer_blas *p = calloc(1, sizeof *p);
    if (p == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    p->kind = kind;
    snprintf(p->kernel, sizeof p->kernel, "-");
    const char *path = configured_path(kind);
    const char *skip = getenv("SKETCHMM_BENCH_NO_PEERS");
    if (skip != NULL && skip[0] != '\0' && strcmp(skip, "0") != 0) {
        snprintf(p->status, sizeof p->status, "%s: skipped (SKETCHMM_BENCH_NO_PEERS is set)", peer_names[kind]);
        return p;
    }
    if (path == NULL) {
        snprintf(p->status, sizeof p->status, "%s: not found at configure time", peer_names[kind]);
        return p;
    }
    p->handle = dlopen(path, PEER_DLOPEN_FLAGS);
    if (p->handle == NULL) {
        const char *error = dlerror();
        snprintf(p->status, sizeof p->status, "%s: dlopen failed: %s", peer_names[kind],
                 error != NULL ? error : path);
        return p;
    }
    int ok = kind == PEER_OPENBLAS ? open_openblas(p, path) : open_blis(p, path);
    if (!ok) {
        p->sgemm = NULL;
        snprintf(p->kernel, sizeof p->kernel, "-");
    }
    return p;
}

void peer_blas_free(peer_blas *p)
{
    /* no dlclose: the library's worker threads may outlive this call */
    free(p);
}

const char *peer_blas_name(const peer_blas *p)
{
    return peer_names[p->kind];
}

int peer_blas_ready(const peer_blas *p)
{
    return p->sgemm != NULL;
}

const char *peer_blas_status(const peer_blas *p)
{
    return p->status;
}

const char *peer_blas_kernel(const peer_blas *p)
{
    return p->kernel;
}

void peer_blas_set_threads(peer_blas *p, int threads)
{
    if (!peer_blas_ready(p))
        return;
    if (p->openblas_set_threads != NULL)
        p->openblas_set_threads(threads);
    if (p->blis_set_threads != NULL)
        p->blis_set_threads(threads);
}

peer_sgemm_fn peer_blas_sgemm(const peer_blas *p)
{
    return p->sgemm;
}
