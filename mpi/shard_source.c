/*
 * shard_source.c - the vector sources of sketchmm_shard_topk (see
 * shard_source.h).
 */
#include <stdio.h>
#include <string.h>

#include "shard_source.h"

static int copy_text(char *dst, size_t size, const char *src)
{
    return snprintf(dst, size, "%s", src) < (int)size;
}

static int parse_h5(const char *text, vector_source *s, char *why, size_t why_size)
{
    const char *path = NULL;
    s->kind = SOURCE_H5;
    if (dataset_h5_split_spec(text, s->file, sizeof s->file, &path) != SMM_OK || !copy_text(s->path, sizeof s->path, path)) {
        snprintf(why, why_size, "'%s' is none of fashion-mnist, ann:FILE.h5, idx:FILE, FILE.h5:/PATH", text);
        return 0;
    }
    return 1;
}

int source_parse_database(const char *text, const char *data_dir, vector_source *database,
                          vector_source *queries, int *has_queries, char *why, size_t why_size)
{
    *has_queries = 0;
    if (strcmp(text, "fashion-mnist") == 0) {
        const char *dir = dataset_fashion_mnist_dir(data_dir);
        database->kind = queries->kind = SOURCE_IDX;
        database->path[0] = queries->path[0] = '\0';
        snprintf(database->file, sizeof database->file, "%s/train-images-idx3-ubyte.gz", dir);
        snprintf(queries->file, sizeof queries->file, "%s/t10k-images-idx3-ubyte.gz", dir);
        *has_queries = 1;
        return 1;
    }
    if (strncmp(text, "ann:", 4) == 0) {
        database->kind = queries->kind = SOURCE_H5;
        if (text[4] == '\0' || !copy_text(database->file, sizeof database->file, text + 4)) {
            snprintf(why, why_size, "ann: needs a file name");
            return 0;
        }
        memcpy(queries->file, database->file, sizeof queries->file);
        snprintf(database->path, sizeof database->path, "/train");
        snprintf(queries->path, sizeof queries->path, "/test");
        *has_queries = 1;
        return 1;
    }
    return source_parse_queries(text, database, why, why_size);
}

int source_parse_queries(const char *text, vector_source *s, char *why, size_t why_size)
{
    if (strncmp(text, "idx:", 4) == 0) {
        s->kind = SOURCE_IDX;
        s->path[0] = '\0';
        if (text[4] == '\0' || !copy_text(s->file, sizeof s->file, text + 4)) {
            snprintf(why, why_size, "idx: needs a file name");
            return 0;
        }
        return 1;
    }
    return parse_h5(text, s, why, why_size);
}

smm_status source_shape(const vector_source *s, int64_t *rows, int64_t *dim, char *msg, size_t msg_size)
{
    return s->kind == SOURCE_H5 ? dataset_h5_matrix_shape(s->file, s->path, rows, dim, msg, msg_size)
                                : dataset_idx_images_shape(s->file, rows, dim, msg, msg_size);
}

smm_status source_load_rows(const vector_source *s, int64_t first, int64_t count, dataset_matrix *out, char *msg,
                            size_t msg_size)
{
    return s->kind == SOURCE_H5 ? dataset_load_h5_rows(s->file, s->path, first, count, out, msg, msg_size)
                                : dataset_load_idx_image_rows(s->file, first, count, out, msg, msg_size);
}

const char *source_name(const vector_source *s, char *buf, size_t size)
{
    if (s->kind == SOURCE_H5)
        snprintf(buf, size, "%s:%s", s->file, s->path);
    else
        snprintf(buf, size, "%s", s->file);
    return buf;
}
