/* A manifest's library_path as dlopen resolves it (shared by ldp-check and llp-check).
 *
 * The loaders hand library_path (made absolute against the manifest's directory when it is a
 * relative path with a slash) to dlopen, and the dynamic linker expands the dynamic string tokens
 * of a name with a slash (ld.so(8)): $ORIGIN, $LIB, $PLATFORM and their ${...} forms. Debian's
 * MangoHud and vkBasalt manifests name /usr/$LIB/...; a checker that stats the raw text calls
 * such a layer missing (LLP_LAYER_20, LDP_DRIVER_4/5 for drivers). */
#ifndef CHECKER_COMMON_LIBRARY_PATH_H
#define CHECKER_COMMON_LIBRARY_PATH_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The values this process's dynamic linker gives $LIB and $PLATFORM, found at run time: $LIB by
 * asking dlopen to open a file that does not exist under "/$LIB/" (its error names the expanded
 * path), else from the directory libc was loaded from; $PLATFORM from the auxiliary vector
 * (AT_PLATFORM). Empty when unknown. Computed once. */
const char *ckr_dst_lib(void);
const char *ckr_dst_platform(void);

/* Writes to out the file dlopen(path) opens: path unchanged when it has no slash (a bare name is
 * searched, tokens are not expanded) or no token; otherwise every $ORIGIN / ${ORIGIN} replaced by
 * origin (the directory of the object that calls dlopen: the loader's), $LIB / ${LIB} and
 * $PLATFORM / ${PLATFORM} by the values above. A token is a name after '$' that ends where a letter,
 * digit or '_' does not follow; other '$' text is kept. Returns true when something was expanded;
 * false (out = path) otherwise, and when out is too small or a token's value is unknown (*why set,
 * when why is not NULL). */
bool ckr_expand_library_path(const char *path, const char *origin, char *out, size_t len, const char **why);

#ifdef __cplusplus
}
#endif

#endif /* CHECKER_COMMON_LIBRARY_PATH_H */
