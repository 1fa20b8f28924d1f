/*
 * approx_method.h - the method registry: one const entry per sketch_method,
 * holding the method's operations (approx_problem.h) and the facts the rest
 * of the library, the sweep, the benchmark and Python ask about it. Each
 * method defines its entry in its own file; approx_methods.c indexes them.
 *
 * Dependencies run one way: the public calls (approx_plan.c, approx_topk.c,
 * approx_sgemm.c, approx_options.c) -> the registry -> the methods -> the
 * shared leaves (approx_vectors.c, approx_scale.c, approx_classical.c for
 * the sketched-factor methods); no method calls back into a caller
 * (tests/check_call_cycles.cmake keeps it so).
 */
#ifndef APPROX_METHOD_H
#define APPROX_METHOD_H

#include "approx/approx_problem.h"
#include "approx/topk_stream.h"

/* How a method's data is brought into the safe range (approx_scale.h). */
typedef enum {
    APPROX_SCALE_EACH = 0, /* op(A) and op(B) each by their own power of two (the estimate is bilinear) */
    APPROX_SCALE_NONE      /* neither: the method is scale-free itself and checks its data as it goes */
} approx_scale_rule;

typedef struct approx_method {
    sketch_method id;
    int32_t default_size;    /* the size when approx_options.size is 0 (approx_default_size) */
    int32_t max_size;        /* sizes 1..max_size; beyond: SMM_ERR_BAD_BITS (sized by bits) or BAD_ARGUMENT */
    approx_scale_rule scale;
    int reads_b;             /* products read op(B)'s vectors (column-row sampling draws from them); every
                              * method's top-k reads them to refine candidates */
    /* Bytes of one encoded vector of dimension k at this size (approx_encoded_bytes); -1 when it cannot be. */
    int64_t (*encoded_bytes)(sketch_method id, int32_t size, int64_t k);
    /* The blocks of its top-k candidate pass (topk_stream): rows per task, columns per block. */
    topk_shape (*topk_shape)(int32_t size, int64_t k);
    /*
     * Its own limits on validated options against a k x n op(B) (k, n >= 1),
     * checked before any data is read: SMM_OK, or the status with a
     * sentence naming the limit in msg (msg may be NULL). NULL: none.
     */
    smm_status (*check_sizes)(const approx_options *opts, int64_t k, int64_t n, char *msg, size_t msg_size);
    const approx_method_ops *ops;
    const void *impl;        /* what the shared code of a family needs (a classical method's sketch ops) */
} approx_method;

/* The entry of method, or NULL for a value that is no method (approx_methods.c). */
const approx_method *approx_method_of(sketch_method method);

/* The entries, each defined in its method's file. */
extern const approx_method approx_method_simhash, approx_method_simhash_orthogonal,
    approx_method_simhash_structured, approx_method_crosspolytope; /* approx_codes.c */
extern const approx_method approx_method_gaussian_projection;      /* approx_gaussian.c */
extern const approx_method approx_method_srht;                     /* approx_srht.c */
extern const approx_method approx_method_countsketch;              /* approx_countsketch.c */
extern const approx_method approx_method_cr_sampling;              /* approx_cr_sampling.c */
extern const approx_method approx_method_lowrank;                  /* approx_lowrank.c */
extern const approx_method approx_method_pq;                       /* approx_pq.c */
extern const approx_method approx_method_maddness;                 /* approx_maddness.c */

#endif /* APPROX_METHOD_H */
