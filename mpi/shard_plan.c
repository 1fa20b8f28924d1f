/*
 * shard_plan.c - the plan of a rank's block of a sharded database: options,
 * creation (the ranks agree on the layout and the options, then each plans
 * its own block), layout queries and release. See sketchmm/shard_topk.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "shard_internal.h"

const char *shard_status_str(smm_status s)
{
    return s == SHARD_ERR_MPI ? "an MPI call failed" : smm_status_str(s);
}

void shard_options_init(shard_options *opts)
{
    if (opts != NULL) {
        const shard_options defaults = SHARD_OPTIONS_INIT;
        *opts = defaults;
    }
}

/*
 * Rank r's share of C candidates: floor(C (first + rows) / n) - floor(C first
 * / n), raised to 1 and cut to rows (0 when C is 0: the method's default).
 * The products fit in 128 bits.
 */
static int64_t candidates_share(int64_t C, int64_t first, int64_t rows, int64_t n)
{
    if (C == 0 || rows == 0)
        return 0;
    __extension__ typedef unsigned __int128 u128;
    int64_t share = (int64_t)((u128)C * (u128)(first + rows) / (u128)n - (u128)C * (u128)first / (u128)n);
    return share < 1 ? 1 : share > rows ? rows : share;
}

/* The size the method runs with (its default when 0), so that 0 and the default agree between ranks. */
static int64_t approx_size_of(const approx_options *o)
{
    return o->size != 0 ? o->size : approx_default_size(o->method);
}

/* What every rank must pass alike: k and the options (the method's only when approximate; flags are each rank's). */
enum { FACT_K, FACT_EXACT, FACT_METHOD, FACT_SIZE, FACT_SEED, FACT_CANDIDATES, FACT_ENERGY, FACT_COUNT };

static void option_facts(int64_t k, const shard_options *o, int64_t facts[FACT_COUNT])
{
    memset(facts, 0, FACT_COUNT * sizeof(int64_t));
    facts[FACT_K] = k;
    facts[FACT_EXACT] = o->exact != 0;
    if (!o->exact) {
        facts[FACT_METHOD] = (int64_t)o->approx.method;
        facts[FACT_SIZE] = approx_size_of(&o->approx);
        facts[FACT_SEED] = (int64_t)o->approx.seed;
        facts[FACT_CANDIDATES] = o->approx.candidates;
        memcpy(&facts[FACT_ENERGY], &o->approx.energy, sizeof(double));
    }
}

/* This rank's arguments, before anything is exchanged. */
static smm_status check_arguments(int64_t k, int64_t first, int64_t rows, const float *B, int64_t ldb,
                                  const shard_options *o, shard_plan **plan)
{
    if (plan == NULL || (B == NULL && rows > 0))
        return SMM_ERR_NULL_POINTER;
    if (k < 1 || rows < 0 || first < 0 || rows > INT64_MAX - first)
        return SMM_ERR_BAD_SIZE;
    if (ldb < k)
        return SMM_ERR_BAD_LEADING_DIM;
    if (o->exact)
        return SMM_OK;
    if (o->approx.candidates < 0)
        return SMM_ERR_BAD_ARGUMENT;
    approx_options local = o->approx; /* the total of candidates is split later, so it may exceed rows */
    local.candidates = 0;
    return rows > 0 ? approx_check_sizes(&local, k, rows, NULL, 0) : SMM_OK;
}

/*
 * The exact method's block, checked finite: the caller's (borrow) or a copy
 * in *owned, p->block pointing at it.
 */
static smm_status exact_block(shard_plan *p, const float *B, int64_t ldb, int borrow)
{
    const int64_t rows = p->rows, k = p->k;
    if (rows == 0)
        return SMM_OK;
    if (borrow) {
        for (int64_t i = 0; i < rows; i++)
            for (int64_t t = 0; t < k; t++)
                if (!isfinite(B[i * ldb + t]))
                    return SMM_ERR_NON_FINITE;
        p->block = B;
        p->ldb = ldb;
        return SMM_OK;
    }
    if ((uint64_t)rows > SIZE_MAX / sizeof(float) / (uint64_t)k)
        return SMM_ERR_OVERFLOW;
    float *copy = malloc((size_t)rows * (size_t)k * sizeof(float));
    if (copy == NULL)
        return SMM_ERR_NO_MEMORY;
    int finite = 1;
    for (int64_t i = 0; i < rows; i++) {
        const float *src = B + i * ldb;
        float *dst = copy + i * k;
        for (int64_t t = 0; t < k; t++) {
            dst[t] = src[t];
            finite &= isfinite(src[t]) != 0;
        }
    }
    if (!finite) {
        free(copy);
        return SMM_ERR_NON_FINITE;
    }
    p->owned = copy;
    p->block = copy;
    p->ldb = k;
    return SMM_OK;
}

static void release(shard_plan *p)
{
    if (p == NULL)
        return;
    approx_plan_free(p->approx);
    free(p->owned);
    if (p->comm != MPI_COMM_NULL)
        MPI_Comm_free(&p->comm);
    free(p);
}

smm_status shard_plan_create(MPI_Comm comm, int64_t k, int64_t first, int64_t rows, const float *B, int64_t ldb,
                             const shard_options *opts, shard_plan **plan)
{
    if (plan != NULL)
        *plan = NULL;
    int up = 0, down = 0;
    if (MPI_Initialized(&up) != MPI_SUCCESS || !up || MPI_Finalized(&down) != MPI_SUCCESS || down ||
        comm == MPI_COMM_NULL)
        return SHARD_ERR_MPI;
    shard_call_info info = { 0.0, 0.0, 0.0, 0.0, 0.0, -1 };
    const double t0 = MPI_Wtime();
    shard_options o = SHARD_OPTIONS_INIT;
    if (opts != NULL)
        o = *opts;

    shard_plan *p = calloc(1, sizeof *p);
    if (p != NULL)
        p->comm = MPI_COMM_NULL; /* not necessarily all zero bits */
    MPI_Comm dup = MPI_COMM_NULL;
    smm_status s = shard_mpi_status(MPI_Comm_dup(comm, &dup));
    if (s == SMM_OK)
        s = shard_mpi_status(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN));
    if (s != SMM_OK) {
        free(p);
        if (dup != MPI_COMM_NULL)
            MPI_Comm_free(&dup);
        return s;
    }
    int rank = 0, ranks = 1;
    MPI_Comm_rank(dup, &rank);
    MPI_Comm_size(dup, &ranks);
    s = p == NULL ? SMM_ERR_NO_MEMORY : check_arguments(k, first, rows, B, ldb, &o, plan);

    /* the ranks compare k and the options with rank 0's, and the blocks with the running sum of rows */
    int64_t facts[FACT_COUNT], ref[FACT_COUNT];
    option_facts(k, &o, facts);
    smm_status t = shard_reference_facts(dup, facts, FACT_COUNT, ref);
    if (s == SMM_OK && t == SMM_OK && memcmp(facts, ref, sizeof facts) != 0)
        s = SMM_ERR_BAD_ARGUMENT;
    int64_t mine = s == SMM_OK ? rows : 0, before = 0, n = 0;
    int err = MPI_Exscan(&mine, &before, 1, MPI_INT64_T, MPI_SUM, dup);
    if (err == MPI_SUCCESS)
        err = MPI_Allreduce(&mine, &n, 1, MPI_INT64_T, MPI_SUM, dup);
    if (t == SMM_OK)
        t = shard_mpi_status(err);
    if (s == SMM_OK && (rank == 0 ? 0 : before) != first)
        s = SMM_ERR_BAD_ARGUMENT;
    if (s == SMM_OK && n == 0)
        s = SMM_ERR_BAD_SIZE;
    if (s == SMM_OK)
        s = t;
    s = shard_agree(dup, s, &info.failed_rank);
    info.check = MPI_Wtime() - t0;

    /* each rank plans its own block */
    if (s == SMM_OK) {
        const double t1 = MPI_Wtime();
        p->comm = dup;
        dup = MPI_COMM_NULL;
        p->rank = rank;
        p->ranks = ranks;
        p->k = k;
        p->n = n;
        p->first = first;
        p->rows = rows;
        p->exact = o.exact != 0;
        smm_status mine_s;
        if (p->exact) {
            mine_s = exact_block(p, B, ldb, (o.approx.flags & APPROX_BORROW_B) != 0);
        } else {
            p->total = o.approx.candidates;
            p->candidates = candidates_share(o.approx.candidates, first, rows, n);
            approx_options local = o.approx; /* the share of the candidates goes with each call */
            local.candidates = 0;
            mine_s = rows > 0 ? approx_plan_create(SMM_ROW_MAJOR, SMM_TRANS, k, rows, B, ldb, &local, NULL,
                                                   &p->approx)
                              : SMM_OK;
        }
        info.plan = MPI_Wtime() - t1;
        const double t2 = MPI_Wtime();
        s = shard_agree(p->comm, mine_s, &info.failed_rank);
        info.check += MPI_Wtime() - t2;
    }
    if (dup != MPI_COMM_NULL)
        MPI_Comm_free(&dup);
    if (s == SMM_OK)
        *plan = p;
    else
        release(p);
    shard_set_last_call(&info);
    return s;
}

void shard_plan_free(shard_plan *plan)
{
    release(plan);
}

smm_status shard_plan_info(const shard_plan *plan, int64_t *n, int64_t *k, int64_t *first, int64_t *rows,
                           int64_t *candidates, int *ranks)
{
    if (plan == NULL)
        return SMM_ERR_NULL_POINTER;
    if (n != NULL)
        *n = plan->n;
    if (k != NULL)
        *k = plan->k;
    if (first != NULL)
        *first = plan->first;
    if (rows != NULL)
        *rows = plan->rows;
    if (candidates != NULL)
        *candidates = plan->candidates;
    if (ranks != NULL)
        *ranks = plan->ranks;
    return SMM_OK;
}
