// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A reader for the parts of BTF that the kernel's printer needs: enum
 * values (BTF_KIND_ENUM, BTF_KIND_ENUM64) and struct sizes (BTF_KIND_STRUCT),
 * by name, functions' arguments; and their prototypes as C declarations
 * (tr list --proto).  See include/btf.h.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btf.h"
#include "hash.h"
#include "tr.h"

enum {
	K_INT = 1, K_PTR, K_ARRAY, K_STRUCT, K_UNION, K_ENUM, K_FWD, K_TYPEDEF, K_VOLATILE,
	K_CONST, K_RESTRICT, K_FUNC, K_FUNC_PROTO, K_VAR, K_DATASEC, K_FLOAT, K_DECL_TAG,
	K_TYPE_TAG, K_ENUM64,
};

/* The names looked up: enum constants, structs (their size), functions (their FUNC_PROTO's id). */
enum ns { NS_ENUM, NS_STRUCT, NS_FUNC };

/* hash.h's hashed table: the first entry of a name in a namespace (later ones are not kept). */
struct ent {
	uint64_t tag;		/* the name's hash, seeded by its namespace */
	const char *name;	/* in strs */
	int64_t v;
	enum ns ns;
};

struct btf {
	char *strs;
	size_t nstrs;
	uint8_t *types;		/* the type section, for function prototypes */
	uint32_t *at;		/* type id -> its offset in types (id 0: void) */
	uint32_t ntypes;
	struct htab names;	/* struct ent */
};

static uint64_t tag_of(const char *name, enum ns ns)
{
	return htab_hash_str(name, ns == NS_STRUCT ? 7 : ns == NS_FUNC ? 11 : 5381);
}

/* The entry of name in ns, or the empty slot where it would go; NULL when there are no slots. */
static struct ent *walk(const struct btf *b, const char *name, enum ns ns, uint64_t tag)
{
	struct ent *e;
	size_t i;

	for (e = htab_first(&b->names, tag, &i); e && e->tag; e = htab_next(&b->names, tag, &i))
		if (e->ns == ns && !strcmp(e->name, name))
			break;
	return e;
}

static void add(struct btf *b, const char *name, int64_t v, enum ns ns)
{
	uint64_t tag;
	struct ent *e;

	if (!*name)
		return;
	tag = tag_of(name, ns);
	htab_reserve(&b->names, 1);
	e = walk(b, name, ns, tag);
	if (e->tag)
		return;		/* the first one wins */
	e = htab_claim(&b->names, e, tag);
	e->name = name;
	e->v = v;
	e->ns = ns;
}

static const struct ent *find(const struct btf *b, const char *name, enum ns ns)
{
	const struct ent *e = b ? walk(b, name, ns, tag_of(name, ns)) : NULL;

	return e && e->tag ? e : NULL;
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
	htab_init(&b->names, sizeof(struct ent), 4096, HTAB_HASHED);
	b->strs = xmalloc(str_len + 1);
	memcpy(b->strs, d + hdr_len + str_off, str_len);
	b->strs[str_len] = '\0';
	b->nstrs = str_len;
	t = d + hdr_len + type_off;
	b->types = xmalloc(type_len ? type_len : 1);
	memcpy(b->types, t, type_len);
	b->at = xmalloc(sizeof(*b->at));
	b->at[0] = UINT32_MAX;
	b->ntypes = 1;
	while (p + 12 <= type_len) {
		uint32_t name = u32(t + p), info = u32(t + p + 4), size = u32(t + p + 8);
		unsigned kind = info >> 24 & 0x1f, vlen = info & 0xffff;
		bool sgn = info >> 31;
		size_t extra;

		if ((b->ntypes & (b->ntypes - 1)) == 0)
			b->at = xrealloc(b->at, 2 * b->ntypes * sizeof(*b->at));
		b->at[b->ntypes++] = (uint32_t)p;
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
			add(b, b->strs + name, size, NS_STRUCT);
		if (kind == K_FUNC && name < str_len)
			add(b, b->strs + name, size, NS_FUNC);
		for (unsigned i = 0; kind == K_ENUM && i < vlen; i++) {
			uint32_t n = u32(t + p + 8 * i), v = u32(t + p + 8 * i + 4);

			if (n < str_len)
				add(b, b->strs + n, sgn ? (int64_t)(int32_t)v : (int64_t)v, NS_ENUM);
		}
		for (unsigned i = 0; kind == K_ENUM64 && i < vlen; i++) {
			uint32_t n = u32(t + p + 12 * i);
			uint64_t v = u32(t + p + 12 * i + 4) | (uint64_t)u32(t + p + 12 * i + 8) << 32;

			if (n < str_len)
				add(b, b->strs + n, (int64_t)v, NS_ENUM);
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
	const struct ent *e = find(b, name, NS_ENUM);

	if (e)
		*v = e->v;
	return e != NULL;
}

unsigned btf_struct_size(const struct btf *b, const char *name)
{
	const struct ent *e = find(b, name, NS_STRUCT);

	return e ? (unsigned)e->v : 0;
}

/* Type id's record (NULL: void or out of range); the checks of btf_load() hold for it. */
static const uint8_t *type_of(const struct btf *b, uint32_t id)
{
	if (!id || id >= b->ntypes)
		return NULL;
	return b->types + b->at[id];
}

static unsigned kind_of(const uint8_t *t)
{
	return t ? u32(t + 4) >> 24 & 0x1f : 0;
}

/* btf_type_skip_modifiers(): past typedefs, const, volatile, restrict and type tags. */
static const uint8_t *skip_mods(const struct btf *b, uint32_t id)
{
	const uint8_t *t = type_of(b, id);

	for (int hops = 0; t && hops < 32; hops++) {
		unsigned k = kind_of(t);

		if (k != K_TYPEDEF && k != K_VOLATILE && k != K_CONST && k != K_RESTRICT &&
		    k != K_TYPE_TAG)
			break;
		t = type_of(b, u32(t + 8));
	}
	return t;
}

static const char *name_at(const struct btf *b, uint32_t off)
{
	return off < b->nstrs ? b->strs + off : "";
}

bool btf_func_args(const struct btf *b, const char *func, const uint64_t *args, int nargs,
		   bool uint_hex, char *buf, size_t n)
{
	static const char *const kinds[] = {
		"UNKNOWN", "INT", "PTR", "ARRAY", "STRUCT", "UNION", "ENUM", "FWD", "TYPEDEF",
		"VOLATILE", "CONST", "RESTRICT", "FUNC", "FUNC_PROTO", "VAR", "DATASEC", "FLOAT",
		"DECL_TAG", "TYPE_TAG", "ENUM64",
	};
	const struct ent *e = find(b, func, NS_FUNC);
	const uint8_t *proto;
	size_t len = 0;
	unsigned nr;

#define OUT(...) (len += (size_t)snprintf(buf + (len < n ? len : n), len < n ? n - len : 0, \
					   __VA_ARGS__))
	if (!n)
		return false;
	buf[0] = '\0';
	if (!e)
		return false;
	proto = type_of(b, (uint32_t)e->v);
	if (kind_of(proto) != K_FUNC_PROTO)
		return false;
	nr = u32(proto + 4) & 0xffff;
	/* print_function_args(): one "name=value" a parameter, up to the registers there are */
	for (unsigned a = 0, p = 0; p < nr; a++, p++) {
		const uint8_t *prm = proto + 12 + 8 * p, *t;
		uint64_t arg;
		unsigned k;

		if (p)
			OUT(", ");
		if ((int)a >= nargs) {
			OUT("...");
			break;
		}
		arg = args[a];
		OUT("%s=", name_at(b, u32(prm)));
		t = skip_mods(b, u32(prm + 4));
		k = kind_of(t);
		switch (k) {
		case 0:
			OUT("?0x%" PRIx64, arg);
			break;
		case K_PTR:
			OUT("0x%" PRIx64, arg);
			break;
		case K_INT:
			/* BTF_INT_ENCODING's BTF_INT_SIGNED (1 << 24); unsigned in hex on newer kernels */
			if (uint_hex && !(u32(t + 12) >> 24 & 1))
				OUT("0x%" PRIx64, arg);
			else
				OUT("%" PRId64, (int64_t)arg);
			break;
		case K_ENUM:
			OUT("%" PRId64, (int64_t)arg);
			break;
		default: {
			uint32_t size = u32(t + 8);

			/* "(STRUCT)[0x1:0x2]": the words the value takes */
			OUT("(%s)[0x%" PRIx64, k < sizeof(kinds) / sizeof(kinds[0]) ? kinds[k] : "UNKNOWN",
			    arg);
			for (uint32_t x = 8; x < size; x += 8) {
				OUT(":");
				if ((int)++a == nargs) {
					OUT("...]");
					goto out;
				}
				OUT("0x%" PRIx64, args[a]);
			}
			OUT("]");
			break;
		}
		}
	}
out:
#undef OUT
	return true;
}

/* decl with a space before it, unless it is empty. */
static char *with(const char *base, const char *decl)
{
	return xasprintf("%s%s%s", base, *decl ? " " : "", decl);
}

static char *declare(const struct btf *b, uint32_t id, const char *decl, int depth);

/* A prototype's parameters, as they go between its parentheses. */
static char *params(const struct btf *b, const uint8_t *proto, int depth)
{
	unsigned nr = u32(proto + 4) & 0xffff;
	char *out = xstrdup(nr ? "" : "void");

	for (unsigned p = 0; p < nr; p++) {
		uint32_t name = u32(proto + 12 + 8 * p), type = u32(proto + 16 + 8 * p);
		char *one = !type && p == nr - 1 ? xstrdup("...")
						 : declare(b, type, name_at(b, name), depth + 1);
		char *next = xasprintf("%s%s%s", out, p ? ", " : "", one);

		free(one);
		free(out);
		out = next;
	}
	return out;
}

/*
 * C's declaration of type id around decl ("buf", "*p", "f(int a)"),
 * malloc'd: pointers to arrays and functions get their parentheses,
 * qualifiers go where C puts them.  depth bounds a chain a damaged blob
 * could make endless.
 */
static char *declare(const struct btf *b, uint32_t id, const char *decl, int depth)
{
	const uint8_t *t = type_of(b, id);
	unsigned k = kind_of(t);
	const char *name = t ? name_at(b, u32(t)) : "";
	char *d, *r, *base;

	if (depth > 32)
		return with("?", decl);
	switch (k) {
	case 0:
		return with(id ? "?" : "void", decl);
	case K_PTR: {
		unsigned to = kind_of(type_of(b, u32(t + 8)));

		d = to == K_ARRAY || to == K_FUNC_PROTO ? xasprintf("(*%s)", decl)
							: xasprintf("*%s", decl);
		r = declare(b, u32(t + 8), d, depth + 1);
		free(d);
		return r;
	}
	case K_CONST: case K_VOLATILE: case K_RESTRICT: {
		const char *q = k == K_CONST ? "const" : k == K_VOLATILE ? "volatile" : "restrict";

		/* "char *const p" qualifies the pointer; "const char *p" what it points to. */
		if (kind_of(type_of(b, u32(t + 8))) == K_PTR) {
			d = with(q, decl);
			r = declare(b, u32(t + 8), d, depth + 1);
			free(d);
			return r;
		}
		d = declare(b, u32(t + 8), decl, depth + 1);
		r = xasprintf("%s %s", q, d);
		free(d);
		return r;
	}
	case K_TYPE_TAG:
		return declare(b, u32(t + 8), decl, depth + 1);
	case K_ARRAY:
		d = u32(t + 20) ? xasprintf("%s[%u]", decl, u32(t + 20)) : xasprintf("%s[]", decl);
		r = declare(b, u32(t + 12), d, depth + 1);
		free(d);
		return r;
	case K_FUNC_PROTO: {
		char *ps = params(b, t, depth);

		d = xasprintf("%s(%s)", decl, ps);
		free(ps);
		r = declare(b, u32(t + 8), d, depth + 1);
		free(d);
		return r;
	}
	case K_STRUCT: case K_UNION: case K_ENUM: case K_ENUM64: case K_FWD: {
		const char *tag = k == K_STRUCT ? "struct" : k == K_UNION ? "union"
				  : k != K_FWD ? "enum" : u32(t + 4) >> 31 ? "union" : "struct";

		base = *name ? xasprintf("%s %s", tag, name) : xasprintf("%s {...}", tag);
		break;
	}
	default:
		base = xstrdup(*name ? name : "?");
		break;
	}
	r = with(base, decl);
	free(base);
	return r;
}

bool btf_func_proto(const struct btf *b, const char *func, char *buf, size_t n)
{
	const struct ent *e = find(b, func, NS_FUNC);
	char *r;

	if (n)
		buf[0] = '\0';
	if (!e || !n || kind_of(type_of(b, (uint32_t)e->v)) != K_FUNC_PROTO)
		return false;
	r = declare(b, (uint32_t)e->v, func, 0);
	snprintf(buf, n, "%s", r);
	free(r);
	return true;
}

void btf_each_func(const struct btf *b, void (*fn)(void *arg, const char *name), void *arg)
{
	for (uint32_t id = 1; b && id < b->ntypes; id++) {
		const uint8_t *t = type_of(b, id);
		const char *name = name_at(b, u32(t));
		const struct ent *e;

		/* The first of each name only, as btf_func_proto() finds it. */
		if (kind_of(t) == K_FUNC && *name && (e = find(b, name, NS_FUNC)) &&
		    e->v == (int64_t)u32(t + 8))
			fn(arg, name);
	}
}

void btf_free(struct btf *b)
{
	if (!b)
		return;
	free(b->strs);
	htab_clear(&b->names);
	free(b->types);
	free(b->at);
	free(b);
}
