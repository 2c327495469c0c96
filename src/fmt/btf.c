// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A reader for the parts of BTF that the kernel's printer needs: enum
 * values (BTF_KIND_ENUM, BTF_KIND_ENUM64) and struct sizes (BTF_KIND_STRUCT),
 * by name.  See include/btf.h.
 */
#include <stdlib.h>
#include <string.h>

#include "btf.h"
#include "tr.h"

enum {
	K_INT = 1, K_PTR, K_ARRAY, K_STRUCT, K_UNION, K_ENUM, K_FWD, K_TYPEDEF, K_VOLATILE,
	K_CONST, K_RESTRICT, K_FUNC, K_FUNC_PROTO, K_VAR, K_DATASEC, K_FLOAT, K_DECL_TAG,
	K_TYPE_TAG, K_ENUM64,
};

struct ent {
	const char *name;	/* in strs */
	int64_t v;
	bool is_struct;
};

struct btf {
	char *strs;
	size_t nstrs;
	struct ent *tab;	/* open addressing, cap a power of two */
	size_t cap, n;
};

static size_t hash(const char *s, bool st)
{
	size_t h = st ? 7 : 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

static void add(struct btf *b, const char *name, int64_t v, bool st)
{
	size_t i;

	if (!*name)
		return;
	if ((b->n + 1) * 2 > b->cap) {
		struct ent *old = b->tab;
		size_t oc = b->cap;

		b->cap = b->cap ? b->cap * 2 : 4096;
		b->tab = xcalloc(b->cap, sizeof(*b->tab));
		b->n = 0;
		for (size_t k = 0; k < oc; k++)
			if (old[k].name)
				add(b, old[k].name, old[k].v, old[k].is_struct);
		free(old);
	}
	for (i = hash(name, st) & (b->cap - 1); b->tab[i].name; i = (i + 1) & (b->cap - 1))
		if (b->tab[i].is_struct == st && !strcmp(b->tab[i].name, name))
			return;		/* the first one wins */
	b->tab[i] = (struct ent){ name, v, st };
	b->n++;
}

static const struct ent *find(const struct btf *b, const char *name, bool st)
{
	if (!b || !b->cap)
		return NULL;
	for (size_t i = hash(name, st) & (b->cap - 1); b->tab[i].name; i = (i + 1) & (b->cap - 1))
		if (b->tab[i].is_struct == st && !strcmp(b->tab[i].name, name))
			return &b->tab[i];
	return NULL;
}

static uint32_t u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

struct btf *btf_load(const void *data, size_t len)
{
	const uint8_t *d = data, *t;
	uint32_t hdr_len, type_off, type_len, str_off, str_len;
	struct btf *b;
	size_t p = 0;

	if (len < 24 || d[0] != 0x9f || d[1] != 0xeb)	/* little-endian magic 0xeb9f */
		return NULL;
	hdr_len = u32(d + 4);
	type_off = u32(d + 8);
	type_len = u32(d + 12);
	str_off = u32(d + 16);
	str_len = u32(d + 20);
	if (hdr_len < 24 || (uint64_t)hdr_len + type_off + type_len > len ||
	    (uint64_t)hdr_len + str_off + str_len > len || !str_len)
		return NULL;
	b = xcalloc(1, sizeof(*b));
	b->strs = xmalloc(str_len + 1);
	memcpy(b->strs, d + hdr_len + str_off, str_len);
	b->strs[str_len] = '\0';
	b->nstrs = str_len;
	t = d + hdr_len + type_off;
	while (p + 12 <= type_len) {
		uint32_t name = u32(t + p), info = u32(t + p + 4), size = u32(t + p + 8);
		unsigned kind = info >> 24 & 0x1f, vlen = info & 0xffff;
		bool sgn = info >> 31;
		size_t extra;

		p += 12;
		switch (kind) {
		case K_INT: case K_VAR: case K_DECL_TAG: extra = 4; break;
		case K_ARRAY: extra = 12; break;
		case K_STRUCT: case K_UNION: case K_DATASEC: extra = 12 * (size_t)vlen; break;
		case K_ENUM: case K_FUNC_PROTO: extra = 8 * (size_t)vlen; break;
		case K_ENUM64: extra = 12 * (size_t)vlen; break;
		case K_PTR: case K_FWD: case K_TYPEDEF: case K_VOLATILE: case K_CONST:
		case K_RESTRICT: case K_FUNC: case K_FLOAT: case K_TYPE_TAG: extra = 0; break;
		default:
			goto bad;
		}
		if (p + extra > type_len)
			goto bad;
		if (kind == K_STRUCT && name < str_len)
			add(b, b->strs + name, size, true);
		for (unsigned i = 0; kind == K_ENUM && i < vlen; i++) {
			uint32_t n = u32(t + p + 8 * i), v = u32(t + p + 8 * i + 4);

			if (n < str_len)
				add(b, b->strs + n, sgn ? (int64_t)(int32_t)v : (int64_t)v, false);
		}
		for (unsigned i = 0; kind == K_ENUM64 && i < vlen; i++) {
			uint32_t n = u32(t + p + 12 * i);
			uint64_t v = u32(t + p + 12 * i + 4) | (uint64_t)u32(t + p + 12 * i + 8) << 32;

			if (n < str_len)
				add(b, b->strs + n, (int64_t)v, false);
		}
		p += extra;
	}
	return b;
bad:
	btf_free(b);
	return NULL;
}

bool btf_enum(const struct btf *b, const char *name, int64_t *v)
{
	const struct ent *e = find(b, name, false);

	if (e)
		*v = e->v;
	return e != NULL;
}

unsigned btf_struct_size(const struct btf *b, const char *name)
{
	const struct ent *e = find(b, name, true);

	return e ? (unsigned)e->v : 0;
}

void btf_free(struct btf *b)
{
	if (!b)
		return;
	free(b->strs);
	free(b->tab);
	free(b);
}
