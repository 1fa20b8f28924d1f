/*
 * shard_merge.c - merging per-rank top-k lists, alone and as an MPI
 * reduction operation (see shard_merge.h).
 */
#include "shard_merge.h"

size_t shard_record_bytes(int64_t topk)
{
    size_t bytes = (size_t)topk * (sizeof(int64_t) + sizeof(float));
    return (bytes + 7) & ~(size_t)7;
}

int64_t *shard_record_idx(void *records, int64_t topk, int64_t r)
{
    return (int64_t *)((char *)records + (size_t)r * shard_record_bytes(topk));
}

float *shard_record_val(void *records, int64_t topk, int64_t r)
{
    return (float *)((char *)records + (size_t)r * shard_record_bytes(topk) + (size_t)topk * sizeof(int64_t));
}

/* 1 when entry a comes before entry b: real entries before sentinels, then larger value, then smaller index. */
static int before(int64_t ia, float va, int64_t ib, float vb)
{
    if (ia < 0)
        return 0;
    if (ib < 0)
        return 1;
    return va > vb || (va == vb && ia < ib);
}

void shard_merge_lists(const int64_t *in_idx, const float *in_val, int64_t *io_idx, float *io_val, int64_t topk)
{
    /* how many of the best topk come from each list */
    int64_t na = 0, nb = 0;
    while (na + nb < topk) {
        if (before(in_idx[na], in_val[na], io_idx[nb], io_val[nb]))
            na++;
        else
            nb++;
    }
    /*
     * backward, the worse of the two last entries first: place p = i + j + 1 >= j, so io's entries 0..j are
     * still unread when p is written
     */
    int64_t i = na - 1, j = nb - 1;
    for (int64_t p = topk - 1; i >= 0; p--) {
        if (j >= 0 && before(in_idx[i], in_val[i], io_idx[j], io_val[j])) {
            io_idx[p] = io_idx[j];
            io_val[p] = io_val[j];
            j--;
        } else {
            io_idx[p] = in_idx[i];
            io_val[p] = in_val[i];
            i--;
        }
    }
}

/* MPI_User_function: merge *len records of `in` into `inout`. */
static void merge_records(void *in, void *inout, int *len, MPI_Datatype *type)
{
    int size = 0;
    MPI_Type_size(*type, &size);
    const int64_t topk = size / (int)(sizeof(int64_t) + sizeof(float));
    for (int r = 0; r < *len; r++)
        shard_merge_lists(shard_record_idx(in, topk, r), shard_record_val(in, topk, r),
                          shard_record_idx(inout, topk, r), shard_record_val(inout, topk, r), topk);
}

int shard_merge_type_create(int64_t topk, MPI_Datatype *type, MPI_Op *op)
{
    *type = MPI_DATATYPE_NULL;
    *op = MPI_OP_NULL;
    int lengths[2] = { (int)topk, (int)topk };
    MPI_Aint offsets[2] = { 0, (MPI_Aint)(topk * (int64_t)sizeof(int64_t)) };
    MPI_Datatype parts[2] = { MPI_INT64_T, MPI_FLOAT };
    MPI_Datatype packed = MPI_DATATYPE_NULL;
    int err = MPI_Type_create_struct(2, lengths, offsets, parts, &packed);
    if (err == MPI_SUCCESS)
        err = MPI_Type_create_resized(packed, 0, (MPI_Aint)shard_record_bytes(topk), type);
    if (packed != MPI_DATATYPE_NULL)
        MPI_Type_free(&packed);
    if (err == MPI_SUCCESS)
        err = MPI_Type_commit(type);
    if (err == MPI_SUCCESS)
        err = MPI_Op_create(merge_records, 1, op);
    if (err != MPI_SUCCESS)
        shard_merge_type_free(type, op);
    return err;
}

void shard_merge_type_free(MPI_Datatype *type, MPI_Op *op)
{
    if (*type != MPI_DATATYPE_NULL)
        MPI_Type_free(type);
    if (*op != MPI_OP_NULL)
        MPI_Op_free(op);
    *type = MPI_DATATYPE_NULL;
    *op = MPI_OP_NULL;
}
