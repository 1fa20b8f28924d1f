/*
 * test_shard_topk.c - the sharded top-k of sketchmm/shard_topk.h under
 * mpirun at any number of ranks (ctest runs 1, 2, 3 and 4):
 *   - exact: bit-identical to single-process exact_topk on the whole
 *     database, for blocks of unequal sizes, an empty block (first, middle,
 *     last rank), blocks smaller than topk, duplicated vectors across block
 *     boundaries (ties to the smaller global index), topk from 1 to n, the
 *     result on one root or on every rank, blocks copied or borrowed;
 *   - approximate: with every candidate refined, bit-identical to
 *     single-process approx_plan_topk with candidates = n; with fewer (and
 *     with a rank's share of them below topk), every returned value is the
 *     exact dot product of its index;
 *   - bad input on one rank (NaN in its block, blocks that are not
 *     contiguous, another k, topk or query, a block too small for the
 *     method, bad outputs on the root):
 *     every rank gets the same status and the failing rank's number, no
 *     output is written, and the next call works.
 * No Check here: an assertion that stopped one rank would leave the others
 * waiting in a collective. Every rank runs every case to its end, records
 * its failures, and the ranks add them up at the end (exit status 1 when
 * any rank failed). ctest's and mpirun's time limits catch a hang.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sketchmm.h"
#include "sketchmm/shard_topk.h"

static int rank, ranks, failures;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void expect(int ok, int line, const char *fmt, ...)
{
    if (ok)
        return;
    failures++;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "rank %d of %d, line %d: ", rank, ranks, line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* Uniform in [-1, 1) from (seed, i): splitmix64, the same on every rank. */
static float value_at(uint64_t seed, uint64_t i)
{
    uint64_t z = seed * 0x9e3779b97f4a7c15ULL + i + 1;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (float)((double)(z >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

/* n x k random vectors; every 7th row from row 7 on is a copy of the row 5 before it (exact ties). */
static float *database(int64_t n, int64_t k, uint64_t seed)
{
    float *B = malloc((size_t)(n * k) * sizeof(float));
    for (int64_t j = 0; j < n; j++)
        for (int64_t t = 0; t < k; t++)
            B[j * k + t] = (j >= 7 && j % 7 == 0) ? B[(j - 5) * k + t] : value_at(seed, (uint64_t)(j * k + t));
    return B;
}

/* The blocks: rows of rank r for a named split of n over the ranks. */
typedef enum { SPLIT_EVEN, SPLIT_GROWING, SPLIT_EMPTY_FIRST, SPLIT_EMPTY_MIDDLE, SPLIT_TINY, SPLIT_COUNT } split_kind;
static const char *split_names[SPLIT_COUNT] = { "even", "growing", "empty first", "empty middle", "tiny" };

/* Rows of every rank into rows[ranks]; the first rows come from the ranks before. */
static void split_rows(split_kind kind, int64_t n, int64_t topk, int64_t *rows)
{
    int64_t left = n;
    for (int r = 0; r < ranks; r++) {
        int64_t want;
        switch (kind) {
        case SPLIT_EVEN:
            want = n * (r + 1) / ranks - n * r / ranks;
            break;
        case SPLIT_GROWING: /* weights 1, 2, 3, ... */
            want = n * (int64_t)(r + 1) * (r + 2) / 2 / ((int64_t)ranks * (ranks + 1) / 2) - n * (int64_t)r * (r + 1) / 2 / ((int64_t)ranks * (ranks + 1) / 2);
            break;
        case SPLIT_EMPTY_FIRST:
            want = r == 0 && ranks > 1 ? 0 : (n * r / (ranks > 1 ? ranks - 1 : 1)) - (n * (r - 1) / (ranks > 1 ? ranks - 1 : 1));
            break;
        case SPLIT_EMPTY_MIDDLE:
            want = r == ranks / 2 && ranks > 2 ? 0 : n / ranks;
            break;
        default: /* SPLIT_TINY: every rank but the last holds fewer rows than topk (at least one) */
            want = topk > 1 ? topk - 1 - r % 2 : 1;
            if (want < 1)
                want = 1;
            break;
        }
        if (r == ranks - 1 || want > left)
            want = left;
        rows[r] = want;
        left -= want;
    }
}

static int64_t first_of(const int64_t *rows, int r)
{
    int64_t f = 0;
    for (int q = 0; q < r; q++)
        f += rows[q];
    return f;
}

/* The sharded search of (n x k database B, m queries Q) against a reference (idx, val of m x topk). */
static void check_against(const char *what, int line, const shard_options *opts, split_kind split, const float *B,
                          int64_t n, int64_t k, const float *Q, int64_t m, int64_t topk, const int64_t *ref_idx,
                          const float *ref_val)
{
    int64_t *rows = malloc((size_t)ranks * sizeof(int64_t));
    split_rows(split, n, topk, rows);
    const int64_t first = first_of(rows, rank);
    shard_plan *plan = NULL;
    smm_status s = shard_plan_create(MPI_COMM_WORLD, k, first, rows[rank], rows[rank] > 0 ? B + first * k : NULL, k,
                                     opts, &plan);
    expect(s == SMM_OK, line, "%s, split %s: shard_plan_create: %s", what, split_names[split], shard_status_str(s));
    const int64_t ldk = topk + 3;
    int64_t *idx = malloc((size_t)(m * ldk) * sizeof(int64_t));
    float *val = malloc((size_t)(m * ldk) * sizeof(float));
    for (int root = SHARD_ALL_RANKS; s == SMM_OK && root < ranks; root++) {
        memset(idx, 0xff, (size_t)(m * ldk) * sizeof(int64_t));
        memset(val, 0xff, (size_t)(m * ldk) * sizeof(float));
        s = shard_plan_topk(plan, m, Q, k, topk, root, idx, val, ldk);
        expect(s == SMM_OK, line, "%s, split %s, root %d: shard_plan_topk: %s", what, split_names[split], root,
               shard_status_str(s));
        int receives = root == SHARD_ALL_RANKS || root == rank;
        int64_t bad = -1;
        for (int64_t i = 0; s == SMM_OK && i < m && bad < 0; i++)
            if (receives ? memcmp(idx + i * ldk, ref_idx + i * topk, (size_t)topk * sizeof(int64_t)) != 0 ||
                               memcmp(val + i * ldk, ref_val + i * topk, (size_t)topk * sizeof(float)) != 0
                         : idx[i * ldk] != -1)
                bad = i;
        int64_t e = 0; /* the first entry that differs */
        while (bad >= 0 && receives && e < topk - 1 && idx[bad * ldk + e] == ref_idx[bad * topk + e] &&
               val[bad * ldk + e] == ref_val[bad * topk + e])
            e++;
        expect(bad < 0, line, "%s, split %s, root %d: query %lld %s (entry %lld: %lld %.9g, single-process %lld %.9g)",
               what, split_names[split], root, (long long)bad,
               receives ? "differs from the single-process result" : "written on a non-root rank", (long long)e,
               bad < 0 ? 0LL : (long long)idx[bad * ldk + e], bad < 0 ? 0.0 : (double)val[bad * ldk + e],
               bad < 0 ? 0LL : (long long)ref_idx[bad * topk + e], bad < 0 ? 0.0 : (double)ref_val[bad * topk + e]);
        /* the padding between rows (ldk > topk) is never written */
        int64_t pad = 0;
        for (int64_t i = 0; s == SMM_OK && receives && i < m; i++)
            for (int64_t t = topk; t < ldk; t++)
                pad += idx[i * ldk + t] != -1;
        expect(pad == 0, line, "%s: %lld entries of the padding written", what, (long long)pad);
        if (root == SHARD_ALL_RANKS && ranks > 3)
            root = ranks - 2; /* at many ranks: the first and the last root only */
    }
    shard_plan_free(plan);
    free(idx);
    free(val);
    free(rows);
}

/* Exact: bit-identical to exact_topk on the whole database, for every split and several topk. */
static void test_exact_identity(void)
{
    const int64_t n = 4500, k = 300, m = 300; /* k over two k-blocks, n over three column blocks */
    float *B = database(n, k, 1), *Q = database(m, k, 2);
    const int64_t topks[] = { 1, 10, 37 };
    shard_options opts = SHARD_OPTIONS_INIT;
    for (size_t u = 0; u < sizeof topks / sizeof topks[0]; u++) {
        const int64_t topk = topks[u];
        int64_t *idx = malloc((size_t)(m * topk) * sizeof(int64_t));
        float *val = malloc((size_t)(m * topk) * sizeof(float));
        smm_status s = exact_topk(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_TRANS, m, n, k, Q, k, B, k, topk, idx, val, topk);
        expect(s == SMM_OK, __LINE__, "exact_topk: %s", smm_status_str(s));
        for (int split = 0; split < SPLIT_COUNT; split++) {
            opts.approx.flags = split % 2 ? APPROX_BORROW_B : 0u; /* a borrowed block as well as a copy */
            check_against("exact", __LINE__, &opts, (split_kind)split, B, n, k, Q, m, topk, idx, val);
        }
        free(idx);
        free(val);
    }
    free(B);
    free(Q);
}

/* Exact on a small database: topk = n, and a database of fewer rows than ranks. */
static void test_exact_small(void)
{
    const int64_t k = 33, m = 5;
    float *Q = database(m, k, 4);
    const int64_t sizes[] = { 3, 40 };
    shard_options opts = SHARD_OPTIONS_INIT;
    for (size_t u = 0; u < 2; u++) {
        const int64_t n = sizes[u], topk = n;
        float *B = database(n, k, 3);
        int64_t *idx = malloc((size_t)(m * topk) * sizeof(int64_t));
        float *val = malloc((size_t)(m * topk) * sizeof(float));
        smm_status s = exact_topk(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_TRANS, m, n, k, Q, k, B, k, topk, idx, val, topk);
        expect(s == SMM_OK, __LINE__, "exact_topk: %s", smm_status_str(s));
        check_against("exact, topk = n", __LINE__, &opts, SPLIT_EVEN, B, n, k, Q, m, topk, idx, val);
        check_against("exact, topk = n", __LINE__, &opts, SPLIT_EMPTY_FIRST, B, n, k, Q, m, topk, idx, val);
        free(B);
        free(idx);
        free(val);
    }
    free(Q);
}

/* Approximate with every candidate refined: bit-identical to single-process approx_plan_topk. */
static void test_approx_all_candidates(void)
{
    const int64_t n = 3000, k = 64, m = 200, topk = 10;
    float *B = database(n, k, 5), *Q = database(m, k, 6);
    shard_options opts = SHARD_OPTIONS_INIT;
    opts.exact = 0;
    opts.approx.method = SKETCH_LOWRANK;
    opts.approx.size = 8;
    opts.approx.candidates = (int32_t)n;
    int64_t *idx = malloc((size_t)(m * topk) * sizeof(int64_t));
    float *val = malloc((size_t)(m * topk) * sizeof(float));
    smm_status s = approx_topk(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_TRANS, m, n, k, Q, k, B, k, topk, idx, val, topk,
                               &opts.approx, NULL);
    expect(s == SMM_OK, __LINE__, "approx_topk: %s", smm_status_str(s));
    check_against("lowrank, every candidate", __LINE__, &opts, SPLIT_GROWING, B, n, k, Q, m, topk, idx, val);
    opts.approx.flags = APPROX_BORROW_B;
    check_against("lowrank, every candidate", __LINE__, &opts, SPLIT_EMPTY_MIDDLE, B, n, k, Q, m, topk, idx, val);
    free(B);
    free(Q);
    free(idx);
    free(val);
}

/* Approximate with few candidates: distinct indices in range, each value the exact dot product (double, rounded). */
static void test_approx_values_exact(void)
{
    const int64_t n = 3000, k = 64, m = 100, topk = 10;
    float *B = database(n, k, 7), *Q = database(m, k, 8);
    int64_t *rows = malloc((size_t)ranks * sizeof(int64_t));
    split_rows(SPLIT_GROWING, n, topk, rows);
    const int64_t first = first_of(rows, rank);
    const sketch_method methods[] = { SKETCH_LOWRANK, SKETCH_SIMHASH };
    for (size_t u = 0; u < 2; u++) {
        shard_options opts = SHARD_OPTIONS_INIT;
        opts.exact = 0;
        opts.approx.method = methods[u];
        opts.approx.candidates = 200;
        shard_plan *plan = NULL;
        smm_status s = shard_plan_create(MPI_COMM_WORLD, k, first, rows[rank], B + first * k, k, &opts, &plan);
        expect(s == SMM_OK, __LINE__, "%s: shard_plan_create: %s", sketch_method_name(methods[u]),
               shard_status_str(s));
        int64_t c = -1;
        shard_plan_info(plan, NULL, NULL, NULL, NULL, &c, NULL);
        long long total = c, want = opts.approx.candidates;
        MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        expect(s != SMM_OK || total == want, __LINE__, "candidates of the ranks add up to %lld, not %lld", total,
               want);
        int64_t *idx = malloc((size_t)(m * topk) * sizeof(int64_t));
        float *val = malloc((size_t)(m * topk) * sizeof(float));
        if (s == SMM_OK)
            s = shard_plan_topk(plan, m, Q, k, topk, SHARD_ALL_RANKS, idx, val, topk);
        expect(s == SMM_OK, __LINE__, "shard_plan_topk: %s", shard_status_str(s));
        int64_t bad = -1;
        for (int64_t i = 0; s == SMM_OK && i < m * topk && bad < 0; i++) {
            const int64_t j = idx[i];
            double d = 0.0;
            for (int64_t t = 0; j >= 0 && j < n && t < k; t++)
                d += (double)Q[(i / topk) * k + t] * (double)B[j * k + t];
            int repeated = 0;
            for (int64_t t = i - i % topk; t < i; t++)
                repeated |= idx[t] == j;
            if (j < 0 || j >= n || repeated || val[i] != (float)d || (i % topk > 0 && val[i] > val[i - 1]))
                bad = i;
        }
        expect(bad < 0, __LINE__, "%s: entry %lld of the result is no exact, ordered, distinct entry",
               sketch_method_name(methods[u]), (long long)bad);
        free(idx);
        free(val);
        shard_plan_free(plan);
    }
    free(rows);
    free(B);
    free(Q);
}

/* Every rank got status `want` naming failing rank `who`. */
static void expect_failure(const char *what, int line, smm_status got, smm_status want, int who)
{
    shard_call_info info;
    shard_last_call(&info);
    expect(got == want && info.failed_rank == who, line, "%s: status %s from rank %d, expected %s from rank %d",
           what, shard_status_str(got), info.failed_rank, shard_status_str(want), who);
}

/* Bad input on one rank: the same status everywhere, the failing rank named, nothing written, the next call works. */
static void test_errors(void)
{
    const int64_t n = 600, k = 24, m = 20, topk = 5, ldk = topk;
    float *B = database(n, k, 9), *Q = database(m, k, 10);
    int64_t *rows = malloc((size_t)ranks * sizeof(int64_t));
    split_rows(SPLIT_EVEN, n, topk, rows);
    const int64_t first = first_of(rows, rank);
    const int last = ranks - 1;
    shard_options opts = SHARD_OPTIONS_INIT;
    shard_plan *plan = NULL;
    smm_status s;

    /* NaN in the last rank's block: the exact copy and an approximate plan both refuse it */
    float *mine = malloc((size_t)(rows[rank] * k) * sizeof(float));
    memcpy(mine, B + first * k, (size_t)(rows[rank] * k) * sizeof(float));
    if (rank == last)
        mine[rows[rank] * k / 2] = NAN;
    s = shard_plan_create(MPI_COMM_WORLD, k, first, rows[rank], mine, k, &opts, &plan);
    expect_failure("NaN in a block (exact)", __LINE__, s, SMM_ERR_NON_FINITE, last);
    expect(plan == NULL, __LINE__, "a failed create left a plan");
    shard_options lowrank = SHARD_OPTIONS_INIT;
    lowrank.exact = 0;
    lowrank.approx.method = SKETCH_LOWRANK;
    lowrank.approx.size = 4;
    s = shard_plan_create(MPI_COMM_WORLD, k, first, rows[rank], mine, k, &lowrank, &plan);
    expect_failure("NaN in a block (lowrank)", __LINE__, s, SMM_ERR_NON_FINITE, last);
    free(mine);

    /* blocks that are not contiguous, another k, other options, a NULL block, a negative size */
    s = shard_plan_create(MPI_COMM_WORLD, k, first + (rank == last), rows[rank], B + first * k, k, &opts, &plan);
    expect_failure("a gap before a block", __LINE__, s, SMM_ERR_BAD_ARGUMENT, last);
    s = shard_plan_create(MPI_COMM_WORLD, rank == last ? k - 1 : k, first, rows[rank], B + first * k, k, &opts, &plan);
    expect_failure("another k", __LINE__, s, last == 0 ? SMM_OK : SMM_ERR_BAD_ARGUMENT, last == 0 ? -1 : last);
    shard_plan_free(plan);
    plan = NULL;
    shard_options other = lowrank;
    other.approx.seed += rank == last;
    s = shard_plan_create(MPI_COMM_WORLD, k, first, rows[rank], B + first * k, k, &other, &plan);
    expect_failure("another seed", __LINE__, s, last == 0 ? SMM_OK : SMM_ERR_BAD_ARGUMENT, last == 0 ? -1 : last);
    shard_plan_free(plan);
    plan = NULL;
    s = shard_plan_create(MPI_COMM_WORLD, k, first, rows[rank], rank == last ? NULL : B + first * k, k, &opts, &plan);
    expect_failure("a NULL block", __LINE__, s, SMM_ERR_NULL_POINTER, last);
    s = shard_plan_create(MPI_COMM_WORLD, k, first, rank == last ? -1 : rows[rank], B + first * k, k, &opts, &plan);
    expect_failure("a negative size", __LINE__, s, SMM_ERR_BAD_SIZE, last);
    s = shard_plan_create(MPI_COMM_WORLD, k, 0, 0, NULL, k, &opts, &plan);
    expect_failure("an empty database", __LINE__, s, SMM_ERR_BAD_SIZE, 0);

    /* pq needs 16 rows per block: a block of 10 on the last rank */
    int64_t *small = malloc((size_t)ranks * sizeof(int64_t));
    for (int r = 0; r < ranks; r++)
        small[r] = r == last ? 10 : 100;
    shard_options pq = SHARD_OPTIONS_INIT;
    pq.exact = 0;
    pq.approx.method = SKETCH_PQ;
    pq.approx.size = 4;
    s = shard_plan_create(MPI_COMM_WORLD, k, first_of(small, rank), small[rank], B + first_of(small, rank) * k, k,
                          &pq, &plan);
    expect_failure("a block too small for pq", __LINE__, s, SMM_ERR_BAD_SIZE, last);
    free(small);

    /* a plan, then bad calls on it */
    s = shard_plan_create(MPI_COMM_WORLD, k, first, rows[rank], B + first * k, k, &opts, &plan);
    expect(s == SMM_OK, __LINE__, "shard_plan_create: %s", shard_status_str(s));
    int64_t *idx = malloc((size_t)(m * ldk) * sizeof(int64_t)), *ref_idx = malloc((size_t)(m * ldk) * sizeof(int64_t));
    float *val = malloc((size_t)(m * ldk) * sizeof(float)), *ref_val = malloc((size_t)(m * ldk) * sizeof(float));
    exact_topk(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_TRANS, m, n, k, Q, k, B, k, topk, ref_idx, ref_val, ldk);
    float *q2 = malloc((size_t)(m * k) * sizeof(float));
    memcpy(q2, Q, (size_t)(m * k) * sizeof(float));
    if (rank == last)
        q2[3] += 1.0f;
    memset(idx, 0x5a, (size_t)(m * ldk) * sizeof(int64_t));
    s = shard_plan_topk(plan, m, q2, k, topk, 0, idx, val, ldk);
    expect_failure("other queries", __LINE__, s, last == 0 ? SMM_OK : SMM_ERR_BAD_ARGUMENT, last == 0 ? -1 : last);
    memset(idx, 0x5a, (size_t)(m * ldk) * sizeof(int64_t));
    s = shard_plan_topk(plan, m, Q, k, rank == last ? topk + 1 : topk, 0, idx, val, ldk);
    expect_failure("another topk", __LINE__, s, last == 0 ? SMM_ERR_BAD_LEADING_DIM : SMM_ERR_BAD_ARGUMENT,
                   last);
    int untouched = idx[0] == (int64_t)0x5a5a5a5a5a5a5a5aLL;
    expect(untouched, __LINE__, "a failed call wrote its output");
    for (int64_t i = 0; i < m * k; i++)
        q2[i] = Q[i];
    q2[k + 1] = INFINITY;
    s = shard_plan_topk(plan, m, q2, k, topk, 0, idx, val, ldk);
    expect_failure("Inf in the queries", __LINE__, s, SMM_ERR_NON_FINITE, 0);
    s = shard_plan_topk(plan, m, Q, k, n + 1, 0, idx, val, ldk);
    expect_failure("topk above n", __LINE__, s, SMM_ERR_BAD_ARGUMENT, 0);
    s = shard_plan_topk(plan, m, Q, k, topk, ranks, idx, val, ldk);
    expect_failure("a root outside the ranks", __LINE__, s, SMM_ERR_BAD_ARGUMENT, 0);
    s = shard_plan_topk(plan, m, Q, k, topk, last, rank == last ? NULL : idx, val, ldk);
    expect_failure("no output on the root", __LINE__, s, SMM_ERR_NULL_POINTER, last);
    s = shard_plan_topk(plan, m, Q, k, topk, last, idx, val, rank == last ? topk - 1 : ldk);
    expect_failure("ldk below topk on the root", __LINE__, s, SMM_ERR_BAD_LEADING_DIM, last);
    s = shard_plan_topk(plan, m, Q, k, topk, 0, idx, (float *)(void *)idx, ldk);
    expect_failure("val over idx", __LINE__, s, SMM_ERR_BAD_ARGUMENT, 0);
    s = shard_plan_topk(plan, 0, NULL, k, topk, 0, NULL, NULL, ldk);
    expect_failure("no queries", __LINE__, s, SMM_OK, -1);

    /* and the plan still answers */
    s = shard_plan_topk(plan, m, Q, k, topk, SHARD_ALL_RANKS, idx, val, ldk);
    expect(s == SMM_OK && memcmp(idx, ref_idx, (size_t)(m * ldk) * sizeof(int64_t)) == 0 &&
               memcmp(val, ref_val, (size_t)(m * ldk) * sizeof(float)) == 0,
           __LINE__, "the call after the failures: %s, or a result that differs", shard_status_str(s));
    shard_plan_free(plan);

    /* an approximate plan whose last rank's share of the candidates is below topk: blocks of 1000 and a
     * last one of 10, C = 10 per large block: shares of 9 or 10, and 1 for the last, which returns its best
     * 1: the top-k is chosen among C candidates in all, as in one process (one rank: C = topk) */
    const int64_t big = 1000, tail = 10, n2 = big * last + tail;
    float *B2 = database(n2, k, 11);
    const int64_t first2 = big * rank, rows2 = rank == last ? tail : big;
    lowrank.approx.candidates = last == 0 ? (int32_t)topk : (int32_t)(10 * last);
    s = shard_plan_create(MPI_COMM_WORLD, k, first2, rows2, B2 + first2 * k, k, &lowrank, &plan);
    expect(s == SMM_OK, __LINE__, "shard_plan_create (lowrank): %s", shard_status_str(s));
    int64_t share = 0;
    shard_plan_info(plan, NULL, NULL, NULL, NULL, &share, NULL);
    expect(rank != last || share == (last == 0 ? topk : 1), __LINE__, "the last rank's share is %lld",
           (long long)share);
    s = shard_plan_topk(plan, m, Q, k, lowrank.approx.candidates + 1, 0, idx, val, ldk);
    expect_failure("topk above the candidates", __LINE__, s, SMM_ERR_BAD_ARGUMENT, 0);
    s = shard_plan_topk(plan, m, Q, k, topk, SHARD_ALL_RANKS, idx, val, ldk);
    expect(s == SMM_OK, __LINE__, "a share of candidates below topk: %s", shard_status_str(s));
    int64_t bad = -1;
    for (int64_t i = 0; s == SMM_OK && i < m * topk && bad < 0; i++) {
        const int64_t j = idx[i];
        double d = 0.0;
        for (int64_t t = 0; j >= 0 && j < n2 && t < k; t++)
            d += (double)Q[(i / topk) * k + t] * (double)B2[j * k + t];
        if (j < 0 || j >= n2 || val[i] != (float)d)
            bad = i;
    }
    expect(bad < 0, __LINE__, "a share of candidates below topk: entry %lld is no exact entry", (long long)bad);
    shard_plan_free(plan);
    free(B2);

    free(q2);
    free(idx);
    free(val);
    free(ref_idx);
    free(ref_val);
    free(rows);
    free(B);
    free(Q);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    test_exact_identity();
    test_exact_small();
    test_approx_all_candidates();
    test_approx_values_exact();
    test_errors();
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("test_shard_topk at %d rank%s: %d failure%s\n", ranks, ranks == 1 ? "" : "s", total,
               total == 1 ? "" : "s");
    MPI_Finalize();
    return total == 0 ? 0 : 1;
}
