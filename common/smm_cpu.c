/*
 * smm_cpu.c - CPU feature detection (cpuid/xgetbv on x86-64; AArch64 always
 * has NEON) and the CPU's identity (cpuid leaves 0 and 1; the MIDR register
 * as Linux shows it on AArch64).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/smm_runtime.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <cpuid.h>

static uint64_t xgetbv0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

static smm_cpu_features detect(void)
{
    smm_cpu_features f = { 0, 0, 0, 0, 0 };
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return f;
    const int osxsave = (c >> 27) & 1, fma = (c >> 12) & 1, popcnt = (c >> 23) & 1;
    if (!osxsave)
        return f;
    const uint64_t xcr0 = xgetbv0();
    const int ymm_state = (xcr0 & 0x6) == 0x6;   /* SSE and AVX state */
    const int zmm_state = (xcr0 & 0xe6) == 0xe6; /* plus opmask and both zmm halves */
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return f;
    const int avx2 = (b >> 5) & 1;
    const int avx512f = (b >> 16) & 1, avx512dq = (b >> 17) & 1;
    const int avx512bw = (b >> 30) & 1, avx512vl = (b >> 31) & 1;
    const int vpopcntdq = (c >> 14) & 1, vbmi = (c >> 1) & 1, vnni = (c >> 11) & 1;
    f.avx2_fma = ymm_state && avx2 && fma && popcnt;
    f.avx512 = f.avx2_fma && zmm_state && avx512f && avx512dq && avx512bw && avx512vl;
    f.avx512_vpopcntdq = f.avx512 && vpopcntdq;
    int bf16 = 0;
    if (a >= 1 && __get_cpuid_count(7, 1, &a, &b, &c, &d))
        bf16 = (a >> 5) & 1;
    if (f.avx512)
        f.flags = (vpopcntdq ? SMM_CPU_VPOPCNTDQ : 0u) | (vbmi ? SMM_CPU_VBMI : 0u) | (vnni ? SMM_CPU_VNNI : 0u) |
                  (bf16 ? SMM_CPU_BF16 : 0u);
    return f;
}
#elif defined(__aarch64__)
static smm_cpu_features detect(void)
{
    smm_cpu_features f = { 0, 0, 0, 1, 0 };
    return f;
}
#else
static smm_cpu_features detect(void)
{
    smm_cpu_features f = { 0, 0, 0, 0, 0 };
    return f;
}
#endif

#if defined(__x86_64__) || defined(_M_X64)
static smm_cpu_identity identify(void)
{
    smm_cpu_identity id = { "unknown", 0, 0, 0 };
    unsigned a, b, c, d;
    if (!__get_cpuid(0, &a, &b, &c, &d))
        return id;
    memcpy(id.vendor, &b, 4);
    memcpy(id.vendor + 4, &d, 4);
    memcpy(id.vendor + 8, &c, 4);
    id.vendor[12] = '\0';
    if (a < 1 || !__get_cpuid(1, &a, &b, &c, &d))
        return id;
    const int family = (int)((a >> 8) & 0xf), model = (int)((a >> 4) & 0xf);
    id.stepping = (int)(a & 0xf);
    id.family = family == 0xf ? family + (int)((a >> 20) & 0xff) : family;
    id.model = family == 0x6 || family == 0xf ? model + (int)(((a >> 16) & 0xf) << 4) : model;
    return id;
}
#elif defined(__aarch64__)
/* MIDR_EL1 as Linux exports it: implementer [31:24], variant [23:20], part [15:4], revision [3:0]. */
static smm_cpu_identity identify(void)
{
    smm_cpu_identity id = { "unknown", 0, 0, 0 };
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1", "r");
    if (f == NULL)
        return id;
    char buf[64];
    const size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *end;
    const unsigned long long midr = strtoull(buf, &end, 16);
    if (end == buf)
        return id;
    snprintf(id.vendor, sizeof id.vendor, "arm-0x%02x", (unsigned)((midr >> 24) & 0xff));
    id.model = (int)((midr >> 4) & 0xfff);
    id.stepping = (int)(((midr >> 20) & 0xf) * 16 + (midr & 0xf));
    return id;
}
#else
static smm_cpu_identity identify(void)
{
    smm_cpu_identity id = { "unknown", 0, 0, 0 };
    return id;
}
#endif

static smm_cpu_features features;
static pthread_once_t features_once = PTHREAD_ONCE_INIT;

static void detect_once(void)
{
    features = detect();
}

const smm_cpu_features *smm_cpu(void)
{
    pthread_once(&features_once, detect_once);
    return &features;
}

static smm_cpu_identity identity;
static pthread_once_t identity_once = PTHREAD_ONCE_INIT;

static void identify_once(void)
{
    identity = identify();
}

const smm_cpu_identity *smm_cpu_id(void)
{
    pthread_once(&identity_once, identify_once);
    return &identity;
}
