/*
 * bench_topk.c - mode `topk`: the project's top-k task, the 10 largest inner
 * products of each of m query vectors with n database vectors (default: the
 * 10,000 Fashion-MNIST test images against the 60,000 training images,
 * k = 784), by sketchmm's exact_topk and approximate plans, against
 * OpenBLAS computing the same blocks of scores, FAISS and hnswlib.
 *
 * Contenders, all with --threads threads:
 *   exact_topk        sketchmm's exact reference (exact_sgemm blocks + a
 *                     streaming per-row selection).
 *   openblas blocks   the same computation with OpenBLAS's cblas_sgemm in
 *                     place of exact_sgemm: exact_topk's blocks (its
 *                     configuration's rows per task and columns per block,
 *                     exact_topk_block; 256 x 2048 untuned at k = 784), one
 *                     single-threaded SGEMM per block and
 *                     the rows' selections fed from it while it is in the
 *                     cache, the column split of topk_stream when the row
 *                     blocks are too few for the threads. The selection is
 *                     sketchmm's own (approx/approx_select.h, linked from
 *                     the static library, same kernels and ISA path). The
 *                     the target: exact_topk within 1.1x of this.
 *   faiss flat_ip     FAISS IndexFlatIP (exact brute force: BLAS blocks and
 *                     a heap per query).
 *   faiss pq_fs+rf    FAISS IndexRefineFlat(IndexPQFastScan(M, 4 bits,
 *                     inner product)), k_factor = candidates / 10: PQ fast
 *                     scan picks the candidates, exact inner products
 *                     re-rank them. Creation: training on the database and
 *                     adding it.
 *   hnswlib           an HNSW graph (hnswlib, M = --hnsw-m, ef_construction
 *                     = --hnsw-efc) over the database reduced to L2 by the
 *                     MIPS-to-nearest-neighbour reduction (hnsw_peer_bridge.h),
 *                     searched at every ef of --hnsw-ef (the cand column).
 *                     Creation: building the graph.
 *   sketchmm methods  approx_plan_create on the database (creation), then
 *                     approx_plan_topk with the given candidates (queries).
 *
 * Recall@10 is the sweep's (experiments/topk_recall.h), value-based: a
 * returned column counts when its inner product (recomputed in double,
 * rounded to float, for every contender alike) is at least the float of the
 * 10th largest of the row, the smallest inner product of exact_topk's ten
 * (so ties at the cut count for every contender, and exact_topk scores 1 by
 * construction).
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <omp.h>

#include "bench_cli.h"
#include "bench_contention.h"
#include "bench_modes.h"
#include "bench_report.h"
#include "approx/approx_select.h"
#include "approx/exact_topk.h"
#include "bench_timing.h"
#include "cli_args.h"
#include "data/dataset.h"
#include "faiss_peer.h"
#include "hnsw_peer.h"
#ifdef SKETCHMM_HAVE_HNSWLIB
#include "hnsw_peer_bridge.h"
#endif
#include "peer_blas.h"
#include "topk_recall.h"
#include "sketchmm.h"

#define TOPK 10
#define DIM 784                 /* Fashion-MNIST's 28 x 28, and the Gaussian data's dimension */
#define FMNIST_TEST 10000
#define FMNIST_TRAIN 60000
#define MAX_ROWS (INT64_C(1) << 24)
#define DEFAULT_THREADS 2
#define DEFAULT_REPS 3
#define SETTLE_SECONDS 0.03     /* pause before each timed call (idle OpenMP / BLAS threads stop spinning) */
#define MAX_BLOCK_ROWS 4096     /* --ob-rows */
#define SPLIT_BYTES (256.0 * 1024 * 1024) /* topk_stream's cap on the column split's partial lists */
#define MAX_METHOD_VALUE 64     /* sketch_method values tried when a name is looked up */
#define SEED_QUERIES 1          /* --dataset gaussian */
#define SEED_DATABASE 2
#define HNSW_SEED 100           /* hnswlib's level generator (its own default) */

static const char *const dataset_names[] = { "fashion-mnist", "gaussian", NULL };
enum { DATA_FASHION_MNIST = 0, DATA_GAUSSIAN = 1 };

static const char *const default_methods = "simhash:256,simhash:1024,gaussian_projection:64,countsketch:256,lowrank:64";

typedef struct {
    sketch_method method;
    int32_t size; /* bits (sketch families) or sketch_dim */
    int uses_bits;
    char label[48];
} method_spec;

typedef struct {
    /* the options */
    int64_t m, n;
    int dataset;
    const char *data_dir; /* NULL: $SKETCHMM_FASHION_MNIST_DIR or the default */
    int64_t threads, reps;
    const char *methods;  /* NULL: default_methods */
    bench_int_list candidates, faiss_pq;
    int64_t faiss_build_threads; /* 0: --threads */
    int64_t ob_rows;             /* rows per task of openblas blocks; 0: exact_topk's */
    bench_int_list hnsw_ef;      /* hnswlib's search breadths (empty: no hnswlib rows) */
    int64_t hnsw_m, hnsw_efc;
    /* from them */
    method_spec specs[BENCH_MAX_LIST];
    int nspecs;
} topk_config;

/* exact_topk's block of scores for products of length dim on the current path (approx/exact_topk.h). */
static topk_shape exact_block(int64_t dim)
{
    const int isa = smm_isa_now();
    return exact_topk_block(isa > 0 ? (smm_isa)isa : SMM_ISA_SCALAR, dim);
}

static void describe(FILE *out)
{
    fprintf(out,
        "  The top-%d inner products of each of m queries against n database vectors (k = %d):\n"
        "  Fashion-MNIST test images (queries) against training images (database), or i.i.d.\n"
        "  N(0, 1) vectors of the same shapes (--dataset gaussian, the hard case). Contenders, each\n"
        "  on --threads threads: exact_topk; 'openblas blocks', the same %lldx%lld blocks of scores\n"
        "  from OpenBLAS cblas_sgemm (single-threaded per block, the threads sharing the blocks) with\n"
        "  the same streaming selection, sketchmm's own (approx_select.h, same ISA path); FAISS\n"
        "  IndexFlatIP and IndexRefineFlat(IndexPQFastScan(M, 4 bits, inner product)) with\n"
        "  k_factor = candidates / %d (when FAISS was built in); hnswlib's HNSW graph over the\n"
        "  database reduced to L2 (x' = [x, sqrt(R^2 - |x|^2)], q' = [q, 0], R the largest norm),\n"
        "  searched at each ef of --hnsw-ef (the cand column; when hnswlib was built in); and the\n"
        "  sketchmm methods of --methods through approx_plan_create (creation) and\n"
        "  approx_plan_topk (queries).\n"
        "  exact_topk and openblas blocks alternate within each of --reps rounds; the ratio of\n"
        "  their times is the median of the per-round ratios ('+-': half their interquartile range).\n"
        "  Table: median seconds of creation and of the queries, one-shot = their sum, speedup =\n"
        "  exact_topk's median seconds (same run) over the contender's (queries; one-shot), the\n"
        "  median phase times the calls report (approx_call.times; encode_b from the creation), and\n"
        "  recall@%d as the sweep reports it (experiments/topk_recall.h): a returned column counts\n"
        "  when its inner product (in double, rounded to float) is at least the row's %dth largest\n"
        "  exact one, so ties count as hits. Each timed call follows a %g ms pause.\n",
        TOPK, DIM, (long long)exact_block(DIM).rows, (long long)exact_block(DIM).cols, TOPK, TOPK, TOPK,
        SETTLE_SECONDS * 1e3);
}

/* ------------------------------------------------------------------------ */
/* Options                                                                  */
/* ------------------------------------------------------------------------ */

/* sketch_method by name[0 .. length) (sketch_method_from_name: methods added later parse too). */
static int method_by_name(const char *name, size_t length, sketch_method *out)
{
    char buf[64];
    if (length >= sizeof buf)
        return 0;
    memcpy(buf, name, length);
    buf[length] = '\0';
    *out = sketch_method_from_name(buf);
    return *out != 0;
}

static void list_method_names(char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int v = 0; v <= MAX_METHOD_VALUE && used < size; v++) {
        const char *known = sketch_method_name((sketch_method)v);
        if (known != NULL)
            used += (size_t)snprintf(buf + used, size - used, "%s%s%s", used ? ", " : "", known,
                                     sketch_method_uses_bits((sketch_method)v) ? ":BITS" : ":DIM");
    }
}

typedef struct {
    topk_config *cfg;
    char why[512];
} methods_ctx;

static int method_item(const char *item, int index, void *arg)
{
    methods_ctx *ctx = arg;
    const char *colon = strchr(item, ':');
    sketch_method method;
    if (colon == NULL) {
        snprintf(ctx->why, sizeof ctx->why, "'%s' has no size (NAME:SIZE)", item);
        return 0;
    }
    if (!method_by_name(item, (size_t)(colon - item), &method)) {
        snprintf(ctx->why, sizeof ctx->why, "unknown method '%.*s'", (int)(colon - item), item);
        return 0;
    }
    const int uses_bits = sketch_method_uses_bits(method);
    const int64_t most = uses_bits ? SKETCH_MAX_BITS : APPROX_MAX_SKETCH_DIM;
    int64_t size;
    if (!cli_parse_i64(colon + 1, 1, most, &size)) {
        snprintf(ctx->why, sizeof ctx->why, "'%s': %s wants %s in [1, %lld]", item, sketch_method_name(method),
                 uses_bits ? "bits" : "a sketch dimension", (long long)most);
        return 0;
    }
    method_spec *spec = &ctx->cfg->specs[index];
    spec->method = method;
    spec->size = (int32_t)size;
    spec->uses_bits = uses_bits;
    snprintf(spec->label, sizeof spec->label, "%s=%lld", uses_bits ? "bits" : "dim", (long long)size);
    ctx->cfg->nspecs = index + 1;
    return 1;
}

static int parse_methods(topk_config *cfg, const char *text)
{
    methods_ctx ctx = { cfg, "" };
    cfg->nspecs = 0;
    char why[256] = "";
    if (cli_split_list(text, BENCH_MAX_LIST, method_item, &ctx, why, sizeof why) > 0)
        return 0;
    char names[1024];
    list_method_names(names, sizeof names);
    return bench_usage_error("--methods wants NAME:SIZE,... (%s), got '%s': %s", names, text,
                             ctx.why[0] ? ctx.why : why[0] ? why : "an empty item");
}

static int check_options(void *config)
{
    topk_config *cfg = config;
    if (cfg->dataset == DATA_FASHION_MNIST) {
        if (cfg->m > FMNIST_TEST)
            return bench_usage_error("--m: Fashion-MNIST has %d test images, got %lld", FMNIST_TEST,
                                     (long long)cfg->m);
        if (cfg->n > FMNIST_TRAIN)
            return bench_usage_error("--n: Fashion-MNIST has %d training images, got %lld", FMNIST_TRAIN,
                                     (long long)cfg->n);
    } else if (cfg->data_dir != NULL) {
        return bench_usage_error("--data-dir applies to --dataset fashion-mnist only");
    }
    if (cfg->n < TOPK)
        return bench_usage_error("--n must be at least %d (the top %d)", TOPK, TOPK);
    for (int c = 0; c < cfg->candidates.count; c++)
        if (cfg->candidates.v[c] > cfg->n)
            return bench_usage_error("--candidates: %lld is more than --n %lld", (long long)cfg->candidates.v[c],
                                     (long long)cfg->n);
    for (int q = 0; q < cfg->hnsw_ef.count; q++) {
        if (cfg->hnsw_ef.v[q] == 0 && cfg->hnsw_ef.count > 1)
            return bench_usage_error("--hnsw-ef: 0 (no hnswlib rows) stands alone");
        if (cfg->hnsw_ef.v[q] == 0)
            cfg->hnsw_ef.count = 0;
    }
    for (int q = 0; q < cfg->faiss_pq.count; q++) {
        if (cfg->faiss_pq.v[q] == 0 && cfg->faiss_pq.count > 1)
            return bench_usage_error("--faiss-pq: 0 (no PQ contender) stands alone");
        if (cfg->faiss_pq.v[q] == 0)
            cfg->faiss_pq.count = 0;
        else if (DIM % cfg->faiss_pq.v[q] != 0)
            return bench_usage_error("--faiss-pq: M = %lld does not divide k = %d", (long long)cfg->faiss_pq.v[q],
                                     DIM);
    }
    return parse_methods(cfg, cfg->methods != NULL ? cfg->methods : default_methods);
}

/* ------------------------------------------------------------------------ */
/* Data and recall                                                          */
/* ------------------------------------------------------------------------ */

static int load_data(const topk_config *cfg, dataset_matrix *A, dataset_matrix *B)
{
    char msg[512] = "";
    smm_status s;
    if (cfg->dataset == DATA_FASHION_MNIST) {
        s = dataset_load_fashion_mnist(cfg->data_dir, "t10k", cfg->m, A, msg, sizeof msg);
        if (s == SMM_OK)
            s = dataset_load_fashion_mnist(cfg->data_dir, "train", cfg->n, B, msg, sizeof msg);
    } else {
        s = dataset_gaussian(cfg->m, DIM, SEED_QUERIES, A);
        if (s == SMM_OK)
            s = dataset_gaussian(cfg->n, DIM, SEED_DATABASE, B);
    }
    if (s != SMM_OK) {
        bench_error("loading the data failed: %s%s%s", dataset_status_str(s), msg[0] ? ": " : "", msg);
        return 0;
    }
    if (A->rows < cfg->m || B->rows < cfg->n || A->cols != DIM || B->cols != DIM) {
        bench_error("the data has %lld x %lld queries and %lld x %lld database vectors, expected %lld and %lld x %d",
                    (long long)A->rows, (long long)A->cols, (long long)B->rows, (long long)B->cols,
                    (long long)cfg->m, (long long)cfg->n, DIM);
        return 0;
    }
    return 1;
}

/* The problem every contender solves, and the recall threshold of each row (topk_recall.h). */
typedef struct {
    const float *A, *B; /* m x k queries, n x k database, row-major */
    int64_t m, n, k;
    float *thr;         /* per row: float of the TOPK-th largest inner product, in double */
} topk_problem;

/* The recall@TOPK of a result (m x TOPK indices), as the sweep reports it. */
static double recall_of(const topk_problem *p, const int64_t *idx)
{
    return topk_recall(p->A, p->B, p->m, p->n, p->k, idx, TOPK, TOPK, p->thr);
}

/* ------------------------------------------------------------------------ */
/* openblas blocks: topk_stream's schedule with OpenBLAS's SGEMM            */
/* ------------------------------------------------------------------------ */

typedef struct {
    peer_sgemm_fn sgemm;
    smm_isa isa; /* the selection's kernels: sketchmm's own path */
    int threads;
    int64_t rows; /* per task */
    int64_t cols; /* per block */
} openblas_blocks;

/* 0 on success, -1 when memory ran out. */
static int openblas_blocks_topk(const openblas_blocks *ob, const topk_problem *p, int64_t *idx, float *val)
{
    const int64_t m = p->m, n = p->n, k = p->k, r = TOPK, RB = ob->rows, CB = ob->cols;
    const int64_t row_blocks = (m + RB - 1) / RB, col_blocks = (n + CB - 1) / CB;
    const int64_t task_rows = m < RB ? m : RB, block_cols = n < CB ? n : CB;
    const int64_t cap = top_select_capacity(r), kept_r = r < n ? r : n;
    int64_t csplit = 1;
    if (row_blocks < 2 * (int64_t)ob->threads) {
        csplit = (2 * (int64_t)ob->threads + row_blocks - 1) / row_blocks;
        if (csplit > col_blocks)
            csplit = col_blocks;
        while (csplit > 1 && (double)m * (double)csplit * (double)kept_r * sizeof(scored_index) > SPLIT_BYTES)
            csplit--;
    }
    const int64_t tasks = row_blocks * csplit;
    const int team = tasks < ob->threads ? (int)tasks : ob->threads;
    const size_t block_bytes = ((size_t)(task_rows * block_cols) * sizeof(float) + 63) & ~(size_t)63;
    const size_t sels_bytes = ((size_t)task_rows * sizeof(top_select) + 63) & ~(size_t)63;
    const size_t bufs_bytes = ((size_t)(task_rows * cap) * sizeof(scored_index) + 63) & ~(size_t)63;
    const size_t merge_bytes = ((size_t)(csplit * kept_r) * sizeof(scored_index) + 63) & ~(size_t)63;
    const size_t per_thread = block_bytes + sels_bytes + bufs_bytes + merge_bytes;
    char *work = aligned_alloc(64, per_thread * (size_t)team);
    scored_index *parts = csplit > 1 ? malloc((size_t)(m * csplit * kept_r) * sizeof(scored_index)) : NULL;
    int64_t *lens = csplit > 1 ? malloc((size_t)(m * csplit) * sizeof(int64_t)) : NULL;
    if (work == NULL || (csplit > 1 && (parts == NULL || lens == NULL))) {
        free(work);
        free(parts);
        free(lens);
        return -1;
    }
#pragma omp parallel num_threads(team)
    {
        char *mine = work + per_thread * (size_t)omp_get_thread_num();
        float *block = (float *)mine;
        top_select *sel = (top_select *)(mine + block_bytes);
        scored_index *bufs = (scored_index *)(mine + block_bytes + sels_bytes);
        scored_index *merge = (scored_index *)(mine + block_bytes + sels_bytes + bufs_bytes);
#pragma omp for schedule(dynamic, 1)
        for (int64_t task = 0; task < tasks; task++) {
            const int64_t i0 = (task / csplit) * RB, c = task % csplit;
            const int64_t rows = m - i0 < RB ? m - i0 : RB;
            const int64_t cb0 = col_blocks * c / csplit, cb1 = col_blocks * (c + 1) / csplit;
            for (int64_t row = 0; row < rows; row++)
                top_select_init(&sel[row], bufs + row * cap, r, ob->isa);
            for (int64_t cb = cb0; cb < cb1; cb++) {
                const int64_t j0 = cb * CB, cols = n - j0 < CB ? n - j0 : CB;
                /* scores(i, j) = <a_i, b_j>: A (rows x k) times B's rows j0.. transposed */
                ob->sgemm(101 /* CblasRowMajor */, 111 /* CblasNoTrans */, 112 /* CblasTrans */, (int)rows,
                          (int)cols, (int)k, 1.0f, p->A + i0 * k, (int)k, p->B + j0 * k, (int)k, 0.0f, block,
                          (int)block_cols);
                for (int64_t row = 0; row < rows; row++)
                    top_select_feed(&sel[row], block + row * block_cols, j0, cols);
            }
            for (int64_t row = 0; row < rows; row++) {
                const int64_t count = top_select_finish(&sel[row], 1);
                if (csplit == 1) {
                    for (int64_t t = 0; t < count; t++) {
                        idx[(i0 + row) * r + t] = sel[row].buf[t].index;
                        val[(i0 + row) * r + t] = sel[row].buf[t].score;
                    }
                } else {
                    const int64_t slot = (i0 + row) * csplit + c;
                    memcpy(parts + slot * kept_r, sel[row].buf, (size_t)count * sizeof(scored_index));
                    lens[slot] = count;
                }
            }
        }
        if (csplit > 1) {
#pragma omp for schedule(static)
            for (int64_t i = 0; i < m; i++) {
                int64_t total = 0;
                for (int64_t c = 0; c < csplit; c++) {
                    const int64_t slot = i * csplit + c;
                    memcpy(merge + total, parts + slot * kept_r, (size_t)lens[slot] * sizeof(scored_index));
                    total += lens[slot];
                }
                scored_first(merge, total, r);
                for (int64_t t = 0; t < r && t < total; t++) {
                    idx[i * r + t] = merge[t].index;
                    val[i * r + t] = merge[t].score;
                }
            }
        }
    }
    free(work);
    free(parts);
    free(lens);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Timing and rows                                                          */
/* ------------------------------------------------------------------------ */

static void settle(void)
{
    const struct timespec pause = { 0, (long)(SETTLE_SECONDS * 1e9) };
    nanosleep(&pause, NULL);
}

enum { PHASE_ENCODE_B, PHASE_ENCODE_A, PHASE_ESTIMATE, PHASE_REFINE, PHASES };

/* One line of the table. NaN: no figure. */
typedef struct {
    char contender[32];
    char params[48];
    int64_t candidates; /* 0: not applicable */
    double recall, create, query, phase[PHASES], others;
    const char *failure; /* not NULL: the contender failed (the row says why) */
} topk_row;

static void row_init(topk_row *row, const char *contender, const char *params, int64_t candidates)
{
    memset(row, 0, sizeof *row);
    snprintf(row->contender, sizeof row->contender, "%s", contender);
    snprintf(row->params, sizeof row->params, "%s", params);
    row->candidates = candidates;
    row->recall = row->create = row->query = row->others = NAN;
    for (int ph = 0; ph < PHASES; ph++)
        row->phase[ph] = NAN;
}

static void print_header(void)
{
    printf("\n'x query', 'x 1shot': exact_topk's median query seconds over the row's query (one-shot) seconds.\n"
           "Phases (approx_call.times, median seconds): enc_b (creation), enc_a, estimate, refine.\n");
    printf("\n%-19s %-12s %5s %7s %9s %9s %9s %7s %7s %7s %7s %8s %7s %6s\n", "contender", "params", "cand",
           "recall", "create_s", "query_s", "1shot_s", "x query", "x 1shot", "enc_b", "enc_a", "estimate", "refine",
           "other%");
}

static void report(const topk_row *row, double exact_query, const topk_config *cfg, FILE *csv)
{
    const double create = isnan(row->create) ? 0.0 : row->create;
    const double oneshot = create + row->query;
    printf("%-19s %-12s", row->contender, row->params);
    if (row->candidates > 0)
        printf(" %5lld", (long long)row->candidates);
    else
        printf(" %5s", "-");
    if (row->failure != NULL) {
        printf("  failed: %s\n", row->failure);
        fflush(stdout);
        return;
    }
    bench_print_number(row->recall, 7, 4);
    bench_print_number(row->create, 9, 3);
    bench_print_number(row->query, 9, 3);
    bench_print_number(oneshot, 9, 3);
    bench_print_number(exact_query / row->query, 7, 2);
    bench_print_number(exact_query / oneshot, 7, 2);
    bench_print_number(row->phase[PHASE_ENCODE_B], 7, 3);
    bench_print_number(row->phase[PHASE_ENCODE_A], 7, 3);
    bench_print_number(row->phase[PHASE_ESTIMATE], 8, 3);
    bench_print_number(row->phase[PHASE_REFINE], 7, 3);
    bench_print_share(stdout, row->others, 6);
    printf("\n");
    fflush(stdout);
    if (csv == NULL)
        return;
    fprintf(csv, "%s,%lld,%lld,%d,%lld,%lld,%s,%s,%lld", dataset_names[cfg->dataset], (long long)cfg->m,
            (long long)cfg->n, DIM, (long long)cfg->threads, (long long)cfg->reps, row->contender, row->params,
            (long long)row->candidates);
    bench_csv_number(csv, row->recall);
    bench_csv_number(csv, row->create);
    bench_csv_number(csv, row->query);
    bench_csv_number(csv, oneshot);
    bench_csv_number(csv, exact_query / row->query);
    bench_csv_number(csv, exact_query / oneshot);
    for (int ph = 0; ph < PHASES; ph++)
        bench_csv_number(csv, row->phase[ph]);
    bench_csv_number(csv, row->others);
    fprintf(csv, ",%s\n", bench_isa_name());
    fflush(csv);
}

/* Outputs of one contender. */
typedef struct {
    int64_t *idx;
    float *val;
} topk_out;

static void call_exact(const topk_problem *p, topk_out *out)
{
    smm_status s = exact_topk(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_TRANS, p->m, p->n, p->k, p->A, p->k, p->B, p->k, TOPK,
                              out->idx, out->val, TOPK);
    if (s != SMM_OK) {
        bench_error("exact_topk failed: %s", smm_status_str(s));
        exit(BENCH_EXIT_FAILED);
    }
}

static void call_openblas(const openblas_blocks *ob, const topk_problem *p, topk_out *out)
{
    if (openblas_blocks_topk(ob, p, out->idx, out->val) != 0) {
        bench_error("openblas blocks: out of memory");
        exit(BENCH_EXIT_FAILED);
    }
}

/*
 * exact_topk and openblas blocks, alternating in each round. Returns
 * exact_topk's median seconds (the reference of every speedup).
 */
static double run_exact_and_openblas(const topk_config *cfg, const topk_problem *p, peer_blas *openblas,
                                     topk_out *out, FILE *csv, int *status)
{
    const int reps = (int)cfg->reps;
    const int with_ob = peer_blas_ready(openblas);
    const int isa_now = smm_isa_now();
    const topk_shape block = exact_block(p->k);
    openblas_blocks ob = { peer_blas_sgemm(openblas), isa_now > 0 ? (smm_isa)isa_now : SMM_ISA_SCALAR,
                           (int)cfg->threads, cfg->ob_rows > 0 ? cfg->ob_rows : block.rows, block.cols };
    const char *scan_name = top_select_kernels_for(ob.isa)->head.name;
    if (with_ob)
        peer_blas_set_threads(openblas, 1); /* one SGEMM per block on each of the bench's threads */
    double *t_exact = calloc((size_t)reps, sizeof(double)), *t_ob = calloc((size_t)reps, sizeof(double));
    double *ratio = calloc((size_t)reps, sizeof(double));
    if (t_exact == NULL || t_ob == NULL || ratio == NULL) {
        bench_error("out of memory");
        exit(BENCH_EXIT_FAILED);
    }
    /* warm-up of openblas blocks (exact_topk's was the reference run) */
    double recall_ob = NAN;
    if (with_ob) {
        call_openblas(&ob, p, out);
        recall_ob = recall_of(p, out->idx);
    }
    const bench_contention_mark before = bench_contention_now();
    for (int rep = 0; rep < reps; rep++) {
        settle();
        double t0 = bench_now_seconds();
        call_exact(p, out);
        t_exact[rep] = bench_now_seconds() - t0;
        if (!with_ob)
            continue;
        settle();
        t0 = bench_now_seconds();
        call_openblas(&ob, p, out);
        t_ob[rep] = bench_now_seconds() - t0;
        ratio[rep] = t_exact[rep] / t_ob[rep];
    }
    const double others = bench_contention_others(before, bench_contention_now());
    const double exact_median = bench_median(t_exact, reps);
    print_header();
    topk_row row;
    row_init(&row, "exact_topk", "-", 0);
    row.recall = 1.0; /* the reference itself */
    row.query = exact_median;
    row.others = others;
    report(&row, exact_median, cfg, csv);
    double ratio_median = NAN, ratio_spread = NAN;
    if (with_ob) {
        row_init(&row, "openblas blocks", peer_blas_kernel(openblas), 0);
        row.recall = recall_ob;
        row.query = bench_median(t_ob, reps);
        row.others = others;
        report(&row, exact_median, cfg, csv);
        ratio_median = bench_median(ratio, reps);
        ratio_spread = 0.5 * (bench_quantile(ratio, reps, 0.75) - bench_quantile(ratio, reps, 0.25));
        if (recall_ob < 1.0 - 1e-9) {
            bench_error("openblas blocks: recall %.6f, expected 1 (an exact method)", recall_ob);
            *status = BENCH_EXIT_FAILED;
        }
    }
    if (with_ob)
        printf("%-19s time exact_topk / openblas blocks: %.3f +- %.3f (median of %d per-round ratios; "
               "target: <= 1.1); openblas blocks: %lld x %lld, selection scan %s\n",
               "", ratio_median, ratio_spread, reps, (long long)ob.rows, (long long)ob.cols, scan_name);
    else
        printf("%-19s openblas blocks left out: %s\n", "", peer_blas_status(openblas));
    fflush(stdout);
    free(t_exact);
    free(t_ob);
    free(ratio);
    return exact_median;
}

/* One sketchmm method at one candidates count: --reps rounds of create + topk. */
static void run_method(const topk_config *cfg, const topk_problem *p, const method_spec *spec, int64_t candidates,
                       double exact_query, topk_out *out, FILE *csv, int *status)
{
    const int reps = (int)cfg->reps;
    topk_row row;
    row_init(&row, sketch_method_name(spec->method), spec->label, candidates);
    approx_options opts;
    approx_options_init(&opts);
    opts.method = spec->method;
    opts.size = (int32_t)spec->size;
    opts.num_threads = (int32_t)cfg->threads;
    approx_phase_times pt;
    approx_call call = APPROX_CALL_INIT; /* the candidates of the search, per call */
    call.candidates = (int32_t)candidates;
    call.times = &pt;
    double *samples = calloc((size_t)reps * (2 + PHASES), sizeof(double));
    if (samples == NULL) {
        bench_error("out of memory");
        exit(BENCH_EXIT_FAILED);
    }
    double *t_create = samples, *t_query = samples + reps, *phases = samples + 2 * reps;
    static char failure[256];
    const bench_contention_mark before = bench_contention_now();
    for (int rep = 0; rep < reps && row.failure == NULL; rep++) {
        approx_plan *plan = NULL;
        settle();
        double t0 = bench_now_seconds();
        smm_status s = approx_plan_create(SMM_ROW_MAJOR, SMM_TRANS, p->k, p->n, p->B, p->k, &opts, &call, &plan);
        t_create[rep] = bench_now_seconds() - t0;
        if (s == SMM_OK)
            phases[PHASE_ENCODE_B * reps + rep] = pt.encode_b;
        if (s == SMM_OK) {
            settle();
            t0 = bench_now_seconds();
            s = approx_plan_topk(plan, SMM_ROW_MAJOR, SMM_NO_TRANS, p->m, p->A, p->k, TOPK, out->idx, out->val, TOPK,
                                 &call);
            t_query[rep] = bench_now_seconds() - t0;
            if (s == SMM_OK) {
                phases[PHASE_ENCODE_A * reps + rep] = pt.encode_a;
                phases[PHASE_ESTIMATE * reps + rep] = pt.estimate;
                phases[PHASE_REFINE * reps + rep] = pt.refine;
            }
            if (s != SMM_OK)
                snprintf(failure, sizeof failure, "approx_plan_topk: %s", smm_status_str(s));
        } else {
            snprintf(failure, sizeof failure, "approx_plan_create: %s", smm_status_str(s));
        }
        approx_plan_free(plan);
        if (s != SMM_OK) {
            row.failure = failure;
            *status = BENCH_EXIT_FAILED;
        }
    }
    if (row.failure == NULL) {
        row.others = bench_contention_others(before, bench_contention_now());
        row.recall = recall_of(p, out->idx);
        row.create = bench_median(t_create, reps);
        row.query = bench_median(t_query, reps);
        for (int ph = 0; ph < PHASES; ph++)
            row.phase[ph] = bench_median(phases + ph * reps, reps);
    }
    report(&row, exact_query, cfg, csv);
    free(samples);
}

/*
 * A peer's index: how to build it over the database and search it with the
 * search parameter of row c (FAISS PQ: candidates; hnswlib: ef).
 */
typedef struct {
    const char *contender;
    char params[48];
    int nsearch;               /* rows: searches per built index */
    const int64_t *search_arg; /* per row, the candidates column (NULL: 0, not applicable) */
    void *(*build)(const void *ctx, const topk_problem *p, char *err, size_t err_size);
    int (*search)(const void *ctx, void *index, const topk_problem *p, int64_t arg, int64_t *idx, char *err,
                  size_t err_size);
    void (*free_index)(const void *ctx, void *index);
    const void *ctx;
} peer_index;

/* A peer: each round builds the index (timed: creation) and searches it once per row (timed: queries). */
static void run_peer(const topk_config *cfg, const topk_problem *p, const peer_index *peer, double exact_query,
                     topk_out *out, FILE *csv, int *status)
{
    const int reps = (int)cfg->reps, ns = peer->nsearch;
    double *t_create = calloc((size_t)reps, sizeof(double));
    double *t_query = calloc((size_t)(reps * ns), sizeof(double));
    double *recall = calloc((size_t)ns, sizeof(double));
    if (t_create == NULL || t_query == NULL || recall == NULL) {
        bench_error("out of memory");
        exit(BENCH_EXIT_FAILED);
    }
    char err[512] = "";
    const bench_contention_mark before = bench_contention_now();
    int failed = 0;
    for (int rep = 0; rep < reps && !failed; rep++) {
        settle();
        double t0 = bench_now_seconds();
        void *index = peer->build(peer->ctx, p, err, sizeof err);
        t_create[rep] = bench_now_seconds() - t0;
        if (index == NULL) {
            failed = 1;
            break;
        }
        for (int c = 0; c < ns && !failed; c++) {
            const int64_t arg = peer->search_arg != NULL ? peer->search_arg[c] : 0;
            settle();
            t0 = bench_now_seconds();
            failed = peer->search(peer->ctx, index, p, arg, out->idx, err, sizeof err) != 0;
            t_query[c * reps + rep] = bench_now_seconds() - t0;
            if (!failed && rep == reps - 1)
                recall[c] = recall_of(p, out->idx);
        }
        peer->free_index(peer->ctx, index);
    }
    const double others = bench_contention_others(before, bench_contention_now());
    const double create = bench_median(t_create, reps);
    for (int c = 0; c < ns; c++) {
        topk_row row;
        row_init(&row, peer->contender, peer->params, peer->search_arg != NULL ? peer->search_arg[c] : 0);
        if (failed) {
            row.failure = err;
            *status = BENCH_EXIT_FAILED;
        } else {
            row.recall = recall[c];
            row.create = create;
            row.query = bench_median(t_query + c * reps, reps);
            row.others = others;
        }
        report(&row, exact_query, cfg, csv);
        if (failed)
            break;
    }
    free(t_create);
    free(t_query);
    free(recall);
}

/* FAISS: one index kind, and M for PQ. */
typedef struct {
    faiss_peer *faiss;
    int kind;
    int64_t pq_m;
    int build_threads;
    float *D; /* m x TOPK: FAISS's inner products (unused: recall recomputes them) */
} faiss_ctx;

static void *faiss_build(const void *ctx, const topk_problem *p, char *err, size_t err_size)
{
    const faiss_ctx *f = ctx;
    return faiss_peer_build(f->faiss, f->kind, p->k, p->n, p->B, f->pq_m, f->build_threads, err, err_size);
}

static int faiss_search(const void *ctx, void *index, const topk_problem *p, int64_t candidates, int64_t *idx,
                        char *err, size_t err_size)
{
    const faiss_ctx *f = ctx;
    const double k_factor = f->kind == FAISS_PEER_FLAT_IP ? 1.0 : (double)candidates / TOPK;
    return faiss_peer_search(f->faiss, index, p->m, p->A, TOPK, k_factor, f->D, idx, err, err_size);
}

static void faiss_free_index(const void *ctx, void *index)
{
    faiss_peer_index_free(((const faiss_ctx *)ctx)->faiss, index);
}

static void run_faiss(const topk_config *cfg, const topk_problem *p, faiss_peer *faiss, int kind, int64_t pq_m,
                      double exact_query, topk_out *out, FILE *csv, int *status)
{
    faiss_ctx f = { faiss, kind, pq_m, (int)cfg->faiss_build_threads, malloc((size_t)(p->m * TOPK) * sizeof(float)) };
    if (f.D == NULL) {
        bench_error("out of memory");
        exit(BENCH_EXIT_FAILED);
    }
    const int flat = kind == FAISS_PEER_FLAT_IP;
    peer_index peer = { flat ? "faiss flat_ip" : "faiss pq_fs+rf", "-", flat ? 1 : cfg->candidates.count,
                        flat ? NULL : cfg->candidates.v, faiss_build, faiss_search, faiss_free_index, &f };
    if (!flat)
        snprintf(peer.params, sizeof peer.params, "M=%lld", (long long)pq_m);
    run_peer(cfg, p, &peer, exact_query, out, csv, status);
    free(f.D);
}

#ifdef SKETCHMM_HAVE_HNSWLIB
/* hnswlib: one graph (M, ef_construction), searched at every ef of --hnsw-ef. */
typedef struct {
    int64_t M, ef_construction;
    int threads;
} hnsw_ctx;

static void *hnsw_build(const void *ctx, const topk_problem *p, char *err, size_t err_size)
{
    const hnsw_ctx *h = ctx;
    return smm_hnsw_bridge_build(p->k, p->n, p->B, h->M, h->ef_construction, HNSW_SEED, h->threads, err, err_size);
}

static int hnsw_search(const void *ctx, void *index, const topk_problem *p, int64_t ef, int64_t *idx, char *err,
                       size_t err_size)
{
    const hnsw_ctx *h = ctx;
    return smm_hnsw_bridge_search(index, p->m, p->A, TOPK, ef, h->threads, idx, err, err_size);
}

static void hnsw_free_index(const void *ctx, void *index)
{
    (void)ctx;
    smm_hnsw_bridge_free(index);
}

static void run_hnsw(const topk_config *cfg, const topk_problem *p, double exact_query, topk_out *out, FILE *csv,
                     int *status)
{
    const hnsw_ctx h = { cfg->hnsw_m, cfg->hnsw_efc, (int)cfg->threads };
    peer_index peer = { "hnswlib", "", cfg->hnsw_ef.count, cfg->hnsw_ef.v, hnsw_build, hnsw_search,
                        hnsw_free_index, &h };
    snprintf(peer.params, sizeof peer.params, "M=%lld efc=%lld", (long long)h.M, (long long)h.ef_construction);
    run_peer(cfg, p, &peer, exact_query, out, csv, status);
}
#endif

/* ------------------------------------------------------------------------ */
/* Mode                                                                     */
/* ------------------------------------------------------------------------ */

static int run_mode(void *config, FILE *csv)
{
    const topk_config *cfg = config;
    const int threads = (int)cfg->threads;
    peer_blas *openblas = peer_blas_open(PEER_OPENBLAS);
    faiss_peer *faiss = faiss_peer_open();
    printf("%s\n%s\n", peer_blas_status(openblas), faiss_peer_status(faiss));

    dataset_matrix A = { 0, 0, NULL }, B = { 0, 0, NULL };
    if (!load_data(cfg, &A, &B)) {
        peer_blas_free(openblas);
        faiss_peer_free(faiss);
        return BENCH_EXIT_FAILED;
    }
    if (cfg->dataset == DATA_FASHION_MNIST)
        printf("Data: Fashion-MNIST (%s): %lld test images (queries) x %lld training images (database), k = %d\n",
               dataset_fashion_mnist_dir(cfg->data_dir), (long long)cfg->m, (long long)cfg->n, DIM);
    else
        printf("Data: i.i.d. N(0, 1): %lld queries x %lld database vectors, k = %d (seeds %d, %d)\n",
               (long long)cfg->m, (long long)cfg->n, DIM, SEED_QUERIES, SEED_DATABASE);
    printf("Top-%d; threads: %d; timed rounds per contender: %lld (medians)\n", TOPK, threads, (long long)cfg->reps);
    fflush(stdout);

    smm_status s = smm_set_num_threads(threads);
    if (s != SMM_OK) {
        bench_error("smm_set_num_threads(%d) failed: %s", threads, smm_status_str(s));
        dataset_matrix_free(&A);
        dataset_matrix_free(&B);
        peer_blas_free(openblas);
        faiss_peer_free(faiss);
        return BENCH_EXIT_FAILED;
    }
    topk_problem p = { A.data, B.data, cfg->m, cfg->n, DIM, malloc((size_t)cfg->m * sizeof(float)) };
    topk_out out = { malloc((size_t)(cfg->m * TOPK) * sizeof(int64_t)), malloc((size_t)(cfg->m * TOPK) * sizeof(float)) };
    if (p.thr == NULL || out.idx == NULL || out.val == NULL) {
        bench_error("out of memory");
        exit(BENCH_EXIT_FAILED);
    }
    int status = 0;

    /* the reference: exact_topk once (also its warm-up) */
    call_exact(&p, &out);
    topk_recall_thresholds(p.A, p.B, p.m, p.k, out.idx, TOPK, TOPK, p.thr);

    const double exact_query = run_exact_and_openblas(cfg, &p, openblas, &out, csv, &status);

    if (faiss_peer_ready(faiss)) {
        faiss_peer_set_threads(faiss, threads);
        if (cfg->faiss_pq.count > 0)
            printf("%-19s FAISS PQ training and adding: %lld thread(s)\n", "",
                   (long long)(cfg->faiss_build_threads > 0 ? cfg->faiss_build_threads : cfg->threads));
        run_faiss(cfg, &p, faiss, FAISS_PEER_FLAT_IP, 0, exact_query, &out, csv, &status);
        for (int q = 0; q < cfg->faiss_pq.count; q++)
            run_faiss(cfg, &p, faiss, FAISS_PEER_PQ_FASTSCAN_REFINE, cfg->faiss_pq.v[q], exact_query, &out, csv,
                      &status);
    } else {
        printf("%-19s %s\n", "", faiss_peer_status(faiss));
    }
    if (cfg->hnsw_ef.count > 0) {
        printf("%-19s %s\n", "", hnsw_peer_status());
#ifdef SKETCHMM_HAVE_HNSWLIB
        if (hnsw_peer_ready())
            run_hnsw(cfg, &p, exact_query, &out, csv, &status);
#endif
    }

    for (int sp = 0; sp < cfg->nspecs; sp++)
        for (int c = 0; c < cfg->candidates.count; c++)
            run_method(cfg, &p, &cfg->specs[sp], cfg->candidates.v[c], exact_query, &out, csv, &status);

    smm_set_num_threads(0);
    free(p.thr);
    free(out.idx);
    free(out.val);
    dataset_matrix_free(&A);
    dataset_matrix_free(&B);
    peer_blas_free(openblas);
    faiss_peer_free(faiss);
    return status;
}

static int after_option(void *config, const bench_option *option)
{
    topk_config *cfg = config;
    /* --methods is checked at once, for a message at the option that is wrong */
    if (strcmp(option->name, "methods") == 0)
        return parse_methods(cfg, cfg->methods);
    return 0;
}

static const bench_option options[] = {
    { .name = "dataset", .arg = "NAME", .kind = BENCH_CHOICE, .offset = offsetof(topk_config, dataset),
      .choices = dataset_names, .def = DATA_FASHION_MNIST,
      .help = "fashion-mnist (default): test images against training images;\n"
              "gaussian: i.i.d. N(0, 1) vectors of the same shapes (the hard case)" },
    { .name = "data-dir", .arg = "DIR", .kind = BENCH_STRING, .offset = offsetof(topk_config, data_dir),
      .help = "Fashion-MNIST directory holding t10k- and train-images-idx3-ubyte.gz\n"
              "(default $" DATASET_FASHION_MNIST_ENV ", else " DATASET_FASHION_MNIST_DEFAULT_DIR ")" },
    { .name = "m", .arg = "M", .kind = BENCH_INT, .offset = offsetof(topk_config, m), .lo = 1, .hi = MAX_ROWS,
      .def = FMNIST_TEST, .wants = "a query count", .help = "queries: the first M (default {default}; Fashion-MNIST: at most 10000)" },
    { .name = "n", .arg = "N", .kind = BENCH_INT, .offset = offsetof(topk_config, n), .lo = 1, .hi = MAX_ROWS,
      .def = FMNIST_TRAIN, .wants = "a database size",
      .help = "database vectors: the first N (default {default}; Fashion-MNIST: at most 60000)" },
    { .name = "threads", .arg = "T", .kind = BENCH_INT, .offset = offsetof(topk_config, threads), .lo = 1,
      .hi = SMM_MAX_THREADS, .def = DEFAULT_THREADS, .wants = "a thread count",
      .help = "threads of every contender (default {default})" },
    BENCH_OPTION_REPS(topk_config, reps, 1000, DEFAULT_REPS, "timed rounds per contender (default {default})"),
    { .name = "methods", .arg = "LIST", .kind = BENCH_STRING, .offset = offsetof(topk_config, methods),
      .help = "sketchmm methods NAME:SIZE, SIZE the bits of the sketch families and the\n"
              "sketch dimension of the others (any sketch_method_name; default\n"
              "simhash:256,simhash:1024,gaussian_projection:64,countsketch:256,lowrank:64)" },
    { .name = "candidates", .arg = "LIST", .kind = BENCH_INT_LIST, .offset = offsetof(topk_config, candidates),
      .lo = TOPK, .hi = MAX_ROWS, BENCH_DEFAULTS(20, 50, 100, 200), .wants = "candidate counts",
      .help = "candidates per row refined exactly (sketchmm; FAISS: k_factor = C / 10;\n"
              "default {default})" },
    { .name = "faiss-pq", .arg = "LIST", .kind = BENCH_INT_LIST, .offset = offsetof(topk_config, faiss_pq),
      .lo = 0, .hi = DIM, BENCH_DEFAULTS(98, 196), .wants = "PQ subspace counts",
      .help = "M of FAISS's IndexPQFastScan (4 bits each; divisors of 784; 0: none;\n"
              "default {default})" },
    { .name = "hnsw-ef", .arg = "LIST", .kind = BENCH_INT_LIST, .offset = offsetof(topk_config, hnsw_ef),
      .lo = 0, .hi = MAX_ROWS, BENCH_DEFAULTS(10, 20, 40, 80, 160, 320), .wants = "search breadths",
      .help = "search breadths ef of hnswlib's HNSW graph, one row each (the table's\n"
              "cand column; below 10 searches with 10; 0: no hnswlib rows; default {default})" },
    { .name = "hnsw-m", .arg = "M", .kind = BENCH_INT, .offset = offsetof(topk_config, hnsw_m), .lo = 2, .hi = 256,
      .def = 16, .wants = "a link count", .help = "hnswlib's links per node M (default {default})" },
    { .name = "hnsw-efc", .arg = "EF", .kind = BENCH_INT, .offset = offsetof(topk_config, hnsw_efc), .lo = 1,
      .hi = 65536, .def = 200, .wants = "a breadth", .help = "hnswlib's ef_construction (default {default})" },
    { .name = "ob-rows", .arg = "R", .kind = BENCH_INT, .offset = offsetof(topk_config, ob_rows), .lo = 0,
      .hi = MAX_BLOCK_ROWS, .def = 0, .wants = "a row count",
      .help = "rows per task of openblas blocks (default 0: exact_topk's, 256 at k = 784)" },
    { .name = "faiss-build-threads", .arg = "T", .kind = BENCH_INT, .offset = offsetof(topk_config, faiss_build_threads),
      .lo = 0, .hi = SMM_MAX_THREADS, .def = 0, .wants = "a thread count",
      .help = "threads of FAISS's PQ training and adding (OpenMP and BLAS; default 0:\n"
              "--threads). Its k-means runs many short OpenMP loops, which a busy\n"
              "machine slows far more on 2 threads than on 1" },
    { .name = NULL },
};

const bench_mode bench_mode_topk = {
    .name = "topk",
    .summary = "top-10 inner products: exact_topk, approximate plans, OpenBLAS blocks, FAISS, hnswlib (recall, seconds)",
    .options = options,
    .config_size = sizeof(topk_config),
    .describe = describe,
    .notes = "OpenBLAS (opened at run time), FAISS (a bridge module built when libfaiss-dev was found) and\n"
             "hnswlib (a bridge built when libhnswlib-dev was found, run on AVX-512 CPUs)\n"
             "are left out when absent or when SKETCHMM_BENCH_NO_PEERS=1. OPENBLAS_CORETYPE chooses\n"
             "OpenBLAS's kernels, for the openblas blocks and for FAISS's BLAS alike.",
    .csv_header = "dataset,m,n,k,threads,reps,contender,params,candidates,recall,create_seconds,query_seconds,"
                  "oneshot_seconds,speedup_query,speedup_oneshot,encode_b_seconds,encode_a_seconds,"
                  "estimate_seconds,refine_seconds,other_cpu_share,isa\n",
    .csv_rows = "row of the table",
    .after_option = after_option,
    .check = check_options,
    .run = run_mode,
};
