/*
 * shard_source.h - where sketchmm_shard_topk reads vectors from, and the
 * slice of them a rank reads: HDF5 datasets (FILE.h5:/PATH, and the /train
 * and /test of ann:FILE.h5) read by hyperslab, IDX image files (idx:FILE,
 * and Fashion-MNIST's) read by their slice (data/dataset.h).
 */
#ifndef SKETCHMM_MPI_SHARD_SOURCE_H
#define SKETCHMM_MPI_SHARD_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "data/dataset.h"

typedef enum { SOURCE_H5, SOURCE_IDX } source_kind;

typedef struct {
    source_kind kind;
    char file[4096];
    char path[512]; /* the dataset of an HDF5 file */
} vector_source;

/*
 * The database and the queries of a --database argument: "fashion-mnist"
 * (the training images; queries: the t10k images, both from data_dir or
 * the default directory), "ann:FILE.h5" (/train; queries /test),
 * "idx:FILE" (an IDX image file; no queries) or "FILE.h5:/PATH" (no
 * queries). *has_queries says whether *queries was set. 0 for a text of
 * none of these forms (why says so).
 */
int source_parse_database(const char *text, const char *data_dir, vector_source *database,
                          vector_source *queries, int *has_queries, char *why, size_t why_size);

/* A --queries argument: "idx:FILE" or "FILE.h5:/PATH" (0 otherwise). */
int source_parse_queries(const char *text, vector_source *queries, char *why, size_t why_size);

/* Vectors and their dimension, from the file's header or metadata only. */
smm_status source_shape(const vector_source *s, int64_t *rows, int64_t *dim, char *msg, size_t msg_size);

/* Vectors first .. first + count - 1 (count >= 1) into *out, nothing else of the file kept. */
smm_status source_load_rows(const vector_source *s, int64_t first, int64_t count, dataset_matrix *out, char *msg,
                            size_t msg_size);

/* "FILE:/PATH" or "FILE" for messages and the results file. */
const char *source_name(const vector_source *s, char *buf, size_t size);

#endif /* SKETCHMM_MPI_SHARD_SOURCE_H */
