/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one hash table: open addressing with linear probing over entries of
 * a fixed size stored in place (no allocation per lookup or insert), a
 * power-of-two number of slots, at most half of them full.  It serves the
 * formatter's comm, tgid and printk tables, tr report --profile's tasks and
 * --mem's call sites and live pointers, the BTF names, tr top's tables and
 * tr hist's userspace map and --latency's pending starts.
 *
 * Each entry starts with a uint64_t tag; 0 marks an empty slot.  Two kinds
 * of table:
 *   - keyed (flags 0): a 64-bit key, kept as the tag key + 1 (so a key of
 *     ~0 cannot be kept), which the table hashes (htab_mix) to find its
 *     slot: htab_find(), htab_get(), htab_add() take the key.
 *   - hashed (HTAB_HASHED): the tag is the hash of a key the entry holds
 *     after it (a string, bytes, a 64-bit key that may be ~0), never 0, and
 *     its low bits are the slot.
 *     The caller compares keys: htab_first()/htab_next() walk the slots
 *     from the tag's own on to an empty one, htab_claim() takes that one.
 *
 * Entries move when the table grows (htab_reserve(), htab_get(),
 * htab_claim()'s caller reserving) and when one is deleted: a caller that
 * holds two entries at once reserves room first, and gen changes whenever
 * entries move; HTAB_EACH() must not run over a table it deletes from.
 * htab_clear() frees the slots and leaves the table ready for use again.
 */
#ifndef TR_HASH_H
#define TR_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { HTAB_HASHED = 1 };

struct htab {
	uint8_t *v;		/* cap slots of esize bytes */
	size_t esize, cap, n;
	size_t cap0;		/* the slots of the first allocation */
	unsigned flags;
	unsigned gen;		/* changes whenever entries move */
};

/*
 * esize bytes an entry (its tag first); cap the slots to start with (the
 * power of two at or above it; 0: 64), allocated at the first insert or
 * htab_reserve() (a table that is never to grow reserves 0 at once).  h is
 * zeroed memory or a table whose slots were handed on (gen goes on).
 */
void htab_init(struct htab *h, size_t esize, size_t cap, unsigned flags);
/* Free the slots (the entries' own allocations are the caller's); h stays usable. */
void htab_clear(struct htab *h);
/* Room for more inserts without moving entries. */
void htab_reserve(struct htab *h, size_t more);
/* Keyed: add key's entry (absent, as htab_find() said), zeroed but for its tag. */
void *htab_add(struct htab *h, uint64_t key);
/* Remove entry e, moving up the entries after it that belong before it. */
void htab_del(struct htab *h, void *e);

/* A 64-bit integer's bits spread over all of them (murmur3's finalizer, first half). */
static inline uint64_t htab_mix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return k;
}

/*
 * A 64-bit key's tag in a hashed table that compares the key itself, for
 * keys that may take all 64 bits (a keyed table cannot keep ~0): never 0.
 */
static inline uint64_t htab_hash_u64(uint64_t k)
{
	return htab_mix(k) + !k;	/* htab_mix() is a bijection: 0 only for 0 */
}

/*
 * A string's hash (Bernstein's, from seed: different seeds keep namespaces
 * apart), never 0, so that it can be a hashed table's tag.
 */
static inline uint64_t htab_hash_str(const char *s, uint64_t seed)
{
	uint64_t h = seed;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h + !h;
}

/* n bytes' hash, 8 at a time (n a multiple of 8), never 0. */
static inline uint64_t htab_hash_words(const uint8_t *k, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL;

	for (size_t i = 0; i + 8 <= n; i += 8) {
		uint64_t w;

		__builtin_memcpy(&w, k + i, 8);
		h ^= w;
		h *= 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	return h | 1;
}

static inline void *htab_slot(const struct htab *h, size_t i)
{
	return h->v + i * h->esize;
}

static inline uint64_t htab_tag(const void *e)
{
	uint64_t t;

	__builtin_memcpy(&t, e, 8);
	return t;
}

/* The slot where tag's probe starts. */
static inline size_t htab_home(const struct htab *h, uint64_t tag)
{
	return (h->flags & HTAB_HASHED ? tag : htab_mix(tag - 1)) & (h->cap - 1);
}

/* Keyed: the entry of key, or NULL. */
static inline void *htab_find(const struct htab *h, uint64_t key)
{
	uint64_t tag = key + 1;

	if (!h->cap)
		return NULL;
	for (size_t i = htab_home(h, tag);; i = (i + 1) & (h->cap - 1)) {
		void *e = htab_slot(h, i);
		uint64_t t = htab_tag(e);

		if (t == tag)
			return e;
		if (!t)
			return NULL;
	}
}

/* Keyed: the entry of key, added when absent (*fresh, if given, says so). */
static inline void *htab_get(struct htab *h, uint64_t key, bool *fresh)
{
	void *e = htab_find(h, key);

	if (fresh)
		*fresh = !e;
	return e ? e : htab_add(h, key);
}

/*
 * Hashed: the first slot of tag's probe, then the next; each is an entry
 * with this tag (compare its key) or an empty one, where the walk ends
 * (the key is absent, and may go there). NULL when the table has no slots.
 */
static inline void *htab_first(const struct htab *h, uint64_t tag, size_t *i)
{
	if (!h->cap)
		return NULL;
	for (*i = htab_home(h, tag);; *i = (*i + 1) & (h->cap - 1)) {
		void *e = htab_slot(h, *i);
		uint64_t t = htab_tag(e);

		if (!t || t == tag)
			return e;
	}
}

static inline void *htab_next(const struct htab *h, uint64_t tag, size_t *i)
{
	*i = (*i + 1) & (h->cap - 1);
	for (;; *i = (*i + 1) & (h->cap - 1)) {
		void *e = htab_slot(h, *i);
		uint64_t t = htab_tag(e);

		if (!t || t == tag)
			return e;
	}
}

/* Hashed: take the empty slot e a walk ended at for tag (room was reserved before the walk). */
static inline void *htab_claim(struct htab *h, void *e, uint64_t tag)
{
	__builtin_memset(e, 0, h->esize);
	__builtin_memcpy(e, &tag, 8);
	h->n++;
	return e;
}

/* For each entry e (of type type) of h; a "continue" in the body goes to the next. */
#define HTAB_EACH(h, type, e)                                                      \
	for (size_t i_##e = 0; i_##e < (h)->cap; i_##e++)                          \
		for (type *e = (type *)htab_slot((h), i_##e); e; e = NULL)         \
			if (!htab_tag(e))                                          \
				continue;                                          \
			else

#endif
