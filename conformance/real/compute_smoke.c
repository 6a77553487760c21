/*
 * compute_smoke: a small Vulkan application that proves a loader works end to end with a real
 * driver. It opens the loader named on the command line (dlopen, nothing linked), lists every
 * physical device, creates an instance and a device on the chosen one, runs a compute dispatch
 * that writes a buffer, reads it back and checks every element.
 *
 *   compute_smoke --loader=PATH [--device=SUBSTRING] [--elements=N]
 *
 * Output: one line per fact ("device: ...", "result: ..."); exit 0 only if the buffer is right.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>

#include "conformance/real/fill_spv.h"

#define CHECK(call)                                                      \
  do {                                                                   \
    VkResult r_ = (call);                                                \
    if (r_ != VK_SUCCESS) {                                              \
      fprintf(stderr, "compute_smoke: %s failed: %d\n", #call, (int)r_); \
      return 1;                                                          \
    }                                                                    \
  } while (0)

static PFN_vkGetInstanceProcAddr gipa;
static VkInstance instance;
#define IFN(name) PFN_##name name = (PFN_##name)gipa(instance, #name)

static const char *type_name(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return "discrete";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return "integrated";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return "virtual";
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return "cpu";
    default:
      return "other";
  }
}

int main(int argc, char **argv) {
  const char *loader = NULL, *want = NULL;
  uint32_t n = 4096;
  for (int i = 1; i < argc; i++) {
    if (strncmp(argv[i], "--loader=", 9) == 0)
      loader = argv[i] + 9;
    else if (strncmp(argv[i], "--device=", 9) == 0)
      want = argv[i] + 9;
    else if (strncmp(argv[i], "--elements=", 11) == 0)
      n = (uint32_t)strtoul(argv[i] + 11, NULL, 10);
    else {
      fprintf(stderr, "usage: compute_smoke --loader=PATH [--device=SUBSTRING] [--elements=N]\n");
      return 2;
    }
  }
  if (loader == NULL || n == 0 || n % 64 != 0) {
    fprintf(stderr, "compute_smoke: --loader=PATH is required; --elements must be a multiple of 64\n");
    return 2;
  }
  void *lib = dlopen(loader, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    fprintf(stderr, "compute_smoke: cannot load %s: %s\n", loader, dlerror());
    return 2;
  }
  void *sym = dlsym(lib, "vkGetInstanceProcAddr");
  memcpy(&gipa, &sym, sizeof(gipa));
  if (gipa == NULL) return 2;

  IFN(vkEnumerateInstanceVersion);
  uint32_t iv = 0;
  if (vkEnumerateInstanceVersion != NULL) vkEnumerateInstanceVersion(&iv);
  printf("loader: %s instance version %u.%u.%u\n", loader, VK_API_VERSION_MAJOR(iv), VK_API_VERSION_MINOR(iv),
         VK_API_VERSION_PATCH(iv));
  IFN(vkCreateInstance);
  VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                           .pApplicationName = "compute_smoke",
                           .apiVersion = VK_API_VERSION_1_1};
  VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
  CHECK(vkCreateInstance(&ici, NULL, &instance));
  IFN(vkEnumeratePhysicalDevices);
  IFN(vkGetPhysicalDeviceProperties);
  IFN(vkGetPhysicalDeviceQueueFamilyProperties);
  IFN(vkGetPhysicalDeviceMemoryProperties);
  IFN(vkCreateDevice);
  IFN(vkDestroyInstance);
  IFN(vkGetDeviceProcAddr);
  uint32_t count = 0;
  CHECK(vkEnumeratePhysicalDevices(instance, &count, NULL));
  VkPhysicalDevice pds[32];
  if (count > 32) count = 32;
  CHECK(vkEnumeratePhysicalDevices(instance, &count, pds));
  VkPhysicalDevice pd = VK_NULL_HANDLE;
  for (uint32_t i = 0; i < count; i++) {
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(pds[i], &p);
    printf("device %u: %s (%s, vendor 0x%04x, device 0x%04x, api %u.%u.%u, driver version 0x%x)\n", i, p.deviceName,
           type_name(p.deviceType), p.vendorID, p.deviceID, VK_API_VERSION_MAJOR(p.apiVersion),
           VK_API_VERSION_MINOR(p.apiVersion), VK_API_VERSION_PATCH(p.apiVersion), p.driverVersion);
    if (pd == VK_NULL_HANDLE && (want == NULL || strstr(p.deviceName, want) != NULL)) pd = pds[i];
  }
  if (pd == VK_NULL_HANDLE) {
    fprintf(stderr, "compute_smoke: no physical device%s%s\n", want ? " matching " : "", want ? want : "");
    return 1;
  }
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(pd, &props);
  uint32_t qn = 0, qf = UINT32_MAX;
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &qn, NULL);
  VkQueueFamilyProperties qp[16];
  if (qn > 16) qn = 16;
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &qn, qp);
  for (uint32_t i = 0; i < qn && qf == UINT32_MAX; i++)
    if (qp[i].queueFlags & VK_QUEUE_COMPUTE_BIT) qf = i;
  if (qf == UINT32_MAX) {
    fprintf(stderr, "compute_smoke: %s has no compute queue\n", props.deviceName);
    return 1;
  }
  float prio = 1.0f;
  VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                 .queueFamilyIndex = qf,
                                 .queueCount = 1,
                                 .pQueuePriorities = &prio};
  VkDeviceCreateInfo dci = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1, .pQueueCreateInfos = &qci};
  VkDevice dev;
  CHECK(vkCreateDevice(pd, &dci, NULL, &dev));
  int missing = 0;
#define DFN(name)                                                                                     \
  PFN_##name name = (PFN_##name)vkGetDeviceProcAddr(dev, #name);                                      \
  if (name == NULL) {                                                                                 \
    fprintf(stderr, "compute_smoke: %s: vkGetDeviceProcAddr(%s) is NULL\n", props.deviceName, #name); \
    missing++;                                                                                        \
  }
  DFN(vkGetDeviceQueue);
  DFN(vkCreateBuffer);
  DFN(vkGetBufferMemoryRequirements);
  DFN(vkAllocateMemory);
  DFN(vkBindBufferMemory);
  DFN(vkMapMemory);
  DFN(vkCreateShaderModule);
  DFN(vkCreateDescriptorSetLayout);
  DFN(vkCreatePipelineLayout);
  DFN(vkCreateComputePipelines);
  DFN(vkCreateDescriptorPool);
  DFN(vkAllocateDescriptorSets);
  DFN(vkUpdateDescriptorSets);
  DFN(vkCreateCommandPool);
  DFN(vkAllocateCommandBuffers);
  DFN(vkBeginCommandBuffer);
  DFN(vkCmdBindPipeline);
  DFN(vkCmdBindDescriptorSets);
  DFN(vkCmdPushConstants);
  DFN(vkCmdDispatch);
  DFN(vkEndCommandBuffer);
  DFN(vkQueueSubmit);
  DFN(vkQueueWaitIdle);
  DFN(vkDestroyCommandPool);
  DFN(vkDestroyDescriptorPool);
  DFN(vkDestroyPipeline);
  DFN(vkDestroyPipelineLayout);
  DFN(vkDestroyDescriptorSetLayout);
  DFN(vkDestroyShaderModule);
  DFN(vkFreeMemory);
  DFN(vkDestroyBuffer);
  DFN(vkDestroyDevice);
  DFN(vkUnmapMemory);
  DFN(vkInvalidateMappedMemoryRanges);
  if (missing) {
    printf("result: FAIL (%d device commands missing on %s)\n", missing, props.deviceName);
    return 1;
  }
  VkQueue queue;
  vkGetDeviceQueue(dev, qf, 0, &queue);
  VkDeviceSize size = (VkDeviceSize)n * sizeof(uint32_t);
  VkBufferCreateInfo bci = {
      .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size, .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT};
  VkBuffer buf;
  CHECK(vkCreateBuffer(dev, &bci, NULL, &buf));
  VkMemoryRequirements mr;
  vkGetBufferMemoryRequirements(dev, buf, &mr);
  VkPhysicalDeviceMemoryProperties mp;
  vkGetPhysicalDeviceMemoryProperties(pd, &mp);
  uint32_t mt = UINT32_MAX;
  for (uint32_t i = 0; i < mp.memoryTypeCount && mt == UINT32_MAX; i++)
    if ((mr.memoryTypeBits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT))
      mt = i;
  if (mt == UINT32_MAX) {
    fprintf(stderr, "compute_smoke: no host-visible memory type\n");
    return 1;
  }
  VkMemoryAllocateInfo mai = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = mr.size, .memoryTypeIndex = mt};
  VkDeviceMemory mem;
  CHECK(vkAllocateMemory(dev, &mai, NULL, &mem));
  CHECK(vkBindBufferMemory(dev, buf, mem, 0));
  uint32_t *data;
  CHECK(vkMapMemory(dev, mem, 0, VK_WHOLE_SIZE, 0, (void **)&data));
  memset(data, 0xAB, (size_t)size);
  VkShaderModuleCreateInfo smci = {
      .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = sizeof(fill_spv), .pCode = fill_spv};
  VkShaderModule sm;
  CHECK(vkCreateShaderModule(dev, &smci, NULL, &sm));
  VkDescriptorSetLayoutBinding b = {.binding = 0,
                                    .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                    .descriptorCount = 1,
                                    .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
  VkDescriptorSetLayoutCreateInfo dslci = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, .bindingCount = 1, .pBindings = &b};
  VkDescriptorSetLayout dsl;
  CHECK(vkCreateDescriptorSetLayout(dev, &dslci, NULL, &dsl));
  VkPushConstantRange pcr = {.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT, .size = 8};
  VkPipelineLayoutCreateInfo plci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                     .setLayoutCount = 1,
                                     .pSetLayouts = &dsl,
                                     .pushConstantRangeCount = 1,
                                     .pPushConstantRanges = &pcr};
  VkPipelineLayout pl;
  CHECK(vkCreatePipelineLayout(dev, &plci, NULL, &pl));
  VkComputePipelineCreateInfo cpci = {.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
                                      .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                                                .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                                                .module = sm,
                                                .pName = "main"},
                                      .layout = pl};
  VkPipeline pipe;
  CHECK(vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &cpci, NULL, &pipe));
  VkDescriptorPoolSize ps = {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .descriptorCount = 1};
  VkDescriptorPoolCreateInfo dpci = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, .maxSets = 1, .poolSizeCount = 1, .pPoolSizes = &ps};
  VkDescriptorPool dp;
  CHECK(vkCreateDescriptorPool(dev, &dpci, NULL, &dp));
  VkDescriptorSetAllocateInfo dsai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                      .descriptorPool = dp,
                                      .descriptorSetCount = 1,
                                      .pSetLayouts = &dsl};
  VkDescriptorSet ds;
  CHECK(vkAllocateDescriptorSets(dev, &dsai, &ds));
  VkDescriptorBufferInfo dbi = {.buffer = buf, .range = VK_WHOLE_SIZE};
  VkWriteDescriptorSet w = {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                            .dstSet = ds,
                            .descriptorCount = 1,
                            .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                            .pBufferInfo = &dbi};
  vkUpdateDescriptorSets(dev, 1, &w, 0, NULL);
  VkCommandPoolCreateInfo cpoolci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, .queueFamilyIndex = qf};
  VkCommandPool cp;
  CHECK(vkCreateCommandPool(dev, &cpoolci, NULL, &cp));
  VkCommandBufferAllocateInfo cbai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = cp,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
  VkCommandBuffer cb;
  CHECK(vkAllocateCommandBuffers(dev, &cbai, &cb));
  VkCommandBufferBeginInfo cbbi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  CHECK(vkBeginCommandBuffer(cb, &cbbi));
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
  vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pl, 0, 1, &ds, 0, NULL);
  const uint32_t push[2] = {3, 7};
  vkCmdPushConstants(cb, pl, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push), push);
  vkCmdDispatch(cb, n / 64, 1, 1);
  CHECK(vkEndCommandBuffer(cb));
  VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cb};
  CHECK(vkQueueSubmit(queue, 1, &si, VK_NULL_HANDLE));
  CHECK(vkQueueWaitIdle(queue));
  VkMappedMemoryRange range = {.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, .memory = mem, .size = VK_WHOLE_SIZE};
  CHECK(vkInvalidateMappedMemoryRanges(dev, 1, &range));
  uint32_t bad = 0, first_bad = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (data[i] != i * push[0] + push[1]) {
      if (bad++ == 0) first_bad = i;
    }
  }
  printf("dispatch: device \"%s\", %u invocations, %u wrong values%s\n", props.deviceName, n, bad,
         bad ? "" : " (data[i] == 3*i + 7 for every i)");
  if (bad) printf("first wrong value at %u: %u\n", first_bad, data[first_bad]);
  vkUnmapMemory(dev, mem);
  vkDestroyCommandPool(dev, cp, NULL);
  vkDestroyDescriptorPool(dev, dp, NULL);
  vkDestroyPipeline(dev, pipe, NULL);
  vkDestroyPipelineLayout(dev, pl, NULL);
  vkDestroyDescriptorSetLayout(dev, dsl, NULL);
  vkDestroyShaderModule(dev, sm, NULL);
  vkDestroyBuffer(dev, buf, NULL);
  vkFreeMemory(dev, mem, NULL);
  vkDestroyDevice(dev, NULL);
  vkDestroyInstance(instance, NULL);
  dlclose(lib);
  printf("result: %s\n", bad ? "FAIL" : "PASS");
  return bad ? 1 : 0;
}
