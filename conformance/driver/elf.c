/* ldp-check: reads what it needs from a driver library's ELF file (no loading). */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conformance/driver/ldp_check.h"

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static bool in_file(size_t size, uint64_t off, uint64_t len) { return off <= size && len <= size - off; }

int ldp_elf_inspect(const char *path, struct ldp_elf *out, char *err, size_t err_len) {
    memset(out, 0, sizeof(*out));
    if (err_len > 0) err[0] = '\0';
    /* Never blocks: a FIFO or device is reported, not opened for reading. */
    struct ldp_file f;
    int fd = ldp_file_open(path, &f);
    if (fd < 0) {
        if (f.status == LDP_FILE_NOT_REGULAR)
            snprintf(err, err_len, "%s is %s, not a regular file", path, ldp_file_type_name(f.mode));
        else
            snprintf(err, err_len, "cannot open %s: %s", path, strerror(f.err_no));
        return -1;
    }
    if (f.size < EI_NIDENT) {
        snprintf(err, err_len, "%s is too small to be an ELF file (%llu bytes)", path, f.size);
        close(fd);
        return -1;
    }
    size_t size = (size_t)f.size;
    unsigned char *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        snprintf(err, err_len, "cannot map %s: %s", path, strerror(errno));
        return -1;
    }
    int rc = 0;
    if (memcmp(map, ELFMAG, SELFMAG) != 0) {
        snprintf(err, err_len, "%s is not an ELF file", path);
        rc = -1;
        goto done;
    }
    out->elf_class = map[EI_CLASS] == ELFCLASS64 ? 64 : map[EI_CLASS] == ELFCLASS32 ? 32 : 0;
    if (out->elf_class == 32 && size >= sizeof(Elf32_Ehdr)) {
        const Elf32_Ehdr *eh = (const Elf32_Ehdr *)map;
        out->machine = eh->e_machine;
        out->is_dyn = eh->e_type == ET_DYN;
        goto done; /* symbols of 32-bit libraries are not inspected */
    }
    if (out->elf_class != 64 || size < sizeof(Elf64_Ehdr)) {
        snprintf(err, err_len, "%s has an unknown ELF class %u", path, map[EI_CLASS]);
        rc = -1;
        goto done;
    }
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)map;
    out->machine = eh->e_machine;
    out->is_dyn = eh->e_type == ET_DYN;
    if (eh->e_shoff == 0 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
        !in_file(size, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)))
        goto done; /* no section headers: symbols unknown */
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(map + eh->e_shoff);
    size_t dynsym_idx = 0;
    for (size_t i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type == SHT_DYNSYM) dynsym_idx = i;
        if (sh[i].sh_type == SHT_DYNAMIC && in_file(size, sh[i].sh_offset, sh[i].sh_size)) {
            const Elf64_Dyn *dyn = (const Elf64_Dyn *)(map + sh[i].sh_offset);
            for (size_t k = 0; k < sh[i].sh_size / sizeof(Elf64_Dyn) && dyn[k].d_tag != DT_NULL; k++) {
                if (dyn[k].d_tag == DT_SYMBOLIC) out->symbolic = true;
                if (dyn[k].d_tag == DT_FLAGS && (dyn[k].d_un.d_val & DF_SYMBOLIC)) out->symbolic = true;
            }
        }
    }
    if (dynsym_idx == 0) goto done;
    const Elf64_Shdr *ds = &sh[dynsym_idx];
    if (ds->sh_link >= eh->e_shnum || !in_file(size, ds->sh_offset, ds->sh_size)) goto done;
    const Elf64_Shdr *strs = &sh[ds->sh_link];
    if (!in_file(size, strs->sh_offset, strs->sh_size)) goto done;
    const Elf64_Sym *syms = (const Elf64_Sym *)(map + ds->sh_offset);
    size_t nsyms = ds->sh_size / sizeof(Elf64_Sym);
    const char *strtab = (const char *)(map + strs->sh_offset);
    out->have_symbols = true;
    bool *exported = calloc(nsyms ? nsyms : 1, sizeof(bool));
    if (exported == NULL) goto done;
    for (size_t i = 1; i < nsyms; i++) {
        const Elf64_Sym *s = &syms[i];
        if (s->st_name >= strs->sh_size) continue;
        const char *name = strtab + s->st_name;
        int bind = ELF64_ST_BIND(s->st_info), type = ELF64_ST_TYPE(s->st_info);
        int vis = ELF64_ST_VISIBILITY(s->st_other);
        if (s->st_shndx == SHN_UNDEF || (bind != STB_GLOBAL && bind != STB_WEAK) || type != STT_FUNC ||
            vis != STV_DEFAULT)
            continue;
        if (strncmp(name, "vk", 2) != 0 || strncmp(name, "vk_icd", 6) == 0) continue;
        if (memchr(name, '\0', strs->sh_size - s->st_name) == NULL) continue;
        char **grown = realloc(out->vk_exports, (out->vk_export_count + 1) * sizeof(char *));
        if (grown == NULL) break;
        out->vk_exports = grown;
        out->vk_exports[out->vk_export_count] = strdup(name);
        if (out->vk_exports[out->vk_export_count] == NULL) break;
        out->vk_export_count++;
        exported[i] = true;
    }
    /* Dynamic relocations against those symbols: the library's own uses go through the GOT/PLT,
     * so another library's definition of the name would be used instead (interposition). */
    bool *seen = calloc(nsyms ? nsyms : 1, sizeof(bool));
    for (size_t i = 0; seen != NULL && i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_RELA || sh[i].sh_link != dynsym_idx) continue;
        if (!in_file(size, sh[i].sh_offset, sh[i].sh_size)) continue;
        const Elf64_Rela *r = (const Elf64_Rela *)(map + sh[i].sh_offset);
        for (size_t k = 0; k < sh[i].sh_size / sizeof(Elf64_Rela); k++) {
            size_t si = ELF64_R_SYM(r[k].r_info);
            if (si < nsyms && exported[si] && !seen[si]) {
                seen[si] = true;
                out->self_referenced++;
            }
        }
    }
    free(seen);
    free(exported);
    if (out->vk_export_count > 1) qsort(out->vk_exports, out->vk_export_count, sizeof(char *), cmp_str);
done:
    munmap(map, size);
    return rc;
}

void ldp_elf_free(struct ldp_elf *e) {
    for (size_t i = 0; i < e->vk_export_count; i++) free(e->vk_exports[i]);
    free(e->vk_exports);
    memset(e, 0, sizeof(*e));
}
