/*
 * Compile/link check of the code tools/vkgen generates from the real vk.xml (//loader:vkl_gen),
 * built with C_COPTS and the XCB/Xlib/Wayland platform macros. Hand-written functions come from
 * generated stubs (:real_stubs); this file provides the loader functions the generated code calls.
 */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "loader/internal/handles.h"

struct vkl_icd_instance *vkl_term_icd_first(VkInstance instance) {
    return NULL;
}
void vkl_term_missing(VkInstance instance, VkPhysicalDevice pd, const char *cmd) {}
/* handle validation (loader/handles.c) */
_Noreturn void vkl_invalid_handle(const char *cmd, const char *param) { abort(); }
void vkl_check_instance(VkInstance instance, const char *cmd) {}
int vkl_null_count_param(const char *cmd, const char *param, bool returns_result) { return -1; }
void vkl_check_physical_device(VkPhysicalDevice physicalDevice, const char *cmd) {}
bool vkl_device_dispatch_live(const void *table) { return table != NULL; }

/* `nm -D --defined-only /usr/lib/x86_64-linux-gnu/libvulkan.so.1` (Debian, header 1.3.239). */
static const char *const debian_exports[] = {
    "vkAcquireNextImage2KHR",
    "vkAcquireNextImageKHR",
    "vkAllocateCommandBuffers",
    "vkAllocateDescriptorSets",
    "vkAllocateMemory",
    "vkBeginCommandBuffer",
    "vkBindBufferMemory",
    "vkBindBufferMemory2",
    "vkBindImageMemory",
    "vkBindImageMemory2",
    "vkCmdBeginQuery",
    "vkCmdBeginRenderPass",
    "vkCmdBeginRenderPass2",
    "vkCmdBeginRendering",
    "vkCmdBindDescriptorSets",
    "vkCmdBindIndexBuffer",
    "vkCmdBindPipeline",
    "vkCmdBindVertexBuffers",
    "vkCmdBindVertexBuffers2",
    "vkCmdBlitImage",
    "vkCmdBlitImage2",
    "vkCmdClearAttachments",
    "vkCmdClearColorImage",
    "vkCmdClearDepthStencilImage",
    "vkCmdCopyBuffer",
    "vkCmdCopyBuffer2",
    "vkCmdCopyBufferToImage",
    "vkCmdCopyBufferToImage2",
    "vkCmdCopyImage",
    "vkCmdCopyImage2",
    "vkCmdCopyImageToBuffer",
    "vkCmdCopyImageToBuffer2",
    "vkCmdCopyQueryPoolResults",
    "vkCmdDispatch",
    "vkCmdDispatchBase",
    "vkCmdDispatchIndirect",
    "vkCmdDraw",
    "vkCmdDrawIndexed",
    "vkCmdDrawIndexedIndirect",
    "vkCmdDrawIndexedIndirectCount",
    "vkCmdDrawIndirect",
    "vkCmdDrawIndirectCount",
    "vkCmdEndQuery",
    "vkCmdEndRenderPass",
    "vkCmdEndRenderPass2",
    "vkCmdEndRendering",
    "vkCmdExecuteCommands",
    "vkCmdFillBuffer",
    "vkCmdNextSubpass",
    "vkCmdNextSubpass2",
    "vkCmdPipelineBarrier",
    "vkCmdPipelineBarrier2",
    "vkCmdPushConstants",
    "vkCmdResetEvent",
    "vkCmdResetEvent2",
    "vkCmdResetQueryPool",
    "vkCmdResolveImage",
    "vkCmdResolveImage2",
    "vkCmdSetBlendConstants",
    "vkCmdSetCullMode",
    "vkCmdSetDepthBias",
    "vkCmdSetDepthBiasEnable",
    "vkCmdSetDepthBounds",
    "vkCmdSetDepthBoundsTestEnable",
    "vkCmdSetDepthCompareOp",
    "vkCmdSetDepthTestEnable",
    "vkCmdSetDepthWriteEnable",
    "vkCmdSetDeviceMask",
    "vkCmdSetEvent",
    "vkCmdSetEvent2",
    "vkCmdSetFrontFace",
    "vkCmdSetLineWidth",
    "vkCmdSetPrimitiveRestartEnable",
    "vkCmdSetPrimitiveTopology",
    "vkCmdSetRasterizerDiscardEnable",
    "vkCmdSetScissor",
    "vkCmdSetScissorWithCount",
    "vkCmdSetStencilCompareMask",
    "vkCmdSetStencilOp",
    "vkCmdSetStencilReference",
    "vkCmdSetStencilTestEnable",
    "vkCmdSetStencilWriteMask",
    "vkCmdSetViewport",
    "vkCmdSetViewportWithCount",
    "vkCmdUpdateBuffer",
    "vkCmdWaitEvents",
    "vkCmdWaitEvents2",
    "vkCmdWriteTimestamp",
    "vkCmdWriteTimestamp2",
    "vkCreateBuffer",
    "vkCreateBufferView",
    "vkCreateCommandPool",
    "vkCreateComputePipelines",
    "vkCreateDescriptorPool",
    "vkCreateDescriptorSetLayout",
    "vkCreateDescriptorUpdateTemplate",
    "vkCreateDevice",
    "vkCreateDisplayModeKHR",
    "vkCreateDisplayPlaneSurfaceKHR",
    "vkCreateEvent",
    "vkCreateFence",
    "vkCreateFramebuffer",
    "vkCreateGraphicsPipelines",
    "vkCreateHeadlessSurfaceEXT",
    "vkCreateImage",
    "vkCreateImageView",
    "vkCreateInstance",
    "vkCreatePipelineCache",
    "vkCreatePipelineLayout",
    "vkCreatePrivateDataSlot",
    "vkCreateQueryPool",
    "vkCreateRenderPass",
    "vkCreateRenderPass2",
    "vkCreateSampler",
    "vkCreateSamplerYcbcrConversion",
    "vkCreateSemaphore",
    "vkCreateShaderModule",
    "vkCreateSharedSwapchainsKHR",
    "vkCreateSwapchainKHR",
    "vkCreateWaylandSurfaceKHR",
    "vkCreateXcbSurfaceKHR",
    "vkCreateXlibSurfaceKHR",
    "vkDestroyBuffer",
    "vkDestroyBufferView",
    "vkDestroyCommandPool",
    "vkDestroyDescriptorPool",
    "vkDestroyDescriptorSetLayout",
    "vkDestroyDescriptorUpdateTemplate",
    "vkDestroyDevice",
    "vkDestroyEvent",
    "vkDestroyFence",
    "vkDestroyFramebuffer",
    "vkDestroyImage",
    "vkDestroyImageView",
    "vkDestroyInstance",
    "vkDestroyPipeline",
    "vkDestroyPipelineCache",
    "vkDestroyPipelineLayout",
    "vkDestroyPrivateDataSlot",
    "vkDestroyQueryPool",
    "vkDestroyRenderPass",
    "vkDestroySampler",
    "vkDestroySamplerYcbcrConversion",
    "vkDestroySemaphore",
    "vkDestroyShaderModule",
    "vkDestroySurfaceKHR",
    "vkDestroySwapchainKHR",
    "vkDeviceWaitIdle",
    "vkEndCommandBuffer",
    "vkEnumerateDeviceExtensionProperties",
    "vkEnumerateDeviceLayerProperties",
    "vkEnumerateInstanceExtensionProperties",
    "vkEnumerateInstanceLayerProperties",
    "vkEnumerateInstanceVersion",
    "vkEnumeratePhysicalDeviceGroups",
    "vkEnumeratePhysicalDevices",
    "vkFlushMappedMemoryRanges",
    "vkFreeCommandBuffers",
    "vkFreeDescriptorSets",
    "vkFreeMemory",
    "vkGetBufferDeviceAddress",
    "vkGetBufferMemoryRequirements",
    "vkGetBufferMemoryRequirements2",
    "vkGetBufferOpaqueCaptureAddress",
    "vkGetDescriptorSetLayoutSupport",
    "vkGetDeviceBufferMemoryRequirements",
    "vkGetDeviceGroupPeerMemoryFeatures",
    "vkGetDeviceGroupPresentCapabilitiesKHR",
    "vkGetDeviceGroupSurfacePresentModesKHR",
    "vkGetDeviceImageMemoryRequirements",
    "vkGetDeviceImageSparseMemoryRequirements",
    "vkGetDeviceMemoryCommitment",
    "vkGetDeviceMemoryOpaqueCaptureAddress",
    "vkGetDeviceProcAddr",
    "vkGetDeviceQueue",
    "vkGetDeviceQueue2",
    "vkGetDisplayModeProperties2KHR",
    "vkGetDisplayModePropertiesKHR",
    "vkGetDisplayPlaneCapabilities2KHR",
    "vkGetDisplayPlaneCapabilitiesKHR",
    "vkGetDisplayPlaneSupportedDisplaysKHR",
    "vkGetEventStatus",
    "vkGetFenceStatus",
    "vkGetImageMemoryRequirements",
    "vkGetImageMemoryRequirements2",
    "vkGetImageSparseMemoryRequirements",
    "vkGetImageSparseMemoryRequirements2",
    "vkGetImageSubresourceLayout",
    "vkGetInstanceProcAddr",
    "vkGetPhysicalDeviceDisplayPlaneProperties2KHR",
    "vkGetPhysicalDeviceDisplayPlanePropertiesKHR",
    "vkGetPhysicalDeviceDisplayProperties2KHR",
    "vkGetPhysicalDeviceDisplayPropertiesKHR",
    "vkGetPhysicalDeviceExternalBufferProperties",
    "vkGetPhysicalDeviceExternalFenceProperties",
    "vkGetPhysicalDeviceExternalSemaphoreProperties",
    "vkGetPhysicalDeviceFeatures",
    "vkGetPhysicalDeviceFeatures2",
    "vkGetPhysicalDeviceFormatProperties",
    "vkGetPhysicalDeviceFormatProperties2",
    "vkGetPhysicalDeviceImageFormatProperties",
    "vkGetPhysicalDeviceImageFormatProperties2",
    "vkGetPhysicalDeviceMemoryProperties",
    "vkGetPhysicalDeviceMemoryProperties2",
    "vkGetPhysicalDevicePresentRectanglesKHR",
    "vkGetPhysicalDeviceProperties",
    "vkGetPhysicalDeviceProperties2",
    "vkGetPhysicalDeviceQueueFamilyProperties",
    "vkGetPhysicalDeviceQueueFamilyProperties2",
    "vkGetPhysicalDeviceSparseImageFormatProperties",
    "vkGetPhysicalDeviceSparseImageFormatProperties2",
    "vkGetPhysicalDeviceSurfaceCapabilities2KHR",
    "vkGetPhysicalDeviceSurfaceCapabilitiesKHR",
    "vkGetPhysicalDeviceSurfaceFormats2KHR",
    "vkGetPhysicalDeviceSurfaceFormatsKHR",
    "vkGetPhysicalDeviceSurfacePresentModesKHR",
    "vkGetPhysicalDeviceSurfaceSupportKHR",
    "vkGetPhysicalDeviceToolProperties",
    "vkGetPhysicalDeviceWaylandPresentationSupportKHR",
    "vkGetPhysicalDeviceXcbPresentationSupportKHR",
    "vkGetPhysicalDeviceXlibPresentationSupportKHR",
    "vkGetPipelineCacheData",
    "vkGetPrivateData",
    "vkGetQueryPoolResults",
    "vkGetRenderAreaGranularity",
    "vkGetSemaphoreCounterValue",
    "vkGetSwapchainImagesKHR",
    "vkInvalidateMappedMemoryRanges",
    "vkMapMemory",
    "vkMergePipelineCaches",
    "vkQueueBindSparse",
    "vkQueuePresentKHR",
    "vkQueueSubmit",
    "vkQueueSubmit2",
    "vkQueueWaitIdle",
    "vkResetCommandBuffer",
    "vkResetCommandPool",
    "vkResetDescriptorPool",
    "vkResetEvent",
    "vkResetFences",
    "vkResetQueryPool",
    "vkSetEvent",
    "vkSetPrivateData",
    "vkSignalSemaphore",
    "vkTrimCommandPool",
    "vkUnmapMemory",
    "vkUpdateDescriptorSetWithTemplate",
    "vkUpdateDescriptorSets",
    "vkWaitForFences",
    "vkWaitSemaphores",
};

static int failures;
#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);                                   \
            ++failures;                                                                                                \
        }                                                                                                              \
    } while (0)

static void dummy_fn(void) {}

/* A fake vkGetInstanceProcAddr that knows only a few names (the KHR alias, not the core name). */
static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL fake_gipa(VkInstance instance, const char *name) {
    if (strcmp(name, "vkGetPhysicalDeviceProperties2KHR") == 0 || strcmp(name, "vkCreateDevice") == 0 ||
        (instance == VK_NULL_HANDLE && strcmp(name, "vkCreateInstance") == 0))
        return dummy_fn;
    return NULL;
}
static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL fake_gdpa(VkDevice device, const char *name) {
    return strcmp(name, "vkCmdDraw") == 0 ? dummy_fn : NULL;
}

int main(void) {
    const struct vkl_gen_cmd *c = vkl_gen_cmd_find("vkCreateDevice");
    CHECK(c && c->kind == VKL_GEN_CMD_PHYSDEV && c->exported == 1);
    CHECK(c && c->core_version == VK_MAKE_API_VERSION(0, 1, 0, 0) && c->extension == NULL);
    CHECK(c && c->trampoline == (PFN_vkVoidFunction)vkCreateDevice);
    CHECK(c && c->terminator == (PFN_vkVoidFunction)vkl_term_CreateDevice);
    CHECK(c && c->slot == offsetof(struct vkl_gen_instance_dispatch, CreateDevice) / sizeof(PFN_vkVoidFunction));

    c = vkl_gen_cmd_find("vkCmdDraw");
    CHECK(c && c->kind == VKL_GEN_CMD_DEVICE && c->exported == 1 && c->terminator == NULL);
    CHECK(c && c->trampoline == (PFN_vkVoidFunction)vkCmdDraw);
    CHECK(c && c->slot == offsetof(struct vkl_gen_device_dispatch, CmdDraw) / sizeof(PFN_vkVoidFunction));

    const struct vkl_gen_cmd *core = vkl_gen_cmd_find("vkGetPhysicalDeviceProperties2");
    const struct vkl_gen_cmd *khr = vkl_gen_cmd_find("vkGetPhysicalDeviceProperties2KHR");
    CHECK(core && khr && core != khr);
    /* one slot; a trampoline of its own for the alias, which names itself (RULE_GIPA_SPEC) */
    CHECK(core && khr && core->slot == khr->slot && core->trampoline != khr->trampoline && khr->trampoline != NULL);
    CHECK(core && core->exported == 1 && core->core_version == VK_MAKE_API_VERSION(0, 1, 1, 0));
    CHECK(khr && khr->exported == 0 && khr->core_version == 0 && khr->extension &&
          strcmp(khr->extension, "VK_KHR_get_physical_device_properties2") == 0);

    c = vkl_gen_cmd_find("vkCreateXcbSurfaceKHR"); /* platform-protected, enabled here */
    CHECK(c && c->exported == 1 && c->slot != UINT16_MAX && c->trampoline != NULL);
    c = vkl_gen_cmd_find("vkCreateWin32SurfaceKHR"); /* platform-protected, not enabled */
    CHECK(c && c->exported == 0 && c->slot == UINT16_MAX && c->trampoline == NULL && c->terminator == NULL);

    CHECK(vkl_gen_cmd_find("vkNotAThing") == NULL);
    CHECK(vkl_gen_cmd_find("") == NULL);
    CHECK(vkl_gen_cmd_find("vkcreatedevice") == NULL);
    CHECK(vkl_gen_cmd_find(NULL) == NULL);

    /* Every entry is found by its own name; slots and terminators agree with the tables. */
    uint32_t exported = 0;
    for (uint32_t i = 0; i < VKL_GEN_CMD_COUNT; ++i) {
        const struct vkl_gen_cmd *e = &vkl_gen_cmds[i];
        CHECK(vkl_gen_cmd_find(e->name) == e);
        exported += e->exported;
        if (e->slot == UINT16_MAX) continue;
        CHECK(e->trampoline != NULL);
        if (e->kind == VKL_GEN_CMD_DEVICE) {
            CHECK(e->slot < VKL_GEN_DEVICE_DISPATCH_SLOTS);
        } else {
            CHECK(e->slot < VKL_GEN_INSTANCE_DISPATCH_SLOTS);
            const PFN_vkVoidFunction *terms = (const PFN_vkVoidFunction *)(const void *)&vkl_gen_terminators;
            CHECK(terms[e->slot] == e->terminator);
        }
    }
    /* Debian's 250 names are exported whatever the headers; any other exported name is a command of
     * a core version after 1.3 (export-feature VK_VERSION_*), the version of Debian's loader. */
    const uint32_t n_debian = (uint32_t)(sizeof(debian_exports) / sizeof(debian_exports[0]));
    CHECK(n_debian == 250);
    for (size_t i = 0; i < n_debian; ++i) {
        c = vkl_gen_cmd_find(debian_exports[i]);
        if (!c || !c->exported || !c->trampoline) {
            fprintf(stderr, "not exported: %s\n", debian_exports[i]);
            ++failures;
        }
    }
    uint32_t newer_core = 0;
    for (uint32_t i = 0; i < VKL_GEN_CMD_COUNT; ++i) {
        const struct vkl_gen_cmd *e = &vkl_gen_cmds[i];
        if (!e->exported || e->core_version <= VK_MAKE_API_VERSION(0, 1, 3, 0)) continue;
        bool in_debian = false;
        for (size_t k = 0; k < n_debian && !in_debian; ++k) in_debian = strcmp(e->name, debian_exports[k]) == 0;
        if (in_debian) {
            fprintf(stderr, "core after 1.3 yet exported by Debian's 1.3 loader: %s\n", e->name);
            ++failures;
        }
        ++newer_core;
    }
    CHECK(exported == n_debian + newer_core);
    CHECK(vkl_gen_instance_dispatch_slots() == VKL_GEN_INSTANCE_DISPATCH_SLOTS);
    CHECK(vkl_gen_device_dispatch_slots() == VKL_GEN_DEVICE_DISPATCH_SLOTS);

    /* Fill: alias fallback, globals with VK_NULL_HANDLE, nothing else without an instance. */
    struct vkl_gen_instance_dispatch it;
    memset(&it, 0xff, sizeof(it));
    vkl_gen_instance_dispatch_fill(&it, fake_gipa, VK_NULL_HANDLE);
    CHECK(it.CreateInstance == (PFN_vkCreateInstance)dummy_fn);
    CHECK(it.CreateDevice == NULL && it.GetPhysicalDeviceProperties2 == NULL);
    vkl_gen_instance_dispatch_fill(&it, fake_gipa, (VkInstance)(void *)&it);
    CHECK(it.CreateInstance == (PFN_vkCreateInstance)dummy_fn);
    CHECK(it.CreateDevice == (PFN_vkCreateDevice)dummy_fn);
    CHECK(it.GetPhysicalDeviceProperties2 == (PFN_vkGetPhysicalDeviceProperties2)dummy_fn);
    CHECK(it.GetPhysicalDeviceProperties == NULL && it.DestroyInstance == NULL);

    struct vkl_gen_device_dispatch dt;
    memset(&dt, 0xff, sizeof(dt));
    vkl_gen_device_dispatch_fill(&dt, fake_gdpa, (VkDevice)(void *)&dt);
    CHECK(dt.CmdDraw == (PFN_vkCmdDraw)dummy_fn && dt.QueueSubmit == NULL);

    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("vkgen real-registry check: %u commands, %u exported, %u instance / %u device slots\n",
           (unsigned)VKL_GEN_CMD_COUNT, exported, VKL_GEN_INSTANCE_DISPATCH_SLOTS, VKL_GEN_DEVICE_DISPATCH_SLOTS);
    return 0;
}
