// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * elf_symbol_offset() (src/tracefs/elfsym.c): the file offset of a
 * function in this test's own binary holds the function's code, and a
 * truncated or corrupt copy of the binary is an error, never a crash (the
 * file is read by bounded pieces; this binary is built with ASan).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "dynev.h"
#include "tr.h"
#include "unit.h"

int main(void);	/* UNIT_MAIN's: the function looked up */

static char *self;
static size_t self_len;

static void load_self(void)
{
	if (!self)
		CHECK(!read_file("/proc/self/exe", &self, &self_len) && self_len > sizeof(Elf64_Ehdr));
}

/* Write len bytes to a temp file; its path (to free and unlink). */
static char *put(const void *data, size_t len)
{
	char *path = xstrdup("/tmp/tr-unit-elfsym-XXXXXX");
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	CHECK(write(fd, data, len) == (ssize_t)len);
	close(fd);
	return path;
}

static int offset_in(const void *data, size_t len, const char *sym, uint64_t *off)
{
	char *path = put(data, len);
	int r = elf_symbol_offset(path, sym, off);

	unlink(path);
	free(path);
	return r;
}

TEST(own_function_found)
{
	uint64_t off = 0;

	load_self();
	CHECK(!elf_symbol_offset("/proc/self/exe", "main", &off));
	/* The file's bytes there are the code in memory (code is not relocated). */
	CHECK(off && off + 16 <= self_len && !memcmp(self + off, (const void *)main, 16));
	CHECK(elf_symbol_offset("/proc/self/exe", "no_such_function_here", &off) == -ENOENT);
	CHECK(elf_symbol_offset("/nonexistent/x", "main", &off) == -ENOENT);
	CHECK(elf_symbol_offset("/proc/self", "main", &off) == -EINVAL);
	CHECK(offset_in("", 0, "main", &off) == -EINVAL);
	CHECK(offset_in("\177ELF", 4, "main", &off) == -EINVAL);
}

TEST(truncated_is_an_error)
{
	uint64_t off, want = 0;
	size_t cuts[] = { 1, 16, sizeof(Elf64_Ehdr) - 1, sizeof(Elf64_Ehdr), 100, 4096, 65536 };

	load_self();
	CHECK(!elf_symbol_offset("/proc/self/exe", "main", &want));
	for (size_t i = 0; i < ARRAY_SIZE(cuts); i++)
		if (cuts[i] < self_len)
			CHECK(offset_in(self, cuts[i], "main", &off) < 0);
	/* Every 1/64th of the file: an error, or (all that is needed read) the same answer. */
	for (size_t k = 1; k < 64; k++) {
		int r = offset_in(self, self_len * k / 64, "main", &off);

		CHECK(r < 0 || off == want);
	}
	CHECK(offset_in(self, self_len - 1, "main", &off) < 0 || off == want);
}

TEST(corrupt_headers_are_an_error)
{
	char *c = NULL;
	const Elf64_Ehdr *eh;
	Elf64_Ehdr *ch;
	Elf64_Shdr sh;
	uint64_t off, want = 0;
	int symtab = -1;

	load_self();
	if (!self)
		return;
	CHECK(!elf_symbol_offset("/proc/self/exe", "main", &want));
	eh = (const Elf64_Ehdr *)self;
	c = xmalloc(self_len);
#define FRESH() (memcpy(c, self, self_len), ch = (Elf64_Ehdr *)c)
	FRESH();
	ch->e_ident[EI_CLASS] = ELFCLASS32;
	CHECK(offset_in(c, self_len, "main", &off) == -EINVAL);
	FRESH();
	ch->e_shoff = UINT64_MAX - 8;
	CHECK(offset_in(c, self_len, "main", &off) == -EINVAL);
	FRESH();
	ch->e_shnum = 0xffff;
	CHECK(offset_in(c, self_len, "main", &off) == -EINVAL);
	FRESH();
	ch->e_phoff = self_len - 1;
	CHECK(offset_in(c, self_len, "main", &off) == -EINVAL);
	FRESH();
	ch->e_shentsize = 1;
	CHECK(offset_in(c, self_len, "main", &off) == -EINVAL);
	/* Section headers one byte off their alignment (the file a byte longer): read, not cast. */
	{
		char *m = xcalloc(1, self_len + 1);
		size_t shlen = eh->e_shnum * sizeof(sh);

		memcpy(m, self, self_len);
		CHECK(eh->e_shoff + shlen <= self_len);
		memmove(m + eh->e_shoff + 1, self + eh->e_shoff, shlen);
		((Elf64_Ehdr *)m)->e_shoff++;
		CHECK(!offset_in(m, self_len + 1, "main", &off) && off == want);
		free(m);
	}
	for (int i = 0; i < eh->e_shnum; i++) {
		memcpy(&sh, self + eh->e_shoff + i * sizeof(sh), sizeof(sh));
		if (sh.sh_type == SHT_SYMTAB)
			symtab = i;
	}
	CHECK(symtab >= 0);
	if (symtab >= 0) {
		Elf64_Shdr *s = (Elf64_Shdr *)(c + eh->e_shoff) + symtab;

		/* A symbol table or string table past the end, wrapping, or linked nowhere. */
		FRESH();
		s->sh_offset = self_len;
		CHECK(offset_in(c, self_len, "main", &off) == -ENOENT);
		FRESH();
		s->sh_size = UINT64_MAX - 7;
		CHECK(offset_in(c, self_len, "main", &off) == -ENOENT);
		FRESH();
		s->sh_link = 0xfff0;
		CHECK(offset_in(c, self_len, "main", &off) == -ENOENT);
		FRESH();
		((Elf64_Shdr *)(c + eh->e_shoff))[s->sh_link].sh_size = self_len;
		CHECK(offset_in(c, self_len, "main", &off) == -ENOENT);
		/* Garbage symbols: names and values anywhere; never a crash. */
		FRESH();
		for (uint64_t k = 0; k < s->sh_size && s->sh_offset + k < self_len; k++)
			c[s->sh_offset + k] = (char)(k * 131 + 7);
		CHECK(offset_in(c, self_len, "main", &off) < 0 || off);
	}
	/* No loadable segment holds it: every PT_LOAD made another type. */
	FRESH();
	for (int i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr *ph = (Elf64_Phdr *)(c + eh->e_phoff) + i;

		if (ph->p_type == PT_LOAD)
			ph->p_type = PT_NOTE;
	}
	CHECK(offset_in(c, self_len, "main", &off) == -ENOENT);
	CHECK(strstr(tr_failure(), "no loadable segment") != NULL);
	/* A segment whose end wraps around holds nothing past the top. */
	FRESH();
	for (int i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr *ph = (Elf64_Phdr *)(c + eh->e_phoff) + i;

		if (ph->p_type == PT_LOAD)
			ph->p_vaddr = UINT64_MAX - 0xfff;
	}
	CHECK(offset_in(c, self_len, "main", &off) == -ENOENT);
#undef FRESH
	free(c);
}

UNIT_MAIN(T(own_function_found), T(truncated_is_an_error), T(corrupt_headers_are_an_error))
