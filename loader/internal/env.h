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

/* True when the kernel asked for secure execution: getauxval(AT_SECURE) != 0 (set-uid, set-gid,
 * file capabilities, LSM). Reads the auxiliary vector on every call (cheap, no caching needed). */
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
