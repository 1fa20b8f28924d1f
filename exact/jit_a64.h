/*
 * jit_a64.h - a small AArch64 instruction encoder for the run-time code
 * generators (library-internal). Every instruction is one 32-bit word: a
 * row of the table in jit_a64.c gives its fixed bits and the layout its
 * operands are packed in (registers at bits 0, 5, 10 or 16, an immediate
 * scaled and placed per layout); the functions below check each operand's
 * range and alignment and append the word to a jit_buf. A value that does
 * not fit sets buf->failed (the kernel is then not generated).
 * tests/test_jit_encode.c compares every row, over a grid of registers,
 * offsets and lanes, with the words aarch64-linux-gnu-as writes.
 *
 * Registers are numbers: general registers x0-x30 (31 is sp as a base of a
 * load or store and of add/sub immediate, xzr elsewhere), SIMD registers
 * v0-v31 (s, d or q views by the row).
 */
#ifndef EXACT_JIT_A64_H
#define EXACT_JIT_A64_H

#include <stddef.h>
#include <stdint.h>

#include "exact/jit_buf.h"

#define A64_SP 31
#define A64_XZR 31

typedef enum {
    /* loads and stores of SIMD registers, [xn, #imm] with imm a multiple of the size in 0 .. 4095 * size */
    A64_LDR_S, A64_LDR_D, A64_LDR_Q, A64_STR_S, A64_STR_D, A64_STR_Q,
    /* [xn], #imm post-index, imm in -256 .. 255 */
    A64_LDR_Q_POST,
    /* [xn, xm] */
    A64_LDR_S_REG,
    /* general registers: ldr xt, [xn], #imm (post-index) */
    A64_LDR_X_POST,
    /* ld1r {vt.4s}, [xn]; ld1 / st1 {vt.s}[lane], [xn] */
    A64_LD1R_4S, A64_LD1_LANE_S, A64_ST1_LANE_S,
    /* .4s vector arithmetic: op vd, vn, vm */
    A64_FMLA_4S, A64_FMUL_4S, A64_FADD_4S, A64_TRN1_4S, A64_TRN2_4S, A64_ZIP1_2D, A64_ZIP2_2D, A64_BIC_16B,
    /* by element: fmla / fmul vd.4s, vn.4s, vm.s[lane] */
    A64_FMLA_ELEM_4S, A64_FMUL_ELEM_4S,
    /* fcmlt vd.4s, vn.4s, #0.0; movi vd.2d, #0 */
    A64_FCMLT_ZERO_4S, A64_MOVI_ZERO_2D,
    /* 64-bit integer: add / sub / subs xd, xn, #imm12 (optionally lsl 12); add xd, xn, xm; orr (mov) */
    A64_ADD_IMM, A64_SUB_IMM, A64_SUBS_IMM, A64_ADD_REG, A64_ORR_REG,
    /* movz / movk xd, #imm16, lsl #(16 * hw) */
    A64_MOVZ, A64_MOVK,
    /* pairs of d registers: stp (pre-index) and ldp (post-index) */
    A64_STP_D_PRE, A64_LDP_D_POST,
    /* branches: b.cond and cbnz (imm19 words), ret, and adr (imm21 bytes) */
    A64_B_COND, A64_CBNZ, A64_RET, A64_ADR,
    A64_OP_COUNT
} a64_op;

/* Condition codes of b.cond. */
typedef enum {
    A64_EQ = 0, A64_NE = 1, A64_HS = 2, A64_LO = 3, A64_GE = 10, A64_LT = 11, A64_GT = 12, A64_LE = 13
} a64_cond;

/* The gas mnemonic of a row ("ldr", "fmla", ...). */
const char *a64_op_name(a64_op op);

/*
 * Loads and stores: rt the data register, rn the base, imm the byte offset
 * (unsigned-offset rows: a multiple of the access size; post-index rows:
 * -256 .. 255; ld1r: 0), rm the offset register of the _REG rows, lane the
 * element of the _LANE rows (0..3).
 */
void a64_mem(jit_buf *b, a64_op op, int rt, int rn, int64_t imm);
void a64_mem_reg(jit_buf *b, a64_op op, int rt, int rn, int rm);
void a64_mem_lane(jit_buf *b, a64_op op, int rt, int lane, int rn);

/* Three registers (vector arithmetic, add/sub/orr register forms): rd, rn, rm. */
void a64_rrr(jit_buf *b, a64_op op, int rd, int rn, int rm);
/* By element: rd, rn, rm.s[lane]. */
void a64_elem(jit_buf *b, a64_op op, int rd, int rn, int rm, int lane);
/* Two registers: fcmlt rd, rn, #0; movi rd, #0 (rn unused). */
void a64_rr(jit_buf *b, a64_op op, int rd, int rn);
/* add / sub / subs xd, xn, #imm: imm in 0 .. 4095, or a multiple of 4096 up to 4095 << 12. */
void a64_addsub_imm(jit_buf *b, a64_op op, int rd, int rn, int64_t imm);
/* movz / movk xd, #imm16, lsl #(16 * hw). */
void a64_movw(jit_buf *b, a64_op op, int rd, uint32_t imm16, int hw);
/* xd := imm (movz and movk as needed). */
void a64_mov_imm(jit_buf *b, int rd, uint64_t imm);
/* xd := xn + v for any v >= 0: one add (lsl 12) when v fits, else v through register scratch. */
void a64_add_const(jit_buf *b, int rd, int rn, int64_t v, int scratch);
/*
 * A load or store of an unsigned-offset row (A64_LDR_S .. A64_STR_Q)
 * at [base + off] for any off >= 0: the scaled immediate when it reaches,
 * else the address in register scratch (and the constant in scratch2).
 */
void a64_mem_far(jit_buf *b, a64_op op, int rt, int base, int64_t off, int scratch, int scratch2);
/*
 * n (1..4) floats at [base + off] (off >= 0) into the low lanes of SIMD
 * register r (the others zeroed, lane 3 kept for n == 3) or out of them:
 * ldr/str q, s, d, or d and lane 2 (ld1 / st1); far offsets through scratch
 * and scratch2.
 */
void a64_move_floats(jit_buf *b, int store, int n, int r, int base, int64_t off, int scratch, int scratch2);
/* stp dt, dt2, [xn, #imm]! / ldp dt, dt2, [xn], #imm: imm a multiple of 8 in -512 .. 504. */
void a64_pair(jit_buf *b, a64_op op, int rt, int rt2, int rn, int64_t imm);

/* A branch or adr at the current end of the buffer to the byte offset target (cond / rt as the row needs). */
void a64_branch_to(jit_buf *b, a64_op op, int cond_or_rt, size_t target);
void a64_ret(jit_buf *b);

#endif /* EXACT_JIT_A64_H */
