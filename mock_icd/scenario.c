/* Scenario parsing for the mock driver: the defaults amended by a scenario document
 * (README.md "Scenario schema"). */
#include "mock_icd/mock_icd_internal.h"

/* ------------------------------------------------------------------------------------------ */
/* VkResult names                                                                               */

/* VkResult names come from vk.xml (tools/vkgen: loader/vkl_gen_results.h, compiled in). */
static bool parse_result(const cJSON *v, VkResult *out) {
    if (cJSON_IsNumber(v)) {
        *out = (VkResult)v->valueint;
        return true;
    }
    return cJSON_IsString(v) && vkl_gen_result_from_name(v->valuestring, out);
}

/* ------------------------------------------------------------------------------------------ */
/* Scenario parsing                                                                             */

static void scenario_free(struct scenario *sc) {
    if (!sc) return;
    free(sc->inst_exts);
    for (uint32_t i = 0; i < sc->pd_count; i++) {
        free(sc->pds[i].exts);
        free(sc->pds[i].families);
    }
    free(sc->pds);
    for (uint32_t i = 0; i < sc->group_count; i++) free(sc->groups[i].members);
    free(sc->groups);
    for (uint32_t i = 0; i < sc->result_count; i++) free(sc->results[i].command);
    free(sc->results);
    for (uint32_t i = 0; i < sc->dev_func_count; i++) free(sc->dev_funcs[i]);
    free(sc->dev_funcs);
    for (uint32_t i = 0; i < sc->pd_func_count; i++) free(sc->pd_funcs[i]);
    free(sc->pd_funcs);
    for (uint32_t i = 0; i < sc->hidden_count; i++) free(sc->hidden[i]);
    free(sc->hidden);
    for (uint32_t i = 0; i < sc->crash_in_count; i++) free(sc->crash_in[i]);
    free(sc->crash_in);
    for (uint32_t i = 0; i < sc->lie_in_count; i++) free(sc->lie_in[i]);
    free(sc->lie_in);
    free(sc->unplugged);
    free(sc);
}

void scenario_release(struct scenario *sc) {
    if (sc && --sc->refs == 0) scenario_free(sc);
}

void copy_name(char *dst, size_t cap, const char *src) { snprintf(dst, cap, "%s", src ? src : ""); }

void copy_name_unterminated(char *dst, size_t cap, const char *src) {
    size_t n = src ? strlen(src) : 0;
    if (n > cap) n = cap;
    memcpy(dst, src ? src : "", n);
    for (size_t i = n; i < cap; i++) dst[i] = (char)((i - n) % 2 == 0 ? 0xC3 : 0x28);
}

bool lying_name_extension(void) { return sc_now()->mb.unterminated_names || sc_now()->mb.non_utf8_names; }

void copy_lying_extension_name(char *dst, size_t cap) {
    if (sc_now()->mb.unterminated_names)
        copy_name_unterminated(dst, cap, UNTERMINATED_EXTENSION);
    else
        copy_name(dst, cap, NOT_UTF8_EXTENSION);
}

bool lies_in(const char *cmd) {
    const struct scenario *sc = sc_now();
    if (sc->lie_in_count == 0) return true;
    for (uint32_t i = 0; i < sc->lie_in_count; i++)
        if (strcmp(sc->lie_in[i], cmd) == 0) return true;
    return false;
}

VkResult liar_after_fill(const char *cmd, void *array, size_t size, uint32_t given, uint32_t *count, VkResult r,
                         const void *past) {
    const struct misbehave_cfg *m = &sc_now()->mb;
    if (array == NULL || r < 0 || !lies_in(cmd)) return r;
    if (m->write_past_count) memcpy((char *)array + (size_t)given * size, past, size);
    if (m->count_grows) {
        *count = given + 1;
        return VK_SUCCESS;
    }
    return r;
}

static uint32_t extension_list_total(uint32_t ext_count, bool unpub) {
    return ext_count + (unpub ? 1 : 0) + (lying_name_extension() ? 1 : 0);
}

VkResult enumerate_extension_list(const char *cmd, const char *layer, const struct ext_cfg *exts, uint32_t ext_count,
                                  uint32_t *count, VkExtensionProperties *props, bool query_injected) {
    if (layer) return VK_ERROR_LAYER_NOT_PRESENT;
    if (!count) return VK_ERROR_INITIALIZATION_FAILED;
    bool unpub = sc_now()->mb.unpublished_extension;
    VkResult r = injected(cmd);
    if (r < 0) return r;
    uint32_t total = extension_list_total(ext_count, unpub);
    if (!props) {
        *count = total;
        return query_injected ? r : VK_SUCCESS;
    }
    uint32_t given = *count;
    uint32_t n = given < total ? given : total;
    for (uint32_t i = 0; i < n; i++) {
        memset(&props[i], 0, sizeof props[i]);
        if (i < ext_count) {
            copy_name(props[i].extensionName, sizeof props[i].extensionName, exts[i].name);
            props[i].specVersion = exts[i].spec_version;
        } else if (i == ext_count && unpub) {
            copy_name(props[i].extensionName, sizeof props[i].extensionName, UNPUBLISHED_EXTENSION);
            props[i].specVersion = 1;
        } else {
            copy_lying_extension_name(props[i].extensionName, sizeof props[i].extensionName);
            props[i].specVersion = 1;
        }
    }
    *count = n;
    if (n < total) r = VK_INCOMPLETE;
    VkExtensionProperties past = {PAST_THE_END_EXTENSION, 1};
    return liar_after_fill(cmd, props, sizeof *props, given, count, r, &past);
}

/* Up to max dot-separated unsigned numbers ("1.3.250"), as sscanf("%u.%u...") reads them: the
 * count read, stopping at the first field that is not a number. */
static int parse_dotted(const char *s, unsigned *out, int max) {
    int n = 0;
    while (n < max) {
        char *end = NULL;
        unsigned long v = strtoul(s, &end, 10);
        if (end == s) break;
        out[n++] = (unsigned)v;
        if (*end != '.') break;
        s = end + 1;
    }
    return n;
}

static bool parse_version(const cJSON *v, uint32_t *out) {
    if (cJSON_IsNumber(v)) {
        *out = (uint32_t)v->valuedouble;
        return true;
    }
    if (!cJSON_IsString(v)) return false;
    unsigned abc[3] = {0, 0, 0};
    if (parse_dotted(v->valuestring, abc, 3) < 2) return false;
    *out = VK_MAKE_API_VERSION(0, abc[0], abc[1], abc[2]);
    return true;
}

static bool parse_u32(const cJSON *v, uint32_t *out) {
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 4294967295.0) return false;
    *out = (uint32_t)v->valuedouble;
    return true;
}

static bool parse_bool(const cJSON *parent, const char *key, bool *out) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(parent, key);
    if (!v) return true;
    if (!cJSON_IsBool(v)) return false;
    *out = cJSON_IsTrue(v);
    return true;
}

static bool parse_exts(const cJSON *arr, struct ext_cfg **out, uint32_t *count) {
    if (!cJSON_IsArray(arr)) return false;
    int n = cJSON_GetArraySize(arr);
    struct ext_cfg *e = calloc((size_t)n + 1, sizeof *e);
    if (!e) return false;
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr) {
        const cJSON *name = cJSON_IsString(it) ? it : cJSON_GetObjectItemCaseSensitive(it, "name");
        if (!cJSON_IsString(name)) {
            free(e);
            return false;
        }
        copy_name(e[i].name, sizeof e[i].name, name->valuestring);
        e[i].spec_version = 1;
        const cJSON *sv = cJSON_IsObject(it) ? cJSON_GetObjectItemCaseSensitive(it, "spec_version") : NULL;
        if (sv && !parse_u32(sv, &e[i].spec_version)) {
            free(e);
            return false;
        }
        i++;
    }
    free(*out);
    *out = e;
    *count = (uint32_t)n;
    return true;
}

static bool parse_names(const cJSON *arr, char ***out, uint32_t *count) {
    if (!cJSON_IsArray(arr)) return false;
    int n = cJSON_GetArraySize(arr);
    if ((unsigned)n > MOCK_ICD_UNKNOWN_SLOTS) return false;
    char **names = calloc((size_t)n + 1, sizeof *names);
    if (!names) return false;
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr) {
        if (!cJSON_IsString(it) || !(names[i] = strdup(it->valuestring))) {
            for (int j = 0; j < i; j++) free(names[j]);
            free(names);
            return false;
        }
        i++;
    }
    *out = names;
    *count = (uint32_t)n;
    return true;
}

static const struct {
    const char *name;
    VkPhysicalDeviceType type;
} k_device_types[] = {
    {"other", VK_PHYSICAL_DEVICE_TYPE_OTHER},
    {"integrated", VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU},
    {"discrete", VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU},
    {"virtual", VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU},
    {"cpu", VK_PHYSICAL_DEVICE_TYPE_CPU},
};

static void physdev_defaults(struct physdev_cfg *pd, uint32_t index) {
    memset(pd, 0, sizeof *pd);
    snprintf(pd->name, sizeof pd->name, "Mock Device %u", index);
    pd->api_version = VK_MAKE_API_VERSION(0, 1, 3, 0);
    pd->driver_version = 1;
    pd->vendor_id = 4096;
    pd->device_id = index + 1;
    pd->type = VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU;
    pd->families = calloc(1, sizeof *pd->families);
    if (pd->families) {
        pd->families[0].flags = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT | VK_QUEUE_TRANSFER_BIT;
        pd->families[0].count = 1;
        pd->family_count = 1;
    }
    pd->driver_id = (VkDriverId)0;
}

static bool parse_physdev(const cJSON *o, struct physdev_cfg *pd) {
    if (!cJSON_IsObject(o)) return false;
    const cJSON *v;
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "name"))) {
        if (!cJSON_IsString(v)) return false;
        copy_name(pd->name, sizeof pd->name, v->valuestring);
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "api_version")) && !parse_version(v, &pd->api_version)) return false;
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "driver_version")) && !parse_u32(v, &pd->driver_version)) return false;
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "vendor_id")) && !parse_u32(v, &pd->vendor_id)) return false;
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "device_id")) && !parse_u32(v, &pd->device_id)) return false;
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "device_type"))) {
        bool found = false;
        for (size_t i = 0; cJSON_IsString(v) && i < ARRAY_LEN(k_device_types); i++)
            if (strcmp(v->valuestring, k_device_types[i].name) == 0) {
                pd->type = k_device_types[i].type;
                found = true;
            }
        if (!found) return false;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "extensions")) && !parse_exts(v, &pd->exts, &pd->ext_count))
        return false;
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "queue_families"))) {
        if (!cJSON_IsArray(v)) return false;
        int n = cJSON_GetArraySize(v);
        struct queue_family_cfg *f = calloc((size_t)n + 1, sizeof *f);
        if (!f) return false;
        int i = 0;
        const cJSON *it;
        cJSON_ArrayForEach(it, v) {
            uint32_t flags = 0, count = 1;
            const cJSON *fl = cJSON_GetObjectItemCaseSensitive(it, "flags");
            const cJSON *ct = cJSON_GetObjectItemCaseSensitive(it, "count");
            if (!cJSON_IsObject(it) || (fl && !parse_u32(fl, &flags)) || (ct && !parse_u32(ct, &count))) {
                free(f);
                return false;
            }
            f[i].flags = flags;
            f[i].count = count;
            i++;
        }
        free(pd->families);
        pd->families = f;
        pd->family_count = (uint32_t)n;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "driver_id"))) {
        uint32_t id;
        if (!parse_u32(v, &id)) return false;
        pd->driver_id = (VkDriverId)id;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "conformance_version"))) {
        unsigned c[4] = {0, 0, 0, 0};
        if (!cJSON_IsString(v) || parse_dotted(v->valuestring, c, 4) < 1) return false;
        for (int i = 0; i < 4; i++) pd->conformance[i] = (uint8_t)c[i];
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "pci_bus"))) {
        if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 4) return false;
        for (int i = 0; i < 4; i++)
            if (!parse_u32(cJSON_GetArrayItem(v, i), &pd->pci_bus[i])) return false;
        pd->has_pci_bus = true;
    }
    return true;
}

static struct scenario *scenario_defaults(void) {
    struct scenario *sc = calloc(1, sizeof *sc);
    if (!sc) return NULL;
    sc->refs = 1;
    sc->if_min = 0;
    sc->if_max = MOCK_ICD_MAX_INTERFACE;
    sc->api_version = VK_MAKE_API_VERSION(0, 1, 3, 0);
    sc->expose_eiv = true;
    sc->record_lookups = true;
    sc->inst_exts = calloc(1, sizeof *sc->inst_exts);
    sc->pds = calloc(1, sizeof *sc->pds);
    if (!sc->inst_exts || !sc->pds) {
        scenario_free(sc);
        return NULL;
    }
    copy_name(sc->inst_exts[0].name, sizeof sc->inst_exts[0].name, "VK_KHR_get_physical_device_properties2");
    sc->inst_exts[0].spec_version = 2;
    sc->inst_ext_count = 1;
    physdev_defaults(&sc->pds[0], 0);
    sc->pd_count = 1;
    return sc;
}

/* Parses `json` over the defaults. Returns NULL and sets *err on failure. */
struct scenario *scenario_parse(const char *json, const char **err) {
    struct scenario *sc = scenario_defaults();
    if (!sc) {
        *err = "out of memory";
        return NULL;
    }
    if (!json) return sc;
    char *copy = strdup(json);
    if (!copy) {
        *err = "out of memory";
        scenario_free(sc);
        return NULL;
    }
    cJSON_Minify(copy); /* strips the // comments the README example uses */
    cJSON *root = cJSON_Parse(copy);
    free(copy);
    const cJSON *v, *it;
    *err = NULL;
    if (!cJSON_IsObject(root)) {
        *err = "not a JSON object";
        goto fail;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "interface"))) {
        const cJSON *x;
        if (!cJSON_IsObject(v)) {
            *err = "interface";
            goto fail;
        }
        if ((x = cJSON_GetObjectItemCaseSensitive(v, "min")) && !parse_u32(x, &sc->if_min)) *err = "interface.min";
        if ((x = cJSON_GetObjectItemCaseSensitive(v, "max")) && !parse_u32(x, &sc->if_max)) *err = "interface.max";
        if ((x = cJSON_GetObjectItemCaseSensitive(v, "negotiate_result"))) {
            if (!parse_result(x, &sc->negotiate_result)) *err = "interface.negotiate_result";
            sc->has_negotiate_result = true;
        }
        if ((x = cJSON_GetObjectItemCaseSensitive(v, "report_version"))) {
            if (!parse_u32(x, &sc->report_version)) *err = "interface.report_version";
            sc->has_report_version = true;
        }
        if ((x = cJSON_GetObjectItemCaseSensitive(v, "max_through_gipa"))) {
            if (!parse_u32(x, &sc->max_through_gipa)) *err = "interface.max_through_gipa";
            sc->has_max_through_gipa = true;
        }
        if ((x = cJSON_GetObjectItemCaseSensitive(v, "per_offer"))) {
            const cJSON *po;
            if (!cJSON_IsObject(x) || cJSON_GetArraySize(x) > MOCK_MAX_PER_OFFER) *err = "interface.per_offer";
            cJSON_ArrayForEach(po, x) {
                if (*err) break;
                struct offer_cfg *o = &sc->per_offer[sc->per_offer_count];
                char *end = NULL;
                unsigned long off = strtoul(po->string, &end, 10);
                if (po->string[0] < '0' || po->string[0] > '9' || *end != '\0' || off > UINT32_MAX) {
                    *err = "interface.per_offer (keys: offered versions)";
                    break;
                }
                o->offer = (uint32_t)off;
                o->is_result = cJSON_IsString(po);
                if (o->is_result ? !parse_result(po, &o->result) : !parse_u32(po, &o->version)) {
                    *err = "interface.per_offer (values: a version number or a VkResult name)";
                    break;
                }
                sc->per_offer_count++;
            }
        }
        if (*err) goto fail;
        sc->if_max = min_u32(sc->if_max, MOCK_ICD_MAX_INTERFACE);
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "api_version")) && !parse_version(v, &sc->api_version)) {
        *err = "api_version";
        goto fail;
    }
    if (!parse_bool(root, "expose_enumerate_instance_version", &sc->expose_eiv)) {
        *err = "expose_enumerate_instance_version";
        goto fail;
    }
    if (!parse_bool(root, "record_lookups", &sc->record_lookups)) {
        *err = "record_lookups";
        goto fail;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "instance_extensions")) &&
        !parse_exts(v, &sc->inst_exts, &sc->inst_ext_count)) {
        *err = "instance_extensions";
        goto fail;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "physical_devices"))) {
        if (!cJSON_IsArray(v)) {
            *err = "physical_devices";
            goto fail;
        }
        for (uint32_t i = 0; i < sc->pd_count; i++) {
            free(sc->pds[i].exts);
            free(sc->pds[i].families);
        }
        free(sc->pds);
        sc->pd_count = 0;
        int n = cJSON_GetArraySize(v);
        sc->pds = calloc((size_t)n + 1, sizeof *sc->pds);
        if (!sc->pds) {
            *err = "out of memory";
            goto fail;
        }
        cJSON_ArrayForEach(it, v) {
            physdev_defaults(&sc->pds[sc->pd_count], sc->pd_count);
            sc->pd_count++;
            if (!parse_physdev(it, &sc->pds[sc->pd_count - 1])) {
                *err = "physical_devices[]";
                goto fail;
            }
        }
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "groups"))) {
        if (!cJSON_IsArray(v)) {
            *err = "groups";
            goto fail;
        }
        int n = cJSON_GetArraySize(v);
        sc->groups = calloc((size_t)n + 1, sizeof *sc->groups);
        if (!sc->groups) {
            *err = "out of memory";
            goto fail;
        }
        sc->has_groups = true;
        cJSON_ArrayForEach(it, v) {
            struct group_cfg *g = &sc->groups[sc->group_count++];
            int m = cJSON_IsArray(it) ? cJSON_GetArraySize(it) : -1;
            if (m < 1 || m > (int)VK_MAX_DEVICE_GROUP_SIZE || !(g->members = calloc((size_t)m, sizeof(uint32_t)))) {
                *err = "groups[]";
                goto fail;
            }
            const cJSON *idx;
            cJSON_ArrayForEach(idx, it) {
                if (!parse_u32(idx, &g->members[g->count]) || g->members[g->count] >= sc->pd_count) {
                    *err = "groups[][] (index out of range)";
                    goto fail;
                }
                g->count++;
            }
        }
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "results"))) {
        if (!cJSON_IsObject(v)) {
            *err = "results";
            goto fail;
        }
        int n = cJSON_GetArraySize(v);
        sc->results = calloc((size_t)n + 1, sizeof *sc->results);
        if (!sc->results) {
            *err = "out of memory";
            goto fail;
        }
        cJSON_ArrayForEach(it, v) {
            struct result_cfg *r = &sc->results[sc->result_count];
            if (!parse_result(it, &r->result) || !(r->command = strdup(it->string))) {
                *err = "results{} (unknown VkResult name?)";
                goto fail;
            }
            sc->result_count++;
        }
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "device_functions")) &&
        !parse_names(v, &sc->dev_funcs, &sc->dev_func_count)) {
        *err = "device_functions (strings, at most 256)";
        goto fail;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "physdev_functions")) &&
        !parse_names(v, &sc->pd_funcs, &sc->pd_func_count)) {
        *err = "physdev_functions (strings, at most 256)";
        goto fail;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "hidden_functions")) &&
        !parse_names(v, &sc->hidden, &sc->hidden_count)) {
        *err = "hidden_functions (strings, at most 256)";
        goto fail;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "crash_in")) &&
        !parse_names(v, &sc->crash_in, &sc->crash_in_count)) {
        *err = "crash_in (strings, at most 256)";
        goto fail;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "lie_in")) && !parse_names(v, &sc->lie_in, &sc->lie_in_count)) {
        *err = "lie_in (strings, at most 256)";
        goto fail;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "unplugged"))) {
        /* Indices into an instance's devices, which may come from an earlier scenario: not checked
         * against this scenario's physical_devices. */
        int n = cJSON_IsArray(v) ? cJSON_GetArraySize(v) : -1;
        if (n < 0 || n > (int)MOCK_ICD_UNKNOWN_SLOTS || !(sc->unplugged = calloc((size_t)n + 1, sizeof(uint32_t)))) {
            *err = "unplugged (device indices, at most 256)";
            goto fail;
        }
        cJSON_ArrayForEach(it, v) {
            if (!parse_u32(it, &sc->unplugged[sc->unplugged_count])) {
                *err = "unplugged[] (device indices)";
                goto fail;
            }
            sc->unplugged_count++;
        }
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "misbehave"))) {
        struct misbehave_cfg *m = &sc->mb;
        if (!cJSON_IsObject(v) || !parse_bool(v, "crash_with_zero_devices", &m->crash_with_zero_devices) ||
            !parse_bool(v, "no_loader_magic", &m->no_loader_magic) ||
            !parse_bool(v, "gpdpa_answers_everything", &m->gpdpa_answers_everything) ||
            !parse_bool(v, "incompatible_for_any_api_above_1_0", &m->incompatible_for_any_api_above_1_0) ||
            !parse_bool(v, "accept_any_api_version", &m->accept_any_api_version) ||
            !parse_bool(v, "unpublished_extension", &m->unpublished_extension) ||
            !parse_bool(v, "surface_without_interface_3", &m->surface_without_interface_3) ||
            !parse_bool(v, "corrupt_other_driver", &m->corrupt_other_driver) ||
            !parse_bool(v, "fail_enumerate_physical_devices", &m->fail_enumerate_physical_devices) ||
            !parse_bool(v, "incompatible_for_api_2", &m->incompatible_for_api_2) ||
            !parse_bool(v, "gipa_null_instance_answers_all", &m->gipa_null_instance_answers_all) ||
            !parse_bool(v, "count_grows", &m->count_grows) ||
            !parse_bool(v, "write_past_count", &m->write_past_count) ||
            !parse_bool(v, "group_too_large", &m->group_too_large) ||
            !parse_bool(v, "group_foreign_device", &m->group_foreign_device) ||
            !parse_bool(v, "unterminated_names", &m->unterminated_names) ||
            !parse_bool(v, "null_physical_device", &m->null_physical_device) ||
            !parse_bool(v, "duplicate_physical_device", &m->duplicate_physical_device) ||
            !parse_bool(v, "null_device", &m->null_device) || !parse_bool(v, "non_utf8_names", &m->non_utf8_names) ||
            !parse_bool(v, "queue_without_magic", &m->queue_without_magic) ||
            !parse_bool(v, "command_buffer_without_magic", &m->command_buffer_without_magic)) {
            *err = "misbehave";
            goto fail;
        }
    }
    cJSON_Delete(root);
    return sc;
fail:
    if (!*err) *err = "invalid";
    cJSON_Delete(root);
    scenario_free(sc);
    return NULL;
}
