/*
 * test_tmpdir.h - a temporary directory per test, for suites that write files:
 * register test_tmpdir_setup / test_tmpdir_teardown as a checked fixture and
 * name files with test_tmp_path().
 */
#ifndef SMM_TEST_TMPDIR_H
#define SMM_TEST_TMPDIR_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>

static char test_tmpdir[512];

static inline void test_tmpdir_setup(void)
{
    const char *base = getenv("TMPDIR");
    if (base == NULL || base[0] == '\0')
        base = "/tmp";
    snprintf(test_tmpdir, sizeof test_tmpdir, "%s/sketchmm_test_XXXXXX", base);
    ck_assert_msg(mkdtemp(test_tmpdir) != NULL, "mkdtemp(%s) failed", test_tmpdir);
}

/* Remove dir and everything below it, down to `depth` levels of subdirectories. */
static inline void test_remove_tree(const char *dir, int depth)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    struct dirent *e;
    char path[1024];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (depth > 0 && lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
            test_remove_tree(path, depth - 1);
        else
            unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

static inline void test_tmpdir_teardown(void)
{
    test_remove_tree(test_tmpdir, 2);
}

/* test_tmpdir/name into buf. */
static inline const char *test_tmp_path(const char *name, char *buf, size_t size)
{
    snprintf(buf, size, "%s/%s", test_tmpdir, name);
    return buf;
}

#endif /* SMM_TEST_TMPDIR_H */
