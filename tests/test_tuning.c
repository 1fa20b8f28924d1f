/*
 * test_tuning.c - Check suite of the exact core's configuration
 * (sketchmm/tuning.h, exact/tuning.h): cache geometry from cpuid records
 * and from a sysfs tree, the analytical model on known caches, the tuning
 * file (round trip, every truncation and bit flip refused, hostile files
 * with a valid checksum refused with a reason), a file taking effect (the
 * source, kernel and blocks it names; bit-identical results across thread
 * counts under it; SKETCHMM_TUNING=none giving back the default's bits),
 * files ignored for a reason (missing, another signature, damaged), the
 * path and description queries, the 4x4 path choice, exact_topk in other
 * blocks, smm_tune's argument checks, and a whole tuner run.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "test_tmpdir.h"
#include "test_util.h"

#include "approx/exact_topk.h"
#include "common/smm_cache.h"
#include "exact/sgemm_model.h"
#include "exact/tuning.h"
#include "exact/tuning_file.h"

static double clock_gettime_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ---- cache geometry ---- */

START_TEST(test_cpuid_records)
{
    smm_cache_level l;
    /* a 32 KiB, 8-way L1 data cache with 64-byte lines and 64 sets, shared by 2 CPUs */
    const uint32_t eax = 1u | (1u << 5) | (1u << 8) | (1u << 14), ebx = 63u | (7u << 22), ecx = 63u;
    ck_assert_int_eq(smm_cache_decode_cpuid(eax, ebx, ecx, &l), 1);
    ck_assert_int_eq(l.size, 32768);
    ck_assert_int_eq(l.line, 64);
    ck_assert_int_eq(l.ways, 8);
    ck_assert_int_eq(l.sets, 64);
    ck_assert_int_eq(l.shared_by, 2);
    /* 1 MiB, 8-way unified L2: 2048 sets */
    ck_assert_int_eq(smm_cache_decode_cpuid(3u | (2u << 5), 63u | (7u << 22), 2047u, &l), 2);
    ck_assert_int_eq(l.size, 1 << 20);
    ck_assert_int_eq(l.shared_by, 1);
    /* instruction cache: 0; the null record: -1 */
    ck_assert_int_eq(smm_cache_decode_cpuid(2u | (1u << 5), 63u | (7u << 22), 63u, &l), 0);
    ck_assert_int_eq(smm_cache_decode_cpuid(0u, 0u, 0u, &l), -1);
    /* fully associative (bit 9): one set of every line */
    ck_assert_int_eq(smm_cache_decode_cpuid(1u | (1u << 5) | (1u << 9), 63u | (3u << 22), 15u, &l), 1);
    ck_assert_int_eq(l.size, 64 * 4 * 16);
    ck_assert_int_eq(l.sets, 1);
    ck_assert_int_eq(l.ways, 64);
    /* what this machine reports is self-consistent */
    const smm_cache_geometry *g = smm_caches();
    ck_assert_str_ne(smm_cache_source_name(g->source), "");
    if (g->source != SMM_CACHE_NONE) {
        ck_assert_int_gt(g->l1d.size, 0);
        ck_assert_int_gt(g->l2.size, g->l1d.size);
        ck_assert_int_eq(g->l1d.size, g->l1d.line * g->l1d.ways * g->l1d.sets);
    }
}
END_TEST

static void write_text(const char *dir, const char *name, const char *text)
{
    char path[1100];
    ck_assert((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) < sizeof path);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static void sysfs_index(const char *root, int index, const char *level, const char *type, const char *size,
                        const char *ways, const char *line, const char *sets, const char *shared)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/index%d", root, index);
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    const char *names[] = { "level", "type", "size", "ways_of_associativity", "coherency_line_size", "number_of_sets",
                            "shared_cpu_list" };
    const char *values[] = { level, type, size, ways, line, sets, shared };
    for (int i = 0; i < 7; i++)
        if (values[i] != NULL)
            write_text(dir, names[i], values[i]);
}

START_TEST(test_sysfs_tree)
{
    char root[1024];
    test_tmp_path("cache", root, sizeof root);
    ck_assert_int_eq(mkdir(root, 0755), 0);
    sysfs_index(root, 0, "1\n", "Data\n", "48K\n", "12\n", "64\n", "64\n", "0\n");
    sysfs_index(root, 1, "1\n", "Instruction\n", "32K\n", "8\n", "64\n", "64\n", "0\n");
    /* no number_of_sets: derived */
    sysfs_index(root, 2, "2\n", "Unified\n", "1280K\n", "20\n", "64\n", NULL, "0\n");
    sysfs_index(root, 3, "3\n", "Unified\n", "32M\n", "16\n", "64\n", "32768\n", "0-7,16-23\n");
    /* garbage is ignored, not trusted */
    sysfs_index(root, 4, "2\n", "Unified\n", "-5K\n", "x\n", "64\n", "1\n", "0\n");
    smm_cache_geometry g;
    ck_assert_int_eq(smm_cache_from_sysfs(root, &g), 1);
    ck_assert_int_eq(g.l1d.size, 48 * 1024);
    ck_assert_int_eq(g.l1d.ways, 12);
    ck_assert_int_eq(g.l1d.sets, 64);
    ck_assert_int_eq(g.l2.size, 1280 * 1024);
    ck_assert_int_eq(g.l2.sets, 1024);
    ck_assert_int_eq(g.l3.size, 32 << 20);
    ck_assert_int_eq(g.l3.shared_by, 16);
    /* no tree: nothing found */
    char none[1024];
    test_tmp_path("absent", none, sizeof none);
    ck_assert_int_eq(smm_cache_from_sysfs(none, &g), 0);
    ck_assert_int_eq(g.l1d.size, 0);
}
END_TEST

/* ---- the model ---- */

static smm_cache_geometry geometry(int64_t l1, int64_t w1, int64_t l2, int64_t w2, int64_t l3, int64_t w3)
{
    smm_cache_geometry g;
    memset(&g, 0, sizeof g);
    const int64_t sizes[3] = { l1, l2, l3 }, ways[3] = { w1, w2, w3 };
    smm_cache_level *levels[3] = { &g.l1d, &g.l2, &g.l3 };
    for (int i = 0; i < 3; i++) {
        levels[i]->size = sizes[i];
        levels[i]->ways = ways[i];
        levels[i]->line = sizes[i] > 0 ? 64 : 0;
        levels[i]->sets = sizes[i] > 0 ? sizes[i] / (64 * ways[i]) : 0;
        levels[i]->shared_by = 1;
    }
    g.source = SMM_CACHE_CPUID;
    return g;
}

START_TEST(test_model_blocks)
{
    /* Zen 4: 32 KiB 8-way L1d, 1 MiB 8-way L2, 32 MiB 16-way L3 */
    const smm_cache_geometry zen4 = geometry(32 << 10, 8, 1 << 20, 8, 32 << 20, 16);
    sgemm_blocks b = sgemm_model_blocks(12, 32, &zen4, 1);
    /* kc 160: B 5 ways (20 KiB), A 2 ways (7.5 KiB), 7 of 8 ways; 168 would need 6 + 2 */
    ck_assert_int_eq(b.kc, 160);
    /* mc: 8 - 1 - ceil(2 * 20 KiB / 128 KiB) = 6 ways of 128 KiB over 640 bytes per row, down to 12 */
    ck_assert_int_eq(b.mc, 786432 / 640 / 12 * 12);
    ck_assert_int_eq(b.nc, SGEMM_MODEL_NC_CAP);
    /* Ice Lake: 48 KiB 12-way L1d: kc 256 (8 + 3 of 11 ways) */
    const smm_cache_geometry icl = geometry(48 << 10, 12, 1280 << 10, 20, 0, 0);
    b = sgemm_model_blocks(12, 32, &icl, 1);
    ck_assert_int_eq(b.kc, 256);
    ck_assert_int_eq(b.nc, 4096); /* no L3 */
    /* an L2 shared by two threads halves A's share */
    smm_cache_geometry smt = zen4;
    smt.l2.shared_by = 2;
    ck_assert_int_eq(sgemm_model_blocks(12, 32, &smt, 2).mc, 786432 / 2 / 640 / 12 * 12);
    /* a tiny direct-mapped L1: still within the limits */
    const smm_cache_geometry tiny = geometry(4 << 10, 1, 64 << 10, 2, 0, 0);
    b = sgemm_model_blocks(16, 64, &tiny, 1);
    ck_assert(b.kc >= TUNING_KC_MIN && b.mc >= 16 && b.mc % 16 == 0 && b.nc % 64 == 0);
    /* every shape of every path this build has: the model's configuration passes the checks */
    static const smm_isa paths[] = { SMM_ISA_SCALAR, SMM_ISA_AVX2, SMM_ISA_AVX512, SMM_ISA_NEON };
    const smm_cache_geometry *all[] = { &zen4, &icl, &tiny };
    for (int pi = 0; pi < 4; pi++)
        for (int gi = 0; gi < 3; gi++) {
            const sgemm_kernels *row = sgemm_kernels_for(paths[pi]);
            for (int shape = 0; shape < row->nshapes; shape++) {
                tuning_params p;
                sgemm_model_params(tuning_row_path(paths[pi]), shape, all[gi], &p);
                const char *bad = tuning_check(paths[pi], &p);
                ck_assert_msg(bad == NULL, "%s on geometry %d: %s", row->shapes[shape].name, gi, bad);
            }
        }
}
END_TEST

/* ---- the file ---- */

/* A file of every path this build has (other shapes and values than the defaults), as text. */
static int64_t sample_text(char *buf, size_t size, tuning_file *f)
{
    memset(f, 0, sizeof *f);
    ck_assert(tuning_signature(f->signature, sizeof f->signature));
    static const smm_isa paths[] = { SMM_ISA_SCALAR, SMM_ISA_AVX2, SMM_ISA_AVX512, SMM_ISA_NEON };
    for (int i = 0; i < 4; i++) {
        const smm_isa isa = paths[i];
        if (tuning_row_path(isa) != isa)
            continue;
        tuning_params *p = &f->params[isa];
        const sgemm_kernels *row = sgemm_kernels_for(isa);
        tuning_default_params(isa, row->nshapes - 1, p);
        p->kc = 200;
        p->team[TUNING_MANY].split = SGEMM_SPLIT_COLUMNS;
        p->team[TUNING_ONE].prefetch = 3;
        p->sup_max_macs = 12345.0;
        p->topk_rows = 384;
        p->topk_cols = 1024;
        ck_assert_ptr_null(tuning_check(isa, p));
        f->has[isa] = 1;
        snprintf(f->measured[isa], sizeof f->measured[isa], "sample %d: 1.02x", i);
    }
    const int64_t len = tuning_file_format(f, buf, size);
    ck_assert_int_gt(len, 0);
    return len;
}

START_TEST(test_file_round_trip)
{
    static char text[TUNING_FILE_MAX_BYTES], again[TUNING_FILE_MAX_BYTES];
    tuning_file f, g;
    const int64_t len = sample_text(text, sizeof text, &f);
    char why[160] = "";
    ck_assert_msg(tuning_file_parse(text, (size_t)len, &g, why, sizeof why), "%s", why);
    ck_assert_str_eq(g.signature, f.signature);
    for (int isa = 0; isa < SMM_ISA_COUNT; isa++) {
        ck_assert_int_eq(g.has[isa], f.has[isa]);
        if (f.has[isa]) {
            ck_assert(tuning_params_equal(&g.params[isa], &f.params[isa]));
            ck_assert_str_eq(g.measured[isa], f.measured[isa]);
        }
    }
    ck_assert_int_eq(tuning_file_format(&g, again, sizeof again), len);
    ck_assert(memcmp(text, again, (size_t)len) == 0);
    /* a buffer too short for it: -1 */
    ck_assert_int_eq(tuning_file_format(&f, again, (size_t)len - 1), -1);
}
END_TEST

/* Every truncation of a valid file, and every single-bit change of it, is refused. */
START_TEST(test_file_damage_refused)
{
    static char text[TUNING_FILE_MAX_BYTES], damaged[TUNING_FILE_MAX_BYTES];
    tuning_file f, g;
    const int64_t len = sample_text(text, sizeof text, &f);
    char why[160];
    for (int64_t cut = 0; cut < len; cut++)
        ck_assert_msg(!tuning_file_parse(text, (size_t)cut, &g, why, sizeof why), "cut at %lld accepted",
                      (long long)cut);
    for (int64_t at = 0; at < len; at++)
        for (int bit = 0; bit < 8; bit++) {
            memcpy(damaged, text, (size_t)len);
            damaged[at] ^= (char)(1 << bit);
            ck_assert_msg(!tuning_file_parse(damaged, (size_t)len, &g, why, sizeof why),
                          "byte %lld bit %d flipped: accepted", (long long)at, bit);
        }
}
END_TEST

/* body + "checksum <XXH3 of body>\n": a file whose checksum is right, whatever the body says. */
static size_t with_checksum(const char *body, char *out, size_t size)
{
    const int n = snprintf(out, size, "%schecksum %016llx\n", body,
                           (unsigned long long)XXH3_64bits(body, strlen(body)));
    ck_assert(n > 0 && (size_t)n < size);
    return (size_t)n;
}

/*
 * The sample with the first line starting with key replaced by replacement
 * ("": removed; key NULL: replacement appended), and, when key2 is given,
 * the first line starting with key2 replaced by replacement2, checksummed:
 * refused, with expect in the reason.
 */
static void hostile_case2(const char *key, const char *replacement, const char *key2, const char *replacement2,
                          const char *expect)
{
    static char text[TUNING_FILE_MAX_BYTES], body[TUNING_FILE_MAX_BYTES], out[TUNING_FILE_MAX_BYTES + 1024];
    tuning_file f;
    const int64_t len = sample_text(text, sizeof text, &f);
    /* drop the checksum line */
    const char *check = strstr(text, "checksum ");
    ck_assert_ptr_nonnull(check);
    memcpy(body, text, (size_t)(check - text));
    body[check - text] = '\0';
    (void)len;
    const char *keys[2] = { key, key2 }, *replacements[2] = { replacement, replacement2 };
    for (int r = 0; r < 2; r++) {
        if (keys[r] == NULL) {
            if (r == 0)
                strncat(body, replacement, sizeof body - strlen(body) - 1);
            continue;
        }
        char *at = strstr(body, keys[r]);
        ck_assert_msg(at != NULL, "%s not in the sample", keys[r]);
        char *end = strchr(at, '\n');
        static char rest[TUNING_FILE_MAX_BYTES];
        snprintf(rest, sizeof rest, "%s", end + 1);
        snprintf(at, sizeof body - (size_t)(at - body), "%s%s", replacements[r], rest);
    }
    const size_t n = with_checksum(body, out, sizeof out);
    tuning_file g;
    char why[160] = "";
    ck_assert_msg(!tuning_file_parse(out, n, &g, why, sizeof why), "accepted: %s -> '%s'", key ? key : "(end)",
                  replacement);
    ck_assert_msg(strstr(why, expect) != NULL, "%s -> '%s': reason '%s', expected '%s'", key ? key : "(end)",
                  replacement, why, expect);
}

static void hostile_case(const char *key, const char *replacement, const char *expect)
{
    hostile_case2(key, replacement, NULL, NULL, expect);
}

START_TEST(test_file_hostile_refused)
{
    hostile_case("kc ", "kc 0\n", "kc out of range");
    hostile_case("kc ", "kc 99999\n", "kc out of range");
    hostile_case("kc ", "kc +5\n", "not a plain decimal");
    hostile_case("kc ", "kc 0x10\n", "not a plain decimal");
    hostile_case("kc ", "kc 1234567890123456789\n", "not a plain decimal");
    hostile_case("kc ", "kc -96\n", "not a plain decimal");
    hostile_case("kc ", "kc 96 96\n", "wrong number of values");
    hostile_case("kc ", "kc  96\n", "empty word");
    hostile_case("kc ", "kc 96 \n", "empty word");
    hostile_case("kc ", "", "no kc");
    hostile_case("kc ", "kc 96\nkc 96\n", "key given twice");
    hostile_case("kc ", "kc 96\nunknown 1\n", "unknown key");
    hostile_case("mc ", "mc 7 7\n", "mc out of range or not a multiple");
    hostile_case("nc ", "nc 64 99999999\n", "nc out of range");
    hostile_case2("kc ", "kc 2048\n", "nc ", "nc 65472 65472\n", "packed blocks too large");
    hostile_case("split ", "split auto diagonal\n", "unknown split");
    hostile_case("prefetch ", "prefetch 0 65\n", "prefetch out of range");
    hostile_case("sup_max_macs ", "sup_max_macs 1000000001\n", "sup_max_macs out of range");
    hostile_case("topk_block ", "topk_block 8 2048\n", "top-k rows out of range");
    hostile_case("topk_block ", "topk_block 256 1\n", "top-k columns out of range");
    hostile_case("kernel ", "kernel avx9000_99x99\n", "kernel not of this path");
    hostile_case("mat4 ", "mat4 neon neon neon neon\n", "");
    hostile_case("path ", "path mmx\n", "path not in this build");
    hostile_case("library ", "library 0.3.0\r\n", "control or non-ASCII");
    hostile_case("cpu ", "", "signature line missing");
    hostile_case("sketchmm-tuning ", "sketchmm-tuning 2\n", "not a sketchmm tuning file");
    hostile_case(NULL, "path scalar\n", "");
    char longline[TUNING_FILE_MAX_LINE + 16];
    memset(longline, 'x', sizeof longline);
    memcpy(longline, "measured ", 9);
    longline[sizeof longline - 2] = '\n';
    longline[sizeof longline - 1] = '\0';
    hostile_case("kc ", longline, "line too long");
    /* a NUL, a byte above 0x7e */
    static const char nul_file[] = "sketchmm-tuning 1\n\0\n";
    tuning_file g;
    char why[160];
    ck_assert(!tuning_file_parse(nul_file, sizeof nul_file - 1, &g, why, sizeof why));
    hostile_case("kc ", "kc 96\n# caf\xc3\xa9\n", "non-ASCII");
    /* text after the checksum */
    static char text[TUNING_FILE_MAX_BYTES + 16];
    tuning_file f;
    int64_t len = sample_text(text, sizeof text, &f);
    memcpy(text + len, "kc 1\n", 6);
    ck_assert(!tuning_file_parse(text, (size_t)len + 5, &g, why, sizeof why));
    ck_assert(strstr(why, "after the checksum") != NULL);
    /* too large */
    ck_assert(!tuning_file_parse(text, TUNING_FILE_MAX_BYTES + 1, &g, why, sizeof why));
    ck_assert(strstr(why, "too large") != NULL);
}
END_TEST

/* ---- a file in effect ---- */

static void product(float *C, int64_t m, int64_t n, int64_t k, uint64_t seed)
{
    float *A = malloc(sizeof(float) * (size_t)(m * k)), *B = malloc(sizeof(float) * (size_t)(k * n));
    ck_assert(A && B);
    uint64_t rng = seed;
    test_fill_uniform(A, m * k, &rng);
    test_fill_uniform(B, k * n, &rng);
    test_fill_uniform(C, m * n, &rng);
    ck_assert_int_eq(exact_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, m, n, k, 1.25f, A, k, B, n, 0.5f, C, n),
                     SMM_OK);
    free(A);
    free(B);
}

/* Write f's text to path. */
static void write_file(const char *path, const tuning_file *f)
{
    ck_assert(tuning_file_write(path, f));
}

START_TEST(test_file_takes_effect)
{
    enum { M = 301, N = 517, K = 777 };
    smm_isa isa;
    ck_assert_int_eq(smm_get_isa(&isa), SMM_OK);
    char path[1024];
    test_tmp_path("sub/dir/tuning.txt", path, sizeof path); /* the writer makes the directories */
    float *def = malloc(sizeof(float) * M * N), *C = malloc(sizeof(float) * M * N);
    ck_assert(def && C);

    /* the default (no file) */
    setenv("SKETCHMM_TUNING", "none", 1);
    ck_assert_int_eq(smm_tuning_reload(), SMM_OK);
    smm_exact_config c;
    ck_assert_int_eq(smm_exact_config_get(&c), SMM_OK);
    ck_assert_int_ne(c.source, SMM_CONFIG_TUNED);
    ck_assert_str_eq(c.file, "");
    ck_assert(strstr(c.note, "SKETCHMM_TUNING=none") != NULL);
    product(def, M, N, K, 5);

    /* a file for this path: another shape, kc 96, other blocks and splits */
    tuning_file f;
    memset(&f, 0, sizeof f);
    ck_assert(tuning_signature(f.signature, sizeof f.signature));
    const smm_isa path_isa = tuning_row_path(isa);
    const sgemm_kernels *row = sgemm_kernels_for(isa);
    tuning_params *p = &f.params[path_isa];
    tuning_default_params(isa, row->nshapes - 1, p);
    p->kc = 96;
    p->team[TUNING_ONE].mc = 4 * row->shapes[row->nshapes - 1].mr;
    p->team[TUNING_MANY].split = SGEMM_SPLIT_COLUMNS;
    p->team[TUNING_MANY].prefetch = 5;
    p->sup_max_macs = 0.0;
    f.has[path_isa] = 1;
    write_file(path, &f);
    setenv("SKETCHMM_TUNING", path, 1);
    ck_assert_int_eq(smm_tuning_reload(), SMM_OK);
    ck_assert_int_eq(smm_exact_config_get(&c), SMM_OK);
    ck_assert_int_eq(c.source, SMM_CONFIG_TUNED);
    ck_assert_str_eq(c.kernel, row->shapes[row->nshapes - 1].name);
    ck_assert_str_eq(exact_sgemm_kernel_name(), c.kernel);
    ck_assert_int_eq(c.kc, 96);
    ck_assert_int_eq(c.mc[0], p->team[TUNING_ONE].mc);
    ck_assert_str_eq(c.split[1], "columns");
    ck_assert_int_eq(c.prefetch[1], 5);
    ck_assert_str_eq(c.file, path);
    ck_assert_str_eq(c.note, "read");
    char text[SMM_CONFIG_TEXT];
    ck_assert_int_eq(smm_exact_config_describe(&c, text, sizeof text), SMM_OK);
    ck_assert(strstr(text, "source=tuned") != NULL && strstr(text, "kc=96") != NULL);
    ck_assert_int_eq(smm_exact_config_describe(&c, text, 20), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq((int)strlen(text), 19);

    /* bit-identical across thread counts under the tuned configuration */
    float *first = malloc(sizeof(float) * M * N);
    ck_assert_ptr_nonnull(first);
    for (int threads = 1; threads <= 3; threads++) {
        ck_assert_int_eq(smm_set_num_threads(threads), SMM_OK);
        product(threads == 1 ? first : C, M, N, K, 5);
        if (threads > 1)
            ck_assert_msg(memcmp(first, C, sizeof(float) * M * N) == 0, "%d threads differ from 1", threads);
    }
    ck_assert_int_eq(smm_set_num_threads(0), SMM_OK);
    /* kc 96 sums in another order than the default's: some bits differ (k = 777 > both kcs) */
    ck_assert(memcmp(first, def, sizeof(float) * M * N) != 0);

    /* SKETCHMM_TUNING=none gives back the default's bits */
    setenv("SKETCHMM_TUNING", "none", 1);
    ck_assert_int_eq(smm_tuning_reload(), SMM_OK);
    product(C, M, N, K, 5);
    ck_assert(memcmp(C, def, sizeof(float) * M * N) == 0);

    free(first);
    free(def);
    free(C);
    unsetenv("SKETCHMM_TUNING");
    ck_assert_int_eq(smm_tuning_reload(), SMM_OK);
}
END_TEST

/* The file at path with its signature's `line` (1-4) replaced by `replacement`, re-checksummed. */
static void write_with_signature_line(const char *path, int line, const char *replacement)
{
    static char text[TUNING_FILE_MAX_BYTES], body[TUNING_FILE_MAX_BYTES], out[TUNING_FILE_MAX_BYTES];
    tuning_file f;
    sample_text(text, sizeof text, &f);
    *strstr(text, "checksum ") = '\0';
    /* lines: 0 format, 1 comment, 2..5 the signature */
    char *at = text;
    for (int i = 0; i < line + 1; i++)
        at = strchr(at, '\n') + 1;
    char *end = strchr(at, '\n');
    snprintf(body, sizeof body, "%.*s%s%s", (int)(at - text), text, replacement, end);
    const size_t n = with_checksum(body, out, sizeof out);
    FILE *fp = fopen(path, "w");
    ck_assert_ptr_nonnull(fp);
    ck_assert_int_eq(fwrite(out, 1, n, fp), n);
    fclose(fp);
}

START_TEST(test_files_ignored)
{
    char path[1024];
    test_tmp_path("tuning.txt", path, sizeof path);
    setenv("SKETCHMM_TUNING", path, 1);
    smm_exact_config c;
    /* missing */
    ck_assert_int_eq(smm_tuning_reload(), SMM_OK);
    ck_assert_int_eq(smm_exact_config_get(&c), SMM_OK);
    ck_assert_int_ne(c.source, SMM_CONFIG_TUNED);
    ck_assert_str_eq(c.note, "no file");
    ck_assert_str_eq(c.file, path);
    /* another library version, another CPU, other features, other caches */
    static const char *const others[] = { "library 0.0.1", "cpu GenuineIntel 6 106 6", "features none",
                                          "caches 1 1 1 2 2 2 3 3 3" };
    for (int line = 1; line <= 4; line++) {
        write_with_signature_line(path, line, others[line - 1]);
        ck_assert_int_eq(smm_tuning_reload(), SMM_OK);
        ck_assert_int_eq(smm_exact_config_get(&c), SMM_OK);
        ck_assert_int_ne(c.source, SMM_CONFIG_TUNED);
        ck_assert_msg(strstr(c.note, "ignored: signature differs") != NULL, "line %d: %s", line, c.note);
    }
    /* damaged: the library keeps working on the default, and says why */
    FILE *fp = fopen(path, "w");
    ck_assert_ptr_nonnull(fp);
    fputs("sketchmm-tuning 1\nlibrary 0.3.0\n", fp);
    fclose(fp);
    ck_assert_int_eq(smm_tuning_reload(), SMM_OK);
    ck_assert_int_eq(smm_exact_config_get(&c), SMM_OK);
    ck_assert_int_ne(c.source, SMM_CONFIG_TUNED);
    ck_assert_msg(strncmp(c.note, "ignored: ", 9) == 0, "%s", c.note);
    float A[4] = { 1, 2, 3, 4 }, C[4];
    ck_assert_int_eq(exact_sgemm(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_NO_TRANS, 2, 2, 2, 1.0f, A, 2, A, 2, 0.0f, C, 2),
                     SMM_OK);
    ck_assert(C[0] == 7.0f && C[3] == 22.0f);
    /* a directory where the file should be: ignored too */
    ck_assert_int_eq(remove(path), 0);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    ck_assert_int_eq(smm_tuning_reload(), SMM_OK);
    ck_assert_int_eq(smm_exact_config_get(&c), SMM_OK);
    ck_assert_int_ne(c.source, SMM_CONFIG_TUNED);
    unsetenv("SKETCHMM_TUNING");
    ck_assert_int_eq(smm_tuning_reload(), SMM_OK);
}
END_TEST

START_TEST(test_path_query)
{
    char buf[SMM_CONFIG_PATH];
    setenv("SKETCHMM_TUNING", "/somewhere/t.txt", 1);
    ck_assert_int_eq(smm_tuning_path(buf, sizeof buf), SMM_OK);
    ck_assert_str_eq(buf, "/somewhere/t.txt");
    setenv("SKETCHMM_TUNING", "none", 1);
    ck_assert_int_eq(smm_tuning_path(buf, sizeof buf), SMM_OK);
    ck_assert_str_eq(buf, "");
    unsetenv("SKETCHMM_TUNING");
    setenv("XDG_CACHE_HOME", "/xdg", 1);
    ck_assert_int_eq(smm_tuning_path(buf, sizeof buf), SMM_OK);
    ck_assert(strncmp(buf, "/xdg/sketchmm/tuning-", 21) == 0 && strlen(buf) == 21 + 16 + 4);
    ck_assert_str_eq(buf + strlen(buf) - 4, ".txt");
    /* a relative XDG_CACHE_HOME is not used (XDG base directory rules): HOME's */
    setenv("XDG_CACHE_HOME", "relative", 1);
    setenv("HOME", "/home/someone", 1);
    ck_assert_int_eq(smm_tuning_path(buf, sizeof buf), SMM_OK);
    ck_assert(strncmp(buf, "/home/someone/.cache/sketchmm/tuning-", 37) == 0);
    unsetenv("XDG_CACHE_HOME");
    unsetenv("HOME");
    ck_assert_int_eq(smm_tuning_path(buf, sizeof buf), SMM_OK);
    ck_assert_str_eq(buf, "");
    setenv("HOME", "/home/someone", 1);
    ck_assert_int_eq(smm_tuning_path(buf, 10), SMM_ERR_BAD_SIZE);
    ck_assert_int_eq(smm_tuning_path(NULL, 10), SMM_ERR_NULL_POINTER);
    ck_assert_int_eq(smm_exact_config_get(NULL), SMM_ERR_NULL_POINTER);
    ck_assert_str_eq(smm_config_source_name(SMM_CONFIG_MODEL), "model");
    ck_assert_ptr_null(smm_config_source_name((smm_config_source)9));
}
END_TEST

/* ---- the 4x4 path choice ---- */

START_TEST(test_mat4_path_choice)
{
    if (!smm_isa_supported(SMM_ISA_AVX512))
        return; /* the only path with a narrower SIMD path */
    ck_assert_int_eq(smm_set_isa(SMM_ISA_AVX512), SMM_OK);
    tuning_state st = *tuning_active();
    tuning_params *p = &st.params[SMM_ISA_AVX512];
    for (int op = 0; op < MAT4_OPS; op++)
        p->mat4[op] = SMM_ISA_AVX2;
    ck_assert_ptr_null(tuning_check(SMM_ISA_AVX512, p));
    p->mat4[MAT4_OP_MUL_F64] = SMM_ISA_SCALAR; /* another bits' kernel: refused */
    ck_assert_ptr_nonnull(tuning_check(SMM_ISA_AVX512, p));
    p->mat4[MAT4_OP_MUL_F64] = SMM_ISA_AVX2;
    const tuning_state saved = *tuning_active();
    tuning_install(&st);
    smm_exact_config c;
    ck_assert_int_eq(smm_exact_config_get(&c), SMM_OK);
    ck_assert_int_eq(c.mat4_paths[1], SMM_ISA_AVX2);
    /* the batch on AVX2 kernels gives the single (AVX-512) call's bits */
    enum { COUNT = 257 };
    double a[16 * COUNT], b[16 * COUNT], batch[16 * COUNT], one[16];
    float af[16 * COUNT], bf[16 * COUNT], batchf[16 * COUNT], onef[16];
    uint64_t rng = 3;
    for (int i = 0; i < 16 * COUNT; i++) {
        a[i] = test_rng_uniform(&rng) + ((i % 16) % 5 == 0 ? 3.0 : 0.0);
        b[i] = test_rng_uniform(&rng);
        af[i] = (float)a[i];
        bf[i] = (float)b[i];
    }
    ck_assert_int_eq(mat4_mul_batch_f64(COUNT, a, b, batch), SMM_OK);
    ck_assert_int_eq(mat4_mul_batch_f32(COUNT, af, bf, batchf), SMM_OK);
    for (int t = 0; t < COUNT; t++) {
        ck_assert_int_eq(mat4_mul_f64(a + 16 * t, b + 16 * t, one), SMM_OK);
        ck_assert(memcmp(one, batch + 16 * t, sizeof one) == 0);
        ck_assert_int_eq(mat4_mul_f32(af + 16 * t, bf + 16 * t, onef), SMM_OK);
        ck_assert(memcmp(onef, batchf + 16 * t, sizeof onef) == 0);
    }
    ck_assert_int_eq(mat4_inv_batch_f64(COUNT, a, batch), SMM_OK);
    for (int t = 0; t < COUNT; t++) {
        ck_assert_int_eq(mat4_inv_f64(a + 16 * t, one), SMM_OK);
        ck_assert(memcmp(one, batch + 16 * t, sizeof one) == 0);
    }
    tuning_install(&saved);
    ck_assert_int_eq(smm_set_isa(SMM_ISA_AUTO), SMM_OK);
}
END_TEST

/* ---- exact_topk in other blocks ---- */

START_TEST(test_topk_shapes)
{
    enum { M = 300, NDB = 5000, K = 300, TOP = 7 };
    float *q = malloc(sizeof(float) * M * K), *db = malloc(sizeof(float) * NDB * K);
    int64_t *idx0 = malloc(sizeof(int64_t) * M * TOP), *idx = malloc(sizeof(int64_t) * M * TOP);
    float *val0 = malloc(sizeof(float) * M * TOP), *val = malloc(sizeof(float) * M * TOP);
    ck_assert(q && db && idx0 && idx && val0 && val);
    uint64_t rng = 8;
    test_fill_uniform(q, M * K, &rng);
    test_fill_uniform(db, NDB * K, &rng);
    ck_assert_int_eq(exact_topk(SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_TRANS, M, NDB, K, q, K, db, K, TOP, idx0, val0, TOP),
                     SMM_OK);
    static const topk_shape blocks[] = { { 16, 64 }, { 100, 1000 }, { 512, 4096 }, { 4096, 65536 } };
    for (int bi = 0; bi < 4; bi++)
        for (int threads = 1; threads <= 2; threads++) {
            smm_context ctx;
            ck_assert_int_eq(smm_context_current(&ctx), SMM_OK);
            ctx.threads = threads;
            ck_assert_int_eq(exact_topk_with(&ctx, &blocks[bi], SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_TRANS, M, NDB, K, q,
                                             K, db, K, TOP, idx, val, TOP),
                             SMM_OK);
            /* the same columns (no near ties in uniform data at this size), values equal to float rounding */
            for (int i = 0; i < M * TOP; i++) {
                ck_assert_msg(idx[i] == idx0[i], "block %d: row %d rank %d: column %lld, default %lld", bi, i / TOP,
                              i % TOP, (long long)idx[i], (long long)idx0[i]);
                ck_assert(fabsf(val[i] - val0[i]) <= 1e-4f * (1.0f + fabsf(val0[i])));
            }
        }
    free(q), free(db), free(idx0), free(idx), free(val0), free(val);
}
END_TEST

START_TEST(test_tune_arguments)
{
    smm_tune_options o = SMM_TUNE_OPTIONS_INIT;
    o.budget_seconds = 5.0;
    ck_assert_int_eq(smm_tune(&o, NULL, NULL), SMM_ERR_BAD_ARGUMENT);
    o.budget_seconds = -1.0;
    ck_assert_int_eq(smm_tune(&o, NULL, NULL), SMM_ERR_BAD_ARGUMENT);
    o.budget_seconds = NAN;
    ck_assert_int_eq(smm_tune(&o, NULL, NULL), SMM_ERR_BAD_ARGUMENT);
    o.budget_seconds = 1e9;
    ck_assert_int_eq(smm_tune(&o, NULL, NULL), SMM_ERR_BAD_ARGUMENT);
    o.budget_seconds = 20.0;
    o.threads = -1;
    ck_assert_int_eq(smm_tune(&o, NULL, NULL), SMM_ERR_BAD_ARGUMENT);
    o.threads = SMM_MAX_THREADS + 1;
    ck_assert_int_eq(smm_tune(&o, NULL, NULL), SMM_ERR_BAD_THREADS);
    o.threads = 0;
    static char longpath[SMM_CONFIG_PATH + 10];
    memset(longpath, 'a', sizeof longpath - 1);
    o.path = longpath;
    ck_assert_int_eq(smm_tune(&o, NULL, NULL), SMM_ERR_BAD_ARGUMENT);
}
END_TEST

typedef struct {
    int calls;
    double last;
    int backwards;
    char line[512];
} progress_log;

static void log_progress(void *arg, double elapsed, double budget, const char *status)
{
    progress_log *log = arg;
    if (elapsed < log->last || budget != 10.0)
        log->backwards = 1;
    log->last = elapsed;
    log->calls++;
    snprintf(log->line, sizeof log->line, "%s", status);
}

/*
 * A whole tuner run at the smallest budget, writing into a file that
 * already holds a section for the portable path: the file is written,
 * parses, carries this CPU's signature, keeps the other section, and its
 * configuration is the active one; the progress callback saw every stage
 * in order; the run kept to its budget (plus the two rounds every race
 * runs at least).
 */
START_TEST(test_tuner_run)
{
    smm_isa isa;
    ck_assert_int_eq(smm_get_isa(&isa), SMM_OK);
    const smm_isa path = tuning_row_path(isa);
    char file[1024];
    test_tmp_path("cache/sketchmm/tuning.txt", file, sizeof file);
    tuning_file f;
    memset(&f, 0, sizeof f);
    ck_assert(tuning_signature(f.signature, sizeof f.signature));
    if (path != SMM_ISA_SCALAR) {
        tuning_default_params(SMM_ISA_SCALAR, 0, &f.params[SMM_ISA_SCALAR]);
        f.params[SMM_ISA_SCALAR].kc = 64;
        f.has[SMM_ISA_SCALAR] = 1;
        write_file(file, &f);
    }
    smm_tune_options o = SMM_TUNE_OPTIONS_INIT;
    o.budget_seconds = 10.0;
    o.threads = 2;
    o.path = file;
    progress_log log = { 0, 0.0, 0, "" };
    const double start = (double)clock_gettime_seconds();
    ck_assert_int_eq(smm_tune(&o, log_progress, &log), SMM_OK);
    const double took = (double)clock_gettime_seconds() - start;
    printf("tuner: %.1f s, %d progress calls, last: %s\n", took, log.calls, log.line);
    ck_assert_int_ge(log.calls, 8);
    ck_assert(!log.backwards);
    ck_assert(strstr(log.line, "[8/8] done") != NULL);
    ck_assert_msg(took < 10.0 + 60.0, "took %.1f s", took);
    tuning_file g;
    char why[160] = "";
    ck_assert_msg(tuning_file_read(file, &g, why, sizeof why) == 1, "%s", why);
    ck_assert_str_eq(g.signature, f.signature);
    ck_assert(g.has[path]);
    ck_assert_ptr_null(tuning_check(path, &g.params[path]));
    ck_assert(strlen(g.measured[path]) > 0);
    if (path != SMM_ISA_SCALAR) {
        ck_assert(g.has[SMM_ISA_SCALAR]);
        ck_assert_int_eq(g.params[SMM_ISA_SCALAR].kc, 64);
    }
    smm_exact_config c;
    ck_assert_int_eq(smm_exact_config_get(&c), SMM_OK);
    ck_assert_int_eq(c.source, SMM_CONFIG_TUNED);
    ck_assert_str_eq(c.file, file);
    ck_assert(tuning_params_equal(&tuning_active()->params[isa], &g.params[path]));
    /* read back by a new process's first use: the same configuration */
    setenv("SKETCHMM_TUNING", file, 1);
    ck_assert_int_eq(smm_tuning_reload(), SMM_OK);
    ck_assert_int_eq(smm_exact_config_get(&c), SMM_OK);
    ck_assert_int_eq(c.source, SMM_CONFIG_TUNED);
    ck_assert_str_eq(c.note, "read");
    /* "none": tuned in this process only, nothing written */
    o.path = "none";
    ck_assert_int_eq(smm_tune(&o, NULL, NULL), SMM_OK);
    ck_assert_int_eq(smm_exact_config_get(&c), SMM_OK);
    ck_assert_int_eq(c.source, SMM_CONFIG_TUNED);
    ck_assert_str_eq(c.file, "");
    /* an unwritable place: SMM_ERR_FILE, the configuration active all the same */
    char blocked[1100];
    snprintf(blocked, sizeof blocked, "%s/tuning.txt", file); /* under a regular file */
    o.path = blocked;
    ck_assert_int_eq(smm_tune(&o, NULL, NULL), SMM_ERR_FILE);
    ck_assert_int_eq(smm_exact_config_get(&c), SMM_OK);
    ck_assert_int_eq(c.source, SMM_CONFIG_TUNED);
    unsetenv("SKETCHMM_TUNING");
}
END_TEST

static Suite *tuning_suite(void)
{
    Suite *s = suite_create("tuning");
    TCase *tc = tcase_create("geometry and model");
    tcase_add_checked_fixture(tc, test_tmpdir_setup, test_tmpdir_teardown);
    tcase_add_test(tc, test_cpuid_records);
    tcase_add_test(tc, test_sysfs_tree);
    tcase_add_test(tc, test_model_blocks);
    suite_add_tcase(s, tc);

    tc = tcase_create("file");
    tcase_set_timeout(tc, 120);
    tcase_add_checked_fixture(tc, test_tmpdir_setup, test_tmpdir_teardown);
    tcase_add_test(tc, test_file_round_trip);
    tcase_add_test(tc, test_file_damage_refused);
    tcase_add_test(tc, test_file_hostile_refused);
    tcase_add_test(tc, test_file_takes_effect);
    tcase_add_test(tc, test_files_ignored);
    tcase_add_test(tc, test_path_query);
    suite_add_tcase(s, tc);

    tc = tcase_create("choices");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_mat4_path_choice);
    tcase_add_test(tc, test_topk_shapes);
    tcase_add_test(tc, test_tune_arguments);
    suite_add_tcase(s, tc);

    tc = tcase_create("tuner");
    tcase_set_timeout(tc, 600);
    tcase_add_checked_fixture(tc, test_tmpdir_setup, test_tmpdir_teardown);
    tcase_add_test(tc, test_tuner_run);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(tuning_suite());
}
