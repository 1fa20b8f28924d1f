/*
 * shard_cli.c - options and --help of sketchmm_shard_topk (see shard_cli.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli_args.h"
#include "shard_cli.h"

static void print_help(const char *prog)
{
    printf("Usage: mpirun -n P %s [options]\n"
           "\n"
           "Top-k over a database sharded across the P ranks of MPI_COMM_WORLD\n"
           "(sketchmm/shard_topk.h): rank r reads its own contiguous block of the\n"
           "database vectors from the file (only that slice), builds its plan, searches\n"
           "it, and one MPI reduction merges the local top-k lists into the global top-k\n"
           "(ties to the smaller index). Rank 0 reads the queries and broadcasts them.\n"
           "An approximate method is measured against the exact sharded search: recall\n"
           "by value (a returned vector counts when its inner product, in double, is at\n"
           "least the exact K-th's) and by index. Rank 0 prints a summary and writes\n"
           "the results file: recall, seconds, and every rank's block and phase times.\n"
           "\n"
           "Data\n"
           "  --database SOURCE  fashion-mnist (default: the 60000 training images,\n"
           "                    queries the 10000 t10k images), ann:FILE.h5 (/train,\n"
           "                    queries /test), idx:FILE (an IDX image file, gzipped or\n"
           "                    plain), FILE.h5:/PATH (a 2-D dataset, one vector per row)\n"
           "  --queries SOURCE  idx:FILE or FILE.h5:/PATH (needed with idx: and FILE.h5:\n"
           "                    databases)\n"
           "  --data-dir DIR    Fashion-MNIST's directory (default $%s, else %s)\n"
           "  --database-rows N the first N database vectors (default all)\n"
           "  --query-rows M    the first M queries (default all)\n"
           "  --split LIST      database vectors of each rank, P numbers adding up to N\n"
           "                    (0 allowed; default: even blocks, floor(N r / P))\n"
           "\n"
           "Search\n"
           "  --method NAME     exact (default) or an approximate method of sketch.h:\n"
           "                    simhash ... crosspolytope (sized in bits), gaussian_projection,\n"
           "                    srht, countsketch, cr_sampling, lowrank, pq, maddness (sized by s)\n"
           "  --size S          bits or s of the method (default: the library's, 256 bits\n"
           "                    or s = 64)\n"
           "  --candidates C    candidates per query over the whole database, shared by the\n"
           "                    ranks in proportion to their blocks (default 0: 10 K per rank)\n"
           "  --topk K          vectors per query (default 10)\n"
           "  --seed S          the method's seed (default 0x5eed)\n"
           "  --threads T       threads per rank (default 0: the library default)\n"
           "  --reps R          timed searches, medians reported (default 3)\n"
           "\n"
           "Output\n"
           "  --out FILE.h5     results file written by rank 0 (default\n"
           "                    results/shard_topk.h5; replaced when it exists)\n"
           "  --save-result     also store the global top-k: /idx and /val, and for an\n"
           "                    approximate method the exact one in /exact_idx, /exact_val\n"
           "  -h, --help        this text\n"
           "\n"
           "Exit status: 0 done; 2 a bad command line or input on any rank (every rank\n"
           "stops; rank 0 names the rank and the problem); 1 a failed search.\n",
           prog, DATASET_FASHION_MNIST_ENV, DATASET_FASHION_MNIST_DEFAULT_DIR);
}

/* A usage error: rank 0 prints it; SHARD_EXIT_USAGE. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int usage(int rank, const char *prog, const char *fmt, ...)
{
    if (rank != 0)
        return SHARD_EXIT_USAGE;
    va_list ap;
    va_start(ap, fmt);
    int rc = cli_vusage_error(SHARD_EXIT_USAGE, prog, fmt, ap);
    va_end(ap);
    return rc;
}

typedef struct {
    shard_args *a;
} split_ctx;

static int split_item(const char *item, int index, void *ctx)
{
    shard_args *a = ((split_ctx *)ctx)->a;
    return cli_parse_i64(item, 0, INT64_MAX, &a->split[index]);
}

/* The method of a name: "exact" or a sketch_method_name. */
static int parse_method(const char *name, shard_args *a)
{
    a->exact = strcmp(name, "exact") == 0;
    if (a->exact)
        return 1;
    for (int m = 1; sketch_method_name((sketch_method)m) != NULL; m++)
        if (strcmp(sketch_method_name((sketch_method)m), name) == 0) {
            a->method = (sketch_method)m;
            return 1;
        }
    return 0;
}

int shard_parse_args(int argc, char **argv, int rank, shard_args *a)
{
    const char *prog = argv[0];
    memset(a, 0, sizeof *a);
    a->exact = 1;
    a->topk = 10;
    a->seed = UINT64_C(0x5eed);
    a->reps = 3;
    a->out = "results/shard_topk.h5";
    const char *database = "fashion-mnist", *queries = NULL, *data_dir = NULL;
    char why[512] = "";
    for (int i = 1; i < argc; i++) {
        cli_option opt;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            if (rank == 0)
                print_help(prog);
            return 0;
        }
        char name[32];
        if (!cli_option_split(argv[i], &opt) || !cli_option_name(&opt, name, sizeof name))
            return usage(rank, prog, "unexpected argument '%s'", argv[i]);
        if (strcmp(name, "save-result") == 0) {
            a->save_result = 1;
            continue;
        }
        if (!cli_option_take_value(argc, argv, &i, &opt))
            return usage(rank, prog, "--%s needs a value", name);
        const char *v = opt.value;
        int ok = 1;
        if (strcmp(name, "database") == 0)
            database = v;
        else if (strcmp(name, "queries") == 0)
            queries = v;
        else if (strcmp(name, "data-dir") == 0)
            data_dir = v;
        else if (strcmp(name, "database-rows") == 0)
            ok = cli_parse_i64(v, 1, INT64_MAX, &a->database_rows);
        else if (strcmp(name, "query-rows") == 0)
            ok = cli_parse_i64(v, 1, INT64_MAX, &a->query_rows);
        else if (strcmp(name, "split") == 0) {
            split_ctx ctx = { a };
            a->split_count = cli_split_list(v, SHARD_MAX_SPLIT, split_item, &ctx, why, sizeof why);
            ok = a->split_count > 0;
        } else if (strcmp(name, "method") == 0)
            ok = parse_method(v, a);
        else if (strcmp(name, "size") == 0)
            ok = cli_parse_int(v, 1, APPROX_MAX_SKETCH_DIM, &a->size);
        else if (strcmp(name, "candidates") == 0)
            ok = cli_parse_int(v, 0, INT32_MAX, &a->candidates);
        else if (strcmp(name, "topk") == 0)
            ok = cli_parse_i64(v, 1, INT32_MAX, &a->topk);
        else if (strcmp(name, "seed") == 0)
            ok = cli_parse_u64(v, &a->seed);
        else if (strcmp(name, "threads") == 0)
            ok = cli_parse_int(v, 0, SMM_MAX_THREADS, &a->threads);
        else if (strcmp(name, "reps") == 0)
            ok = cli_parse_int(v, 1, 1000, &a->reps);
        else if (strcmp(name, "out") == 0)
            a->out = v;
        else
            return usage(rank, prog, "unknown option '--%s'", name);
        if (!ok)
            return usage(rank, prog, "--%s: bad value '%s'%s%s", name, v, why[0] ? ": " : "", why);
    }
    int has_queries = 0;
    if (!source_parse_database(database, data_dir, &a->database, &a->queries, &has_queries, why, sizeof why))
        return usage(rank, prog, "--database: %s", why);
    if (queries != NULL && !source_parse_queries(queries, &a->queries, why, sizeof why))
        return usage(rank, prog, "--queries: %s", why);
    if (queries == NULL && !has_queries)
        return usage(rank, prog, "--database %s needs --queries (idx:FILE or FILE.h5:/PATH)", database);
    if (a->out[0] == '\0')
        return usage(rank, prog, "--out: an empty file name");
    return -1;
}
