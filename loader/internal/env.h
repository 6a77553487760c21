/*
 * The one place the loader reads the process environment, and elevated-privilege detection.
 *
 * Nothing else in the loader may call getenv()/secure_getenv(). Returned strings are borrowed from
 * the environment: valid until the variable is changed (setenv/unsetenv/putenv), so callers that
 * keep a value copy it.
 *
 * Thread-safety: safe to call from any thread as long as no other thread modifies the environment
 * (the usual getenv() contract). The once-per-variable log state is atomic.
 */
#ifndef VKL_INTERNAL_ENV_H
#define VKL_INTERNAL_ENV_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Returns the value of `name`, or NULL when unset.
 * "Secure" variables (vkl_env_is_secure_var) read as NULL when the process is elevated
 * (LDP_LOADER_13 / LLP_LOADER_13); the first time each such variable is found set but suppressed,
 * one WARN line (plus DRIVER or LAYER category) is logged to stderr, e.g.
 *   "env VK_DRIVER_FILES: ignored because the process runs with elevated privileges
 * [LDP_LOADER_13]" (the Khronos loader suppresses silently; a user who set the variable deserves to
 * learn why it has no effect, and the line only prints under
 * VK_LOADER_DEBUG=warn/driver/layer/all).
 */
const char *vkl_getenv(const char *name);

/* True for the variables ignored when elevated: VK_DRIVER_FILES, VK_ICD_FILENAMES,
 * VK_ADD_DRIVER_FILES, VK_LAYER_PATH, VK_ADD_LAYER_PATH, VK_IMPLICIT_LAYER_PATH,
 * VK_ADD_IMPLICIT_LAYER_PATH, VK_LOADER_DRIVERS_SELECT/DISABLE, VK_LOADER_LAYERS_ENABLE/DISABLE/
 * ALLOW, VK_LOADER_DEVICE_ID_FILTER, VK_LOADER_VENDOR_ID_FILTER, VK_LOADER_DRIVER_ID_FILTER,
 * XDG_CONFIG_HOME, XDG_CONFIG_DIRS, XDG_DATA_HOME, XDG_DATA_DIRS, HOME (spec §2.2). */
bool vkl_env_is_secure_var(const char *name);

/* The secure variables by number (the order of env.c's table), for callers that read them on every
 * global call: vkl_getenv_id skips the name look-up of vkl_getenv. Same answer as vkl_getenv. */
enum vkl_env_id {
    VKL_ENV_XDG_CONFIG_HOME,
    VKL_ENV_HOME,
    VKL_ENV_XDG_CONFIG_DIRS,
    VKL_ENV_XDG_DATA_HOME,
    VKL_ENV_XDG_DATA_DIRS,
    VKL_ENV_VK_DRIVER_FILES,
    VKL_ENV_VK_ICD_FILENAMES,
    VKL_ENV_VK_ADD_DRIVER_FILES,
    VKL_ENV_VK_LOADER_DRIVERS_SELECT,
    VKL_ENV_VK_LOADER_DRIVERS_DISABLE,
    VKL_ENV_VK_LOADER_DEVICE_ID_FILTER,
    VKL_ENV_VK_LOADER_VENDOR_ID_FILTER,
    VKL_ENV_VK_LOADER_DRIVER_ID_FILTER,
    VKL_ENV_VK_LAYER_PATH,
    VKL_ENV_VK_ADD_LAYER_PATH,
    VKL_ENV_VK_IMPLICIT_LAYER_PATH,
    VKL_ENV_VK_ADD_IMPLICIT_LAYER_PATH,
    VKL_ENV_VK_LOADER_LAYERS_ENABLE,
    VKL_ENV_VK_LOADER_LAYERS_DISABLE,
    VKL_ENV_VK_LOADER_LAYERS_ALLOW,
    VKL_ENV_ID_COUNT
};
const char *vkl_getenv_id(enum vkl_env_id id);

/*
 * A call scope: between vkl_env_scope_begin and the matching vkl_env_scope_end on the same thread,
 * each secure variable is read from the environment once (the first vkl_getenv / vkl_getenv_id of
 * it) and later reads in the scope return the same value, so one global call or vkCreateInstance
 * sees one environment and does not re-read HOME and the XDG variables for every search (the
 * settings file's, the layers', the drivers'; docs/performance.md). Scopes nest (the outermost one
 * holds the values). vkl_settings_scope_begin / _end open and close one (settings.h). Outside a
 * scope every read goes to the environment. Plain variables are always read afresh (getenv).
 */
void vkl_env_scope_begin(void);
void vkl_env_scope_end(void);

/* True when the kernel asked for secure execution (getauxval(AT_SECURE) != 0: set-uid, set-gid,
 * file capabilities, LSM) or secure_getenv() hides variables (an interposer faking elevation);
 * decided once per process (env.c). */
bool vkl_env_is_elevated(void);

/* ---- TEST ONLY -------------------------------------------------------------------------------
 * vkl_env_set_elevated_for_testing(1) makes vkl_env_is_elevated() report true, (0) false, (-1)
 * restores the real getauxval(AT_SECURE) answer. Never called by the loader itself.
 * vkl_env_reset_log_once_for_testing() forgets which suppressed variables were already logged. */
void vkl_env_set_elevated_for_testing(int elevated);
void vkl_env_reset_log_once_for_testing(void);

#ifdef __cplusplus
}
#endif

#endif /* VKL_INTERNAL_ENV_H */
