// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ELF symbol to file offset, so users name a function and never compute a
 * uprobe offset.  The offset is the symbol's address less the address of the
 * loadable segment holding it, plus that segment's place in the file: right
 * for executables, PIEs and shared libraries alike.  64-bit little-endian
 * ELF only (what x86-64 and arm64 distributions ship).
 *
 * The file is whatever the user names: it is read by bounded pieces
 * (tr.h's tr_image), each offset and size checked against the file's size
 * and each structure copied out, never mapped and cast in place (a file cut
 * short while read, or a misaligned table, would fault), so a truncated or
 * corrupt file is an error, not a crash.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dynev.h"
#include "tr.h"

/* Tables bigger than this are not read (libLLVM's .symtab is ~20 MB). */
#define MAX_TABLE (256u << 20)
/* Symbols read at a time. */
#define SYM_CHUNK 4096

static int find_in_table(const struct tr_image *im, const Elf64_Shdr *sh,
			 const Elf64_Shdr *strsh, const char *symbol, uint64_t *value)
{
	size_t want = strlen(symbol), n;
	Elf64_Sym *chunk;
	char *strs;
	int r = -ENOENT;

	if (sh->sh_entsize != sizeof(Elf64_Sym) || sh->sh_size > MAX_TABLE ||
	    strsh->sh_size > MAX_TABLE || !strsh->sh_size ||
	    !tr_in_bounds(sh->sh_offset, sh->sh_size, im->size) ||
	    !tr_in_bounds(strsh->sh_offset, strsh->sh_size, im->size))
		return -ENOENT;
	strs = xmalloc(strsh->sh_size);
	if (!tr_image_read(im, strsh->sh_offset, strsh->sh_size, strs)) {
		free(strs);
		return -EIO;
	}
	n = sh->sh_size / sizeof(Elf64_Sym);
	chunk = xmalloc(SYM_CHUNK * sizeof(*chunk));
	for (size_t at = 0; at < n && r == -ENOENT; at += SYM_CHUNK) {
		size_t k = n - at < SYM_CHUNK ? n - at : SYM_CHUNK;

		if (!tr_image_read(im, sh->sh_offset + at * sizeof(*chunk), k * sizeof(*chunk),
				   chunk)) {
			r = -EIO;
			break;
		}
		for (size_t i = 0; i < k; i++) {
			const Elf64_Sym *s = &chunk[i];

			if (s->st_name >= strsh->sh_size || !s->st_value ||
			    ELF64_ST_TYPE(s->st_info) != STT_FUNC)
				continue;
			/* The name and its NUL within the table. */
			if (strsh->sh_size - s->st_name > want &&
			    !memcmp(strs + s->st_name, symbol, want + 1)) {
				*value = s->st_value;
				r = 0;
				break;
			}
		}
	}
	free(chunk);
	free(strs);
	return r;
}

static int corrupt(const char *path)
{
	return tr_fail(-EINVAL, "'%s': corrupt ELF headers", path);
}

static int resolve(const struct tr_image *im, const char *path, const char *symbol,
		   uint64_t *offset)
{
	Elf64_Ehdr eh;
	Elf64_Shdr *sh = NULL;
	uint64_t value = 0;
	int r = -ENOENT;

	if (!tr_image_read(im, 0, sizeof(eh), &eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG))
		return tr_fail(-EINVAL, "'%s' is not an ELF file", path);
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
		return tr_fail(-EINVAL, "'%s' is not a 64-bit little-endian ELF file", path);
	if (eh.e_shentsize != sizeof(Elf64_Shdr) ||
	    !tr_in_bounds(eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr), im->size) ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    !tr_in_bounds(eh.e_phoff, (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr), im->size))
		return corrupt(path);
	sh = xcalloc(eh.e_shnum ? eh.e_shnum : 1, sizeof(*sh));
	if (!tr_image_read(im, eh.e_shoff, eh.e_shnum * sizeof(*sh), sh)) {
		free(sh);
		return corrupt(path);
	}
	/* .symtab first (all functions), then .dynsym (what a stripped file keeps). */
	for (int pass = 0; pass < 2 && r == -ENOENT; pass++)
		for (unsigned i = 0; i < eh.e_shnum && r == -ENOENT; i++)
			if (sh[i].sh_type == (pass ? SHT_DYNSYM : SHT_SYMTAB) &&
			    sh[i].sh_link < eh.e_shnum)
				r = find_in_table(im, &sh[i], &sh[sh[i].sh_link], symbol, &value);
	free(sh);
	if (r == -EIO)
		return tr_fail(-EIO, "cannot read '%s': it changed while being read", path);
	if (r)
		return tr_fail(-ENOENT, "no function '%s' in '%s'", symbol, path);
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		if (!tr_image_read(im, eh.e_phoff + (uint64_t)i * sizeof(ph), sizeof(ph), &ph))
			return corrupt(path);
		if (ph.p_type == PT_LOAD && value >= ph.p_vaddr &&
		    value - ph.p_vaddr < ph.p_memsz) {
			*offset = value - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return tr_fail(-ENOENT, "function '%s' in '%s' is in no loadable segment", symbol, path);
}

int elf_symbol_offset(const char *path, const char *symbol, uint64_t *offset)
{
	struct tr_image im = { NULL, open(path, O_RDONLY | O_CLOEXEC), 0 };
	struct stat st;
	int r;

	if (im.fd < 0)
		return tr_fail(-errno, "cannot open '%s': %s", path, strerror(errno));
	if (fstat(im.fd, &st) || !S_ISREG(st.st_mode) || st.st_size == 0) {
		close(im.fd);
		return tr_fail(-EINVAL, "'%s' is not an ELF file", path);
	}
	im.size = (unsigned long long)st.st_size;
	r = resolve(&im, path, symbol, offset);
	close(im.fd);
	return r;
}
