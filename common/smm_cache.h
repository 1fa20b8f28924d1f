/*
 * smm_cache.h - the data caches of the CPU the library runs on: what the
 * analytical block-size model (exact/sgemm_model.h) is computed from, and
 * part of the tuning file's signature (exact/tuning_file.h).
 *
 * Sources, in order: on x86-64 the deterministic cache parameters of cpuid
 * (leaf 4 on Intel, leaf 0x8000001D on AMD and Hygon with topology
 * extensions); then Linux's /sys/devices/system/cpu/cpu0/cache/index*
 * (the only source on AArch64). A level neither source reports has size 0.
 */
#ifndef SMM_CACHE_H
#define SMM_CACHE_H

#include <stdint.h>

/* One cache level as the model needs it. size == 0: not known. */
typedef struct {
    int64_t size;      /* bytes */
    int64_t line;      /* bytes per line */
    int64_t ways;      /* associativity (a fully associative cache: size / line) */
    int64_t sets;      /* size / (line * ways) */
    int64_t shared_by; /* logical CPUs sharing this cache (1 when not reported) */
} smm_cache_level;

/* Where the geometry came from. */
typedef enum { SMM_CACHE_NONE = 0, SMM_CACHE_CPUID = 1, SMM_CACHE_SYSFS = 2 } smm_cache_source;

typedef struct {
    smm_cache_level l1d, l2, l3; /* data or unified caches of levels 1, 2 and 3 */
    smm_cache_source source;
} smm_cache_geometry;

/*
 * The geometry of this CPU, detected once and cached (never NULL). source is
 * SMM_CACHE_NONE when no source gave both L1d and L2.
 */
const smm_cache_geometry *smm_caches(void);

/* "cpuid", "sysfs" or "none". */
const char *smm_cache_source_name(smm_cache_source source);

/*
 * One cpuid leaf-4 / leaf-0x8000001D record (the same layout on Intel and
 * AMD) decoded into *level: returns the cache's level (1, 2, 3, ...) for a
 * data or unified cache, 0 for an instruction cache, -1 for the null record
 * that ends the list. eax, ebx, ecx: the registers cpuid returned.
 */
int smm_cache_decode_cpuid(uint32_t eax, uint32_t ebx, uint32_t ecx, smm_cache_level *level);

/*
 * Read the geometry from a sysfs-style tree: root/indexN/{level, type, size,
 * ways_of_associativity, coherency_line_size, number_of_sets,
 * shared_cpu_list} for N = 0, 1, ... (root is normally
 * "/sys/devices/system/cpu/cpu0/cache"). Files that are missing or do not
 * parse leave their field unknown; a level whose size is unknown is left
 * out. Returns 1 when L1d and L2 were both found, else 0; *g is always set.
 */
int smm_cache_from_sysfs(const char *root, smm_cache_geometry *g);

#endif /* SMM_CACHE_H */
