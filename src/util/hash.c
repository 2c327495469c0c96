// SPDX-License-Identifier: GPL-2.0-or-later
/* The one hash table (include/hash.h): its allocation, growth and deletion. */
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "tr.h"

void htab_init(struct htab *h, size_t esize, size_t cap, unsigned flags)
{
	size_t c = cap ? 1 : 64;

	while (c < cap)
		c *= 2;
	*h = (struct htab){ .esize = esize, .cap0 = c, .flags = flags, .gen = h->gen + 1 };
}

void htab_clear(struct htab *h)
{
	free(h->v);
	h->v = NULL;
	h->cap = h->n = 0;
	h->gen++;
}

static void resize(struct htab *h, size_t cap)
{
	struct htab old = *h;

	h->cap = cap;
	h->v = xcalloc(cap, h->esize);
	for (size_t i = 0; i < old.cap; i++) {
		const void *src = htab_slot(&old, i);
		uint64_t tag = htab_tag(src);

		if (!tag)
			continue;
		for (size_t j = htab_home(h, tag);; j = (j + 1) & (cap - 1))
			if (!htab_tag(htab_slot(h, j))) {
				memcpy(htab_slot(h, j), src, h->esize);
				break;
			}
	}
	free(old.v);
	h->gen++;
}

void htab_reserve(struct htab *h, size_t more)
{
	size_t cap = h->cap ? h->cap : h->cap0 ? h->cap0 : 64;

	while ((h->n + more) * 2 > cap)
		cap *= 2;
	if (cap != h->cap)
		resize(h, cap);
}

void *htab_add(struct htab *h, uint64_t key)
{
	uint64_t tag = key + 1;
	size_t i;

	htab_reserve(h, 1);
	for (i = htab_home(h, tag); htab_tag(htab_slot(h, i)); i = (i + 1) & (h->cap - 1))
		;
	return htab_claim(h, htab_slot(h, i), tag);
}

void htab_del(struct htab *h, void *e)
{
	size_t mask = h->cap - 1, i = ((uint8_t *)e - h->v) / h->esize, j = i;

	memset(htab_slot(h, i), 0, 8);
	for (;;) {
		uint64_t tag;
		size_t k;

		j = (j + 1) & mask;
		tag = htab_tag(htab_slot(h, j));
		if (!tag)
			break;
		k = htab_home(h, tag);
		/* Entry j may fill the hole at i if its home is not in (i, j]. */
		if ((j > i && (k <= i || k > j)) || (j < i && k <= i && k > j)) {
			memcpy(htab_slot(h, i), htab_slot(h, j), h->esize);
			memset(htab_slot(h, j), 0, 8);
			i = j;
		}
	}
	h->n--;
	h->gen++;
}
