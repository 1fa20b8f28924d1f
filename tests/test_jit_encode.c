/*
 * test_jit_encode.c - the instruction encoders of the run-time code
 * generators (exact/jit_x86.h, exact/jit_a64.h) against the system
 * assembler, at test time.
 *
 * Each test writes a grid of instructions twice: through the encoder into a
 * buffer, and as assembly text, one line per instruction, each line labelled
 * (jumps and RIP-relative operands name those labels). GNU as
 * (x86-64: `as`; AArch64: `aarch64-linux-gnu-as`) assembles the text, objcopy
 * extracts the bytes of .text, and the two byte streams must be identical.
 * On a difference the first instruction that differs is named with both
 * encodings and objdump's reading of the assembler's bytes.
 *
 * Both encoders are portable C: this program holds both (the library of
 * each architecture carries its own; CMake adds the other one's source), so
 * the native x86-64 build checks the AArch64 encoder too.
 */
#define _DEFAULT_SOURCE 1 /* mkdtemp */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "exact/jit_a64.h"
#include "exact/jit_x86.h"
#include "test_tmpdir.h"
#include "test_util.h"

/* ------------------------------------------------------------------------- */
/* A listing: the encoder's bytes and the same instructions as text.          */
/* ------------------------------------------------------------------------- */

typedef struct {
    jit_buf code;
    char *text;
    size_t text_len, text_cap;
    size_t *start; /* offset of case i in code */
    char **line;   /* text of case i */
    int count, cap;
} listing;

static void text_append(listing *L, const char *s)
{
    const size_t n = strlen(s);
    if (L->text_len + n + 1 > L->text_cap) {
        L->text_cap = (L->text_len + n + 1) * 2 + 4096;
        L->text = realloc(L->text, L->text_cap);
        ck_assert_ptr_nonnull(L->text);
    }
    memcpy(L->text + L->text_len, s, n + 1);
    L->text_len += n;
}

/* Start case number L->count at the current end of the code: its label .Lc<n> and its text line. */
static int begin(listing *L, const char *fmt, ...)
{
    char line[256], labelled[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (L->count == L->cap) {
        L->cap = L->cap ? 2 * L->cap : 1024;
        L->start = realloc(L->start, (size_t)L->cap * sizeof *L->start);
        L->line = realloc(L->line, (size_t)L->cap * sizeof *L->line);
        ck_assert(L->start && L->line);
    }
    L->start[L->count] = L->code.len;
    L->line[L->count] = strdup(line);
    snprintf(labelled, sizeof labelled, ".Lc%d: %s\n", L->count, line);
    text_append(L, labelled);
    return L->count++;
}

static void listing_free(listing *L)
{
    for (int i = 0; i < L->count; i++)
        free(L->line[i]);
    free(L->line);
    free(L->start);
    free(L->text);
    jit_buf_free(&L->code);
    memset(L, 0, sizeof *L);
}

static unsigned char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *p = malloc(n > 0 ? (size_t)n : 1);
    *len = p != NULL && n > 0 ? fread(p, 1, (size_t)n, f) : 0;
    fclose(f);
    return p;
}

static void hex(char *out, size_t cap, const unsigned char *p, size_t n)
{
    size_t o = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n && o + 4 < cap; i++)
        o += (size_t)snprintf(out + o, cap - o, "%02x ", p[i]);
}

/*
 * Assemble L's text with `as` (prefixed by `header`), and compare its .text
 * bytes with L's code. tools: the assembler, objcopy and objdump commands.
 */
static void compare_with_assembler(listing *L, const char *header, const char *as, const char *objcopy,
                                   const char *objdump)
{
    ck_assert_msg(!L->code.failed, "the encoder refused an instruction of the grid (buffer marked failed)");
    test_tmpdir_setup();
    char src[700], obj[700], bin[700], cmd[4096];
    snprintf(src, sizeof src, "%s/grid.s", test_tmpdir);
    snprintf(obj, sizeof obj, "%s/grid.o", test_tmpdir);
    snprintf(bin, sizeof bin, "%s/grid.bin", test_tmpdir);
    FILE *f = fopen(src, "w");
    ck_assert_ptr_nonnull(f);
    fputs(header, f);
    fputs(L->text, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s -o '%s' '%s' 2>&1 | head -20 && %s -O binary -j .text '%s' '%s'", as, obj, src,
             objcopy, obj, bin);
    const int rc = system(cmd);
    ck_assert_msg(rc == 0, "assembling the grid failed (%d): %s", rc, cmd);
    size_t n = 0;
    unsigned char *want = read_file(bin, &n);
    ck_assert_msg(want != NULL, "%s produced no %s", objcopy, bin);
    for (int i = 0; i < L->count; i++) {
        const size_t s = L->start[i], e = i + 1 < L->count ? L->start[i + 1] : L->code.len;
        if (e <= n && memcmp(L->code.p + s, want + s, e - s) == 0)
            continue;
        char ours[200], theirs[200];
        hex(ours, sizeof ours, L->code.p + s, e - s);
        hex(theirs, sizeof theirs, want + s, s < n ? (n - s < 15 ? n - s : 15) : 0);
        snprintf(cmd, sizeof cmd, "%s -d '%s' | grep -A3 -E '^ *%zx:' >&2", objdump, obj, s);
        if (system(cmd) != 0)
            fprintf(stderr, "(objdump found no instruction at 0x%zx)\n", s);
        ck_abort_msg("case %d at offset 0x%zx `%s`: encoder %s, assembler %s(%zu bytes in all, encoder %zu)", i, s,
                     L->line[i], ours, theirs, n, L->code.len);
    }
    ck_assert_uint_eq(n, L->code.len);
    printf("%d instructions, %zu bytes: identical to %s\n", L->count, n, as);
    free(want);
    test_remove_tree(test_tmpdir, 0);
}

/* ------------------------------------------------------------------------- */
/* x86-64                                                                     */
/* ------------------------------------------------------------------------- */

static const char *const gpr[16] = { "rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
                                     "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15" };
static const char *const gpr32[16] = { "eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi",
                                       "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d" };

static const char *vreg(x86_width w, int r)
{
    static char names[8][8];
    static int next;
    char *s = names[next++ & 7];
    snprintf(s, 8, "%cmm%d", w == X86_ZMM ? 'z' : w == X86_YMM ? 'y' : 'x', r);
    return s;
}

static const char *mem_text(x86_mem m)
{
    static char out[8][80];
    static int next;
    char *s = out[next++ & 7];
    if (m.base == X86_RIP) {
        snprintf(s, 80, "[rip+.Lc0+%lld]", (long long)m.disp);
        return s;
    }
    int o = snprintf(s, 80, "[%s", gpr[m.base]);
    if (m.index != X86_NOREG)
        o += snprintf(s + o, (size_t)(80 - o), "+%s*%d", gpr[m.index], m.scale);
    if (m.disp != 0)
        o += snprintf(s + o, (size_t)(80 - o), "%+lld", (long long)m.disp);
    snprintf(s + o, (size_t)(80 - o), "]");
    return s;
}

static const char *mask_text(int mask, int zero)
{
    static char out[4][12];
    static int next;
    char *s = out[next++ & 3];
    s[0] = '\0';
    if (mask)
        snprintf(s, 12, "{k%d}%s", mask, zero ? "{z}" : "");
    return s;
}

/* The memory operands of the grid: bases needing SIB or a zero displacement byte, indexes, disp8(*N) edges. */
static int x86_mems(x86_mem *out)
{
    static const int bases[] = { X86_RAX, X86_RSP, X86_RBP, X86_R12, X86_R13, X86_R15, X86_RDI };
    static const int64_t disps[] = { 0, 4, -4, 8, 60, 64, -64, 124, 127, 128, -128, -132, 508, 512, -512, 1024, 4096,
                                     8128, 8192, -8192, 0x12344 };
    int n = 0;
    for (size_t b = 0; b < sizeof bases / sizeof bases[0]; b++)
        for (size_t d = 0; d < sizeof disps / sizeof disps[0]; d += (b % 2 ? 2 : 1))
            out[n++] = x86_m(bases[b], disps[d]);
    out[n++] = x86_mi(X86_RAX, X86_RBX, 4, 64);
    out[n++] = x86_mi(X86_R13, X86_R9, 8, 0);
    out[n++] = x86_mi(X86_RSP, X86_R14, 2, -256);
    out[n++] = x86_mi(X86_RBP, X86_RAX, 1, 2048);
    out[n++] = x86_mi(X86_R12, X86_R12, 1, 12);
    out[n++] = x86_rip(0);
    out[n++] = x86_rip(64);
    return n;
}

typedef enum { SHAPE_LOAD, SHAPE_STORE, SHAPE_THREE, SHAPE_EXTRACT, SHAPE_MASKMOV_LOAD, SHAPE_MASKMOV_STORE } shape;

typedef struct {
    x86_vop op;
    shape sh;
    unsigned widths; /* bit w: width w allowed */
    int evex;        /* 0: VEX only, 1: VEX or EVEX, 2: EVEX only */
    int has_mem, bcast, imm, zero_ok;
    int mask_ok; /* takes an opmask */
} vop_case;

static const vop_case vop_cases[] = {
    { X86_VMOVUPS_LOAD, SHAPE_LOAD, 7, 1, 1, 0, -1, 1, 1 },
    { X86_VMOVUPS_STORE, SHAPE_STORE, 7, 1, 1, 0, -1, 0, 1 },
    { X86_VMOVSS_LOAD, SHAPE_LOAD, 1, 1, 1, 0, -1, 1, 1 },
    { X86_VMOVSS_STORE, SHAPE_STORE, 1, 1, 1, 0, -1, 0, 1 },
    { X86_VMOVSD_LOAD, SHAPE_LOAD, 1, 1, 1, 0, -1, 1, 1 },
    { X86_VMOVSD_STORE, SHAPE_STORE, 1, 1, 1, 0, -1, 0, 1 },
    { X86_VMOVNTPS, SHAPE_STORE, 7, 1, 1, 0, -1, 0, 0 },
    { X86_VBROADCASTSS, SHAPE_LOAD, 7, 1, 1, 0, -1, 1, 1 },
    { X86_VFMADD231PS, SHAPE_THREE, 7, 1, 1, 1, -1, 1, 1 },
    { X86_VMULPS, SHAPE_THREE, 7, 1, 1, 1, -1, 1, 1 },
    { X86_VADDPS, SHAPE_THREE, 7, 1, 1, 1, -1, 1, 1 },
    { X86_VMAXPS, SHAPE_THREE, 7, 1, 1, 1, -1, 1, 1 },
    { X86_VXORPS, SHAPE_THREE, 7, 1, 1, 1, -1, 1, 1 },
    { X86_VUNPCKLPS, SHAPE_THREE, 7, 1, 1, 1, -1, 1, 1 },
    { X86_VUNPCKHPS, SHAPE_THREE, 7, 1, 1, 1, -1, 1, 1 },
    { X86_VSHUFPS, SHAPE_THREE, 7, 1, 1, 1, 0x4E, 1, 1 },
    { X86_VMOVHLPS, SHAPE_THREE, 1, 1, 0, 0, -1, 0, 0 },
    { X86_VMASKMOVPS_LOAD, SHAPE_MASKMOV_LOAD, 3, 0, 1, 0, -1, 0, 0 },
    { X86_VMASKMOVPS_STORE, SHAPE_MASKMOV_STORE, 3, 0, 1, 0, -1, 0, 0 },
    { X86_VEXTRACTF128, SHAPE_EXTRACT, 2, 0, 0, 0, 1, 0, 0 },
    { X86_VPERM2F128, SHAPE_THREE, 2, 0, 1, 0, 0x31, 0, 0 },
    { X86_VEXTRACTF32X4, SHAPE_EXTRACT, 6, 2, 1, 0, 1, 1, 1 },
    { X86_VEXTRACTF32X8, SHAPE_EXTRACT, 4, 2, 1, 0, 1, 1, 1 },
    { X86_VINSERTF32X4, SHAPE_THREE, 6, 2, 1, 0, 1, 1, 1 },
    { X86_VSHUFF32X4, SHAPE_THREE, 6, 2, 1, 1, 0x88, 1, 1 },
};

/* Registers of the grid: each of the extension bits R, X/B and R'/V' set and clear. */
static const int regs_evex[] = { 0, 1, 7, 8, 15, 16, 23, 31 };
static const int regs_vex[] = { 0, 1, 7, 8, 15 };

static void x86_vector_case(listing *L, const vop_case *c, x86_width w, int reg, int vvvv, int rm, const x86_mem *m,
                            int mask, int zero, int bcast)
{
    const char *name = x86_vop_name(c->op);
    const char *R = vreg(w, reg), *V = vreg(w, vvvv), *M = vreg(w, rm);
    const char *mk = mask_text(mask, zero);
    char src[120], imm[16] = "";
    if (m != NULL)
        snprintf(src, sizeof src, "%s%s%s", bcast ? "DWORD PTR " : "", mem_text(*m),
                 bcast ? (w == X86_ZMM ? "{1to16}" : w == X86_YMM ? "{1to8}" : "{1to4}") : "");
    else
        snprintf(src, sizeof src, "%s", M);
    if (c->imm >= 0)
        snprintf(imm, sizeof imm, ", %d", c->imm);
    switch (c->sh) {
    case SHAPE_LOAD:
        begin(L, "%s %s%s, %s", name, R, mk, c->op == X86_VBROADCASTSS && m == NULL ? vreg(X86_XMM, rm) : src);
        break;
    case SHAPE_STORE: begin(L, "%s %s%s, %s", name, src, mk, R); break;
    case SHAPE_THREE: {
        /* vinsertf32x4: the third operand is an xmm */
        const int third_xmm = c->op == X86_VINSERTF32X4;
        begin(L, "%s %s%s, %s, %s%s", name, R, mk, V, m != NULL || !third_xmm ? src : vreg(X86_XMM, rm), imm);
        break;
    }
    case SHAPE_EXTRACT: {
        /* reg = the wide source, rm = the narrow destination */
        const x86_width narrow = c->op == X86_VEXTRACTF32X8 ? X86_YMM : X86_XMM;
        begin(L, "%s %s%s, %s%s", name, m != NULL ? mem_text(*m) : vreg(narrow, rm), mk, R, imm);
        break;
    }
    case SHAPE_MASKMOV_LOAD: begin(L, "%s %s, %s, %s", name, R, V, src); break;
    case SHAPE_MASKMOV_STORE: begin(L, "%s %s, %s, %s", name, src, V, R); break;
    }
    const int v = c->sh == SHAPE_LOAD || c->sh == SHAPE_STORE || c->sh == SHAPE_EXTRACT ? 0 : vvvv;
    if (m != NULL)
        x86_vrm(&L->code, c->op, w, reg, v, *m, mask, zero, bcast, c->imm);
    else
        x86_vrr(&L->code, c->op, w, reg, v, rm, mask, zero, c->imm);
}

START_TEST(test_x86_vector_grid)
{
    listing L = { 0 };
    x86_mem mems[160];
    const int nmem = x86_mems(mems);
    for (size_t ci = 0; ci < sizeof vop_cases / sizeof vop_cases[0]; ci++) {
        const vop_case *c = &vop_cases[ci];
        const int *regs = c->evex ? regs_evex : regs_vex;
        const int nregs = c->evex ? 8 : 5;
        for (int wi = 0; wi < 3; wi++) {
            if (!(c->widths & (1u << wi)))
                continue;
            const x86_width w = (x86_width)wi;
            /* VEX-capable rows: registers 0-15 without masks give VEX; 16-31 or a zmm give EVEX */
            for (int a = 0; a < nregs; a++)
                for (int bb = 0; bb < nregs; bb += 2) {
                    const int reg = regs[a], other = regs[(a + bb + 1) % nregs], rm = regs[bb];
                    const int uses_vvvv = c->sh == SHAPE_THREE || c->sh == SHAPE_MASKMOV_LOAD ||
                                          c->sh == SHAPE_MASKMOV_STORE;
                    if (!(c->op == X86_VMOVSS_LOAD || c->op == X86_VMOVSD_LOAD || c->op == X86_VMOVSS_STORE ||
                          c->op == X86_VMOVSD_STORE || c->sh == SHAPE_STORE || c->sh == SHAPE_MASKMOV_LOAD ||
                          c->sh == SHAPE_MASKMOV_STORE))
                        x86_vector_case(&L, c, w, reg, uses_vvvv ? other : 0, rm, NULL, 0, 0, 0);
                    if (c->has_mem)
                        x86_vector_case(&L, c, w, reg, uses_vvvv ? other : 0, 0, &mems[(a * 7 + bb) % nmem], 0, 0,
                                        0);
                }
            if (!c->has_mem)
                continue;
            for (int mi = 0; mi < nmem; mi++) {
                const int reg = regs[mi % nregs], other = regs[(mi + 3) % nregs];
                const int uses_vvvv = c->sh == SHAPE_THREE || c->sh == SHAPE_MASKMOV_LOAD ||
                                      c->sh == SHAPE_MASKMOV_STORE;
                x86_vector_case(&L, c, w, reg, uses_vvvv ? other : 0, 0, &mems[mi], 0, 0, 0);
                if (c->evex && c->mask_ok) {
                    /* masks (merging and zeroing), embedded broadcast: EVEX with disp8*N */
                    const int zero = c->zero_ok && c->sh != SHAPE_EXTRACT && mi % 2 == 0; /* no {z} on a store */
                    x86_vector_case(&L, c, w, reg, uses_vvvv ? other : 0, 0, &mems[mi], 1 + mi % 7, zero, 0);
                    if (c->bcast)
                        x86_vector_case(&L, c, w, reg, uses_vvvv ? other : 0, 0, &mems[mi], mi % 3 == 0 ? 0 : 2, 0,
                                        1);
                }
            }
        }
    }
    compare_with_assembler(&L, ".intel_syntax noprefix\n.text\n", "as --64", "objcopy", "objdump -M intel");
    listing_free(&L);
}
END_TEST

START_TEST(test_x86_general_grid)
{
    listing L = { 0 };
    jit_buf *b = &L.code;
    x86_mem mems[160];
    const int nmem = x86_mems(mems);
    for (int d = 0; d < 16; d++)
        for (int s = 0; s < 16; s += 3) {
            begin(&L, "mov %s, %s", gpr[d], gpr[s]);
            x86_mov_rr(b, d, s);
            begin(&L, "add %s, %s", gpr[d], gpr[s]);
            x86_alu_rr(b, X86_ADD, d, s);
            begin(&L, "sub %s, %s", gpr[s], gpr[d]);
            x86_alu_rr(b, X86_SUB, s, d);
            begin(&L, "cmp %s, %s", gpr[d], gpr[s]);
            x86_alu_rr(b, X86_CMP, d, s);
        }
    static const int64_t imms[] = { 0, 1, -1, 127, 128, -128, -129, 4096, 0x7fffffff, -0x80000000ll, 0x80000000ll,
                                    0xffffffffll, 0x123456789abcll, -0x123456789abcll };
    for (int d = 0; d < 16; d++) {
        for (size_t i = 0; i < sizeof imms / sizeof imms[0]; i++) {
            begin(&L, "mov %s, %lld", gpr[d], (long long)imms[i]);
            x86_mov_ri(b, d, imms[i]);
            if (imms[i] >= INT32_MIN && imms[i] <= INT32_MAX) {
                static const char *const alu[] = { "add", "sub", "cmp" };
                static const x86_alu ops[] = { X86_ADD, X86_SUB, X86_CMP };
                const int o = (int)((size_t)d + i) % 3;
                begin(&L, "%s %s, %lld", alu[o], gpr[d], (long long)imms[i]);
                x86_alu_ri(b, ops[o], d, (int32_t)imms[i]);
            }
        }
        begin(&L, "dec %s", gpr[d]);
        x86_dec(b, d);
        begin(&L, "xor %s, %s", gpr32[d], gpr32[d]);
        x86_zero(b, d);
        begin(&L, "push %s", gpr[d]);
        x86_push(b, d);
        begin(&L, "pop %s", gpr[d]);
        x86_pop(b, d);
        begin(&L, "kmovw k%d, %s", 1 + d % 7, gpr32[d]);
        x86_kmovw(b, 1 + d % 7, d);
    }
    for (int mi = 0; mi < nmem; mi++) {
        const int r = (mi * 5) % 16;
        begin(&L, "mov %s, QWORD PTR %s", gpr[r], mem_text(mems[mi]));
        x86_mov_rm(b, r, mems[mi]);
        begin(&L, "lea %s, %s", gpr[(r + 3) % 16], mem_text(mems[mi]));
        x86_lea(b, (r + 3) % 16, mems[mi]);
    }
    begin(&L, "vzeroupper");
    x86_vzeroupper(b);
    begin(&L, "sfence");
    x86_sfence(b);
    begin(&L, "ret");
    x86_ret(b);
    /* jumps back: near (rel8) and far (rel32) */
    static const x86_cond conds[] = { X86_JE, X86_JNE, X86_JL, X86_JGE, X86_JLE, X86_JG };
    static const char *const cond_names[] = { "je", "jne", "jl", "jge", "jle", "jg" };
    for (int j = 0; j < 6; j++) {
        const int near = L.count - 3, far = 2 + j;
        begin(&L, "%s .Lc%d", cond_names[j], near);
        x86_jcc_to(b, conds[j], L.start[near]);
        begin(&L, "%s .Lc%d", cond_names[j], far);
        x86_jcc_to(b, conds[j], L.start[far]);
    }
    begin(&L, "ret");
    x86_ret(b);
    compare_with_assembler(&L, ".intel_syntax noprefix\n.text\n", "as --64", "objcopy", "objdump -M intel");
    listing_free(&L);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* AArch64                                                                    */
/* ------------------------------------------------------------------------- */

static const int a64_regs[] = { 0, 1, 7, 8, 15, 16, 23, 30, 31 };
#define A64_NREGS ((int)(sizeof a64_regs / sizeof a64_regs[0]))

static const char *xname(int r, int sp)
{
    static char out[8][8];
    static int next;
    char *s = out[next++ & 7];
    if (r == 31)
        snprintf(s, 8, "%s", sp ? "sp" : "xzr");
    else
        snprintf(s, 8, "x%d", r);
    return s;
}

START_TEST(test_a64_grid)
{
    listing L = { 0 };
    jit_buf *b = &L.code;
    /* loads and stores, unsigned scaled offsets (0 .. 4095 * size) */
    static const struct { a64_op op; const char *name; char view; int size; } uimm[] = {
        { A64_LDR_S, "ldr", 's', 4 }, { A64_LDR_D, "ldr", 'd', 8 }, { A64_LDR_Q, "ldr", 'q', 16 },
        { A64_STR_S, "str", 's', 4 }, { A64_STR_D, "str", 'd', 8 }, { A64_STR_Q, "str", 'q', 16 },
    };
    static const int64_t units[] = { 0, 1, 2, 3, 17, 255, 256, 1000, 4095 };
    for (size_t i = 0; i < sizeof uimm / sizeof uimm[0]; i++)
        for (int t = 0; t < A64_NREGS; t++)
            for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
                const int rt = a64_regs[t] == 31 && uimm[i].view == 'x' ? 30 : a64_regs[t];
                const int rn = a64_regs[(t + u) % A64_NREGS];
                const int64_t off = units[u] * uimm[i].size;
                begin(&L, "%s %c%d, [%s, #%lld]", uimm[i].name, uimm[i].view, rt, xname(rn, 1), (long long)off);
                a64_mem(b, uimm[i].op, rt, rn, off);
            }
    /* post-index, -256 .. 255 */
    static const struct { a64_op op; char view; } post[] = { { A64_LDR_Q_POST, 'q' }, { A64_LDR_X_POST, 'x' } };
    static const int64_t soffs[] = { -256, -255, -17, -1, 1, 3, 16, 100, 255 };
    for (size_t i = 0; i < sizeof post / sizeof post[0]; i++)
        for (int t = 0; t < A64_NREGS; t++) {
            const int64_t off = soffs[t % 9];
            const int rt = a64_regs[t] == 31 && post[i].view == 'x' ? 29 : a64_regs[t];
            const int rn = a64_regs[(t + 4) % A64_NREGS];
            begin(&L, "ldr %c%d, [%s], #%lld", post[i].view, rt, xname(rn, 1), (long long)off);
            a64_mem(b, post[i].op, rt, rn, off);
        }
    /* register offsets, lanes, ld1r */
    for (int t = 0; t < A64_NREGS; t++) {
        const int rt = a64_regs[t], rn = a64_regs[(t + 2) % A64_NREGS], rm = a64_regs[(t + 5) % A64_NREGS];
        const int rm_ok = rm == 31 ? 9 : rm;
        begin(&L, "ldr s%d, [%s, x%d]", rt, xname(rn, 1), rm_ok);
        a64_mem_reg(b, A64_LDR_S_REG, rt, rn, rm_ok);
        begin(&L, "ld1r {v%d.4s}, [%s]", rt, xname(rn, 1));
        a64_mem(b, A64_LD1R_4S, rt, rn, 0);
        for (int lane = 0; lane < 4; lane++) {
            begin(&L, "ld1 {v%d.s}[%d], [%s]", rt, lane, xname(rn, 1));
            a64_mem_lane(b, A64_LD1_LANE_S, rt, lane, rn);
            begin(&L, "st1 {v%d.s}[%d], [%s]", rm, lane, xname(rn, 1));
            a64_mem_lane(b, A64_ST1_LANE_S, rm, lane, rn);
        }
    }
    /* vector arithmetic, by element, two-register forms */
    static const struct { a64_op op; const char *name; const char *arr; } vec3[] = {
        { A64_FMLA_4S, "fmla", "4s" }, { A64_FMUL_4S, "fmul", "4s" }, { A64_FADD_4S, "fadd", "4s" },
        { A64_TRN1_4S, "trn1", "4s" }, { A64_TRN2_4S, "trn2", "4s" }, { A64_ZIP1_2D, "zip1", "2d" },
        { A64_ZIP2_2D, "zip2", "2d" }, { A64_BIC_16B, "bic", "16b" },
    };
    for (size_t i = 0; i < sizeof vec3 / sizeof vec3[0]; i++)
        for (int t = 0; t < A64_NREGS; t++) {
            const int d = a64_regs[t], n = a64_regs[(t + 3) % A64_NREGS], m = a64_regs[(t + 7) % A64_NREGS];
            begin(&L, "%s v%d.%s, v%d.%s, v%d.%s", vec3[i].name, d, vec3[i].arr, n, vec3[i].arr, m, vec3[i].arr);
            a64_rrr(b, vec3[i].op, d, n, m);
        }
    for (int t = 0; t < A64_NREGS; t++)
        for (int lane = 0; lane < 4; lane++) {
            const int d = a64_regs[t], n = a64_regs[(t + 1) % A64_NREGS], m = a64_regs[(t + 2 + lane) % A64_NREGS];
            begin(&L, "fmla v%d.4s, v%d.4s, v%d.s[%d]", d, n, m, lane);
            a64_elem(b, A64_FMLA_ELEM_4S, d, n, m, lane);
            begin(&L, "fmul v%d.4s, v%d.4s, v%d.s[%d]", m, d, n, lane);
            a64_elem(b, A64_FMUL_ELEM_4S, m, d, n, lane);
        }
    for (int t = 0; t < A64_NREGS; t++) {
        const int d = a64_regs[t], n = a64_regs[(t + 5) % A64_NREGS];
        begin(&L, "fcmlt v%d.4s, v%d.4s, #0.0", d, n);
        a64_rr(b, A64_FCMLT_ZERO_4S, d, n);
        begin(&L, "movi v%d.2d, #0", d);
        a64_rr(b, A64_MOVI_ZERO_2D, d, 0);
    }
    /* integer arithmetic (register 31: sp in add/sub immediate, xzr in the register forms and as subs' Rd) */
    static const int64_t aimm[] = { 0, 1, 4, 255, 4095, 4096, 8192, 4095 * 4096 };
    for (int t = 0; t < A64_NREGS; t++) {
        const int d = a64_regs[t], n = a64_regs[(t + 4) % A64_NREGS], m = a64_regs[(t + 6) % A64_NREGS];
        const int64_t im = aimm[t % 8];
        begin(&L, "add %s, %s, #%lld", xname(d, 1), xname(n, 1), (long long)im);
        a64_addsub_imm(b, A64_ADD_IMM, d, n, im);
        begin(&L, "sub %s, %s, #%lld", xname(n, 1), xname(d, 1), (long long)im);
        a64_addsub_imm(b, A64_SUB_IMM, n, d, im);
        begin(&L, "subs %s, %s, #%lld", xname(d, 0), xname(n, 1), (long long)im);
        a64_addsub_imm(b, A64_SUBS_IMM, d, n, im);
        const int dd = d == 31 ? 3 : d, nn = n == 31 ? 4 : n;
        begin(&L, "add %s, %s, %s", xname(dd, 0), xname(nn, 0), xname(m, 0));
        a64_rrr(b, A64_ADD_REG, dd, nn, m);
        begin(&L, "orr %s, %s, %s", xname(dd, 0), xname(n, 0), xname(m, 0));
        a64_rrr(b, A64_ORR_REG, dd, n, m);
        for (int hw = 0; hw < 4; hw++) {
            const uint32_t v = (uint32_t)(0x1234u * (unsigned)(t + 1) + (unsigned)hw) & 0xFFFF;
            begin(&L, "movz x%d, #%u, lsl #%d", d == 31 ? 2 : d, v, 16 * hw);
            a64_movw(b, A64_MOVZ, d == 31 ? 2 : d, v, hw);
            begin(&L, "movk x%d, #%u, lsl #%d", n == 31 ? 5 : n, v ^ 0xFFFF, 16 * hw);
            a64_movw(b, A64_MOVK, n == 31 ? 5 : n, v ^ 0xFFFF, hw);
        }
    }
    /* pairs */
    static const int64_t poffs[] = { -512, -16, -8, 0, 8, 16, 504 };
    for (int t = 0; t < 7; t++) {
        const int r1 = 8 + t, r2 = 15 - t, rn = t % 2 ? 31 : 3 + t;
        begin(&L, "stp d%d, d%d, [%s, #%lld]!", r1, r2, xname(rn, 1), (long long)poffs[t]);
        a64_pair(b, A64_STP_D_PRE, r1, r2, rn, poffs[t]);
        begin(&L, "ldp d%d, d%d, [%s], #%lld", r1, r2, xname(rn, 1), (long long)poffs[t]);
        a64_pair(b, A64_LDP_D_POST, r1, r2, rn, poffs[t]);
    }
    /* branches (and adr) back to earlier labels, near and far */
    static const struct { a64_cond c; const char *name; } conds[] = {
        { A64_EQ, "eq" }, { A64_NE, "ne" }, { A64_HS, "hs" }, { A64_LO, "lo" },
        { A64_GE, "ge" }, { A64_LT, "lt" }, { A64_GT, "gt" }, { A64_LE, "le" },
    };
    for (int i = 0; i < 8; i++) {
        const int back = i * 37;
        begin(&L, "b.%s .Lc%d", conds[i].name, back);
        a64_branch_to(b, A64_B_COND, (int)conds[i].c, L.start[back]);
        begin(&L, "cbnz x%d, .Lc%d", a64_regs[i], back + 1);
        a64_branch_to(b, A64_CBNZ, a64_regs[i], L.start[back + 1]);
        begin(&L, "adr x%d, .Lc%d", a64_regs[i], back + 4);
        a64_branch_to(b, A64_ADR, a64_regs[i], L.start[back + 4]);
    }
    begin(&L, "ret");
    a64_ret(b);
    compare_with_assembler(&L, ".text\n", "aarch64-linux-gnu-as", "aarch64-linux-gnu-objcopy",
                           "aarch64-linux-gnu-objdump");
    listing_free(&L);
}
END_TEST

/* Values the encoders cannot express are refused (the buffer is marked failed), never encoded wrongly. */
START_TEST(test_refusals)
{
    jit_buf b = { 0 };
    x86_vrr(&b, X86_VMASKMOVPS_LOAD, X86_ZMM, 0, 1, 2, 0, 0, -1); /* VEX-only row with zmm */
    ck_assert(b.failed);
    jit_buf_free(&b);
    x86_vrm(&b, X86_VMOVUPS_LOAD, X86_ZMM, 0, 0, x86_mi(X86_RAX, X86_RSP, 1, 0), 0, 0, 0, -1); /* rsp index */
    ck_assert(b.failed);
    jit_buf_free(&b);
    x86_vrm(&b, X86_VMOVUPS_LOAD, X86_ZMM, 0, 0, x86_m(X86_RAX, (int64_t)1 << 32), 0, 0, 0, -1); /* disp > 32 bits */
    ck_assert(b.failed);
    jit_buf_free(&b);
    x86_vrm(&b, X86_VMOVUPS_LOAD, X86_ZMM, 0, 0, x86_m(X86_RAX, 0), 0, 0, 1, -1); /* broadcast on a full load */
    ck_assert(b.failed);
    jit_buf_free(&b);
    x86_vrr(&b, X86_VADDPS, X86_ZMM, 32, 0, 0, 0, 0, -1);
    ck_assert(b.failed);
    jit_buf_free(&b);
    a64_mem(&b, A64_LDR_Q, 0, 1, 8); /* not a multiple of 16 */
    ck_assert(b.failed);
    jit_buf_free(&b);
    a64_mem(&b, A64_LDR_S, 0, 1, 4096 * 4); /* beyond 4095 * 4 */
    ck_assert(b.failed);
    jit_buf_free(&b);
    a64_mem(&b, A64_LDR_Q_POST, 0, 1, 256);
    ck_assert(b.failed);
    jit_buf_free(&b);
    a64_addsub_imm(&b, A64_ADD_IMM, 0, 1, 4097);
    ck_assert(b.failed);
    jit_buf_free(&b);
    a64_elem(&b, A64_FMLA_ELEM_4S, 0, 1, 2, 4);
    ck_assert(b.failed);
    jit_buf_free(&b);
    a64_pair(&b, A64_STP_D_PRE, 8, 9, 31, 4);
    ck_assert(b.failed);
    jit_buf_free(&b);
    /* a branch beyond +-1 MiB: the buffer is at most JIT_BUF_MAX, but the target may be anything */
    a64_branch_to(&b, A64_CBNZ, 1, (size_t)1 << 21);
    ck_assert(b.failed);
    jit_buf_free(&b);
}
END_TEST

static Suite *encode_suite(void)
{
    Suite *s = suite_create("jit_encode");
    TCase *tc = tcase_create("assembler");
    tcase_add_test(tc, test_x86_vector_grid);
    tcase_add_test(tc, test_x86_general_grid);
    tcase_add_test(tc, test_a64_grid);
    tcase_add_test(tc, test_refusals);
    tcase_set_timeout(tc, 300);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(encode_suite());
}
