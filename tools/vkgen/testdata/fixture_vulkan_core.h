/* Stand-in for vulkan_core.h in the vkgen golden tests: only VK_HEADER_VERSION is read. */
#define VK_HEADER_VERSION 7
