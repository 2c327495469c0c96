// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Function symbols of the ELF objects a user stack passes through, so that
 * `tr report --user-syms` can name an address beyond object+offset
 * (fmt-usym.h has the contract).  Only the ELF header, the program and
 * section headers, the symbol tables and their string tables are read
 * (pread or a copy, never a mapping of the file: a file truncated under us
 * must not fault); every offset and size is checked against the file's
 * size before it is used, and the structures are copied out, never cast in
 * place, so a misaligned table is no fault either.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fmt-usym.h"
#include "tr.h"

/* Symbol tables bigger than this are not read (libLLVM's .symtab is ~20 MB). */
#define MAX_TABLE (256u << 20)
#define PAGE_MASK_4K (~(uint64_t)0xfff)

struct usym {
	uint64_t start, end;	/* link-time [start, end) */
	uint32_t name;		/* into names */
};

struct usym_elf {
	uint64_t base;
	struct usym *syms;
	size_t n;
	char *names;
	/* The loadable segments' link-time ranges: an address outside them is no function's. */
	struct {
		uint64_t start, end;
	} *loads;
	size_t nloads;
};


static int sym_cmp(const void *a, const void *b)
{
	const struct usym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* The same address: the sized one first, then the first read (.symtab's). */
	if ((x->end > x->start) != (y->end > y->start))
		return x->end > x->start ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

/* Append the functions of symbol table sh (strings in strsh) to e. */
static void read_table(const struct tr_image *im, const Elf64_Shdr *sh, const Elf64_Shdr *strsh,
		       struct usym_elf *e, size_t *names_len, size_t *cap)
{
	Elf64_Sym *tab;
	char *strs;
	size_t n;

	if (sh->sh_entsize != sizeof(Elf64_Sym) || sh->sh_size > MAX_TABLE ||
	    strsh->sh_size > MAX_TABLE || strsh->sh_type != SHT_STRTAB || !strsh->sh_size ||
	    !tr_in_bounds(sh->sh_offset, sh->sh_size, im->size) ||
	    !tr_in_bounds(strsh->sh_offset, strsh->sh_size, im->size))
		return;
	n = sh->sh_size / sizeof(Elf64_Sym);
	tab = xmalloc(n ? n * sizeof(*tab) : 1);
	strs = xmalloc(strsh->sh_size);
	if (!tr_image_read(im, sh->sh_offset, n * sizeof(*tab), tab) ||
	    !tr_image_read(im, strsh->sh_offset, strsh->sh_size, strs))
		goto out;
	for (size_t i = 0; i < n; i++) {
		const Elf64_Sym *s = &tab[i];
		unsigned type = ELF64_ST_TYPE(s->st_info);
		size_t len;

		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s->st_shndx == SHN_UNDEF ||
		    !s->st_value || s->st_name == 0 || s->st_name >= strsh->sh_size)
			continue;
		len = strnlen(strs + s->st_name, strsh->sh_size - s->st_name);
		/* A name running off its table is no name. */
		if (len == strsh->sh_size - s->st_name || *names_len + len + 1 > UINT32_MAX)
			continue;
		if (e->n == *cap)
			e->syms = xrealloc(e->syms, (*cap = *cap ? 2 * *cap : 256) * sizeof(*e->syms));
		e->names = xrealloc(e->names, *names_len + len + 1);
		memcpy(e->names + *names_len, strs + s->st_name, len + 1);
		e->syms[e->n++] = (struct usym){
			s->st_value,
			s->st_value + s->st_size < s->st_value ? UINT64_MAX : s->st_value + s->st_size,
			(uint32_t)*names_len,
		};
		*names_len += len + 1;
	}
out:
	free(tab);
	free(strs);
}

static int parse(const struct tr_image *im, struct usym_elf **out, const char **why)
{
	Elf64_Ehdr eh;
	Elf64_Shdr *sh = NULL;
	struct usym_elf *e;
	size_t names_len = 0, cap = 0, k;
	bool first = true;

	*out = NULL;
	if (!tr_image_read(im, 0, sizeof(eh), &eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG)) {
		*why = "not an ELF file";
		return -ENOEXEC;
	}
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB
									       : ELFDATA2MSB)) {
		*why = "not a 64-bit ELF file of this machine's byte order";
		return -ENOEXEC;
	}
	if (eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    !tr_in_bounds(eh.e_phoff, (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr), im->size) ||
	    (eh.e_shnum && (eh.e_shentsize != sizeof(Elf64_Shdr) ||
			    !tr_in_bounds(eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr),
				    im->size)))) {
		*why = "corrupt ELF headers";
		return -ENOEXEC;
	}
	e = xcalloc(1, sizeof(*e));
	e->loads = xcalloc(eh.e_phnum ? eh.e_phnum : 1, sizeof(*e->loads));
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		if (!tr_image_read(im, eh.e_phoff + (uint64_t)i * sizeof(ph), sizeof(ph), &ph))
			goto corrupt;
		if (ph.p_type != PT_LOAD || ph.p_vaddr + ph.p_memsz < ph.p_vaddr)
			continue;
		if (first)
			e->base = ph.p_vaddr & PAGE_MASK_4K;
		first = false;
		e->loads[e->nloads].start = ph.p_vaddr;
		e->loads[e->nloads++].end = ph.p_vaddr + ph.p_memsz;
	}
	if (first) {
		*why = "no loadable segment";
		usym_elf_free(e);
		return -ENOEXEC;
	}
	if (eh.e_shnum) {
		sh = xcalloc(eh.e_shnum, sizeof(*sh));
		if (!tr_image_read(im, eh.e_shoff, eh.e_shnum * sizeof(*sh), sh))
			goto corrupt;
	}
	/* .symtab (every function) and .dynsym (what a stripped file keeps), in that order. */
	for (int pass = 0; pass < 2; pass++)
		for (unsigned i = 0; i < eh.e_shnum; i++)
			if (sh[i].sh_type == (pass ? SHT_DYNSYM : SHT_SYMTAB) &&
			    sh[i].sh_link < eh.e_shnum && sh[i].sh_link != i)
				read_table(im, &sh[i], &sh[sh[i].sh_link], e, &names_len, &cap);
	free(sh);
	if (e->n)
		qsort(e->syms, e->n, sizeof(*e->syms), sym_cmp);
	/* One symbol an address (the first after sorting); an unsized one ends at the next. */
	k = 0;
	for (size_t i = 0; i < e->n; i++)
		if (!k || e->syms[i].start != e->syms[k - 1].start)
			e->syms[k++] = e->syms[i];
	e->n = k;
	for (size_t i = 0; i < e->n; i++)
		if (e->syms[i].end == e->syms[i].start)
			e->syms[i].end = i + 1 < e->n ? e->syms[i + 1].start : e->syms[i].start + 1;
	*out = e;
	return 0;
corrupt:
	free(sh);
	usym_elf_free(e);
	*why = "corrupt ELF headers";
	return -ENOEXEC;
}

int usym_elf_parse(const uint8_t *img, size_t size, struct usym_elf **out, const char **why)
{
	struct tr_image im = { img, -1, size };

	return parse(&im, out, why);
}

int usym_elf_load(const char *path, struct usym_elf **out, const char **why)
{
	struct tr_image im = { NULL, open(path, O_RDONLY | O_CLOEXEC), 0 };
	struct stat st;
	int r;

	*out = NULL;
	if (im.fd < 0) {
		r = -errno;
		*why = strerror(-r);
		return r;
	}
	if (fstat(im.fd, &st) || !S_ISREG(st.st_mode)) {
		close(im.fd);
		*why = "not a regular file";
		return -ENOEXEC;
	}
	im.size = (uint64_t)st.st_size;
	r = parse(&im, out, why);
	close(im.fd);
	return r;
}

uint64_t usym_elf_base(const struct usym_elf *e)
{
	return e->base;
}

size_t usym_elf_count(const struct usym_elf *e)
{
	return e->n;
}

const char *usym_elf_find(const struct usym_elf *e, uint64_t vaddr, uint64_t *off)
{
	size_t lo = 0, hi = e->n, i;

	for (i = 0; i < e->nloads; i++)
		if (vaddr >= e->loads[i].start && vaddr < e->loads[i].end)
			break;
	if (i == e->nloads)
		return NULL;
	/* The last symbol starting at or below vaddr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e->syms[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || vaddr >= e->syms[lo - 1].end)
		return NULL;
	*off = vaddr - e->syms[lo - 1].start;
	return e->names + e->syms[lo - 1].name;
}

void usym_elf_free(struct usym_elf *e)
{
	if (!e)
		return;
	free(e->syms);
	free(e->names);
	free(e->loads);
	free(e);
}

struct usym_obj {
	char *path;
	struct usym_elf *elf;	/* NULL: could not be read, for why */
	char *why;
};

struct usym_cache {
	struct usym_obj *v;
	size_t n, cap;
	size_t last;		/* the last one looked up: a stack stays in a few objects */
};

struct usym_cache *usym_cache_new(void)
{
	return xcalloc(1, sizeof(struct usym_cache));
}

static struct usym_obj *obj(struct usym_cache *c, const char *path)
{
	struct usym_obj *o;
	const char *why;

	if (c->last < c->n && !strcmp(c->v[c->last].path, path))
		return &c->v[c->last];
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].path, path))
			return &c->v[c->last = i];
	if (c->n == c->cap)
		c->v = xrealloc(c->v, (c->cap = c->cap ? 2 * c->cap : 16) * sizeof(*c->v));
	o = &c->v[c->last = c->n++];
	*o = (struct usym_obj){ .path = xstrdup(path) };
	if (usym_elf_load(path, &o->elf, &why))
		o->why = xstrdup(why);
	return o;
}

const char *usym_cache_find(struct usym_cache *c, const char *path, uint64_t low, uint64_t ip,
			    uint64_t *off)
{
	struct usym_obj *o = obj(c, path);

	if (!o->elf || ip < low)
		return NULL;
	return usym_elf_find(o->elf, ip - low + o->elf->base, off);
}

char *usym_cache_unread(const struct usym_cache *c)
{
	char *s = NULL;

	for (size_t i = 0; i < c->n; i++) {
		char *t;

		if (c->v[i].elf)
			continue;
		t = xasprintf("%s%s'%s' (%s)", s ? s : "", s ? ", " : "", c->v[i].path,
			      c->v[i].why);
		free(s);
		s = t;
	}
	return s;
}

void usym_cache_free(struct usym_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].path);
		free(c->v[i].why);
		usym_elf_free(c->v[i].elf);
	}
	free(c->v);
	free(c);
}
