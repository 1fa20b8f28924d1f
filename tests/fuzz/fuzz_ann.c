/*
 * fuzz_ann - libFuzzer target of the ann-benchmarks loader of data/
 * (ann_benchmark.c, the "ann:FILE.h5" data sets): the fuzz bytes are
 * written to a per-process temporary file and read with dataset_ann_shape
 * and dataset_load_ann, whole and limited to a few train and test rows. The
 * seed corpus (make_corpus.py) holds small benchmark files (float32 and
 * float64 vectors, int32 and int64 neighbours, variable and fixed-length
 * "distance" attributes, one written by the library's own dataset_write_ann)
 * and near-valid ones the loader must refuse.
 *
 * Checked besides the sanitizers:
 *   - every status is one dataset.h documents; on failure the output is all
 *     zeros and the message is one non-empty line;
 *   - dataset_ann_shape and dataset_load_ann agree: the same failure status,
 *     or the same sizes (a load may still fail on the values);
 *   - on success the validation dataset.h lists holds for what was loaded:
 *     no dataset is empty, train and test have the same d >= 1,
 *     1 <= K <= n, neighbours (present
 *     exactly when the whole train set was loaded) lie in [0, n), every value
 *     is finite, the distance attribute is a terminated string;
 *   - a limited load succeeds whenever the whole load did, with the first
 *     rows of train and test;
 *   - no HDF5 file or object in one is left open (H5Fget_obj_count).
 */
#include "fuzz_h5.h"

#include <math.h>

static int all_zero(const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i] != 0)
            return 0;
    return 1;
}

static void check_finite(const float *v, int64_t n, const char *what)
{
    for (int64_t i = 0; i < n; i++)
        FUZZ_CHECK(isfinite(v[i]), "%s[%lld] = %g", what, (long long)i, (double)v[i]);
}

/* One load with its checks; returns its status. */
static smm_status load(const char *file, int64_t max_train, int64_t max_test, dataset_ann *a)
{
    char msg[1024] = "";
    memset(a, 0x5a, sizeof *a); /* garbage the loader must overwrite */
    smm_status s = dataset_load_ann(file, max_train, max_test, a, msg, sizeof msg);
    check_nothing_open("dataset_load_ann");
    FUZZ_CHECK(documented(s), "status %d", (int)s);
    if (s != SMM_OK) {
        FUZZ_CHECK(all_zero(a, sizeof *a), "a failed load left fields set");
        FUZZ_CHECK(fuzz_has_msg(msg), "status %d without a one-line message", (int)s);
        return s;
    }
    const int64_t n = a->train_rows_in_file, q = a->test_rows_in_file, d = a->train.cols, K = a->topk;
    FUZZ_CHECK(d >= 1 && a->test.cols == d, "train has %lld columns, test %lld", (long long)d,
               (long long)a->test.cols);
    FUZZ_CHECK(K >= 1 && K <= n && q >= 1, "K = %lld with n = %lld, q = %lld", (long long)K, (long long)n,
               (long long)q);
    FUZZ_CHECK(a->train.rows == (max_train > 0 && max_train < n ? max_train : n), "%lld train rows of %lld",
               (long long)a->train.rows, (long long)n);
    FUZZ_CHECK(a->test.rows == (max_test > 0 && max_test < q ? max_test : q), "%lld test rows of %lld",
               (long long)a->test.rows, (long long)q);
    FUZZ_CHECK(memchr(a->distance, '\0', sizeof a->distance) != NULL, "distance attribute not terminated");
    check_finite(a->train.data, a->train.rows * d, "train");
    check_finite(a->test.data, a->test.rows * d, "test");
    int whole_train = a->train.rows == n;
    FUZZ_CHECK((a->neighbors != NULL) == whole_train && (a->distances != NULL) == whole_train,
               "neighbours %p, distances %p with %lld of %lld train rows", (void *)a->neighbors,
               (void *)a->distances, (long long)a->train.rows, (long long)n);
    if (whole_train) {
        for (int64_t t = 0; t < a->test.rows * K; t++)
            FUZZ_CHECK(a->neighbors[t] >= 0 && a->neighbors[t] < n, "neighbour %lld = %lld of n = %lld",
                       (long long)t, (long long)a->neighbors[t], (long long)n);
        check_finite(a->distances, a->test.rows * K, "distances");
    }
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *file = fuzz_tmp_file("fuzz_ann", ".h5");
    fuzz_write_file(file, data, size);

    char msg[1024] = "";
    int64_t n = -1, q = -1, d = -1, K = -1;
    smm_status shape = dataset_ann_shape(file, &n, &q, &d, &K, msg, sizeof msg);
    check_nothing_open("dataset_ann_shape");
    FUZZ_CHECK(documented(shape), "shape status %d", (int)shape);
    if (shape != SMM_OK) {
        FUZZ_CHECK(n == 0 && q == 0 && d == 0 && K == 0, "a failed shape call left sizes set");
        FUZZ_CHECK(fuzz_has_msg(msg), "status %d without a one-line message", (int)shape);
    }

    dataset_ann all, few;
    smm_status s_all = load(file, 0, 0, &all);
    if (shape != SMM_OK)
        FUZZ_CHECK(s_all == shape, "shape status %d but load status %d", (int)shape, (int)s_all);
    if (s_all == SMM_OK)
        FUZZ_CHECK(shape == SMM_OK && all.train_rows_in_file == n && all.test_rows_in_file == q &&
                       all.train.cols == d && all.topk == K,
                   "load and shape disagree (shape status %d)", (int)shape);

    smm_status s_few = load(file, 2, 1, &few);
    if (s_all == SMM_OK) {
        FUZZ_CHECK(s_few == SMM_OK, "the whole file loaded, 2 train and 1 test rows gave status %d", (int)s_few);
        FUZZ_CHECK(memcmp(few.train.data, all.train.data, (size_t)(few.train.rows * d) * sizeof(float)) == 0 &&
                       memcmp(few.test.data, all.test.data, (size_t)(few.test.rows * d) * sizeof(float)) == 0,
                   "the first rows differ between the whole and the limited load");
        if (few.neighbors != NULL)
            FUZZ_CHECK(memcmp(few.neighbors, all.neighbors, (size_t)K * sizeof(int64_t)) == 0,
                       "the first neighbours differ between the whole and the limited load");
    }
    dataset_ann_free(&few);
    dataset_ann_free(&all);
    /* HDF5 keeps freed blocks on its free lists: hand them back, so libFuzzer sees every
       allocation of the run freed and runs its (costly) leak check only after real leaks */
    H5garbage_collect();
    return 0;
}
