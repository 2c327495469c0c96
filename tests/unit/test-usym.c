// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * User symbols for `tr report --user-syms` (src/fmt/fmt-usym.c): function
 * lookup in a hand-made ELF of known symbols (.symtab before .dynsym, sized
 * and unsized functions, objects and undefined ones left out, addresses
 * outside the loadable segment named by nothing); the same image cut at
 * every length and with bytes changed everywhere reads without a fault;
 * tables and names past the file's end are left out; and the test's own
 * binary, read from its path and placed by its lowest mapping, names one
 * of its functions as the process sees it.
 */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fmt-usym.h"
#include "unit.h"

enum { SHOFF = 1024, SYMOFF = 256, STROFF = 128, IMG = SHOFF + 5 * sizeof(Elf64_Shdr) };

struct elf_img {
	uint8_t b[IMG];
	size_t strlen_, nsym;
};

static uint32_t str(struct elf_img *m, const char *s)
{
	uint32_t at = (uint32_t)m->strlen_;

	memcpy(m->b + STROFF + at, s, strlen(s) + 1);
	m->strlen_ += strlen(s) + 1;
	return at;
}

static void sym(struct elf_img *m, const char *name, uint64_t value, uint64_t size, int type,
		uint16_t shndx)
{
	Elf64_Sym s = {
		.st_name = str(m, name),
		.st_info = ELF64_ST_INFO(STB_GLOBAL, type),
		.st_shndx = shndx,
		.st_value = value,
		.st_size = size,
	};

	memcpy(m->b + SYMOFF + m->nsym++ * sizeof(s), &s, sizeof(s));
}

/*
 * One PT_LOAD at 0x1000..0x3000; .symtab (entries 1..5) and .dynsym
 * (entries 6..7, the same string table): f_one 0x1100+0x20, f_two 0x1140
 * unsized, an object at 0x1180, f_three 0x1200+0x10, an undefined
 * function; dyn_only 0x1400+8 and f_one_dyn, an alias of f_one.
 */
static void build(struct elf_img *m)
{
	Elf64_Ehdr eh = {
		.e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB, EV_CURRENT },
		.e_type = ET_DYN,
		.e_machine = EM_X86_64,
		.e_version = EV_CURRENT,
		.e_phoff = sizeof(Elf64_Ehdr),
		.e_shoff = SHOFF,
		.e_ehsize = sizeof(Elf64_Ehdr),
		.e_phentsize = sizeof(Elf64_Phdr),
		.e_phnum = 1,
		.e_shentsize = sizeof(Elf64_Shdr),
		.e_shnum = 5,
	};
	Elf64_Phdr ph = { .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = 0,
			  .p_vaddr = 0x1000, .p_filesz = IMG, .p_memsz = 0x2000 };
	Elf64_Shdr sh[5] = { 0 };

	memset(m, 0, sizeof(*m));
	memcpy(m->b, &eh, sizeof(eh));
	memcpy(m->b + eh.e_phoff, &ph, sizeof(ph));
	str(m, "");
	sym(m, "", 0, 0, STT_NOTYPE, SHN_UNDEF);
	sym(m, "f_one", 0x1100, 0x20, STT_FUNC, 1);
	sym(m, "f_two", 0x1140, 0, STT_FUNC, 1);
	sym(m, "data_obj", 0x1180, 8, STT_OBJECT, 1);
	sym(m, "f_three", 0x1200, 0x10, STT_FUNC, 1);
	sym(m, "undef_fn", 0x1300, 0x10, STT_FUNC, SHN_UNDEF);
	sym(m, "dyn_only", 0x1400, 8, STT_FUNC, 1);
	sym(m, "f_one_dyn", 0x1100, 0x20, STT_FUNC, 1);
	sh[1] = (Elf64_Shdr){ .sh_type = SHT_SYMTAB, .sh_offset = SYMOFF,
			      .sh_size = 6 * sizeof(Elf64_Sym), .sh_link = 2,
			      .sh_entsize = sizeof(Elf64_Sym) };
	sh[2] = (Elf64_Shdr){ .sh_type = SHT_STRTAB, .sh_offset = STROFF, .sh_size = m->strlen_ };
	sh[3] = (Elf64_Shdr){ .sh_type = SHT_DYNSYM, .sh_offset = SYMOFF + 6 * sizeof(Elf64_Sym),
			      .sh_size = 2 * sizeof(Elf64_Sym), .sh_link = 2,
			      .sh_entsize = sizeof(Elf64_Sym) };
	memcpy(m->b + SHOFF, sh, sizeof(sh));
}

static Elf64_Shdr *shdr(struct elf_img *m, int i)
{
	return (Elf64_Shdr *)(m->b + SHOFF + i * sizeof(Elf64_Shdr));
}

/* "NAME+0xOFF" of vaddr in e, or "-". */
static const char *at(const struct usym_elf *e, uint64_t vaddr)
{
	static char buf[64];
	uint64_t off = 0;
	const char *n = usym_elf_find(e, vaddr, &off);

	if (!n)
		return "-";
	snprintf(buf, sizeof(buf), "%s+0x%" PRIx64, n, off);
	return buf;
}

TEST(functions_by_address)
{
	struct elf_img m;
	struct usym_elf *e;
	const char *why = NULL;

	build(&m);
	CHECK(!usym_elf_parse(m.b, sizeof(m.b), &e, &why));
	if (!e)
		return;
	CHECK(usym_elf_base(e) == 0x1000);
	/* f_one, f_two, f_three, dyn_only: the alias at f_one's address is one symbol. */
	CHECK(usym_elf_count(e) == 4);
	CHECK_STR(at(e, 0x1100), "f_one+0x0");
	CHECK_STR(at(e, 0x111f), "f_one+0x1f");
	CHECK_STR(at(e, 0x1120), "-");		/* past its size */
	CHECK_STR(at(e, 0x1140), "f_two+0x0");
	CHECK_STR(at(e, 0x1188), "f_two+0x48");	/* unsized: to the next function, objects aside */
	CHECK_STR(at(e, 0x11ff), "f_two+0xbf");
	CHECK_STR(at(e, 0x1200), "f_three+0x0");
	CHECK_STR(at(e, 0x1210), "-");
	CHECK_STR(at(e, 0x1304), "-");		/* undefined: not this object's */
	CHECK_STR(at(e, 0x1404), "dyn_only+0x4");
	CHECK_STR(at(e, 0x10ff), "-");
	CHECK_STR(at(e, 0x0fff), "-");		/* outside the loadable segment */
	CHECK_STR(at(e, 0x3000), "-");
	usym_elf_free(e);
}

TEST(symtab_alone_and_dynsym_alone)
{
	struct elf_img m;
	struct usym_elf *e;
	const char *why;

	build(&m);
	shdr(&m, 3)->sh_type = SHT_PROGBITS;
	CHECK(!usym_elf_parse(m.b, sizeof(m.b), &e, &why));
	CHECK(e && usym_elf_count(e) == 3);
	CHECK(e && !strcmp(at(e, 0x1404), "-"));
	usym_elf_free(e);
	/* A stripped file: .dynsym's names only. */
	build(&m);
	shdr(&m, 1)->sh_type = SHT_PROGBITS;
	CHECK(!usym_elf_parse(m.b, sizeof(m.b), &e, &why));
	CHECK(e && usym_elf_count(e) == 2);
	if (e) {
		CHECK_STR(at(e, 0x1104), "f_one_dyn+0x4");
		CHECK_STR(at(e, 0x1200), "-");
	}
	usym_elf_free(e);
}

TEST(not_elf_refused_with_why)
{
	struct elf_img m;
	struct usym_elf *e = (void *)1;
	const char *why = NULL;

	build(&m);
	CHECK(usym_elf_parse(m.b, 10, &e, &why) == -ENOEXEC && !e);
	CHECK_STR(why, "not an ELF file");
	m.b[EI_CLASS] = ELFCLASS32;
	CHECK(usym_elf_parse(m.b, sizeof(m.b), &e, &why) == -ENOEXEC && !e);
	CHECK_STR(why, "not a 64-bit ELF file of this machine's byte order");
	build(&m);
	((Elf64_Ehdr *)m.b)->e_shnum = 0xffff;
	CHECK(usym_elf_parse(m.b, sizeof(m.b), &e, &why) == -ENOEXEC);
	CHECK_STR(why, "corrupt ELF headers");
	build(&m);
	((Elf64_Ehdr *)m.b)->e_phoff = UINT64_MAX - 8;
	CHECK(usym_elf_parse(m.b, sizeof(m.b), &e, &why) == -ENOEXEC);
	build(&m);
	((Elf64_Phdr *)(m.b + sizeof(Elf64_Ehdr)))->p_type = PT_NOTE;
	CHECK(usym_elf_parse(m.b, sizeof(m.b), &e, &why) == -ENOEXEC);
	CHECK_STR(why, "no loadable segment");
}

TEST(tables_and_names_past_the_end_are_left_out)
{
	struct elf_img m;
	struct usym_elf *e;
	const char *why;

	/* .symtab's size past the file: its functions are not read, .dynsym's are. */
	build(&m);
	shdr(&m, 1)->sh_size = UINT64_MAX - 7;
	CHECK(!usym_elf_parse(m.b, sizeof(m.b), &e, &why));
	CHECK(e && usym_elf_count(e) == 2);
	usym_elf_free(e);
	build(&m);
	shdr(&m, 1)->sh_offset = sizeof(m.b) - 8;
	CHECK(!usym_elf_parse(m.b, sizeof(m.b), &e, &why));
	CHECK(e && usym_elf_count(e) == 2);
	usym_elf_free(e);
	/* The string table ends inside the last name: that one has no name, the rest do. */
	build(&m);
	shdr(&m, 2)->sh_size -= 3;
	CHECK(!usym_elf_parse(m.b, sizeof(m.b), &e, &why));
	CHECK(e && usym_elf_count(e) == 4);
	if (e)
		CHECK_STR(at(e, 0x1100), "f_one+0x0");
	usym_elf_free(e);
	/* A table linked to itself, or to a section that does not exist. */
	build(&m);
	shdr(&m, 1)->sh_link = 1;
	shdr(&m, 3)->sh_link = 77;
	CHECK(!usym_elf_parse(m.b, sizeof(m.b), &e, &why));
	CHECK(e && usym_elf_count(e) == 0);
	usym_elf_free(e);
	/* Entries of another size. */
	build(&m);
	shdr(&m, 1)->sh_entsize = 16;
	CHECK(!usym_elf_parse(m.b, sizeof(m.b), &e, &why));
	CHECK(e && usym_elf_count(e) == 2);
	usym_elf_free(e);
}

/* Whatever the image, parse and lookups end; ASan and UBSan see the rest. */
static void any(const uint8_t *b, size_t n)
{
	struct usym_elf *e;
	const char *why;
	uint64_t off;

	if (usym_elf_parse(b, n, &e, &why)) {
		CHECK(!e && why);
		return;
	}
	for (uint64_t a = 0xf00; a < 0x1500; a += 4)
		usym_elf_find(e, a, &off);
	usym_elf_free(e);
}

TEST(truncated_and_corrupt_images_do_not_fault)
{
	struct elf_img m, c;

	build(&m);
	for (size_t n = 0; n < sizeof(m.b); n++) {
		/* A copy of exactly n bytes, so ASan sees any read past it. */
		uint8_t *cut = malloc(n ? n : 1);

		memcpy(cut, m.b, n);
		any(cut, n);
		free(cut);
	}
	for (size_t i = 0; i < sizeof(m.b); i++)
		for (unsigned v = 0; v < 4; v++) {
			static const uint8_t vals[] = { 0x00, 0xff, 0x80, 0x7f };

			c = m;
			c.b[i] = vals[v];
			any(c.b, sizeof(c.b));
		}
}

__attribute__((noinline)) int usym_test_known_function(int x)
{
	return x * 3 + 1;
}

TEST(own_binary_placed_by_its_lowest_mapping)
{
	char exe[4096], line[8192];
	uint64_t low = UINT64_MAX, off = 1;
	struct usym_cache *c = usym_cache_new();
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *f = fopen("/proc/self/maps", "r");
	const char *name;

	CHECK(n > 0 && f);
	if (n <= 0 || !f)
		return;
	exe[n] = '\0';
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s;
		int at_ = 0;

		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "%llx-%*s %*s %*s %*s %*s %n", &s, &at_) == 1 && at_ &&
		    !strcmp(line + at_, exe) && s < low)
			low = s;
	}
	fclose(f);
	CHECK(low != UINT64_MAX);
	name = usym_cache_find(c, exe, low, (uint64_t)(uintptr_t)usym_test_known_function + 2,
			       &off);
	CHECK_STR(name, "usym_test_known_function");
	CHECK(off == 2);
	CHECK(usym_test_known_function(1) == 4);
	/* A second look is the cache's; nothing is unread yet. */
	CHECK_STR(usym_cache_find(c, exe, low, (uint64_t)(uintptr_t)usym_test_known_function,
				  &off), "usym_test_known_function");
	CHECK(usym_cache_unread(c) == NULL);
	CHECK(!usym_cache_find(c, "/nonexistent/tr-usym.so", 0x7f0000000000, 0x7f0000001000,
			       &off));
	CHECK(!usym_cache_find(c, "/proc/self", 0x7f0000000000, 0x7f0000001000, &off));
	CHECK_OWNED(usym_cache_unread(c), "'/nonexistent/tr-usym.so' (No such file or directory), "
					  "'/proc/self' (not a regular file)");
	usym_cache_free(c);
}

UNIT_MAIN(T(functions_by_address), T(symtab_alone_and_dynsym_alone), T(not_elf_refused_with_why),
	  T(tables_and_names_past_the_end_are_left_out), T(truncated_and_corrupt_images_do_not_fault),
	  T(own_binary_placed_by_its_lowest_mapping))
