/*
 * smm_cache.c - cache geometry at run time (smm_cache.h): cpuid's
 * deterministic cache parameters on x86-64, Linux sysfs otherwise.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/smm_cache.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <cpuid.h>
#endif

#define SYSFS_CACHE_ROOT "/sys/devices/system/cpu/cpu0/cache"
#define MAX_SYSFS_INDEX 16

const char *smm_cache_source_name(smm_cache_source source)
{
    switch (source) {
    case SMM_CACHE_CPUID: return "cpuid";
    case SMM_CACHE_SYSFS: return "sysfs";
    case SMM_CACHE_NONE: break;
    }
    return "none";
}

int smm_cache_decode_cpuid(uint32_t eax, uint32_t ebx, uint32_t ecx, smm_cache_level *level)
{
    const uint32_t type = eax & 0x1f; /* 0 none, 1 data, 2 instruction, 3 unified */
    if (type == 0)
        return -1;
    if (type == 2)
        return 0;
    const int lvl = (int)((eax >> 5) & 0x7);
    level->line = (int64_t)(ebx & 0xfff) + 1;
    const int64_t partitions = (int64_t)((ebx >> 12) & 0x3ff) + 1;
    level->ways = (int64_t)((ebx >> 22) & 0x3ff) + 1;
    level->sets = (int64_t)ecx + 1;
    level->size = level->line * partitions * level->ways * level->sets;
    level->shared_by = (int64_t)((eax >> 14) & 0xfff) + 1;
    if ((eax >> 9) & 1) { /* fully associative: one set of size / line ways */
        level->ways = level->ways * level->sets;
        level->sets = 1;
    }
    return lvl;
}

static smm_cache_level *level_slot(smm_cache_geometry *g, int lvl)
{
    return lvl == 1 ? &g->l1d : lvl == 2 ? &g->l2 : lvl == 3 ? &g->l3 : NULL;
}

static int complete(const smm_cache_geometry *g)
{
    return g->l1d.size > 0 && g->l2.size > 0;
}

#if defined(__x86_64__) || defined(_M_X64)
/* cpuid's deterministic cache parameters: 1 when L1d and L2 were found. */
static int from_cpuid(smm_cache_geometry *g)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(0, &a, &b, &c, &d))
        return 0;
    const unsigned max_basic = a;
    char vendor[13];
    memcpy(vendor, &b, 4);
    memcpy(vendor + 4, &d, 4);
    memcpy(vendor + 8, &c, 4);
    vendor[12] = '\0';
    unsigned leaf = 0;
    if (strcmp(vendor, "GenuineIntel") == 0 && max_basic >= 4) {
        leaf = 4;
    } else if (strcmp(vendor, "AuthenticAMD") == 0 || strcmp(vendor, "HygonGenuine") == 0) {
        /* leaf 0x8000001D exists when cpuid 0x80000001 reports topology extensions (ECX bit 22) */
        if (__get_cpuid(0x80000000, &a, &b, &c, &d) && a >= 0x8000001D &&
            __get_cpuid(0x80000001, &a, &b, &c, &d) && ((c >> 22) & 1))
            leaf = 0x8000001D;
    }
    if (leaf == 0)
        return 0;
    for (unsigned sub = 0; sub < 16; sub++) {
        __cpuid_count(leaf, sub, a, b, c, d);
        smm_cache_level level;
        const int lvl = smm_cache_decode_cpuid(a, b, c, &level);
        if (lvl < 0)
            break;
        smm_cache_level *slot = level_slot(g, lvl);
        if (slot != NULL && slot->size == 0)
            *slot = level;
    }
    return complete(g);
}
#endif

/* Read a small sysfs file into buf (NUL-terminated, trailing space removed); 0 when missing. */
static int read_small_file(const char *dir, const char *name, char *buf, size_t size)
{
    char path[512];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path)
        return 0;
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    const size_t n = fread(buf, 1, size - 1, f);
    fclose(f);
    buf[n] = '\0';
    size_t len = n;
    while (len > 0 && isspace((unsigned char)buf[len - 1]))
        buf[--len] = '\0';
    return len > 0;
}

/* A non-negative decimal with an optional K, M or G suffix (sysfs sizes: "32K"); -1 when it does not parse. */
static int64_t parse_size(const char *text)
{
    char *end;
    if (!isdigit((unsigned char)*text))
        return -1;
    const long long v = strtoll(text, &end, 10);
    int64_t scale = 1;
    if (*end == 'K')
        scale = 1024, end++;
    else if (*end == 'M')
        scale = 1024 * 1024, end++;
    else if (*end == 'G')
        scale = 1024 * 1024 * 1024, end++;
    if (*end != '\0' || v < 0 || v > (long long)(INT64_MAX / scale / 2))
        return -1;
    return (int64_t)v * scale;
}

/* Logical CPUs in a sysfs CPU list ("0-3,8-11"); 0 when it does not parse. */
static int64_t count_cpu_list(const char *text)
{
    int64_t count = 0;
    const char *p = text;
    while (*p != '\0') {
        char *end;
        if (!isdigit((unsigned char)*p))
            return 0;
        const long lo = strtol(p, &end, 10);
        long hi = lo;
        if (*end == '-') {
            if (!isdigit((unsigned char)end[1]))
                return 0;
            hi = strtol(end + 1, &end, 10);
        }
        if (hi < lo || hi - lo > 1L << 20)
            return 0;
        count += hi - lo + 1;
        if (*end == ',')
            end++;
        else if (*end != '\0')
            return 0;
        p = end;
    }
    return count;
}

int smm_cache_from_sysfs(const char *root, smm_cache_geometry *g)
{
    memset(g, 0, sizeof *g);
    for (int index = 0; index < MAX_SYSFS_INDEX; index++) {
        char dir[400], buf[256];
        if ((size_t)snprintf(dir, sizeof dir, "%s/index%d", root, index) >= sizeof dir)
            break;
        if (!read_small_file(dir, "level", buf, sizeof buf))
            continue;
        const int64_t lvl = parse_size(buf);
        if (!read_small_file(dir, "type", buf, sizeof buf) || strcmp(buf, "Instruction") == 0)
            continue;
        smm_cache_level *slot = level_slot(g, (int)lvl);
        if (slot == NULL || slot->size != 0)
            continue;
        smm_cache_level level = { 0, 0, 0, 0, 1 };
        if (read_small_file(dir, "size", buf, sizeof buf))
            level.size = parse_size(buf);
        if (level.size <= 0)
            continue;
        if (read_small_file(dir, "coherency_line_size", buf, sizeof buf))
            level.line = parse_size(buf);
        if (read_small_file(dir, "ways_of_associativity", buf, sizeof buf))
            level.ways = parse_size(buf);
        if (read_small_file(dir, "number_of_sets", buf, sizeof buf))
            level.sets = parse_size(buf);
        if (read_small_file(dir, "shared_cpu_list", buf, sizeof buf))
            level.shared_by = count_cpu_list(buf);
        /* fill what is missing from the rest; fully associative (ways 0 in sysfs): one set */
        if (level.line <= 0 || level.line > level.size)
            level.line = 64;
        if (level.ways <= 0 && level.sets > 0)
            level.ways = level.size / (level.line * level.sets);
        if (level.ways <= 0)
            level.ways = level.size / level.line;
        if (level.sets <= 0 || level.sets * level.line * level.ways != level.size)
            level.sets = level.size / (level.line * level.ways);
        if (level.sets < 1)
            level.sets = 1;
        if (level.shared_by < 1)
            level.shared_by = 1;
        *slot = level;
    }
    return complete(g);
}

static smm_cache_geometry geometry;
static pthread_once_t geometry_once = PTHREAD_ONCE_INIT;

static void detect_once(void)
{
#if defined(__x86_64__) || defined(_M_X64)
    memset(&geometry, 0, sizeof geometry);
    if (from_cpuid(&geometry)) {
        geometry.source = SMM_CACHE_CPUID;
        return;
    }
#endif
    if (smm_cache_from_sysfs(SYSFS_CACHE_ROOT, &geometry)) {
        geometry.source = SMM_CACHE_SYSFS;
        return;
    }
    memset(&geometry, 0, sizeof geometry);
    geometry.source = SMM_CACHE_NONE;
}

const smm_cache_geometry *smm_caches(void)
{
    pthread_once(&geometry_once, detect_once);
    return &geometry;
}
