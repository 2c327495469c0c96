// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The host-and-guest options (tfw.h) byte for byte as trace-cmd's reader
 * takes them (trace-input.c: TIME_SHIFT's id, flags, CPU count, per CPU
 * count, times, offsets, scalings, then per CPU the fractions; GUEST's
 * name, id, CPU count and cpu/pid pairs; TRACEID's 8 bytes).
 */
#include <stdlib.h>
#include <string.h>

#include "tfw.h"
#include "unit.h"

static uint64_t u64_at(const char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static uint32_t u32_at(const char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

TEST(time_shift_layout)
{
	int64_t ts[2] = { 1000, 2000 }, off[2] = { -5, 7 };
	struct tfw_opt o;
	const char *p;

	tfw_opt_time_shift(&o, 0xabcdef0123456789ULL, 2, 2, ts, off);
	p = o.data.data;
	CHECK(o.id == 12);
	/* 16 + 2 CPUs x (4 + 3 x 16) + 2 CPUs x 16 of fractions */
	CHECK(o.data.len == 16 + 2 * (4 + 48) + 2 * 16);
	CHECK(u64_at(p) == 0xabcdef0123456789ULL && u32_at(p + 8) == 1 && u32_at(p + 12) == 2);
	for (int c = 0; c < 2; c++) {
		const char *q = p + 16 + c * 52;

		CHECK(u32_at(q) == 2);
		CHECK((int64_t)u64_at(q + 4) == 1000 && (int64_t)u64_at(q + 12) == 2000);
		CHECK((int64_t)u64_at(q + 20) == -5 && (int64_t)u64_at(q + 28) == 7);
		CHECK(u64_at(q + 36) == 1 && u64_at(q + 44) == 1);
	}
	for (size_t i = 16 + 2 * 52; i < o.data.len; i++)
		CHECK(p[i] == 0);
	free(o.data.data);
}

TEST(guest_and_traceid_layout)
{
	struct tfw_opt o;
	const char *p;

	tfw_opt_guest(&o, "vm1", 42, 2);
	p = o.data.data;
	CHECK(o.id == 13 && o.data.len == 4 + 8 + 4 + 2 * 8);
	CHECK(!strcmp(p, "vm1") && u64_at(p + 4) == 42 && u32_at(p + 12) == 2);
	CHECK(u32_at(p + 16) == 0 && (int32_t)u32_at(p + 20) == -1);
	CHECK(u32_at(p + 24) == 1 && (int32_t)u32_at(p + 28) == -1);
	free(o.data.data);
	tfw_opt_traceid(&o, 0x1122334455667788ULL);
	CHECK(o.id == 11 && o.data.len == 8 && u64_at(o.data.data) == 0x1122334455667788ULL);
	free(o.data.data);
}

UNIT_MAIN(T(time_shift_layout), T(guest_and_traceid_layout))
