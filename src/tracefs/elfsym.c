// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ELF symbol to file offset, so users name a function and never compute a
 * uprobe offset.  The offset is the symbol's address less the address of the
 * loadable segment holding it, plus that segment's place in the file: right
 * for executables, PIEs and shared libraries alike.  64-bit little-endian
 * ELF only (what x86-64 and arm64 distributions ship).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dynev.h"

/* Is [off, off+len) inside a file of size size? */
static bool inside(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

static int find_in_table(const uint8_t *base, size_t size, const Elf64_Shdr *sh,
			 const Elf64_Shdr *strsh, const char *symbol, uint64_t *value)
{
	if (sh->sh_entsize != sizeof(Elf64_Sym) || !inside(sh->sh_offset, sh->sh_size, size) ||
	    !inside(strsh->sh_offset, strsh->sh_size, size))
		return -ENOENT;
	const Elf64_Sym *sym = (const Elf64_Sym *)(base + sh->sh_offset);
	size_t n = sh->sh_size / sizeof(*sym);
	const char *strs = (const char *)base + strsh->sh_offset;

	for (size_t i = 0; i < n; i++) {
		if (sym[i].st_name >= strsh->sh_size || !sym[i].st_value ||
		    ELF64_ST_TYPE(sym[i].st_info) != STT_FUNC)
			continue;
		const char *name = strs + sym[i].st_name;

		if (strnlen(name, strsh->sh_size - sym[i].st_name) < strsh->sh_size - sym[i].st_name &&
		    !strcmp(name, symbol)) {
			*value = sym[i].st_value;
			return 0;
		}
	}
	return -ENOENT;
}

static int resolve(const uint8_t *base, size_t size, const char *path, const char *symbol,
		   uint64_t *offset)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
	uint64_t value = 0;
	int r = -ENOENT;

	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG))
		return tr_fail(-EINVAL, "'%s' is not an ELF file", path);
	if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB)
		return tr_fail(-EINVAL, "'%s' is not a 64-bit little-endian ELF file", path);
	if (eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    !inside(eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr), size) ||
	    eh->e_phentsize != sizeof(Elf64_Phdr) ||
	    !inside(eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr), size))
		return tr_fail(-EINVAL, "'%s': corrupt ELF headers", path);
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(base + eh->e_shoff);

	/* .symtab first (all functions), then .dynsym (what a stripped file keeps). */
	for (int pass = 0; pass < 2 && r; pass++)
		for (unsigned i = 0; i < eh->e_shnum && r; i++)
			if (sh[i].sh_type == (pass ? SHT_DYNSYM : SHT_SYMTAB) &&
			    sh[i].sh_link < eh->e_shnum)
				r = find_in_table(base, size, &sh[i], &sh[sh[i].sh_link], symbol, &value);
	if (r)
		return tr_fail(-ENOENT, "no function '%s' in '%s'", symbol, path);

	const Elf64_Phdr *ph = (const Elf64_Phdr *)(base + eh->e_phoff);

	for (unsigned i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && value >= ph[i].p_vaddr &&
		    value < ph[i].p_vaddr + ph[i].p_memsz) {
			*offset = value - ph[i].p_vaddr + ph[i].p_offset;
			return 0;
		}
	return tr_fail(-ENOENT, "function '%s' in '%s' is in no loadable segment", symbol, path);
}

int elf_symbol_offset(const char *path, const char *symbol, uint64_t *offset)
{
	struct stat st;
	void *map;
	int fd = open(path, O_RDONLY | O_CLOEXEC), r;

	if (fd < 0)
		return tr_fail(-errno, "cannot open '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) || st.st_size == 0) {
		close(fd);
		return tr_fail(-EINVAL, "'%s' is not an ELF file", path);
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return tr_fail(-errno, "cannot read '%s': %s", path, strerror(errno));
	r = resolve(map, st.st_size, path, symbol, offset);
	munmap(map, st.st_size);
	return r;
}
