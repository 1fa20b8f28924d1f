/*
 * shard_cli.h - the command line of sketchmm_shard_topk (its --help says
 * what each option does). Every rank parses the same arguments; rank 0
 * prints the messages.
 */
#ifndef SKETCHMM_MPI_SHARD_CLI_H
#define SKETCHMM_MPI_SHARD_CLI_H

#include <stdint.h>

#include "shard_source.h"
#include "sketchmm.h"

/* Exit statuses: a bad command line or input (every rank), a failed run. */
#define SHARD_EXIT_USAGE 2
#define SHARD_EXIT_FAILED 1

/* Most ranks --split lists. */
#define SHARD_MAX_SPLIT 4096

typedef struct {
    vector_source database, queries;
    int64_t database_rows, query_rows; /* 0: all */
    int64_t split[SHARD_MAX_SPLIT];    /* rows per rank when split_count > 0 */
    int split_count;
    int exact;                         /* method "exact" */
    sketch_method method;
    int32_t size;                      /* bits or sketch_dim; 0: the method's default */
    int32_t candidates;                /* over the whole database per query; 0: each rank's default */
    int64_t topk;
    uint64_t seed;
    int threads;
    int reps;
    const char *out;
    int save_result;
} shard_args;

/*
 * Parse argv into *a. Returns -1 to run, 0 after --help (printed by rank
 * 0), or SHARD_EXIT_USAGE after a bad command line (rank 0 prints why).
 */
int shard_parse_args(int argc, char **argv, int rank, shard_args *a);

#endif /* SKETCHMM_MPI_SHARD_CLI_H */
