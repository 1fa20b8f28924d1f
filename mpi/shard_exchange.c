/*
 * shard_exchange.c - what the ranks tell each other during a collective call
 * (shard_internal.h), and the record of the last call.
 */
#include <string.h>

#include "shard_internal.h"

static _Thread_local shard_call_info last_call = { 0.0, 0.0, 0.0, 0.0, 0.0, -1 };

void shard_set_last_call(const shard_call_info *info)
{
    last_call = *info;
}

smm_status shard_last_call(shard_call_info *info)
{
    if (info == NULL)
        return SMM_ERR_NULL_POINTER;
    *info = last_call;
    return SMM_OK;
}

smm_status shard_mpi_status(int err)
{
    return err == MPI_SUCCESS ? SMM_OK : SHARD_ERR_MPI;
}

/* Statuses are below this, so rank * SHARD_STATUS_SPAN + status orders by rank first. */
#define SHARD_STATUS_SPAN 256

smm_status shard_agree(MPI_Comm comm, smm_status mine, int *failed_rank)
{
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    int64_t code = (unsigned)mine < SHARD_STATUS_SPAN ? (int64_t)mine : (int64_t)SMM_ERR_BAD_ARGUMENT;
    int64_t key = mine == SMM_OK ? INT64_MAX : (int64_t)rank * SHARD_STATUS_SPAN + code, least = INT64_MAX;
    if (MPI_Allreduce(&key, &least, 1, MPI_INT64_T, MPI_MIN, comm) != MPI_SUCCESS) {
        *failed_rank = rank;
        return SHARD_ERR_MPI;
    }
    if (least == INT64_MAX) {
        *failed_rank = -1;
        return SMM_OK;
    }
    *failed_rank = (int)(least / SHARD_STATUS_SPAN);
    return (smm_status)(least % SHARD_STATUS_SPAN);
}

smm_status shard_reference_facts(MPI_Comm comm, const int64_t *mine, int count, int64_t *ref)
{
    memcpy(ref, mine, (size_t)count * sizeof(int64_t));
    return shard_mpi_status(MPI_Bcast(ref, count, MPI_INT64_T, 0, comm));
}
