/* The mock driver's in-process control API (mock_icd_ctl.h) and the destructor that frees
 * everything on dlclose. */
#include "mock_icd/mock_icd_internal.h"

/* ------------------------------------------------------------------------------------------ */
/* ctl                                                                                          */

MOCK_ICD_CTL_API int mock_icd_ctl_load_scenario(const char *json) {
    ensure_init();
    const char *err = NULL;
    struct scenario *sc = scenario_parse(json, &err);
    if (!sc) return -1;
    pthread_mutex_lock(&g_lock);
    scenario_release(g_sc);
    g_sc = sc;
    g_ctl_scenario = true;
    for (uint32_t i = 0; i < g_dyn_pd_count; i++) free(g_dyn_pd_names[i]);
    g_dyn_pd_count = 0;
    pthread_mutex_unlock(&g_lock);
    return 0;
}

MOCK_ICD_CTL_API void mock_icd_ctl_reset(void) {
    ensure_init();
    pthread_mutex_lock(&g_lock);
    const char *err = load_sidecar_locked();
    mock_records_clear(&g_records);
    for (uint32_t i = 0; i < g_dyn_pd_count; i++) free(g_dyn_pd_names[i]);
    g_dyn_pd_count = 0;
    g_negotiated = -1;
    g_first_seen = false;
    g_legacy_gipa_first = false;
    pthread_mutex_unlock(&g_lock);
    if (err) {
        cJSON *o = rec_new("mock_icd_scenario_error");
        cJSON_AddStringToObject(o, "file", g_scenario_path);
        cJSON_AddStringToObject(o, "error", err);
        rec_emit(o);
    }
}

MOCK_ICD_CTL_API size_t mock_icd_ctl_record_count(void) {
    ensure_init();
    pthread_mutex_lock(&g_lock);
    size_t n = mock_records_count(&g_records);
    pthread_mutex_unlock(&g_lock);
    return n;
}

MOCK_ICD_CTL_API const char *mock_icd_ctl_record_get(size_t i) {
    ensure_init();
    pthread_mutex_lock(&g_lock);
    const char *s = mock_records_get(&g_records, i);
    pthread_mutex_unlock(&g_lock);
    return s;
}

MOCK_ICD_CTL_API void mock_icd_ctl_set_result(const char *command, VkResult r) {
    if (!command) return;
    ensure_init();
    pthread_mutex_lock(&g_lock);
    struct scenario *sc = g_sc;
    uint32_t i = 0;
    while (i < sc->result_count && strcmp(sc->results[i].command, command) != 0) i++;
    if (i < sc->result_count) {
        if (r == VK_SUCCESS) {
            free(sc->results[i].command);
            sc->results[i] = sc->results[--sc->result_count];
        } else {
            sc->results[i].result = r;
        }
    } else if (r != VK_SUCCESS) {
        struct result_cfg *n = realloc(sc->results, (sc->result_count + 1) * sizeof *n);
        char *copy = strdup(command);
        if (n) sc->results = n;
        if (n && copy) {
            sc->results[sc->result_count].command = copy;
            sc->results[sc->result_count].result = r;
            sc->result_count++;
        } else {
            free(copy);
        }
    }
    pthread_mutex_unlock(&g_lock);
}

/* dlclose: free everything so LeakSanitizer stays quiet in tests that load and unload copies. */
__attribute__((destructor)) static void mock_icd_fini(void) {
    while (g_devices) {
        struct mock_device *d = g_devices;
        g_devices = d->next;
        device_free(d);
    }
    while (g_instances) {
        struct mock_instance *i = g_instances;
        g_instances = i->next;
        instance_free(i);
    }
    mock_gen_free_objects();
    mock_records_clear(&g_records);
    for (uint32_t i = 0; i < g_dyn_pd_count; i++) free(g_dyn_pd_names[i]);
    g_dyn_pd_count = 0;
    scenario_release(g_sc);
    g_sc = NULL;
    g_inited = false;
}
