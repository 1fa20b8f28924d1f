"""The C declarations of libsketchmm's public API that the package binds (cffi ABI mode).

Copied from include/sketchmm/*.h: the types and functions, without the macros
cffi cannot parse and without the comments (the headers are the manual; the
Python docstrings repeat what a caller needs). tests/test_runtime.py checks every
name declared here against the headers, so a changed signature is noticed.
"""

CDEF = r"""
/* common.h */
typedef enum { SMM_ROW_MAJOR = 101, SMM_COL_MAJOR = 102 } smm_layout;
typedef enum { SMM_NO_TRANS = 111, SMM_TRANS = 112 } smm_trans;
typedef enum {
    SMM_OK = 0, SMM_ERR_NULL_POINTER = 1, SMM_ERR_BAD_SIZE = 2, SMM_ERR_BAD_LEADING_DIM = 3,
    SMM_ERR_OVERFLOW = 4, SMM_ERR_BAD_LAYOUT = 5, SMM_ERR_BAD_TRANS = 6, SMM_ERR_BAD_BITS = 7,
    SMM_ERR_BAD_METHOD = 8, SMM_ERR_BAD_ISA = 9, SMM_ERR_ISA_UNAVAILABLE = 10, SMM_ERR_BAD_ENV = 11,
    SMM_ERR_BAD_THREADS = 12, SMM_ERR_NO_MEMORY = 13, SMM_ERR_NON_FINITE = 14, SMM_ERR_BAD_ARGUMENT = 17,
    SMM_ERR_FILE = 18, SMM_ERR_NO_EXEC_MEMORY = 19
} smm_status;
typedef enum { SMM_ISA_AUTO = 0, SMM_ISA_SCALAR = 1, SMM_ISA_AVX2 = 2, SMM_ISA_AVX512 = 3, SMM_ISA_NEON = 4 } smm_isa;

#define SMM_MAX_THREADS 4096
#define SKETCH_MAX_BITS 65535
#define APPROX_MAX_SKETCH_DIM 1048576

const char *smm_status_str(smm_status s);
const char *smm_version(void);
int smm_version_number(void);
const char *smm_isa_name(smm_isa isa);
int smm_isa_supported(smm_isa isa);
smm_status smm_set_isa(smm_isa isa);
smm_status smm_get_isa(smm_isa *isa);
smm_status smm_set_num_threads(int n);
int smm_get_num_threads(void);
smm_status smm_set_jit(int mode);
int smm_get_jit(void);

/* jit.h */
typedef struct {
    int64_t generated;
    int64_t hits;
    int64_t failed;
    int64_t evicted;
    int64_t kernels;
    int64_t code_bytes;
    double generate_seconds;
} smm_jit_stats;
void smm_jit_get_stats(smm_jit_stats *stats);
smm_status smm_jit_status(void);

/* exact.h */
smm_status exact_sgemm(smm_layout layout, smm_trans transa, smm_trans transb,
                       int64_t m, int64_t n, int64_t k, float alpha,
                       const float *A, int64_t lda, const float *B, int64_t ldb,
                       float beta, float *C, int64_t ldc);
const char *exact_sgemm_kernel_name(void);
int64_t exact_padded_ld(int64_t inner);

/* tuning.h (SMM_CONFIG_NAME 32, SMM_CONFIG_PATH 1024, SMM_CONFIG_NOTE 256) */
typedef enum { SMM_CONFIG_TABLE = 0, SMM_CONFIG_MODEL = 1, SMM_CONFIG_TUNED = 2 } smm_config_source;
const char *smm_config_source_name(smm_config_source source);
typedef struct {
    smm_isa isa;
    smm_config_source source;
    char kernel[32];
    int mr, nr;
    int64_t kc;
    int64_t mc[2];
    int64_t nc[2];
    char split[2][32];
    int64_t prefetch[2];
    double sup_max_macs;
    int64_t topk_rows, topk_cols;
    smm_isa mat4_paths[4];
    char file[1024];
    char note[256];
} smm_exact_config;
smm_status smm_exact_config_get(smm_exact_config *config);
smm_status smm_exact_config_describe(const smm_exact_config *config, char *buf, size_t size);
smm_status smm_tuning_path(char *buf, size_t size);
smm_status smm_tuning_reload(void);
typedef struct {
    double budget_seconds;
    int threads;
    const char *path;
} smm_tune_options;
typedef void (*smm_tune_progress_fn)(void *arg, double elapsed_seconds, double budget_seconds, const char *status);
smm_status smm_tune(const smm_tune_options *options, smm_tune_progress_fn progress, void *arg);

/* sketch.h */
typedef enum {
    SKETCH_SIMHASH = 1, SKETCH_SIMHASH_ORTHOGONAL = 2, SKETCH_SIMHASH_STRUCTURED = 3,
    SKETCH_CROSSPOLYTOPE = 4, SKETCH_GAUSSIAN_PROJECTION = 5, SKETCH_SRHT = 6, SKETCH_COUNTSKETCH = 7,
    SKETCH_CR_SAMPLING = 8, SKETCH_LOWRANK = 9, SKETCH_PQ = 10
} sketch_method;
typedef struct {
    int64_t dim;
    int32_t width;
    int32_t full_hashes;
    int32_t last_width;
    int64_t last_dim;
    int32_t hashes;
    int32_t fields_per_word;
    int64_t words;
} sketch_cp_layout;

smm_status sketch_simhash_hyperplanes(int32_t bits, int64_t d, uint64_t seed, float *G, int64_t ldg);
smm_status sketch_hamming_u32(int64_t na, const uint64_t *a, int64_t lda, int64_t nb, const uint64_t *b,
                              int64_t ldb, int64_t words, uint32_t *dist, int64_t ldd);
smm_status sketch_hamming_u16(int64_t na, const uint64_t *a, int64_t lda, int64_t nb, const uint64_t *b,
                              int64_t ldb, int64_t words, uint16_t *dist, int64_t ldd);
smm_status sketch_hamming_topk(int64_t na, const uint64_t *a, int64_t lda, int64_t nb, const uint64_t *b,
                               int64_t ldb, int64_t words, int64_t k, int64_t *idx, uint32_t *dist,
                               int64_t ldk);
const char *sketch_hamming_kernel_name(void);
double sketch_angle_estimate(int64_t h, int32_t bits);
double sketch_cosine_estimate(int64_t h, int32_t bits);
double sketch_dot_estimate(int64_t h, int32_t bits, double norm_a, double norm_b);
const char *sketch_method_name(sketch_method method);
sketch_method sketch_method_from_name(const char *name);
int sketch_method_uses_bits(sketch_method method);
smm_status sketch_code_words(sketch_method method, int64_t d, int32_t bits, int64_t *words);
smm_status sketch_encode(sketch_method method, smm_layout layout, int64_t n, int64_t d, const float *X,
                         int64_t ldx, int32_t bits, uint64_t seed, uint64_t *codes, int64_t ldcodes,
                         float *norms);
smm_status sketch_crosspolytope_layout(int64_t d, int32_t bits, sketch_cp_layout *layout);
smm_status sketch_crosspolytope_matches(int64_t d, int32_t bits, int64_t na, const uint64_t *a, int64_t lda,
                                        int64_t nb, const uint64_t *b, int64_t ldb, uint16_t *matches,
                                        int64_t ldm);
const char *sketch_crosspolytope_kernel_name(void);
double sketch_crosspolytope_collision_probability(int64_t d, int64_t hash_dim, double rho);
double sketch_crosspolytope_expected_matches(int64_t d, int32_t bits, double rho);
double sketch_crosspolytope_cosine_estimate(int64_t d, int32_t bits, int64_t matches);
double sketch_crosspolytope_matches_variance(int64_t d, int32_t bits, double rho);
double sketch_crosspolytope_cosine_variance(int64_t d, int32_t bits, double rho);
double sketch_simhash_angle_variance(double theta, int32_t bits);
double sketch_simhash_cosine_variance(double theta, int32_t bits);

/* approx.h */
typedef struct {
    double encode_b;
    double encode_a;
    double estimate;
    double refine;
} approx_phase_times;
typedef struct {
    size_t struct_size;
    sketch_method method;
    int32_t size;
    uint64_t seed;
    int32_t num_threads;
    int32_t candidates;
    double energy;
    uint32_t flags;
} approx_options;
#define APPROX_BORROW_B 1
typedef struct {
    size_t struct_size;
    int32_t candidates;
    approx_phase_times *times;
} approx_call;
typedef struct approx_plan approx_plan;

void approx_options_init(approx_options *opts);
int32_t approx_default_size(sketch_method method);
int64_t approx_encoded_bytes(sketch_method method, int32_t size, int64_t k);
smm_status approx_check_sizes(const approx_options *opts, int64_t k, int64_t n, char *msg, size_t msg_size);
smm_status approx_sgemm(smm_layout layout, smm_trans transa, smm_trans transb,
                        int64_t m, int64_t n, int64_t k, float alpha,
                        const float *A, int64_t lda, const float *B, int64_t ldb,
                        float beta, float *C, int64_t ldc, const approx_options *opts, const approx_call *call);
smm_status approx_plan_create(smm_layout layout, smm_trans transb, int64_t k, int64_t n,
                              const float *B, int64_t ldb, const approx_options *opts, const approx_call *call,
                              approx_plan **plan);
void approx_plan_free(approx_plan *plan);
smm_status approx_plan_info(const approx_plan *plan, int64_t *k, int64_t *n, approx_options *opts);
smm_status approx_plan_multiply(const approx_plan *plan, smm_layout layout, smm_trans transa,
                                int64_t m, float alpha, const float *A, int64_t lda,
                                float beta, float *C, int64_t ldc, const approx_call *call);
smm_status approx_plan_topk(const approx_plan *plan, smm_layout layout, smm_trans transa,
                            int64_t m, const float *A, int64_t lda,
                            int64_t topk, int64_t *idx, float *val, int64_t ldk, const approx_call *call);
smm_status approx_topk(smm_layout layout, smm_trans transa, smm_trans transb,
                       int64_t m, int64_t n, int64_t k,
                       const float *A, int64_t lda, const float *B, int64_t ldb,
                       int64_t topk, int64_t *idx, float *val, int64_t ldk, const approx_options *opts,
                       const approx_call *call);
smm_status exact_topk(smm_layout layout, smm_trans transa, smm_trans transb,
                      int64_t m, int64_t n, int64_t k,
                      const float *A, int64_t lda, const float *B, int64_t ldb,
                      int64_t topk, int64_t *idx, float *val, int64_t ldk);

/* unary.h */
typedef enum { UNARY_ZERO = 0, UNARY_IDENTITY = 1, UNARY_RELU = 2 } unary_op;
smm_status unary_apply(unary_op op, smm_layout layout, smm_trans trans, int64_t m, int64_t n, const float *A,
                       int64_t lda, float *B, int64_t ldb);
const char *unary_kernel_name(void);
const char *unary_op_name(unary_op op);

/* mat4.h */
smm_status mat4_mul_f32(const float *a, const float *b, float *c);
smm_status mat4_mul_f64(const double *a, const double *b, double *c);
smm_status mat4_inv_f32(const float *a, float *inv);
smm_status mat4_inv_f64(const double *a, double *inv);
smm_status mat4_copy_f32(const float *src, float *dst);
smm_status mat4_copy_f64(const double *src, double *dst);
smm_status mat4_mul_batch_f32(int64_t count, const float *a, const float *b, float *c);
smm_status mat4_mul_batch_f64(int64_t count, const double *a, const double *b, double *c);
smm_status mat4_inv_batch_f32(int64_t count, const float *a, float *inv);
smm_status mat4_inv_batch_f64(int64_t count, const double *a, double *inv);
smm_status mat4_copy_batch_f32(int64_t count, const float *src, float *dst);
smm_status mat4_copy_batch_f64(int64_t count, const double *src, double *dst);
const char *mat4_kernel_name(void);

/* brgemm.h */
typedef struct {
    smm_layout layout;
    int64_t m, n, k;
    int64_t lda, ldb, ldc;
    int64_t stride_a, stride_b;
    float alpha, beta;
} brgemm_desc;
typedef struct brgemm_plan brgemm_plan;
smm_status brgemm_plan_create(const brgemm_desc *desc, brgemm_plan **plan);
void brgemm_plan_free(brgemm_plan *plan);
const char *brgemm_plan_name(const brgemm_plan *plan);
smm_status brgemm_execute_strided(const brgemm_plan *plan, const float *A, const float *B, float *C,
                                  int64_t batch);
smm_status brgemm_execute_pointers(const brgemm_plan *plan, const float *const *A, const float *const *B,
                                   float *C, int64_t batch);
"""
