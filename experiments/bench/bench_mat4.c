/*
 * bench_mat4.c - mode `mat4`: millions of 4x4 operations per second
 * (sketchmm/mat4.h) on every ISA path this CPU runs (smm_set_isa): float
 * and double multiply, float and double inverse, float and double copy,
 * each through the single-matrix call (a loop of mat4_*_f32/_f64 calls) and
 * through the batched call (one mat4_*_batch_* call over the working set,
 * the library limited to one thread), on one thread and on --threads
 * threads, each thread working on its own data (--set matrices per thread,
 * default 64: the six arrays, 3 x 4 KiB float and 3 x 8 KiB double, stay in
 * a 48 KiB L1 data cache, as the seed article's loops over a few matrices
 * do; at 256 the double operations ran from L2 and measured about 25%
 * slower). One operation is one matrix. Every timed run does --ops operations
 * per thread; warm-up, then --reps runs, medians.
 *
 * The reference columns are the single-thread i7-6700K figures of seed
 * article 001 (4.2 GHz; SSE2 float multiply 207.2 M/s, AVX+FMA double
 * multiply 266.1 M/s, AVX2+FMA double inverse 61.8 M/s, plain C float
 * inverse 30.7 M/s, AVX double copy 652.0 M/s; float copy: none): 'x ref'
 * is our single-thread rate over it, 'x ref/thr' our rate per thread with
 * all threads over it (the issue asks for at least 2 on both).
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "bench_cli.h"
#include "bench_modes.h"
#include "bench_report.h"
#include "bench_timing.h"
#include "sketchmm.h"
#include "sketchmm/mat4.h"


#define DEFAULT_SET 64
#define DEFAULT_OPS 1000000
#define DEFAULT_REPS 7
#define MAX_SET (1 << 20)

enum { OP_MUL_F32, OP_MUL_F64, OP_INV_F32, OP_INV_F64, OP_COPY_F32, OP_COPY_F64, OP_COUNT };
static const char *const op_names[OP_COUNT] = { "mul_f32", "mul_f64", "inv_f32", "inv_f64", "copy_f32", "copy_f64" };
/* seed 001, i7-6700K, one thread, M ops/s (0: no figure) */
static const double ref_mops[OP_COUNT] = { 207.2, 266.1, 30.7, 61.8, 0.0, 652.0 };

typedef struct {
    int64_t set, ops;
    int64_t threads; /* the multi-thread count */
    int64_t reps;
} mat4_config;

static void describe(FILE *out)
{
    fputs("  4x4 matrix kernels (sketchmm/mat4.h): M operations/s of float and double multiply,\n"
          "  inverse and copy, single-matrix calls and batched calls, on every ISA path this CPU runs,\n"
          "  on 1 thread and on --threads threads (each thread on its own data), with the MT/ST ratio\n"
          "  and the i7-6700K single-thread figures of seed article 001 beside ours ('x ref': our\n"
          "  single-thread rate over it; 'x ref/thr': our per-thread rate with all threads over it).\n"
          "  Warm-up, then --reps timed runs of --ops operations per thread; medians.\n",
          out);
}

/* ------------------------------------------------------------------------ */

/* One thread's data: set matrices each of a, b (inputs) and c (output), float and double. */
typedef struct {
    float *fa, *fb, *fc;
    double *da, *db, *dc;
} thread_data;

typedef struct {
    int op, batch, threads;
    int64_t set, ops;
    thread_data *data;
    int failed; /* a call returned an error */
} mat4_run;

/* ops operations on one thread's data: whole passes over the set, then a partial one. */
static int run_thread(const mat4_run *r, const thread_data *d)
{
    int64_t done = 0;
    smm_status s = SMM_OK;
    while (done < r->ops && s == SMM_OK) {
        const int64_t n = r->ops - done < r->set ? r->ops - done : r->set;
        if (r->batch) {
            switch (r->op) {
            case OP_MUL_F32: s = mat4_mul_batch_f32(n, d->fa, d->fb, d->fc); break;
            case OP_MUL_F64: s = mat4_mul_batch_f64(n, d->da, d->db, d->dc); break;
            case OP_INV_F32: s = mat4_inv_batch_f32(n, d->fa, d->fc); break;
            case OP_INV_F64: s = mat4_inv_batch_f64(n, d->da, d->dc); break;
            case OP_COPY_F32: s = mat4_copy_batch_f32(n, d->fa, d->fc); break;
            default: s = mat4_copy_batch_f64(n, d->da, d->dc); break;
            }
        } else {
            switch (r->op) {
            case OP_MUL_F32:
                for (int64_t t = 0; t < n && s == SMM_OK; t++)
                    s = mat4_mul_f32(d->fa + 16 * t, d->fb + 16 * t, d->fc + 16 * t);
                break;
            case OP_MUL_F64:
                for (int64_t t = 0; t < n && s == SMM_OK; t++)
                    s = mat4_mul_f64(d->da + 16 * t, d->db + 16 * t, d->dc + 16 * t);
                break;
            case OP_INV_F32:
                for (int64_t t = 0; t < n && s == SMM_OK; t++)
                    s = mat4_inv_f32(d->fa + 16 * t, d->fc + 16 * t);
                break;
            case OP_INV_F64:
                for (int64_t t = 0; t < n && s == SMM_OK; t++)
                    s = mat4_inv_f64(d->da + 16 * t, d->dc + 16 * t);
                break;
            case OP_COPY_F32:
                for (int64_t t = 0; t < n && s == SMM_OK; t++)
                    s = mat4_copy_f32(d->fa + 16 * t, d->fc + 16 * t);
                break;
            default:
                for (int64_t t = 0; t < n && s == SMM_OK; t++)
                    s = mat4_copy_f64(d->da + 16 * t, d->dc + 16 * t);
                break;
            }
        }
        done += n;
    }
    return s == SMM_OK;
}

static void run_action(void *context)
{
    mat4_run *r = context;
    int ok = 1;
    if (r->threads == 1) {
        ok = run_thread(r, &r->data[0]);
    } else {
#pragma omp parallel num_threads(r->threads) reduction(&& : ok)
        ok = run_thread(r, &r->data[omp_get_thread_num()]);
    }
    if (!ok)
        r->failed = 1;
}

static void fill(thread_data *d, int64_t set, uint64_t seed)
{
    uint64_t z = seed;
    for (int64_t i = 0; i < 16 * set; i++) {
        z += UINT64_C(0x9E3779B97F4A7C15);
        uint64_t v = z;
        v = (v ^ (v >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
        v = (v ^ (v >> 27)) * UINT64_C(0x94D049BB133111EB);
        v ^= v >> 31;
        const double x = (double)(v >> 11) * 0x1.0p-52 - 1.0 + ((i % 16) % 5 == 0 ? 4.0 : 0.0); /* + 4 I: regular */
        d->da[i] = x;
        d->fa[i] = (float)x;
        d->db[i] = -x;
        d->fb[i] = (float)-x;
        d->dc[i] = 0.0;
        d->fc[i] = 0.0f;
    }
}

/* Batched and single-call results agree bit for bit (mat4.h); 1 when they do. */
static int verify(mat4_run *r)
{
    mat4_run one = *r;
    one.threads = 1;
    one.ops = r->set;
    const thread_data *d = &r->data[0];
    const size_t nf = (size_t)(16 * r->set) * sizeof(float), nd = (size_t)(16 * r->set) * sizeof(double);
    float *fc = malloc(nf);
    double *dc = malloc(nd);
    int ok = fc != NULL && dc != NULL;
    if (ok) {
        one.batch = 0;
        ok = run_thread(&one, d);
        memcpy(fc, d->fc, nf);
        memcpy(dc, d->dc, nd);
        one.batch = 1;
        ok = ok && run_thread(&one, d);
        ok = ok && memcmp(fc, d->fc, nf) == 0 && memcmp(dc, d->dc, nd) == 0;
    }
    free(fc);
    free(dc);
    return ok;
}

static double measure(mat4_run *r, int reps)
{
    bench_sample sample = bench_measure(run_action, NULL, r, 1, reps);
    return (double)r->ops * (double)r->threads / sample.seconds * 1e-6;
}

static int run_mode(void *config, FILE *csv)
{
    const mat4_config *cfg = config;
    const int reps = (int)cfg->reps;
    const int nthr = (int)cfg->threads;
    thread_data *data = calloc((size_t)nthr, sizeof *data);
    char **blocks = calloc((size_t)nthr, sizeof *blocks);
    int status = data == NULL || blocks == NULL ? BENCH_EXIT_FAILED : 0;
    for (int t = 0; t < nthr && status == 0; t++) {
        /* one block per thread; each of the six arrays starts on its own 4 KiB page, the output at
           page offset 0, b at 64 and a at 128 bytes. A load then shares its address bits 0-11 with
           an earlier store (4K aliasing, which makes the load wait for the store) only about a
           page of matrices later, far outside the out-of-order window. With the output just after
           the inputs, a load of the matrix ten ahead aliased the store in flight and the float
           multiply ran 20-30% slower. */
        const size_t nd = (size_t)(16 * cfg->set) * sizeof(double);
        const size_t page = 4096, slot = (nd + 128 + page - 1) / page * page;
        char *block = aligned_alloc(page, 6 * slot);
        blocks[t] = block;
        if (block == NULL) {
            status = BENCH_EXIT_FAILED;
            break;
        }
        data[t].fc = (float *)(block + 0 * slot);
        data[t].fb = (float *)(block + 1 * slot + 64);
        data[t].fa = (float *)(block + 2 * slot + 128);
        data[t].dc = (double *)(block + 3 * slot);
        data[t].db = (double *)(block + 4 * slot + 64);
        data[t].da = (double *)(block + 5 * slot + 128);
        fill(&data[t], cfg->set, 1 + (uint64_t)t);
    }
    if (status != 0) {
        bench_error("out of memory");
        return BENCH_EXIT_FAILED;
    }

    static const smm_isa all_isas[] = { SMM_ISA_SCALAR, SMM_ISA_AVX2, SMM_ISA_AVX512, SMM_ISA_NEON };
    smm_isa initial_isa = SMM_ISA_AUTO;
    smm_get_isa(&initial_isa);
    smm_set_num_threads(1); /* batched calls: one library thread; our threads bring the parallelism */

    printf("Set: %lld matrices per thread, %lld operations per thread per run, %d reps, medians; MT = %d threads.\n",
           (long long)cfg->set, (long long)cfg->ops, reps, nthr);
    printf("ref = i7-6700K single thread (seed 001, 4.2 GHz); x ref = ST / ref; x ref/thr = (MT / threads) / ref\n\n");
    printf("%-7s %-12s %-8s %-6s %10s %10s %6s %9s %8s %6s %9s\n", "isa", "kernel", "op", "form", "ST M/s", "MT M/s",
           "MT/ST", "ref M/s", "x ref", "", "x ref/thr");
    for (int ii = 0; ii < 4 && status == 0; ii++) {
        if (!smm_isa_supported(all_isas[ii]))
            continue;
        smm_set_isa(all_isas[ii]);
        const char *kernel = mat4_kernel_name();
        for (int op = 0; op < OP_COUNT && status == 0; op++)
            for (int batch = 0; batch <= 1 && status == 0; batch++) {
                mat4_run r = { op, batch, 1, cfg->set, cfg->ops, data, 0 };
                if (batch == 0 && !verify(&r)) {
                    bench_error("%s on %s: batched and single results differ",
                                op_names[op], smm_isa_name(all_isas[ii]));
                    status = BENCH_EXIT_FAILED;
                    break;
                }
                const double st = measure(&r, reps);
                r.threads = nthr;
                const double mt = nthr > 1 ? measure(&r, reps) : st;
                if (r.failed) {
                    bench_error("%s on %s failed", op_names[op], smm_isa_name(all_isas[ii]));
                    status = BENCH_EXIT_FAILED;
                    break;
                }
                const double ref = ref_mops[op];
                printf("%-7s %-12s %-8s %-6s %10.1f %10.1f %6.2f", smm_isa_name(all_isas[ii]), kernel, op_names[op],
                       batch ? "batch" : "single", st, mt, mt / st);
                if (ref > 0.0)
                    printf(" %9.1f %8.2f %6s %9.2f\n", ref, st / ref, "", mt / nthr / ref);
                else
                    printf(" %9s %8s %6s %9s\n", "-", "-", "", "-");
                fflush(stdout);
                if (csv != NULL) {
                    fprintf(csv, "%s,%s,%s,%s,%lld,%lld,1,%d,%.6g,%.6g\n", smm_isa_name(all_isas[ii]), kernel,
                            op_names[op], batch ? "batch" : "single", (long long)cfg->set, (long long)cfg->ops, reps,
                            st * 1e6, ref * 1e6);
                    fprintf(csv, "%s,%s,%s,%s,%lld,%lld,%d,%d,%.6g,%.6g\n", smm_isa_name(all_isas[ii]), kernel,
                            op_names[op], batch ? "batch" : "single", (long long)cfg->set, (long long)cfg->ops, nthr,
                            reps, mt * 1e6, ref * 1e6);
                }
            }
    }
    smm_set_isa(initial_isa);
    smm_set_num_threads(0);
    for (int t = 0; t < nthr; t++)
        free(blocks[t]);
    free(blocks);
    free(data);
    return status;
}

static const bench_option options[] = {
    { .name = "set", .arg = "N", .kind = BENCH_INT, .offset = offsetof(mat4_config, set), .lo = 1, .hi = MAX_SET,
      .def = DEFAULT_SET, .wants = "a count", .help = "matrices per thread, cycled through (default {default})" },
    { .name = "ops", .arg = "N", .kind = BENCH_INT, .offset = offsetof(mat4_config, ops), .lo = 1,
      .hi = INT64_C(1) << 40, .def = DEFAULT_OPS, .wants = "a count in [1, 2^40]", .range_in_wants = 1,
      .help = "operations per thread per timed run (default {default})" },
    { .name = "threads", .arg = "N", .kind = BENCH_INT, .offset = offsetof(mat4_config, threads), .lo = 1,
      .hi = SMM_MAX_THREADS, .default_kind = BENCH_DEFAULT_MAX_THREADS, .wants = "a count",
      .help = "thread count of the multi-thread column (default: the OpenMP maximum)" },
    BENCH_OPTION_REPS(mat4_config, reps, 100000, DEFAULT_REPS, "timed runs (default {default})"),
    { .name = NULL },
};

const bench_mode bench_mode_mat4 = {
    .name = "mat4",
    .summary = "4x4 float/double multiply, inverse, copy: M ops/s per ISA path, 1 and all threads, vs i7-6700K",
    .options = options,
    .config_size = sizeof(mat4_config),
    .describe = describe,
    .csv_header = "isa,kernel,op,form,set,ops_per_thread,threads,reps,mops_per_second,ref_i7_6700k_st_mops\n",
    .csv_rows = "measurement",
    .run = run_mode,
};
