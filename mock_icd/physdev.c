/* Mock driver, physical-device queries: properties, features, formats, queue families,
 * memory, extensions, tools. */
#include "mock_icd/mock_icd_internal.h"

/* ------------------------------------------------------------------------------------------ */
/* Physical-device commands                                                                     */

/* The limits every device reports: the Vulkan specification's required minimums (maximums for the
 * "smaller is better" limits), with the optional features they belong to (tessellation, geometry,
 * sparse, wide lines, ...) left off, so that vulkaninfo and applications see well-formed values. */
static void fill_limits(VkPhysicalDeviceLimits *l) {
    memset(l, 0, sizeof *l);
    l->maxImageDimension1D = 4096;
    l->maxImageDimension2D = 4096;
    l->maxImageDimension3D = 256;
    l->maxImageDimensionCube = 4096;
    l->maxImageArrayLayers = 256;
    l->maxTexelBufferElements = 65536;
    l->maxUniformBufferRange = 16384;
    l->maxStorageBufferRange = 1u << 27;
    l->maxPushConstantsSize = 128;
    l->maxMemoryAllocationCount = 4096;
    l->maxSamplerAllocationCount = 4000;
    l->bufferImageGranularity = 131072;
    l->maxBoundDescriptorSets = 4;
    l->maxPerStageDescriptorSamplers = 16;
    l->maxPerStageDescriptorUniformBuffers = 12;
    l->maxPerStageDescriptorStorageBuffers = 4;
    l->maxPerStageDescriptorSampledImages = 16;
    l->maxPerStageDescriptorStorageImages = 4;
    l->maxPerStageDescriptorInputAttachments = 4;
    l->maxPerStageResources = 128;
    l->maxDescriptorSetSamplers = 96;
    l->maxDescriptorSetUniformBuffers = 72;
    l->maxDescriptorSetUniformBuffersDynamic = 8;
    l->maxDescriptorSetStorageBuffers = 24;
    l->maxDescriptorSetStorageBuffersDynamic = 4;
    l->maxDescriptorSetSampledImages = 96;
    l->maxDescriptorSetStorageImages = 24;
    l->maxDescriptorSetInputAttachments = 4;
    l->maxVertexInputAttributes = 16;
    l->maxVertexInputBindings = 16;
    l->maxVertexInputAttributeOffset = 2047;
    l->maxVertexInputBindingStride = 2048;
    l->maxVertexOutputComponents = 64;
    l->maxFragmentInputComponents = 64;
    l->maxFragmentOutputAttachments = 4;
    l->maxFragmentCombinedOutputResources = 4;
    l->maxComputeSharedMemorySize = 16384;
    l->maxComputeWorkGroupCount[0] = l->maxComputeWorkGroupCount[1] = l->maxComputeWorkGroupCount[2] = 65535;
    l->maxComputeWorkGroupInvocations = 128;
    l->maxComputeWorkGroupSize[0] = 128;
    l->maxComputeWorkGroupSize[1] = 128;
    l->maxComputeWorkGroupSize[2] = 64;
    l->subPixelPrecisionBits = 4;
    l->subTexelPrecisionBits = 4;
    l->mipmapPrecisionBits = 4;
    l->maxDrawIndexedIndexValue = (1u << 24) - 1;
    l->maxDrawIndirectCount = 1;
    l->maxSamplerLodBias = 2.0f;
    l->maxSamplerAnisotropy = 1.0f;
    l->maxViewports = 1;
    l->maxViewportDimensions[0] = l->maxViewportDimensions[1] = 4096;
    l->viewportBoundsRange[0] = -8192.0f;
    l->viewportBoundsRange[1] = 8191.0f;
    l->minMemoryMapAlignment = 64;
    l->minTexelBufferOffsetAlignment = 256;
    l->minUniformBufferOffsetAlignment = 256;
    l->minStorageBufferOffsetAlignment = 256;
    l->minTexelOffset = -8;
    l->maxTexelOffset = 7;
    l->maxFramebufferWidth = 4096;
    l->maxFramebufferHeight = 4096;
    l->maxFramebufferLayers = 256;
    l->framebufferColorSampleCounts = VK_SAMPLE_COUNT_1_BIT | VK_SAMPLE_COUNT_4_BIT;
    l->framebufferDepthSampleCounts = VK_SAMPLE_COUNT_1_BIT | VK_SAMPLE_COUNT_4_BIT;
    l->framebufferStencilSampleCounts = VK_SAMPLE_COUNT_1_BIT | VK_SAMPLE_COUNT_4_BIT;
    l->framebufferNoAttachmentsSampleCounts = VK_SAMPLE_COUNT_1_BIT | VK_SAMPLE_COUNT_4_BIT;
    l->maxColorAttachments = 4;
    l->sampledImageColorSampleCounts = VK_SAMPLE_COUNT_1_BIT | VK_SAMPLE_COUNT_4_BIT;
    l->sampledImageIntegerSampleCounts = VK_SAMPLE_COUNT_1_BIT;
    l->sampledImageDepthSampleCounts = VK_SAMPLE_COUNT_1_BIT | VK_SAMPLE_COUNT_4_BIT;
    l->sampledImageStencilSampleCounts = VK_SAMPLE_COUNT_1_BIT | VK_SAMPLE_COUNT_4_BIT;
    l->storageImageSampleCounts = VK_SAMPLE_COUNT_1_BIT;
    l->maxSampleMaskWords = 1;
    l->timestampComputeAndGraphics = VK_TRUE;
    l->timestampPeriod = 1.0f;
    l->discreteQueuePriorities = 2;
    l->pointSizeRange[0] = l->pointSizeRange[1] = 1.0f;
    l->lineWidthRange[0] = l->lineWidthRange[1] = 1.0f;
    l->standardSampleLocations = VK_TRUE;
    l->optimalBufferCopyOffsetAlignment = 1;
    l->optimalBufferCopyRowPitchAlignment = 1;
    l->nonCoherentAtomSize = 64;
}

static void fill_properties(const struct mock_physdev *pd, VkPhysicalDeviceProperties *p) {
    const struct physdev_cfg *c = pd->cfg;
    memset(p, 0, sizeof *p);
    p->apiVersion = c->api_version;
    p->driverVersion = c->driver_version;
    p->vendorID = c->vendor_id;
    p->deviceID = c->device_id;
    p->deviceType = c->type;
    if (sc_now()->mb.unterminated_names)
        copy_name_unterminated(p->deviceName, sizeof p->deviceName, c->name);
    else
        copy_name(p->deviceName, sizeof p->deviceName, c->name);
    size_t len = sc_now()->mb.unterminated_names ? sizeof p->deviceName : strlen(p->deviceName);
    if (sc_now()->mb.non_utf8_names && len + 2 < sizeof p->deviceName) /* the name, then 0xC3 0x28: not UTF-8 */
        memcpy(&p->deviceName[len], "\xC3\x28", 3);
    for (uint32_t i = 0; i < VK_UUID_SIZE; i++) p->pipelineCacheUUID[i] = (uint8_t)(pd->index + i);
    fill_limits(&p->limits);
}

/* The Vulkan 1.1 subgroup and multiview answers every device gives (Properties2 chains). */
#define MOCK_SUBGROUP_SIZE 32u
#define MOCK_MAX_ALLOCATION ((VkDeviceSize)1 << 30)

static void fill_device_uuid(const struct mock_physdev *pd, uint8_t *device_uuid, uint8_t *driver_uuid) {
    for (uint32_t i = 0; i < VK_UUID_SIZE; i++) {
        device_uuid[i] = (uint8_t)(0xD0 + pd->index + i);
        driver_uuid[i] = (uint8_t)(0x1C + i);
    }
}

static void fill_driver_identity(const struct mock_physdev *pd, VkDriverId *id, char *name, char *info,
                                 VkConformanceVersion *conformance) {
    *id = pd->cfg->driver_id;
    copy_name(name, VK_MAX_DRIVER_NAME_SIZE, "Mock ICD");
    copy_name(info, VK_MAX_DRIVER_INFO_SIZE, "vk-loader-harness mock driver");
    conformance->major = pd->cfg->conformance[0];
    conformance->minor = pd->cfg->conformance[1];
    conformance->subminor = pd->cfg->conformance[2];
    conformance->patch = pd->cfg->conformance[3];
}

VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceProperties(VkPhysicalDevice physicalDevice,
                                                            VkPhysicalDeviceProperties *p) {
    GET_PD("vkGetPhysicalDeviceProperties", );
    if (p) fill_properties(pd, p);
}

VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceProperties2(VkPhysicalDevice physicalDevice,
                                                             VkPhysicalDeviceProperties2 *p) {
    GET_PD("vkGetPhysicalDeviceProperties2", );
    if (!p) return;
    fill_properties(pd, &p->properties);
    for (VkBaseOutStructure *s = p->pNext; s; s = s->pNext) {
        if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES) {
            VkPhysicalDeviceDriverProperties *d = (VkPhysicalDeviceDriverProperties *)s;
            fill_driver_identity(pd, &d->driverID, d->driverName, d->driverInfo, &d->conformanceVersion);
        } else if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES) {
            VkPhysicalDeviceIDProperties *id = (VkPhysicalDeviceIDProperties *)s;
            fill_device_uuid(pd, id->deviceUUID, id->driverUUID);
            memset(id->deviceLUID, 0, sizeof id->deviceLUID);
            id->deviceNodeMask = 0;
            id->deviceLUIDValid = VK_FALSE;
        } else if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_PROPERTIES) {
            /* The same answers as the individual structures (vulkaninfo prints both). */
            VkPhysicalDeviceVulkan11Properties *v = (VkPhysicalDeviceVulkan11Properties *)s;
            fill_device_uuid(pd, v->deviceUUID, v->driverUUID);
            memset(v->deviceLUID, 0, sizeof v->deviceLUID);
            v->deviceNodeMask = 0;
            v->deviceLUIDValid = VK_FALSE;
            v->subgroupSize = MOCK_SUBGROUP_SIZE;
            v->subgroupSupportedStages = VK_SHADER_STAGE_COMPUTE_BIT;
            v->subgroupSupportedOperations = VK_SUBGROUP_FEATURE_BASIC_BIT;
            v->subgroupQuadOperationsInAllStages = VK_FALSE;
            v->pointClippingBehavior = VK_POINT_CLIPPING_BEHAVIOR_ALL_CLIP_PLANES;
            v->maxMultiviewViewCount = 6;
            v->maxMultiviewInstanceIndex = (1u << 27) - 1;
            v->protectedNoFault = VK_FALSE;
            v->maxPerSetDescriptors = 1024;
            v->maxMemoryAllocationSize = MOCK_MAX_ALLOCATION;
        } else if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES) {
            VkPhysicalDeviceVulkan12Properties *v = (VkPhysicalDeviceVulkan12Properties *)s;
            fill_driver_identity(pd, &v->driverID, v->driverName, v->driverInfo, &v->conformanceVersion);
            v->denormBehaviorIndependence = VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_ALL;
            v->roundingModeIndependence = VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_ALL;
            v->maxUpdateAfterBindDescriptorsInAllPools = 0;
            v->supportedDepthResolveModes = VK_RESOLVE_MODE_SAMPLE_ZERO_BIT;
            v->supportedStencilResolveModes = VK_RESOLVE_MODE_SAMPLE_ZERO_BIT;
            v->maxTimelineSemaphoreValueDifference = (1u << 31) - 1;
            v->framebufferIntegerColorSampleCounts = VK_SAMPLE_COUNT_1_BIT;
        } else if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_PROPERTIES) {
            VkPhysicalDeviceVulkan13Properties *v = (VkPhysicalDeviceVulkan13Properties *)s;
            v->minSubgroupSize = v->maxSubgroupSize = MOCK_SUBGROUP_SIZE;
            v->maxComputeWorkgroupSubgroups = 4;
            v->requiredSubgroupSizeStages = VK_SHADER_STAGE_COMPUTE_BIT;
            v->maxInlineUniformBlockSize = 256;
            v->maxPerStageDescriptorInlineUniformBlocks = 4;
            v->maxDescriptorSetInlineUniformBlocks = 4;
            v->maxInlineUniformTotalSize = 256;
            v->maxBufferSize = MOCK_MAX_ALLOCATION;
        } else if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES) {
            VkPhysicalDeviceSubgroupProperties *g = (VkPhysicalDeviceSubgroupProperties *)s;
            g->subgroupSize = MOCK_SUBGROUP_SIZE;
            g->supportedStages = VK_SHADER_STAGE_COMPUTE_BIT;
            g->supportedOperations = VK_SUBGROUP_FEATURE_BASIC_BIT;
            g->quadOperationsInAllStages = VK_FALSE;
        } else if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES) {
            VkPhysicalDeviceMaintenance3Properties *m = (VkPhysicalDeviceMaintenance3Properties *)s;
            m->maxPerSetDescriptors = 1024;
            m->maxMemoryAllocationSize = MOCK_MAX_ALLOCATION;
        } else if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_PROPERTIES) {
            ((VkPhysicalDeviceMaintenance4Properties *)s)->maxBufferSize = MOCK_MAX_ALLOCATION;
        } else if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MULTIVIEW_PROPERTIES) {
            VkPhysicalDeviceMultiviewProperties *m = (VkPhysicalDeviceMultiviewProperties *)s;
            m->maxMultiviewViewCount = 6;
            m->maxMultiviewInstanceIndex = (1u << 27) - 1;
        } else if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_POINT_CLIPPING_PROPERTIES) {
            ((VkPhysicalDevicePointClippingProperties *)s)->pointClippingBehavior =
                VK_POINT_CLIPPING_BEHAVIOR_ALL_CLIP_PLANES;
        } else if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PCI_BUS_INFO_PROPERTIES_EXT && pd->cfg->has_pci_bus) {
            VkPhysicalDevicePCIBusInfoPropertiesEXT *b = (VkPhysicalDevicePCIBusInfoPropertiesEXT *)s;
            b->pciDomain = pd->cfg->pci_bus[0];
            b->pciBus = pd->cfg->pci_bus[1];
            b->pciDevice = pd->cfg->pci_bus[2];
            b->pciFunction = pd->cfg->pci_bus[3];
        }
    }
}

VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceFeatures(VkPhysicalDevice physicalDevice,
                                                          VkPhysicalDeviceFeatures *f) {
    GET_PD("vkGetPhysicalDeviceFeatures", );
    if (!f) return;
    memset(f, 0, sizeof *f);
    f->robustBufferAccess = VK_TRUE; /* the one feature every Vulkan 1.x device must support */
}

VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceFeatures2(VkPhysicalDevice physicalDevice,
                                                           VkPhysicalDeviceFeatures2 *f) {
    GET_PD("vkGetPhysicalDeviceFeatures2", );
    if (!f) return;
    memset(&f->features, 0, sizeof f->features);
    f->features.robustBufferAccess = VK_TRUE;
}

VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceFormatProperties(VkPhysicalDevice physicalDevice, VkFormat format,
                                                                  VkFormatProperties *p) {
    GET_PD("vkGetPhysicalDeviceFormatProperties", );
    if (!p) return;
    memset(p, 0, sizeof *p);
    if (format != VK_FORMAT_UNDEFINED) {
        p->optimalTilingFeatures = VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT | VK_FORMAT_FEATURE_TRANSFER_SRC_BIT |
                                   VK_FORMAT_FEATURE_TRANSFER_DST_BIT;
        p->bufferFeatures = VK_FORMAT_FEATURE_VERTEX_BUFFER_BIT;
    }
}

VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceFormatProperties2(VkPhysicalDevice physicalDevice, VkFormat format,
                                                                   VkFormatProperties2 *p) {
    if (p) mock_GetPhysicalDeviceFormatProperties(physicalDevice, format, &p->formatProperties);
}

VKAPI_ATTR VkResult VKAPI_CALL mock_GetPhysicalDeviceImageFormatProperties(
    VkPhysicalDevice physicalDevice, VkFormat format, VkImageType type, VkImageTiling tiling, VkImageUsageFlags usage,
    VkImageCreateFlags flags, VkImageFormatProperties *p) {
    GET_PD("vkGetPhysicalDeviceImageFormatProperties", VK_ERROR_INITIALIZATION_FAILED);
    VkResult r = injected("vkGetPhysicalDeviceImageFormatProperties");
    if (r < 0) return r;
    if (format == VK_FORMAT_UNDEFINED) return VK_ERROR_FORMAT_NOT_SUPPORTED;
    if (p) {
        memset(p, 0, sizeof *p);
        p->maxExtent = (VkExtent3D){4096, type == VK_IMAGE_TYPE_1D ? 1u : 4096u, type == VK_IMAGE_TYPE_3D ? 256u : 1u};
        p->maxMipLevels = 13;
        p->maxArrayLayers = 256;
        p->sampleCounts = VK_SAMPLE_COUNT_1_BIT;
        p->maxResourceSize = 1u << 30;
    }
    return r;
}

VKAPI_ATTR VkResult VKAPI_CALL mock_GetPhysicalDeviceImageFormatProperties2(
    VkPhysicalDevice physicalDevice, const VkPhysicalDeviceImageFormatInfo2 *info, VkImageFormatProperties2 *p) {
    if (!info || !p) return VK_ERROR_INITIALIZATION_FAILED;
    return mock_GetPhysicalDeviceImageFormatProperties(physicalDevice, info->format, info->type, info->tiling,
                                                       info->usage, info->flags, &p->imageFormatProperties);
}

VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceQueueFamilyProperties(VkPhysicalDevice physicalDevice, uint32_t *count,
                                                                       VkQueueFamilyProperties *p) {
    GET_PD("vkGetPhysicalDeviceQueueFamilyProperties", );
    if (!count) return;
    const struct physdev_cfg *c = pd->cfg;
    if (!p) {
        *count = c->family_count;
        return;
    }
    uint32_t given = *count;
    uint32_t n = *count < c->family_count ? *count : c->family_count;
    for (uint32_t i = 0; i < n; i++) {
        memset(&p[i], 0, sizeof p[i]);
        p[i].queueFlags = c->families[i].flags;
        p[i].queueCount = c->families[i].count;
        p[i].timestampValidBits = 64;
        p[i].minImageTransferGranularity = (VkExtent3D){1, 1, 1};
    }
    *count = n;
    VkQueueFamilyProperties past = {.queueFlags = 7, .queueCount = 99};
    (void)liar_after_fill("vkGetPhysicalDeviceQueueFamilyProperties", p, sizeof *p, given, count, VK_SUCCESS, &past);
}

VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceQueueFamilyProperties2(VkPhysicalDevice physicalDevice,
                                                                        uint32_t *count, VkQueueFamilyProperties2 *p) {
    if (!count) return;
    if (!p) {
        mock_GetPhysicalDeviceQueueFamilyProperties(physicalDevice, count, NULL);
        return;
    }
    uint32_t n = *count;
    VkQueueFamilyProperties tmp[66]; /* 64 + what write_past_count / count_grows add */
    if (n > 64) n = 64;
    uint32_t asked = n;
    mock_GetPhysicalDeviceQueueFamilyProperties(physicalDevice, &n, tmp);
    /* count_grows: n is asked + 1 (only asked are copied); write_past_count: tmp[asked] too */
    uint32_t copy = n < asked ? n : asked;
    if (sc_now()->mb.write_past_count && lies_in("vkGetPhysicalDeviceQueueFamilyProperties")) copy = asked + 1;
    for (uint32_t i = 0; i < copy; i++) p[i].queueFamilyProperties = tmp[i];
    *count = n;
}

/* Memory types every device reports (and every resource accepts). */
uint32_t mock_memory_type_count(void) { return 1; }

VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceMemoryProperties(VkPhysicalDevice physicalDevice,
                                                                  VkPhysicalDeviceMemoryProperties *p) {
    GET_PD("vkGetPhysicalDeviceMemoryProperties", );
    if (!p) return;
    memset(p, 0, sizeof *p);
    p->memoryTypeCount = mock_memory_type_count();
    p->memoryTypes[0].propertyFlags = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                      VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    p->memoryTypes[0].heapIndex = 0;
    p->memoryHeapCount = 1;
    p->memoryHeaps[0].size = (VkDeviceSize)1 << 30;
    p->memoryHeaps[0].flags = VK_MEMORY_HEAP_DEVICE_LOCAL_BIT;
}

VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceMemoryProperties2(VkPhysicalDevice physicalDevice,
                                                                   VkPhysicalDeviceMemoryProperties2 *p) {
    if (p) mock_GetPhysicalDeviceMemoryProperties(physicalDevice, &p->memoryProperties);
}

/* Vulkan 1.1 external-handle capabilities: the handle type asked about is importable and
 * exportable (so an application or loader test can tell the driver's answer from a zeroed one). */
VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceExternalBufferProperties(
    VkPhysicalDevice physicalDevice, const VkPhysicalDeviceExternalBufferInfo *info, VkExternalBufferProperties *p) {
    GET_PD("vkGetPhysicalDeviceExternalBufferProperties", );
    (void)pd;
    if (!p || !info) return;
    p->externalMemoryProperties.externalMemoryFeatures =
        VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT | VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT;
    p->externalMemoryProperties.exportFromImportedHandleTypes = info->handleType;
    p->externalMemoryProperties.compatibleHandleTypes = info->handleType;
}

VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceExternalSemaphoreProperties(
    VkPhysicalDevice physicalDevice, const VkPhysicalDeviceExternalSemaphoreInfo *info,
    VkExternalSemaphoreProperties *p) {
    GET_PD("vkGetPhysicalDeviceExternalSemaphoreProperties", );
    (void)pd;
    if (!p || !info) return;
    p->externalSemaphoreFeatures =
        VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT | VK_EXTERNAL_SEMAPHORE_FEATURE_IMPORTABLE_BIT;
    p->exportFromImportedHandleTypes = info->handleType;
    p->compatibleHandleTypes = info->handleType;
}

VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceExternalFenceProperties(VkPhysicalDevice physicalDevice,
                                                                         const VkPhysicalDeviceExternalFenceInfo *info,
                                                                         VkExternalFenceProperties *p) {
    GET_PD("vkGetPhysicalDeviceExternalFenceProperties", );
    (void)pd;
    if (!p || !info) return;
    p->externalFenceFeatures = VK_EXTERNAL_FENCE_FEATURE_EXPORTABLE_BIT | VK_EXTERNAL_FENCE_FEATURE_IMPORTABLE_BIT;
    p->exportFromImportedHandleTypes = info->handleType;
    p->compatibleHandleTypes = info->handleType;
}

VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceSparseImageFormatProperties(
    VkPhysicalDevice physicalDevice, VkFormat format, VkImageType type, VkSampleCountFlagBits samples,
    VkImageUsageFlags usage, VkImageTiling tiling, uint32_t *count, VkSparseImageFormatProperties *p) {
    GET_PD("vkGetPhysicalDeviceSparseImageFormatProperties", );
    if (count) *count = 0;
}

VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceSparseImageFormatProperties2(
    VkPhysicalDevice physicalDevice, const VkPhysicalDeviceSparseImageFormatInfo2 *info, uint32_t *count,
    VkSparseImageFormatProperties2 *p) {
    GET_PD("vkGetPhysicalDeviceSparseImageFormatProperties2", );
    if (count) *count = 0;
}

VKAPI_ATTR VkResult VKAPI_CALL mock_EnumerateDeviceExtensionProperties(VkPhysicalDevice physicalDevice,
                                                                       const char *layer, uint32_t *count,
                                                                       VkExtensionProperties *props) {
    GET_PD("vkEnumerateDeviceExtensionProperties", VK_ERROR_INITIALIZATION_FAILED);
    const struct physdev_cfg *c = pd->cfg;
    cJSON *o = rec_new("vkEnumerateDeviceExtensionProperties");
    cJSON_AddNumberToObject(o, "physical_device", pd->index);
    rec_add_str_or_null(o, "layer", layer);
    VkResult r = enumerate_extension_list("vkEnumerateDeviceExtensionProperties", layer, c->exts, c->ext_count, count,
                                          props, true);
    rec_add_result(o, r);
    rec_emit(o);
    return r;
}

VKAPI_ATTR VkResult VKAPI_CALL mock_EnumerateDeviceLayerProperties(VkPhysicalDevice physicalDevice, uint32_t *count,
                                                                   VkLayerProperties *p) {
    GET_PD("vkEnumerateDeviceLayerProperties", VK_ERROR_INITIALIZATION_FAILED);
    cJSON *o = rec_new("vkEnumerateDeviceLayerProperties");
    rec_emit(o);
    if (!count) return VK_SUCCESS;
    /* unterminated_names / non_utf8_names: one layer of the driver's own, named as the extra
     * extension (a loader answers device layers from its own layer set and never asks a driver) */
    if (!lying_name_extension()) {
        *count = 0;
        return VK_SUCCESS;
    }
    if (!p) {
        *count = 1;
        return VK_SUCCESS;
    }
    if (*count == 0) return VK_INCOMPLETE;
    memset(&p[0], 0, sizeof p[0]);
    copy_lying_extension_name(p[0].layerName, sizeof p[0].layerName);
    p[0].specVersion = VK_API_VERSION_1_0;
    *count = 1;
    return VK_SUCCESS;
}

/* ---- vkGetPhysicalDeviceToolProperties (and the VK_EXT_tooling_info alias): one tool ---- */
VKAPI_ATTR VkResult VKAPI_CALL mock_GetPhysicalDeviceToolProperties(VkPhysicalDevice physicalDevice, uint32_t *count,
                                                                    VkPhysicalDeviceToolProperties *out) {
    GET_PD("vkGetPhysicalDeviceToolProperties", VK_ERROR_INITIALIZATION_FAILED);
    rec_display_call("vkGetPhysicalDeviceToolProperties", pd);
    VkPhysicalDeviceToolProperties past;
    memset(&past, 0, sizeof past);
    past.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TOOL_PROPERTIES;
    copy_name(past.name, sizeof past.name, "Mock past-the-end tool");
    ONE_ELEMENT_LIAR(
        "vkGetPhysicalDeviceToolProperties", count, out,
        {
            void *next = out[0].pNext;
            memset(&out[0], 0, sizeof out[0]);
            out[0].sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TOOL_PROPERTIES;
            out[0].pNext = next;
            copy_name(out[0].name, sizeof out[0].name, "Mock Driver Tool");
            copy_name(out[0].version, sizeof out[0].version, "1");
            out[0].purposes = VK_TOOL_PURPOSE_VALIDATION_BIT;
            copy_name(out[0].description, sizeof out[0].description, "a tool inside the mock driver");
        },
        past);
}
