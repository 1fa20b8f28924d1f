/* smm_status.c - status descriptions and the version string. */
#include "sketchmm/common.h"

#define SMM_STR2(x) #x
#define SMM_STR(x) SMM_STR2(x)

const char *smm_version(void)
{
    return SMM_STR(SKETCHMM_VERSION_MAJOR) "." SMM_STR(SKETCHMM_VERSION_MINOR) "." SMM_STR(SKETCHMM_VERSION_PATCH);
}

const char *smm_status_str(smm_status s)
{
    switch (s) {
    case SMM_OK: return "success";
    case SMM_ERR_NULL_POINTER: return "a required pointer is NULL";
    case SMM_ERR_BAD_SIZE:
        return "a dimension is out of range (negative, zero where at least 1 is required, or above its limit)";
    case SMM_ERR_BAD_LEADING_DIM: return "a leading dimension is smaller than the matrix requires";
    case SMM_ERR_OVERFLOW: return "an element or byte count overflows";
    case SMM_ERR_BAD_LAYOUT: return "unknown layout (expected SMM_ROW_MAJOR or SMM_COL_MAJOR)";
    case SMM_ERR_BAD_TRANS: return "unknown transpose flag (expected SMM_NO_TRANS or SMM_TRANS)";
    case SMM_ERR_BAD_BITS: return "unsupported sketch bit count";
    case SMM_ERR_BAD_METHOD: return "unknown approximation method";
    case SMM_ERR_BAD_ISA: return "unknown ISA value";
    case SMM_ERR_ISA_UNAVAILABLE: return "the requested ISA path is not available on this CPU or build";
    case SMM_ERR_BAD_ENV:
        return "SKETCHMM_ISA, SKETCHMM_NUM_THREADS or SKETCHMM_JIT holds a value that cannot be parsed";
    case SMM_ERR_BAD_THREADS: return "thread count is negative or above SMM_MAX_THREADS";
    case SMM_ERR_NO_MEMORY: return "out of memory";
    case SMM_ERR_NON_FINITE: return "input holds NaN or Inf, or a norm or sketch computed from it overflows float";
    case SMM_ERR_BAD_ARGUMENT: return "an argument is out of its documented range, or an output overlaps an input";
    case SMM_ERR_FILE: return "a file could not be written";
    case SMM_ERR_NO_EXEC_MEMORY:
        return "the system refuses executable memory for generated code (the precompiled kernels run)";
    }
    return "unknown status code";
}

int smm_version_number(void)
{
    return SKETCHMM_VERSION_NUMBER;
}
