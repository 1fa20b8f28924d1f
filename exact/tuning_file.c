/*
 * tuning_file.c - the tuning file's format, signature, reading and writing
 * (tuning_file.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define XXH_INLINE_ALL /* the checksum: XXH3-64, compiled inline (the same hash as libxxhash) */
#include <xxhash.h>

#include "common/smm_cache.h"
#include "exact/tuning_file.h"

#define FORMAT_LINE "sketchmm-tuning 1"
#define MAX_WORDS 12

static const char *const split_names[] = { "auto", "rows", "columns" };
static const char *const signature_keys[] = { "library", "cpu", "features", "caches" };
enum { SIGNATURE_LINES = 4 };

/* ---- the signature ---- */

/* Append formatted text to buf at *used; 0 when it does not fit. */
static int append(char *buf, size_t size, size_t *used, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int append(char *buf, size_t size, size_t *used, const char *fmt, ...)
{
    if (*used >= size)
        return 0;
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(buf + *used, size - *used, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= size - *used)
        return 0;
    *used += (size_t)n;
    return 1;
}

int tuning_signature(char *buf, size_t size)
{
    const smm_cpu_identity *id = smm_cpu_id();
    const smm_cpu_features *cpu = smm_cpu();
    const smm_cache_geometry *g = smm_caches();
    size_t used = 0;
    int ok = append(buf, size, &used, "library %s\n", smm_version());
    ok = ok && append(buf, size, &used, "cpu %s %d %d %d\n", id->vendor, id->family, id->model, id->stepping);
    ok = ok && append(buf, size, &used, "features");
    const struct {
        int have;
        const char *name;
    } features[] = { { cpu->avx2_fma, "avx2" },
                     { cpu->avx512, "avx512" },
                     { (cpu->flags & SMM_CPU_VPOPCNTDQ) != 0, "vpopcntdq" },
                     { (cpu->flags & SMM_CPU_VBMI) != 0, "vbmi" },
                     { (cpu->flags & SMM_CPU_VNNI) != 0, "vnni" },
                     { (cpu->flags & SMM_CPU_BF16) != 0, "bf16" },
                     { cpu->neon, "neon" } };
    int any = 0;
    for (size_t i = 0; i < sizeof features / sizeof features[0]; i++)
        if (features[i].have) {
            ok = ok && append(buf, size, &used, " %s", features[i].name);
            any = 1;
        }
    ok = ok && append(buf, size, &used, "%s\n", any ? "" : " none");
    const smm_cache_level *levels[3] = { &g->l1d, &g->l2, &g->l3 };
    ok = ok && append(buf, size, &used, "caches");
    for (int l = 0; l < 3; l++)
        ok = ok && append(buf, size, &used, " %lld %lld %lld", (long long)levels[l]->size,
                          (long long)levels[l]->ways, (long long)levels[l]->line);
    ok = ok && append(buf, size, &used, "\n");
    return ok;
}

int tuning_file_default_path(char *buf, size_t size)
{
    char signature[TUNING_SIGNATURE_MAX];
    if (!tuning_signature(signature, sizeof signature))
        return 0;
    const unsigned long long hash = (unsigned long long)XXH3_64bits(signature, strlen(signature));
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    if (xdg != NULL && xdg[0] == '/')
        n = snprintf(buf, size, "%s/sketchmm/tuning-%016llx.txt", xdg, hash);
    else if (home != NULL && home[0] != '\0')
        n = snprintf(buf, size, "%s/.cache/sketchmm/tuning-%016llx.txt", home, hash);
    else
        return 0;
    return n > 0 && (size_t)n < size;
}

/* ---- parsing ---- */

typedef struct {
    char *why;
    size_t why_size;
    int line;
} parse_state;

static int fail(parse_state *ps, const char *reason)
{
    if (ps->line > 0)
        snprintf(ps->why, ps->why_size, "line %d: %s", ps->line, reason);
    else
        snprintf(ps->why, ps->why_size, "%s", reason);
    return 0;
}

/* A plain decimal of 1 to 18 digits; -1 otherwise. */
static int64_t parse_number(const char *word)
{
    int64_t v = 0;
    size_t n = 0;
    for (; word[n] != '\0'; n++) {
        if (word[n] < '0' || word[n] > '9' || n >= 18)
            return -1;
        v = v * 10 + (word[n] - '0');
    }
    return n == 0 ? -1 : v;
}

static int parse_path(const char *word, smm_isa *isa)
{
    static const smm_isa paths[] = { SMM_ISA_SCALAR, SMM_ISA_AVX2, SMM_ISA_AVX512, SMM_ISA_NEON };
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
        if (strcmp(word, smm_isa_name(paths[i])) == 0) {
            *isa = paths[i];
            return 1;
        }
    return 0;
}

/* The keys of a section, in the order they are written; `measured` is optional. */
enum { KEY_KERNEL, KEY_KC, KEY_MC, KEY_NC, KEY_SPLIT, KEY_PREFETCH, KEY_SUP, KEY_TOPK, KEY_MAT4, KEY_MEASURED, KEYS };
static const char *const key_names[KEYS] = { "kernel", "kc", "mc", "nc", "split", "prefetch",
                                             "sup_max_macs", "topk_block", "mat4", "measured" };
static const int key_words[KEYS] = { 1, 1, 2, 2, 2, 2, 1, 2, MAT4_OPS, -1 };

typedef struct {
    smm_isa isa;
    int seen[KEYS];
} section;

/* Apply one key line of a section (words[0] the key, n words in all). */
static int section_line(parse_state *ps, tuning_file *f, section *sec, char **words, int n, const char *rest)
{
    int key = 0;
    while (key < KEYS && strcmp(words[0], key_names[key]) != 0)
        key++;
    if (key == KEYS)
        return fail(ps, "unknown key");
    if (sec->seen[key])
        return fail(ps, "key given twice");
    sec->seen[key] = 1;
    tuning_params *p = &f->params[sec->isa];
    if (key == KEY_MEASURED) {
        if (strlen(rest) >= TUNING_MEASURED_MAX)
            return fail(ps, "measured text too long");
        snprintf(f->measured[sec->isa], TUNING_MEASURED_MAX, "%s", rest);
        return 1;
    }
    if (n - 1 != key_words[key])
        return fail(ps, "wrong number of values");
    int64_t v[MAX_WORDS];
    switch (key) {
    case KEY_KERNEL: {
        const sgemm_kernels *row = sgemm_kernels_for(sec->isa);
        int shape = 0;
        while (shape < row->nshapes && strcmp(words[1], row->shapes[shape].name) != 0)
            shape++;
        if (shape == row->nshapes)
            return fail(ps, "kernel not of this path in this build");
        p->shape = shape;
        return 1;
    }
    case KEY_SPLIT:
        for (int t = 0; t < TUNING_TEAMS; t++) {
            int s = 0;
            while (s < 3 && strcmp(words[1 + t], split_names[s]) != 0)
                s++;
            if (s == 3)
                return fail(ps, "unknown split");
            p->team[t].split = (sgemm_split)s;
        }
        return 1;
    case KEY_MAT4:
        for (int op = 0; op < MAT4_OPS; op++)
            if (!parse_path(words[1 + op], &p->mat4[op]))
                return fail(ps, "unknown path");
        return 1;
    default:
        break;
    }
    for (int i = 1; i < n; i++)
        if ((v[i] = parse_number(words[i])) < 0)
            return fail(ps, "not a plain decimal number");
    switch (key) {
    case KEY_KC: p->kc = v[1]; break;
    case KEY_MC: p->team[TUNING_ONE].mc = v[1], p->team[TUNING_MANY].mc = v[2]; break;
    case KEY_NC: p->team[TUNING_ONE].nc = v[1], p->team[TUNING_MANY].nc = v[2]; break;
    case KEY_PREFETCH: p->team[TUNING_ONE].prefetch = v[1], p->team[TUNING_MANY].prefetch = v[2]; break;
    case KEY_SUP: p->sup_max_macs = (double)v[1]; break;
    case KEY_TOPK: p->topk_rows = v[1], p->topk_cols = v[2]; break;
    default: break;
    }
    return 1;
}

/* Close a section: every key there, the values consistent. */
static int section_end(parse_state *ps, tuning_file *f, const section *sec)
{
    for (int key = 0; key < KEYS; key++)
        if (!sec->seen[key] && key != KEY_MEASURED) {
            char reason[64];
            snprintf(reason, sizeof reason, "path %s: no %s", smm_isa_name(sec->isa), key_names[key]);
            return fail(ps, reason);
        }
    const char *bad = tuning_check(sec->isa, &f->params[sec->isa]);
    if (bad != NULL) {
        char reason[96];
        snprintf(reason, sizeof reason, "path %s: %s", smm_isa_name(sec->isa), bad);
        return fail(ps, reason);
    }
    f->has[sec->isa] = 1;
    return 1;
}

/* Split a line (modified in place) at single spaces; -1 for empty words (two spaces, a space at an end). */
static int split_words(char *line, char **words)
{
    int n = 0;
    char *p = line;
    for (;;) {
        if (n == MAX_WORDS)
            return -1;
        words[n++] = p;
        char *space = strchr(p, ' ');
        if (space == NULL)
            break;
        *space = '\0';
        p = space + 1;
    }
    for (int i = 0; i < n; i++)
        if (words[i][0] == '\0')
            return -1;
    return n;
}

static int checksum_ok(const char *text, size_t body, const char *hex)
{
    char want[17];
    snprintf(want, sizeof want, "%016llx", (unsigned long long)XXH3_64bits(text, body));
    return strcmp(hex, want) == 0;
}

int tuning_file_parse(const char *text, size_t len, tuning_file *f, char *why, size_t why_size)
{
    parse_state ps = { why, why_size, 0 };
    memset(f, 0, sizeof *f);
    if (len > TUNING_FILE_MAX_BYTES)
        return fail(&ps, "file too large");
    if (len == 0 || text[len - 1] != '\n')
        return fail(&ps, "file does not end with a newline");

    enum { HEADER, SIGNATURE, SECTIONS, DONE } stage = HEADER;
    int signature_lines = 0;
    size_t sig_used = 0;
    section sec = { SMM_ISA_AUTO, { 0 } };
    char line[TUNING_FILE_MAX_LINE + 1];
    for (size_t pos = 0; pos < len;) {
        const size_t start = pos;
        const char *nl = memchr(text + pos, '\n', len - pos); /* never NULL: the text ends with '\n' */
        const size_t n = (size_t)(nl - (text + pos));
        pos += n + 1;
        ps.line++;
        if (stage == DONE)
            return fail(&ps, "text after the checksum");
        if (n > TUNING_FILE_MAX_LINE)
            return fail(&ps, "line too long");
        for (size_t i = 0; i < n; i++)
            if ((unsigned char)text[start + i] < 0x20 || (unsigned char)text[start + i] > 0x7e)
                return fail(&ps, "control or non-ASCII character");
        memcpy(line, text + start, n);
        line[n] = '\0';
        if (stage == HEADER) {
            if (strcmp(line, FORMAT_LINE) != 0)
                return fail(&ps, "not a sketchmm tuning file of format 1");
            stage = SIGNATURE;
            continue;
        }
        if (n == 0 || line[0] == '#')
            continue;
        if (stage == SIGNATURE) {
            const size_t key_len = strlen(signature_keys[signature_lines]);
            if (strncmp(line, signature_keys[signature_lines], key_len) != 0 || line[key_len] != ' ')
                return fail(&ps, "signature line missing or out of order");
            if (sig_used + n + 2 > TUNING_SIGNATURE_MAX)
                return fail(&ps, "signature too long");
            memcpy(f->signature + sig_used, line, n);
            sig_used += n;
            f->signature[sig_used++] = '\n';
            f->signature[sig_used] = '\0';
            if (++signature_lines == SIGNATURE_LINES)
                stage = SECTIONS;
            continue;
        }
        const char *rest = strchr(line, ' ') != NULL ? strchr(line, ' ') + 1 : "";
        char copy[TUNING_FILE_MAX_LINE + 1];
        memcpy(copy, line, n + 1);
        char *words[MAX_WORDS];
        const int is_measured = strncmp(line, "measured ", 9) == 0;
        const int nw = is_measured ? 1 : split_words(copy, words);
        if (is_measured)
            words[0] = "measured";
        if (nw < 0)
            return fail(&ps, "empty word (two spaces, or a space at an end)");
        if (strcmp(words[0], "checksum") == 0) {
            if (nw != 2)
                return fail(&ps, "wrong number of values");
            if (sec.isa != SMM_ISA_AUTO && !section_end(&ps, f, &sec))
                return 0;
            if (!checksum_ok(text, start, words[1]))
                return fail(&ps, "checksum does not match the text");
            stage = DONE;
            continue;
        }
        if (strcmp(words[0], "path") == 0) {
            if (nw != 2)
                return fail(&ps, "wrong number of values");
            if (sec.isa != SMM_ISA_AUTO && !section_end(&ps, f, &sec))
                return 0;
            smm_isa isa;
            if (!parse_path(words[1], &isa) || tuning_row_path(isa) != isa)
                return fail(&ps, "path not in this build");
            if (f->has[isa])
                return fail(&ps, "path given twice");
            memset(&sec, 0, sizeof sec);
            sec.isa = isa;
            tuning_table_params(isa, &f->params[isa]);
            continue;
        }
        if (sec.isa == SMM_ISA_AUTO)
            return fail(&ps, "key outside a path section");
        if (!section_line(&ps, f, &sec, words, nw, rest))
            return 0;
    }
    ps.line = 0;
    if (stage != DONE)
        return fail(&ps, stage == SECTIONS ? "no checksum line" : "signature incomplete");
    return 1;
}

/* ---- formatting ---- */

int64_t tuning_file_format(const tuning_file *f, char *buf, size_t size)
{
    size_t used = 0;
    int ok = append(buf, size, &used, "%s\n# written by sketchmm_tune: the library uses this file only while "
                                      "every line checks out (docs/tuning.md)\n%s",
                    FORMAT_LINE, f->signature);
    for (int isa = SMM_ISA_SCALAR; isa < SMM_ISA_COUNT && ok; isa++) {
        if (!f->has[isa])
            continue;
        const tuning_params *p = &f->params[isa];
        const tuning_team *one = &p->team[TUNING_ONE], *many = &p->team[TUNING_MANY];
        ok = append(buf, size, &used, "path %s\nkernel %s\nkc %lld\n", smm_isa_name((smm_isa)isa),
                    sgemm_kernels_for((smm_isa)isa)->shapes[p->shape].name, (long long)p->kc);
        ok = ok && append(buf, size, &used, "mc %lld %lld\nnc %lld %lld\nsplit %s %s\nprefetch %lld %lld\n",
                          (long long)one->mc, (long long)many->mc, (long long)one->nc, (long long)many->nc,
                          split_names[one->split], split_names[many->split], (long long)one->prefetch,
                          (long long)many->prefetch);
        ok = ok && append(buf, size, &used, "sup_max_macs %.0f\ntopk_block %lld %lld\nmat4", p->sup_max_macs,
                          (long long)p->topk_rows, (long long)p->topk_cols);
        for (int op = 0; op < MAT4_OPS; op++)
            ok = ok && append(buf, size, &used, " %s", smm_isa_name(p->mat4[op]));
        ok = ok && append(buf, size, &used, "\n");
        if (f->measured[isa][0] != '\0')
            ok = ok && append(buf, size, &used, "measured %s\n", f->measured[isa]);
    }
    ok = ok && append(buf, size, &used, "checksum %016llx\n", (unsigned long long)XXH3_64bits(buf, used));
    return ok ? (int64_t)used : -1;
}

/* ---- files ---- */

int tuning_file_read(const char *path, tuning_file *f, char *why, size_t why_size)
{
    FILE *fp = fopen(path, "rb");
    if (fp == NULL) {
        snprintf(why, why_size, "%s", errno == ENOENT ? "no file" : strerror(errno));
        return errno == ENOENT ? 0 : -1;
    }
    char *text = malloc(TUNING_FILE_MAX_BYTES + 1);
    if (text == NULL) {
        fclose(fp);
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    const size_t len = fread(text, 1, TUNING_FILE_MAX_BYTES + 1, fp);
    const int failed = ferror(fp);
    fclose(fp);
    int ok;
    if (failed) {
        snprintf(why, why_size, "read error");
        ok = 0;
    } else {
        ok = tuning_file_parse(text, len, f, why, why_size);
    }
    free(text);
    return ok ? 1 : -1;
}

/* mkdir that accepts an existing directory. */
static int make_dir(const char *dir)
{
    return mkdir(dir, 0755) == 0 || errno == EEXIST;
}

/* Create the directory of path and, if needed, its parent. */
static int make_parent_dirs(const char *path)
{
    char dir[SMM_CONFIG_PATH];
    if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir)
        return 0;
    char *slash = strrchr(dir, '/');
    if (slash == NULL || slash == dir)
        return 1;
    *slash = '\0';
    struct stat st;
    if (stat(dir, &st) == 0)
        return 1;
    char *up = strrchr(dir, '/');
    if (up != NULL && up != dir) {
        *up = '\0';
        if (!make_dir(dir))
            return 0;
        *up = '/';
    }
    return make_dir(dir);
}

int tuning_file_write(const char *path, const tuning_file *f)
{
    char *text = malloc(TUNING_FILE_MAX_BYTES);
    if (text == NULL)
        return 0;
    const int64_t len = tuning_file_format(f, text, TUNING_FILE_MAX_BYTES);
    char tmp[SMM_CONFIG_PATH + 32];
    int ok = len > 0 && make_parent_dirs(path) &&
             snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) < (int)sizeof tmp;
    if (ok) {
        const int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        ok = fd >= 0;
        if (ok) {
            ok = write(fd, text, (size_t)len) == (ssize_t)len && fsync(fd) == 0;
            ok = close(fd) == 0 && ok;
            if (ok)
                ok = rename(tmp, path) == 0;
            if (!ok) {
                const int saved = errno;
                unlink(tmp);
                errno = saved;
            }
        }
    }
    free(text);
    return ok;
}
