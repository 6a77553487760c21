/*
 * The out-of-line half of internal/handles.h: the handle checks of VkInstance and VkPhysicalDevice
 * (RULE_HANDLE_VALIDATION) and the accessors the generated terminators call. handles.h, compiled
 * alone with the generated code, cannot hold them: they read struct vkl_instance, whose layout is
 * instance.h's. A leaf among the loader's object files (it calls only log.c and icd.c), so that
 * physdev.c, device.c, wsi.c and the generated code validate handles and report missing driver
 * commands without depending on instance.c (docs/architecture.md "Object core").
 */
#include <stdio.h>
#include <stdlib.h>

#include "loader/internal/instance.h"

struct vkl_icd_instance *vkl_term_icd_first(VkInstance instance) {
    return vkl_instance_from_handle(instance)->icds;
}

void vkl_term_missing(VkInstance instance, VkPhysicalDevice pd, const char *cmd) {
    struct vkl_instance *inst = NULL;
    const char *driver = "?";
    if (pd != VK_NULL_HANDLE) {
        const struct vkl_physdev_term *t = (const struct vkl_physdev_term *)(const void *)pd;
        inst = vkl_physdev_from_term(pd)->tramp.instance;
        driver = vkl_driver_name(t->icd->driver);
    } else if (instance != VK_NULL_HANDLE) {
        inst = vkl_instance_from_handle(instance);
    }
    /* For a physical-device command, the Khronos loader's sentence first (its users grep for it). */
    if (pd != VK_NULL_HANDLE)
        vkl_log(inst != NULL ? &inst->log : NULL, VKL_LOG_ERROR | VKL_LOG_DRIVER,
                "ICD for selected physical device does not export %s! terminator %s: not supported by driver %s", cmd,
                cmd, driver);
    else
        vkl_log(inst != NULL ? &inst->log : NULL, VKL_LOG_ERROR | VKL_LOG_DRIVER,
                "terminator %s: not supported by driver %s", cmd, driver);
}

/* ---- handle validation ---- */

/* A live loader instance's first word is its dispatch: the terminators' table, or its own chain
 * table (the second is recognised by address, without reading past the first word). */
/* RULE_HANDLE_VALIDATION: the trampolines that validate a dispatchable handle. */
static bool instance_valid(VkInstance instance) {
    if (instance == VK_NULL_HANDLE) return false;
    const struct vkl_instance *inst = vkl_instance_from_handle(instance);
    const void *d = *(const void *const *)(const void *)instance;
    return d == (const void *)&vkl_gen_terminators || d == (const void *)&inst->chain_disp;
}

_Noreturn void vkl_invalid_handle(const char *cmd, const char *param) {
    char line[512];
    snprintf(line, sizeof line, "[Vulkan Loader] ERROR:          %s: Invalid %s [VUID-%s-%s-parameter]\n", cmd, param,
             cmd, param);
    fputs(line, stderr);
    fflush(stderr);
    abort();
}

void vkl_check_instance(VkInstance instance, const char *cmd) {
    if (!instance_valid(instance)) vkl_invalid_handle(cmd, "instance");
}

void vkl_check_physical_device(VkPhysicalDevice physicalDevice, const char *cmd) {
    const struct vkl_physdev_tramp *t = (const struct vkl_physdev_tramp *)(const void *)physicalDevice;
    /* The magic first: only then are the handle's words our pointers, safe to follow. */
    if (t == NULL || t->magic != VKL_PHYSDEV_TRAMP_MAGIC || !instance_valid((VkInstance)(void *)t->instance) ||
        t->disp != t->instance->disp)
        vkl_invalid_handle(cmd, "physicalDevice");
}
