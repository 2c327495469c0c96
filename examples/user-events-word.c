// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * An application that keeps a flags word of its own and lets the kernel keep
 * one bit of it for a user event (tr_user_register_bit()): its code tests
 * that bit, as it tests its other flags, before doing the work of an event.
 *
 *   user-events-word [-s 4|8] [-b BIT]
 *
 * Sets bit 0 of a SIZE-byte word (default 8) for itself (bit 1 when BIT is
 * 0), registers tr_example_word ("u32 seq; __rel_loc char[] msg") with bit
 * BIT (default 5) of that word, prints "registered", then reads commands,
 * one a line:
 *   show        prints "word 0x<the whole word in hex>"
 *   emit TEXT   emits (seq, TEXT) if the kernel's bit is set; prints "written N"
 * A refused registration prints "register failed: <reason>" and exits 1.
 *
 *   echo 1 >/sys/kernel/tracing/events/user_events/tr_example_word/enable
 *   (echo show; echo emit hello) | ./user-events-word
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tr-user.h>

TR_USER_EVENT(word_event, "tr_example_word", "u32 seq; __rel_loc char[] msg");

/* The application's flags: the kernel changes only its bit, atomically. */
static uint64_t flags64;
static uint32_t flags32;

int main(int argc, char **argv)
{
	unsigned size = 8, bit = 5, seq = 0;
	char line[512];
	void *word;
	int c, r;

	while ((c = getopt(argc, argv, "s:b:")) != -1) {
		switch (c) {
		case 's':
			size = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'b':
			bit = (unsigned)strtoul(optarg, NULL, 10);
			break;
		default:
			fprintf(stderr, "usage: user-events-word [-s 4|8] [-b BIT]\n");
			return 64;
		}
	}
	word = size == 4 ? (void *)&flags32 : (void *)&flags64;
	if (size == 4)
		__atomic_fetch_or(&flags32, bit ? 1u : 2u, __ATOMIC_RELAXED);
	else
		__atomic_fetch_or(&flags64, bit ? 1u : 2u, __ATOMIC_RELAXED);
	r = tr_user_register_bit(&word_event, word, size, bit);
	if (r) {
		printf("register failed: %s\n", strerror(-r));
		return 1;
	}
	printf("registered\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		uint64_t w = size == 4 ? __atomic_load_n(&flags32, __ATOMIC_RELAXED)
				       : __atomic_load_n(&flags64, __ATOMIC_RELAXED);

		line[strcspn(line, "\n")] = '\0';
		if (!strcmp(line, "show")) {
			printf("word 0x%0*llx\n", (int)size * 2, (unsigned long long)w);
		} else if (!strncmp(line, "emit ", 5)) {
			r = w >> bit & 1 ? tr_user_emit(&word_event, seq++, line + 5) : 0;
			if (r < 0) {
				printf("emit failed: %s\n", strerror(-r));
				return 1;
			}
			printf("written %d\n", r);
		} else {
			fprintf(stderr, "user-events-word: unknown command '%s'\n", line);
			return 1;
		}
		fflush(stdout);
	}
	return 0;
}
