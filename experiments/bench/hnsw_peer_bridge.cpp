/*
 * hnsw_peer_bridge.cpp - the hnswlib side of mode topk's graph-based peer: a
 * thin C interface over hnswlib::HierarchicalNSW in L2 space, with maximum
 * inner product search reduced to nearest neighbours (see
 * hnsw_peer_bridge.h).
 */
#include "hnsw_peer_bridge.h"

#include <omp.h>

#include <cmath>
#include <cstdio>
#include <exception>
#include <memory>
#include <vector>

#include <hnswlib/hnswlib.h>

namespace {

/* The reduced dimension: d + 1 (the norm complement), padded with zeros to a multiple of 16. */
int64_t padded_dim(int64_t d)
{
    return (d + 1 + 15) / 16 * 16;
}

struct hnsw_index {
    int64_t d, dim;
    hnswlib::L2Space space; /* the graph keeps a pointer to it: it lives as long as the graph */
    std::unique_ptr<hnswlib::HierarchicalNSW<float>> graph;
    hnsw_index(int64_t d_, int64_t n, int64_t M, int64_t ef_construction, uint64_t seed)
        : d(d_), dim(padded_dim(d_)), space((size_t)padded_dim(d_)),
          graph(new hnswlib::HierarchicalNSW<float>(&space, (size_t)n, (size_t)M, (size_t)ef_construction,
                                                    (size_t)seed))
    {
    }
};

void set_error(char *err, size_t err_size, const char *what)
{
    if (err != nullptr && err_size > 0)
        std::snprintf(err, err_size, "hnswlib: %s", what);
}

/* x' = [x, sqrt(R^2 - |x|^2), 0 ...] into out (dim floats); R2 = R^2, x2 = |x|^2 (both in double). */
void reduce_point(const float *x, int64_t d, int64_t dim, double R2, double x2, float *out)
{
    for (int64_t t = 0; t < d; t++)
        out[t] = x[t];
    out[d] = (float)std::sqrt(R2 > x2 ? R2 - x2 : 0.0);
    for (int64_t t = d + 1; t < dim; t++)
        out[t] = 0.0f;
}

double squared_norm(const float *x, int64_t d)
{
    double s = 0.0;
    for (int64_t t = 0; t < d; t++)
        s += (double)x[t] * x[t];
    return s;
}

} // namespace

extern "C" const char *smm_hnsw_bridge_describe(void)
{
    static char line[256];
#ifdef USE_AVX512
    const char *kernel = AVX512Capable() ? "AVX-512" : AVXCapable() ? "AVX" : "SSE";
#else
    const char *kernel = "plain C++ (built without hnswlib's SIMD: a sanitizer build)";
#endif
    std::snprintf(line, sizeof line,
                  "hnswlib (header-only, libhnswlib-dev): L2 distance kernel %s; inner product by the "
                  "MIPS-to-L2 reduction",
                  kernel);
    return line;
}

extern "C" void *smm_hnsw_bridge_build(int64_t d, int64_t n, const float *xb, int64_t M, int64_t ef_construction,
                                       uint64_t seed, int threads, char *err, size_t err_size)
{
    if (d < 1 || n < 1 || xb == nullptr || M < 2 || ef_construction < 1 || threads < 1) {
        set_error(err, err_size, "bad argument");
        return nullptr;
    }
    try {
        std::unique_ptr<hnsw_index> ix(new hnsw_index(d, n, M, ef_construction, seed));
        std::vector<double> norm2((size_t)n);
        double R2 = 0.0;
        for (int64_t i = 0; i < n; i++) {
            norm2[(size_t)i] = squared_norm(xb + i * d, d);
            R2 = norm2[(size_t)i] > R2 ? norm2[(size_t)i] : R2;
        }
        const int64_t dim = ix->dim;
        std::vector<float> first((size_t)dim);
        reduce_point(xb, d, dim, R2, norm2[0], first.data());
        ix->graph->addPoint(first.data(), 0);
        bool failed = false;
#pragma omp parallel num_threads(threads)
        {
            std::vector<float> point((size_t)dim);
#pragma omp for schedule(dynamic, 256)
            for (int64_t i = 1; i < n; i++) {
                reduce_point(xb + i * d, d, dim, R2, norm2[(size_t)i], point.data());
                try {
                    ix->graph->addPoint(point.data(), (hnswlib::labeltype)i);
                } catch (const std::exception &) {
#pragma omp atomic write
                    failed = true;
                }
            }
        }
        if (failed) {
            set_error(err, err_size, "adding a point failed");
            return nullptr;
        }
        return ix.release();
    } catch (const std::exception &e) {
        set_error(err, err_size, e.what());
        return nullptr;
    }
}

extern "C" int smm_hnsw_bridge_search(void *handle, int64_t nq, const float *xq, int64_t k, int64_t ef, int threads,
                                      int64_t *I, char *err, size_t err_size)
{
    hnsw_index *ix = static_cast<hnsw_index *>(handle);
    if (ix == nullptr || nq < 0 || (nq > 0 && (xq == nullptr || I == nullptr)) || k < 1 || threads < 1) {
        set_error(err, err_size, "bad argument");
        return -1;
    }
    ix->graph->setEf((size_t)(ef > k ? ef : k));
    const int64_t d = ix->d, dim = ix->dim;
    bool failed = false;
#pragma omp parallel num_threads(threads)
    {
        std::vector<float> q((size_t)dim, 0.0f); /* q' = [q, 0, 0 ...] */
#pragma omp for schedule(dynamic, 16)
        for (int64_t i = 0; i < nq; i++) {
            for (int64_t t = 0; t < d; t++)
                q[(size_t)t] = xq[i * d + t];
            int64_t *row = I + i * k;
            for (int64_t t = 0; t < k; t++)
                row[t] = -1;
            try {
                auto found = ix->graph->searchKnn(q.data(), (size_t)k);
                /* a max-heap of (distance, label): the farthest first */
                for (int64_t t = (int64_t)found.size() - 1; t >= 0; t--) {
                    row[t] = (int64_t)found.top().second;
                    found.pop();
                }
            } catch (const std::exception &) {
#pragma omp atomic write
                failed = true;
            }
        }
    }
    if (failed) {
        set_error(err, err_size, "a search failed");
        return -1;
    }
    return 0;
}

extern "C" void smm_hnsw_bridge_free(void *handle)
{
    delete static_cast<hnsw_index *>(handle);
}
