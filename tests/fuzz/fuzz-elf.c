// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: the ELF reader of `tr report --user-syms`
 * (src/fmt/fmt-usym.c).  The input is an object file, read both ways the
 * reader reads: from memory (usym_elf_parse) and from a file by bounded
 * preads (usym_elf_load, through the memfd); then looked up at the
 * addresses the input's own 8-byte words give (its headers' addresses,
 * sizes and offsets among them) and a few steps (picked by the input's
 * hash) past each.  The two reads must
 * agree.  The same file then goes through tr probe's reader
 * (elf_symbol_offset(), src/tracefs/elfsym.c) for "main" and for the first
 * name the lookups gave.  Its corpus is regress/elf/: real objects whole,
 * stripped and cut, and a few with corrupt headers.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dynev.h"
#include "fmt-usym.h"
#include "fuzz-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct usym_elf *a, *b;
	const char *why, *path = fuzz_file(data, size), *named = NULL;
	int ra = usym_elf_parse(data, size, &a, &why);
	int rb = usym_elf_load(path, &b, &why);
	uint64_t step = 1 + fuzz_pick(data, size) % 61, off0;

	if (ra != rb || (a && usym_elf_count(a) != usym_elf_count(b)))
		abort();
	for (size_t i = 0; a && i + 8 <= size && i < 8 * 512; i += 8) {
		uint64_t v, off, off2;
		const char *na, *nb;

		memcpy(&v, data + i, 8);
		for (uint64_t d = 0; d < 3; d++) {
			na = usym_elf_find(a, v + d * step, &off);
			nb = usym_elf_find(b, v + d * step, &off2);
			if (!na != !nb || (na && (strcmp(na, nb) || off != off2)))
				abort();
			if (!named)
				named = na;
		}
	}
	elf_symbol_offset(path, "main", &off0);
	if (named)
		elf_symbol_offset(path, named, &off0);
	usym_elf_free(a);
	usym_elf_free(b);
	return 0;
}
