/*
 * Allocation through the application's VkAllocationCallbacks.
 *
 * The Vulkan specification requires every host allocation made on behalf of an object created with
 * pAllocator to go through those callbacks; the loader's instance-lifetime objects are such
 * allocations. Without callbacks we use malloc with the same alignment contract.
 */
#include <stdlib.h>
#include <string.h>

#include "loader/internal/loader.h"
#include "loader/internal/util.h"

/* Every loader structure holds pointers and 64-bit integers: 8-byte alignment is enough. */
#define VKL_ALLOC_ALIGN 8u

static void *VKAPI_PTR default_alloc(void *ud, size_t size, size_t align, VkSystemAllocationScope s) {
    (void)ud;
    (void)s;
    if (align <= 16) return malloc(size);
    void *p = NULL;
    return posix_memalign(&p, align, size) == 0 ? p : NULL;
}
static void *VKAPI_PTR default_realloc(void *ud, void *orig, size_t size, size_t align, VkSystemAllocationScope s) {
    (void)ud;
    (void)align;
    (void)s;
    return realloc(orig, size);
}
static void VKAPI_PTR default_free(void *ud, void *p) {
    (void)ud;
    free(p);
}

/* RULE_INST_ALLOCATOR: the application's callbacks for every instance-lifetime allocation. */
void vkl_alloc_init(struct vkl_alloc *a, const VkAllocationCallbacks *app) {
    memset(a, 0, sizeof(*a));
    if (app != NULL && app->pfnAllocation != NULL && app->pfnFree != NULL) {
        a->cb = *app;
        a->app = true;
    } else {
        a->cb.pfnAllocation = default_alloc;
        a->cb.pfnReallocation = default_realloc;
        a->cb.pfnFree = default_free;
    }
}

void *vkl_alloc(const struct vkl_alloc *a, size_t size, VkSystemAllocationScope scope) {
    if (size == 0) size = 1;
    return a->cb.pfnAllocation(a->cb.pUserData, size, VKL_ALLOC_ALIGN, scope);
}

void *vkl_calloc(const struct vkl_alloc *a, size_t size, VkSystemAllocationScope scope) {
    /* Without application callbacks, calloc: fresh pages from the kernel are already zero, so a
     * large record (the instance) costs no memset. */
    if (!a->app) return calloc(1, size ? size : 1);
    void *p = vkl_alloc(a, size, scope);
    if (p != NULL) memset(p, 0, size);
    return p;
}

void vkl_free(const struct vkl_alloc *a, void *p) {
    if (p != NULL) a->cb.pfnFree(a->cb.pUserData, p);
}

struct alloc_ctx {
    const struct vkl_alloc *a;
    VkSystemAllocationScope scope;
};

static void *alloc_with_scope(void *ctx, size_t size) {
    const struct alloc_ctx *c = ctx;
    return vkl_alloc(c->a, size, c->scope);
}

char *vkl_strdup_alloc(const struct vkl_alloc *a, const char *s, VkSystemAllocationScope scope) {
    struct alloc_ctx c = {a, scope};
    return vkl_strdup_with(s, alloc_with_scope, &c);
}
