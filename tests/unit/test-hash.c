// SPDX-License-Identifier: GPL-2.0-or-later
/* The one hash table: keyed and hashed tables, growth, deletion, iteration. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "unit.h"

struct kv {
	uint64_t tag;
	uint64_t v;
};

struct named {
	uint64_t tag;
	char name[16];
	int v;
};

TEST(keyed_get_find_grow)
{
	struct htab h = { 0 };
	bool fresh;

	htab_init(&h, sizeof(struct kv), 0, 0);
	CHECK(htab_find(&h, 1) == NULL);
	for (uint64_t k = 0; k < 5000; k++) {
		struct kv *e = htab_get(&h, k, &fresh);

		CHECK(fresh && e->tag == k + 1);
		e->v = k * 3;
	}
	CHECK(h.n == 5000);
	CHECK(h.cap >= 10000 && (h.cap & (h.cap - 1)) == 0);
	for (uint64_t k = 0; k < 5000; k++) {
		struct kv *e = htab_get(&h, k, &fresh);

		CHECK(!fresh && e->v == k * 3);
	}
	CHECK(htab_find(&h, 5000) == NULL);
	htab_clear(&h);
	CHECK(h.n == 0 && htab_find(&h, 1) == NULL);
	CHECK(htab_get(&h, 7, NULL) != NULL && h.n == 1);
	htab_clear(&h);
}

TEST(reserve_keeps_entries_still)
{
	struct htab h = { 0 };
	struct kv *a, *b;
	unsigned gen;

	htab_init(&h, sizeof(struct kv), 4, 0);
	htab_reserve(&h, 2);
	gen = h.gen;
	a = htab_get(&h, 10, NULL);
	b = htab_get(&h, 20, NULL);
	CHECK(h.gen == gen);
	CHECK(htab_find(&h, 10) == a && htab_find(&h, 20) == b);
	for (uint64_t k = 100; k < 200; k++)
		htab_get(&h, k, NULL);
	CHECK(h.gen != gen);
	htab_clear(&h);
}

TEST(delete_keeps_the_probes_whole)
{
	struct htab h = { 0 };
	uint64_t n = 0;

	htab_init(&h, sizeof(struct kv), 64, 0);
	/* Many keys in a small table: long runs, deleted from anywhere in them. */
	for (uint64_t k = 1; k <= 30; k++)
		((struct kv *)htab_get(&h, k * 64 + 1, NULL))->v = k;
	for (uint64_t k = 1; k <= 30; k += 3)
		htab_del(&h, htab_find(&h, k * 64 + 1));
	for (uint64_t k = 1; k <= 30; k++) {
		struct kv *e = htab_find(&h, k * 64 + 1);

		if ((k - 1) % 3 == 0) {
			CHECK(e == NULL);
		} else {
			CHECK(e && e->v == k);
		}
	}
	HTAB_EACH(&h, struct kv, e)
		n += e->v != 0;
	CHECK(n == 20 && h.n == 20);
	htab_clear(&h);
}

static struct named *lookup(struct htab *h, const char *name, bool add)
{
	uint64_t tag = htab_hash_str(name, 5381);
	struct named *e;
	size_t i;

	if (add)
		htab_reserve(h, 1);
	for (e = htab_first(h, tag, &i); e && e->tag; e = htab_next(h, tag, &i))
		if (!strcmp(e->name, name))
			return e;
	if (!add || !e)
		return NULL;
	e = htab_claim(h, e, tag);
	strcpy(e->name, name);
	return e;
}

TEST(hashed_keys_the_caller_compares)
{
	struct htab h = { 0 };
	char name[16];

	htab_init(&h, sizeof(struct named), 0, HTAB_HASHED);
	CHECK(lookup(&h, "none", false) == NULL);
	for (int i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "site%d", i);
		lookup(&h, name, true)->v = i;
	}
	CHECK(h.n == 300);
	for (int i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "site%d", i);
		CHECK(lookup(&h, name, false) && lookup(&h, name, false)->v == i);
	}
	CHECK(lookup(&h, "site300", false) == NULL);
	htab_clear(&h);
}

struct kk {
	uint64_t tag;
	uint64_t k, v;
};

static struct kk *kk_of(struct htab *h, uint64_t k)
{
	uint64_t tag = htab_hash_u64(k);
	struct kk *e;
	size_t i;

	for (e = htab_first(h, tag, &i); e && e->tag; e = htab_next(h, tag, &i))
		if (e->k == k)
			break;
	return e;
}

TEST(hashed_u64_keys_take_all_64_bits)
{
	struct htab h = { 0 };
	uint64_t keys[200];
	size_t n = 0;

	htab_init(&h, sizeof(struct kk), 0, HTAB_HASHED);
	CHECK(kk_of(&h, 0) == NULL);
	keys[n++] = 0;
	keys[n++] = ~0ULL;
	keys[n++] = ~0ULL - 1;
	for (; n < 200; n++)
		keys[n] = n * 0x100000001ULL;
	for (size_t j = 0; j < n; j++) {
		struct kk *e;

		htab_reserve(&h, 1);
		e = kk_of(&h, keys[j]);
		CHECK(e && !e->tag);
		e = htab_claim(&h, e, htab_hash_u64(keys[j]));
		e->k = keys[j];
		e->v = j;
	}
	for (size_t j = 0; j < n; j += 2)
		htab_del(&h, kk_of(&h, keys[j]));
	for (size_t j = 0; j < n; j++) {
		struct kk *e = kk_of(&h, keys[j]);

		CHECK(e && (j % 2 ? e->tag && e->v == j : !e->tag));
	}
	CHECK(h.n == n / 2);
	htab_clear(&h);
}

TEST(hashes)
{
	uint8_t a[16] = { 1 }, b[16] = { 2 };

	CHECK(htab_hash_str("", 5381) == 5381);
	CHECK(htab_hash_str("a", 5381) == 5381 * 33 + 'a');
	/* Never 0, so that it can be a tag: where the sum is 0 ("" from 0, "a" from a seed s
	 * with s * 33 + 'a' = 2^64), it is 1. */
	CHECK(htab_hash_str("", 0) == 1);
	CHECK(htab_hash_str("a", 0x1f07c1f07c1f07bfULL) == 1);
	CHECK(htab_hash_words(a, 16) != htab_hash_words(b, 16));
	CHECK(htab_hash_words(a, 0) & 1);
	CHECK(htab_mix(1) != htab_mix(2));
	CHECK(htab_hash_u64(0) && htab_hash_u64(~0ULL) && htab_hash_u64(1) == htab_mix(1));
}

UNIT_MAIN(T(keyed_get_find_grow), T(reserve_keeps_entries_still), T(delete_keeps_the_probes_whole),
	  T(hashed_keys_the_caller_compares), T(hashed_u64_keys_take_all_64_bits), T(hashes))
