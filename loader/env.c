/*
 * The one function that reads the environment (see loader/internal/env.h).
 */
#include "loader/internal/env.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "loader/internal/log.h"
#include "loader/internal/tls.h"

struct secure_var {
    const char *name;
    size_t len;        /* strlen(name) */
    uint32_t category; /* log category for the "ignored" line */
    const char *policy;
};

/* Spec §2.2: every variable the Khronos loader reads through secure_getenv. The documents name
 * only the driver/layer path variables and the XDG homes ([Drv] "Exception for Elevated
 * Privileges", LDP_LOADER_13, LLP_LOADER_13); HOME, XDG_*_DIRS and the filters are included because
 * each of them can redirect the search or change which libraries are loaded (RULE_ENV_ELEVATED, the
 * tag of their log line; the driver and layer path variables cite LDP_LOADER_13 / LLP_LOADER_13).
 */
/* The table's rule per variable: RULE_ENV_ELEVATED_DRIVER_FILES, RULE_ENV_ELEVATED_ICD_FILENAMES,
 * RULE_ENV_ELEVATED_ADD_DRIVER_FILES, RULE_ENV_ELEVATED_DRIVERS_SELECT,
 * RULE_ENV_ELEVATED_DRIVERS_DISABLE, RULE_ENV_ELEVATED_ID_FILTERS (the three *_ID_FILTER),
 * RULE_ENV_ELEVATED_LAYER_PATH, RULE_ENV_ELEVATED_ADD_LAYER_PATH,
 * RULE_ENV_ELEVATED_IMPLICIT_LAYER_PATH, RULE_ENV_ELEVATED_ADD_IMPLICIT_LAYER_PATH,
 * RULE_ENV_ELEVATED_LAYERS_ENABLE, RULE_ENV_ELEVATED_LAYERS_DISABLE, RULE_ENV_ELEVATED_LAYERS_ALLOW,
 * RULE_ENV_ELEVATED_XDG_CONFIG_HOME, RULE_ENV_ELEVATED_XDG_CONFIG_DIRS,
 * RULE_ENV_ELEVATED_XDG_DATA_HOME, RULE_ENV_ELEVATED_XDG_DATA_DIRS, RULE_ENV_ELEVATED_HOME. */
#define SV(name, category, policy)                                                                                     \
    { name, sizeof(name) - 1, category, policy }
static const struct secure_var k_secure_vars[] = {
    /* in enum vkl_env_id order (env.h). First the search bases for drivers and layers alike, usually
     * set (read_secure asks secure_getenv first for them) */
    SV("XDG_CONFIG_HOME", VKL_LOG_DRIVER | VKL_LOG_LAYER, "RULE_ENV_ELEVATED"),
    SV("HOME", VKL_LOG_DRIVER | VKL_LOG_LAYER, "RULE_ENV_ELEVATED"),
    SV("XDG_CONFIG_DIRS", VKL_LOG_DRIVER | VKL_LOG_LAYER, "RULE_ENV_ELEVATED"),
    SV("XDG_DATA_HOME", VKL_LOG_DRIVER | VKL_LOG_LAYER, "RULE_ENV_ELEVATED"),
    SV("XDG_DATA_DIRS", VKL_LOG_DRIVER | VKL_LOG_LAYER, "RULE_ENV_ELEVATED"),
    SV("VK_DRIVER_FILES", VKL_LOG_DRIVER, "LDP_LOADER_13"),
    SV("VK_ICD_FILENAMES", VKL_LOG_DRIVER, "LDP_LOADER_13"),
    SV("VK_ADD_DRIVER_FILES", VKL_LOG_DRIVER, "LDP_LOADER_13"),
    SV("VK_LOADER_DRIVERS_SELECT", VKL_LOG_DRIVER, "RULE_ENV_ELEVATED"),
    SV("VK_LOADER_DRIVERS_DISABLE", VKL_LOG_DRIVER, "RULE_ENV_ELEVATED"),
    SV("VK_LOADER_DEVICE_ID_FILTER", VKL_LOG_DRIVER, "RULE_ENV_ELEVATED"),
    SV("VK_LOADER_VENDOR_ID_FILTER", VKL_LOG_DRIVER, "RULE_ENV_ELEVATED"),
    SV("VK_LOADER_DRIVER_ID_FILTER", VKL_LOG_DRIVER, "RULE_ENV_ELEVATED"),
    SV("VK_LAYER_PATH", VKL_LOG_LAYER, "LLP_LOADER_13"),
    SV("VK_ADD_LAYER_PATH", VKL_LOG_LAYER, "LLP_LOADER_13"),
    SV("VK_IMPLICIT_LAYER_PATH", VKL_LOG_LAYER, "LLP_LOADER_13"),
    SV("VK_ADD_IMPLICIT_LAYER_PATH", VKL_LOG_LAYER, "LLP_LOADER_13"),
    SV("VK_LOADER_LAYERS_ENABLE", VKL_LOG_LAYER, "RULE_ENV_ELEVATED"),
    SV("VK_LOADER_LAYERS_DISABLE", VKL_LOG_LAYER, "RULE_ENV_ELEVATED"),
    SV("VK_LOADER_LAYERS_ALLOW", VKL_LOG_LAYER, "RULE_ENV_ELEVATED"),
};
#define SECURE_VAR_COUNT (sizeof(k_secure_vars) / sizeof(k_secure_vars[0]))
_Static_assert(SECURE_VAR_COUNT <= 32, "t_scope.have is a 32-bit mask");
_Static_assert(SECURE_VAR_COUNT < 256, "g_by_len holds uint8_t indexes");
_Static_assert(VKL_ENV_ID_COUNT == SECURE_VAR_COUNT, "enum vkl_env_id follows the table");
/* The search bases, usually set: read_secure asks secure_getenv first for these. */
#define USUALLY_SET(index) ((index) <= VKL_ENV_XDG_DATA_DIRS)

static atomic_bool g_logged[SECURE_VAR_COUNT];
/* -1: real getauxval answer; 0/1: forced by a test. */
static atomic_int g_elevated_override = -1;

/* One length compare rejects most entries before any byte compare (vkl_getenv runs this for
 * every variable that is set, ~10 times per global call; docs/performance.md). */
/* The table's indexes by name length (names are under 32 bytes), built once: a lookup compares
 * bytes with at most a handful of names of the same length. */
#define NAME_LEN_MAX 32
static uint8_t g_by_len[NAME_LEN_MAX][SECURE_VAR_COUNT];
static uint8_t g_by_len_count[NAME_LEN_MAX];
static pthread_once_t g_by_len_once = PTHREAD_ONCE_INIT;
static void build_by_len(void) {
    for (size_t i = 0; i < SECURE_VAR_COUNT; i++) {
        size_t len = k_secure_vars[i].len;
        if (len < NAME_LEN_MAX) g_by_len[len][g_by_len_count[len]++] = (uint8_t)i; /* env_test: all are */
    }
}

static const struct secure_var *find_secure_n(const char *name, size_t len, size_t *index) {
    /* Every secure name starts with "VK_", "XDG_" or "HOME": a layer's enable_environment or
     * disable_environment variable is rejected on its first byte. */
    if (name[0] != 'V' && name[0] != 'X' && name[0] != 'H') return NULL;
    if (len >= NAME_LEN_MAX) return NULL;
    pthread_once(&g_by_len_once, build_by_len);
    for (unsigned k = 0; k < g_by_len_count[len]; k++) {
        size_t i = g_by_len[len][k];
        if (memcmp(k_secure_vars[i].name, name, len) == 0) {
            if (index) *index = i;
            return &k_secure_vars[i];
        }
    }
    return NULL;
}

static const struct secure_var *find_secure(const char *name, size_t *index) {
    return find_secure_n(name, strlen(name), index);
}

bool vkl_env_is_secure_var(const char *name) { return name != NULL && find_secure(name, NULL) != NULL; }

/* True when secure_getenv() hides variables in this process: the first variable of the
 * environment is visible to getenv() but not to secure_getenv(). This is what makes our view of
 * elevation agree with glibc's (and with a test framework that interposes secure_getenv). */
static bool secure_getenv_hides(void) {
    extern char **environ;
    if (environ == NULL || environ[0] == NULL) return false;
    const char *eq = strchr(environ[0], '=');
    if (eq == NULL || eq == environ[0]) return false;
    char name[256];
    size_t n = (size_t)(eq - environ[0]);
    if (n >= sizeof(name)) return false;
    memcpy(name, environ[0], n);
    name[n] = '\0';
    if (getenv(name) == NULL) return false;
    return secure_getenv(name) == NULL;
}

/* AT_SECURE is fixed when the process is executed: asked once (getauxval walks the auxiliary
 * vector, ~90 instructions). */
static bool at_secure(void) {
    static atomic_int cached = -1;
    int v = atomic_load_explicit(&cached, memory_order_relaxed);
    if (v < 0) {
        v = getauxval(AT_SECURE) != 0 ? 1 : 0;
        atomic_store_explicit(&cached, v, memory_order_relaxed);
    }
    return v != 0;
}

/* The call scope (env.h): the values read so far in the outermost open scope of this thread. */
static VKL_TLS struct {
    unsigned depth;
    uint32_t have;    /* bit i: val[i] holds k_secure_vars[i]'s value for this scope */
    uint32_t present; /* bit i: k_secure_vars[i] is in the environment (one pass at scope begin) */
    const char *val[SECURE_VAR_COUNT];
    int elevated; /* -1: not asked in this scope yet; 0 / 1 */
    int hides;    /* -1: unknown; 1: secure_getenv hid a variable the environment holds; 0: it did not */
} t_scope;

/* Asked once per call scope, never cached for the process: AT_SECURE is fixed at exec, but a test
 * framework that fakes elevation by interposing secure_getenv (the Khronos loader's does, and
 * turns it on and off between the tests of one process) changes its answer at run time, and our
 * view must follow secure_getenv's (RULE_ENV_ELEVATED). The probe is one getenv and one secure_getenv of
 * the environment's first variable (a few dozen instructions); before the call scopes existed it
 * ran for every secure variable read, ~4,000 instructions per global call. */
static bool elevated_now(void) {
    /* The kernel sets AT_SECURE for set-uid/set-gid execs, file capabilities and LSM requests;
     * glibc's secure_getenv keys off the same flag (spec §2.1), and an interposer that fakes
     * elevation makes secure_getenv hide variables: asking both keeps our view the same as
     * secure_getenv's. Neither costs a system call (the id comparison of the Khronos loader's
     * fallback would cost four per variable read, and adds nothing where secure_getenv exists).
     * An inconclusive probe (an empty environment) has nothing to hide: not elevated. */
    return at_secure() || secure_getenv_hides();
}

static const char *get_secure(size_t index);

bool vkl_env_is_elevated(void) {
    int forced = atomic_load(&g_elevated_override);
    if (forced >= 0) return forced != 0;
    if (t_scope.depth == 0) return elevated_now();
    if (t_scope.elevated < 0) {
        if (at_secure()) {
            t_scope.elevated = 1;
        } else if (t_scope.present != 0) {
            /* The scope reads its first set secure variable through secure_getenv anyway: whether
             * that answer hides it is the probe (no second getenv + secure_getenv pair). */
            size_t first = (size_t)__builtin_ctz(t_scope.present);
            if (t_scope.hides < 0) (void)get_secure(first);
            if (t_scope.elevated < 0) t_scope.elevated = t_scope.hides > 0 ? 1 : 0;
        } else {
            t_scope.elevated = secure_getenv_hides() ? 1 : 0;
        }
    }
    return t_scope.elevated != 0;
}

/* Which secure variables the environment holds at all: one pass over `environ`, so that the
 * unset ones (most VK_* variables, every call) cost no getenv() scan each. The values of the set
 * ones are still read through secure_getenv (read_secure), as elevation requires. */
static uint32_t environment_presence(void) {
    extern char **environ;
    uint32_t present = 0;
    if (environ == NULL) return 0;
    pthread_once(&g_by_len_once, build_by_len);
    for (char **e = environ; *e != NULL; e++) {
        const char *entry = *e;
        if (entry[0] != 'V' && entry[0] != 'X' && entry[0] != 'H') continue;
        /* the name's length, no further than the longest secure name */
        size_t len = 1;
        while (len < NAME_LEN_MAX && entry[len] != '=' && entry[len] != '\0') len++;
        if (len >= NAME_LEN_MAX || entry[len] != '=') continue;
        for (unsigned k = 0; k < g_by_len_count[len]; k++) {
            size_t i = g_by_len[len][k];
            if (memcmp(k_secure_vars[i].name, entry, len) == 0) {
                present |= 1u << i;
                break;
            }
        }
    }
    return present;
}

/* The environment's shape: its array, its length and every entry's address. setenv, putenv and
 * unsetenv each change one of them (a new or replaced variable is a new string or a new array,
 * a removed one shortens the array), so an unchanged signature means the same names are set. */
static uint64_t environment_signature(void) {
    extern char **environ;
    uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)environ;
    if (environ == NULL) return h;
    for (char **e = environ; *e != NULL; e++) h = (h ^ (uint64_t)(uintptr_t)*e) * 0x100000001b3ull;
    return h;
}

/* The presence mask of the last scope of this thread and the signature it was taken under: a
 * scope begun on an unchanged environment reuses it (a walk over the entries' addresses instead
 * of a look at each name, ~900 instructions per global call with a dozen variables set). */
static VKL_TLS struct {
    uint64_t signature;
    uint32_t present;
    bool valid;
} t_presence;

static uint32_t presence_now(void) {
    uint64_t sig = environment_signature();
    if (!t_presence.valid || t_presence.signature != sig) {
        t_presence.present = environment_presence();
        t_presence.signature = sig;
        t_presence.valid = true;
    }
    return t_presence.present;
}

void vkl_env_scope_begin(void) {
    if (t_scope.depth++ == 0) {
        t_scope.have = 0;
        t_scope.present = presence_now();
        t_scope.elevated = -1;
        t_scope.hides = -1;
    }
}

void vkl_env_scope_end(void) {
    if (t_scope.depth > 0 && --t_scope.depth == 0) t_scope.have = 0;
}

/* One read of secure variable `index`: its value through secure_getenv (so an interposer sees the
 * same calls as with the Khronos loader), NULL when unset or when elevation hides it. Which libc
 * function is asked first only changes the cost: the search bases (HOME, XDG_*) are usually set,
 * so secure_getenv answers alone; the VK_* variables are usually unset, so getenv answers alone. */
static const char *read_secure(size_t index) {
    const struct secure_var *sv = &k_secure_vars[index];
    const char *secure;
    if (t_scope.depth > 0) {
        /* In a scope the presence pass has seen this variable in the environment: one
         * secure_getenv answers, and a NULL answer means it was hidden. */
        secure = secure_getenv(sv->name);
        if (t_scope.hides < 0) t_scope.hides = secure == NULL ? 1 : 0;
        if (secure != NULL && !vkl_env_is_elevated()) return secure;
    } else if (USUALLY_SET(index)) {
        secure = secure_getenv(sv->name);
        if (secure != NULL && !vkl_env_is_elevated()) return secure;
        if (getenv(sv->name) == NULL) return NULL; /* unset: nothing hidden */
    } else {
        if (getenv(sv->name) == NULL) return NULL;
        secure = secure_getenv(sv->name);
        if (secure != NULL && !vkl_env_is_elevated()) return secure;
    }
    /* LDP_LOADER_13 / LLP_LOADER_13: no user-defined paths or filters when elevated. */
    if (!atomic_exchange(&g_logged[index], true)) {
        vkl_log(NULL, VKL_LOG_WARN | sv->category,
                "env %s: ignored because the process runs with elevated privileges [%s]", sv->name, sv->policy);
    }
    return NULL;
}

static const char *get_secure(size_t index) {
    if (t_scope.depth == 0) return read_secure(index);
    uint32_t bit = 1u << index;
    if ((t_scope.have & bit) == 0) {
        t_scope.val[index] = (t_scope.present & bit) ? read_secure(index) : NULL;
        t_scope.have |= bit;
    }
    return t_scope.val[index];
}

const char *vkl_getenv_id(enum vkl_env_id id) {
    if ((unsigned)id >= VKL_ENV_ID_COUNT) return NULL;
    return get_secure((size_t)id);
}

const char *vkl_getenv(const char *name) {
    if (name == NULL) return NULL;
    size_t index = 0;
    /* Ordinary variables are read with getenv; the ones elevation hides (the table) through
     * secure_getenv, once per call scope. */
    if (find_secure(name, &index) == NULL) return getenv(name);
    return get_secure(index);
}

void vkl_env_set_elevated_for_testing(int elevated) {
    atomic_store(&g_elevated_override, elevated < 0 ? -1 : (elevated != 0));
}

void vkl_env_reset_log_once_for_testing(void) {
    for (size_t i = 0; i < SECURE_VAR_COUNT; i++) atomic_store(&g_logged[i], false);
}
