/*
 * faiss_peer_bridge.cpp - the FAISS side of mode topk's FAISS peers: a thin
 * C interface over IndexFlatIP and IndexRefineFlat(IndexPQFastScan), built
 * as a shared module only when FAISS is found (see faiss_peer_bridge.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif
#include "faiss_peer_bridge.h"

#include <dlfcn.h>
#include <omp.h>

#include <cstdio>
#include <exception>
#include <string>

#include <faiss/Index.h>
#include <faiss/IndexFlat.h>
#include <faiss/IndexPQFastScan.h>
#include <faiss/IndexRefine.h>
#include <faiss/utils/utils.h>

/* The Fortran BLAS entry point FAISS calls: its address says which library serves it. */
extern "C" int sgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
                      const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
                      const float *beta, float *c, const int *ldc);

namespace {

void set_error(char *err, size_t err_size, const char *what)
{
    if (err != nullptr && err_size > 0)
        std::snprintf(err, err_size, "%s", what);
}

/* A symbol of the library that serves sgemm_ or of its dependencies (OpenBLAS's libblas.so.3 is a wrapper). */
void *blas_symbol(const char *name)
{
    Dl_info info;
    if (dladdr(reinterpret_cast<void *>(&sgemm_), &info) == 0 || info.dli_fname == nullptr)
        return nullptr;
    void *handle = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
    if (handle == nullptr)
        return nullptr;
    void *symbol = dlsym(handle, name);
    dlclose(handle); /* drops the reference RTLD_NOLOAD took; the library stays (the module needs it) */
    return symbol;
}

std::string describe()
{
    std::string s = "FAISS " + std::to_string(FAISS_VERSION_MAJOR) + "." + std::to_string(FAISS_VERSION_MINOR) +
                    "." + std::to_string(FAISS_VERSION_PATCH);
    std::string options = faiss::get_compile_options();
    while (!options.empty() && options.back() == ' ')
        options.pop_back();
    s += " (compile options: " + (options.empty() ? std::string("none") : options) + ")";
    Dl_info info;
    if (dladdr(reinterpret_cast<void *>(&sgemm_), &info) != 0 && info.dli_fname != nullptr)
        s += ", BLAS sgemm_ from " + std::string(info.dli_fname);
    using corename_fn = const char *(*)();
    if (auto corename = reinterpret_cast<corename_fn>(blas_symbol("openblas_get_corename")))
        s += " (OpenBLAS core " + std::string(corename()) + ")";
    return s;
}

int bridge_threads = 0; /* the last smm_faiss_bridge_set_threads (0: never called) */

void set_blas_threads(int threads)
{
    using set_int_fn = void (*)(int);
    using set_i64_fn = void (*)(int64_t);
    if (auto openblas = reinterpret_cast<set_int_fn>(blas_symbol("openblas_set_num_threads")))
        openblas(threads);
    if (auto blis = reinterpret_cast<set_i64_fn>(blas_symbol("bli_thread_set_num_threads")))
        blis(threads);
}

void use_threads(int threads)
{
    omp_set_num_threads(threads);
    set_blas_threads(threads);
}

} // namespace

extern "C" {

__attribute__((visibility("default"))) int smm_faiss_bridge_abi(void)
{
    return SMM_FAISS_BRIDGE_ABI;
}

__attribute__((visibility("default"))) const char *smm_faiss_bridge_describe(void)
{
    static std::string text;
    try {
        text = describe();
    } catch (const std::exception &e) {
        text = std::string("FAISS (description failed: ") + e.what() + ")";
    }
    return text.c_str();
}

__attribute__((visibility("default"))) void smm_faiss_bridge_set_threads(int threads)
{
    use_threads(threads);
    bridge_threads = threads;
}

__attribute__((visibility("default"))) void *smm_faiss_bridge_flat_ip(int64_t d, int64_t n, const float *xb,
                                                                     char *err, size_t err_size)
{
    faiss::IndexFlatIP *index = nullptr;
    try {
        index = new faiss::IndexFlatIP(d);
        index->add(n, xb);
        return index;
    } catch (const std::exception &e) {
        delete index;
        set_error(err, err_size, e.what());
        return nullptr;
    }
}

__attribute__((visibility("default"))) void *smm_faiss_bridge_pq_refine(int64_t d, int64_t n, const float *xb,
                                                                       int64_t M, int64_t nbits, int build_threads,
                                                                       char *err, size_t err_size)
{
    faiss::IndexPQFastScan *base = nullptr;
    faiss::IndexRefineFlat *index = nullptr;
    try {
        base = new faiss::IndexPQFastScan(static_cast<int>(d), static_cast<size_t>(M), static_cast<size_t>(nbits),
                                          faiss::METRIC_INNER_PRODUCT);
        index = new faiss::IndexRefineFlat(base);
        index->own_fields = true; /* deleting the refinement index deletes the base */
        base = nullptr;
        /*
         * Training (M k-means runs on 4- or 8-dimensional subvectors: many
         * short OpenMP loops and BLAS calls on tiny matrices) and adding run
         * on build_threads threads, OpenMP and BLAS alike, when given.
         */
        const int build = build_threads > 0 ? build_threads : bridge_threads;
        if (build > 0 && build != bridge_threads)
            use_threads(build);
        index->train(n, xb);
        index->add(n, xb);
        if (build > 0 && build != bridge_threads)
            use_threads(bridge_threads);
        return index;
    } catch (const std::exception &e) {
        if (bridge_threads > 0)
            use_threads(bridge_threads);
        delete base;
        delete index;
        set_error(err, err_size, e.what());
        return nullptr;
    }
}

__attribute__((visibility("default"))) int smm_faiss_bridge_search(void *index, int64_t nq, const float *xq,
                                                                  int64_t k, double k_factor, float *D, int64_t *I,
                                                                  char *err, size_t err_size)
{
    try {
        faiss::Index *ix = static_cast<faiss::Index *>(index);
        if (auto refine = dynamic_cast<faiss::IndexRefine *>(ix))
            refine->k_factor = static_cast<float>(k_factor);
        ix->search(nq, xq, k, D, I);
        return 0;
    } catch (const std::exception &e) {
        set_error(err, err_size, e.what());
        return -1;
    }
}

__attribute__((visibility("default"))) void smm_faiss_bridge_free(void *index)
{
    delete static_cast<faiss::Index *>(index);
}

} // extern "C"
