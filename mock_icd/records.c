/* The mock driver's call records: one JSON object per call, kept in memory (the control API
 * reads them) and appended to <library>.calls. */
#include "mock_icd/mock_icd_internal.h"

/* ------------------------------------------------------------------------------------------ */
/* Records                                                                                      */

/* VkResult names come from vk.xml (tools/vkgen: loader/vkl_gen_results.h, compiled in). */
static const char *result_name(VkResult r) { return vkl_gen_result_name(r); }

cJSON *rec_new(const char *call) {
    cJSON *o = cJSON_CreateObject();
    if (o) cJSON_AddStringToObject(o, "call", call);
    return o;
}

void rec_add_result(cJSON *o, VkResult r) {
    const char *n = result_name(r);
    if (n)
        cJSON_AddStringToObject(o, "result", n);
    else
        cJSON_AddNumberToObject(o, "result", (double)r);
}

void rec_add_version(cJSON *o, const char *key, uint32_t v) {
    char buf[48];
    snprintf(buf, sizeof buf, "%u.%u.%u", VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v), VK_API_VERSION_PATCH(v));
    cJSON_AddStringToObject(o, key, buf);
}

void rec_add_strings(cJSON *o, const char *key, const char *const *names, uint32_t n) {
    cJSON *a = cJSON_AddArrayToObject(o, key);
    if (!a) return;
    for (uint32_t i = 0; i < n; i++) {
        cJSON_AddItemToArray(a, names && names[i] ? cJSON_CreateString(names[i]) : cJSON_CreateNull());
    }
}

void rec_add_str_or_null(cJSON *o, const char *key, const char *s) {
    if (s)
        cJSON_AddStringToObject(o, key, s);
    else
        cJSON_AddNullToObject(o, key);
}

/* Takes ownership of `o`: keeps the line in memory and appends it to <library>.calls. */
void rec_emit(cJSON *o) {
    if (!o) return;
    ensure_init();
    char *s = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!s) return;
    mock_append_line(g_calls_path, s);
    pthread_mutex_lock(&g_lock);
    mock_records_add(&g_records, s);
    pthread_mutex_unlock(&g_lock);
}
