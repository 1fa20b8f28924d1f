/*
 * test_config.h - tests that run the exact core under a configuration of
 * their own (exact/tuning.h): install one path's parameters, restore the
 * state that was active before.
 */
#ifndef TEST_CONFIG_H
#define TEST_CONFIG_H

#include <check.h>

#include "exact/tuning.h"

/*
 * Make params the active configuration of path isa (and of the paths that
 * share its row), the rest as it was; returns the previous state for
 * restore_config.
 */
static inline tuning_state use_config(smm_isa isa, const tuning_params *params)
{
    const tuning_state saved = *tuning_active();
    tuning_state st = saved;
    ck_assert_msg(tuning_check(isa, params) == NULL, "%s", tuning_check(isa, params));
    for (int i = SMM_ISA_SCALAR; i < SMM_ISA_COUNT; i++)
        if (tuning_row_path((smm_isa)i) == tuning_row_path(isa))
            st.params[i] = *params;
    tuning_install(&st);
    return saved;
}

static inline void restore_config(const tuning_state *saved)
{
    tuning_install(saved);
}

#endif /* TEST_CONFIG_H */
