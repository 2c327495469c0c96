// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr_fail() and tr_fail_own(): a thread that keeps its own message (tr
 * listen's clients, which write their files at once) neither sees nor
 * overwrites another's, nor the shared one.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "tr.h"
#include "unit.h"

static pthread_barrier_t both;
static bool seen_own[2];	/* checked by the main thread: CHECK counts are not atomic */

static void *own(void *arg)
{
	long i = (long)arg;
	char buf[64];
	char want[32];
	bool fresh;

	snprintf(want, sizeof(want), "thread %ld", i);
	tr_fail_own(buf, sizeof(buf));
	fresh = tr_failure() == NULL;
	tr_fail(-5, "thread %ld", i);
	/* Both have failed before either reads its message. */
	pthread_barrier_wait(&both);
	seen_own[i] = fresh && tr_failure() == buf && !strcmp(buf, want);
	tr_fail_own(NULL, 0);
	return NULL;
}

TEST(own_messages_are_apart)
{
	pthread_t t[2];

	tr_fail(-1, "shared");
	pthread_barrier_init(&both, NULL, 2);
	for (long i = 0; i < 2; i++)
		CHECK(!pthread_create(&t[i], NULL, own, (void *)i));
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&both);
	CHECK(seen_own[0] && seen_own[1]);
	CHECK(tr_failure() && !strcmp(tr_failure(), "shared"));
}

TEST(own_buffer_is_truncated_and_returns_err)
{
	char buf[8];

	tr_fail_own(buf, sizeof(buf));
	CHECK(tr_fail(22, "a long message") == -22);
	CHECK(!strcmp(tr_failure(), "a long "));
	tr_fail_own(NULL, 0);
	CHECK(strcmp(tr_failure(), "a long "));
}

UNIT_MAIN(T(own_messages_are_apart), T(own_buffer_is_truncated_and_returns_err))
