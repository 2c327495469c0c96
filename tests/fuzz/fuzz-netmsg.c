// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: what tr listen does with the bytes of a client's control
 * connection.  The input is the stream a client sends: the version string
 * and the magic of the handshake, then messages, parsed with netmsg.h in
 * pieces of a size the input's hash picks (a peer's bytes arrive in any
 * cuts).  TINIT and RINIT are parsed field by field; the SEND_DATA
 * payloads are the metadata, which, after FIN_DATA, go through
 * net_file_write() as the listener writes a client's file (with no pages:
 * those are copied, never parsed).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz-common.h"
#include "net.h"
#include "netmsg.h"
#include "tfw.h"
#include "tr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t pick = fuzz_pick(data, size);
	size_t cut = 1 + pick % 97, pos = 0, have;
	static uint16_t ports[NETMSG_MAX_CPUS];
	struct netmsg_tinit t = { .cpus = 0 };
	const char *why;
	bool fin = false;
	int meta = -1;
	ssize_t k;

	(void)fuzz_file;
	k = netmsg_take_str(data, size, 64, &why);
	if (k <= 0)
		return 0;
	pos = k;
	if (strcmp((const char *)data, NETMSG_V3) || size - pos < NETMSG_MAGIC_LEN)
		return 0;
	pos += NETMSG_MAGIC_LEN;
	/* Messages, taken as the listener does: from what has arrived so far. */
	have = pos;
	while (pos < size && !fin) {
		struct netmsg m;
		uint32_t n;

		k = netmsg_take(data + pos, have - pos, &m, &why);
		if (k < 0)
			break;
		if (!k) {
			if (have == size)
				break;
			have = have + cut > size ? size : have + cut;
			continue;
		}
		pos += k;
		switch (m.cmd) {
		case NETMSG_TINIT:
			netmsg_tinit_parse(&m, &t, &why);
			break;
		case NETMSG_RINIT:
			netmsg_rinit_parse(&m, ports, NETMSG_MAX_CPUS, &n, &why);
			break;
		case NETMSG_SEND_DATA:
			if (meta < 0)
				meta = memfd_create("fuzz-meta", MFD_CLOEXEC);
			if (meta < 0 || write(meta, m.data, m.data_len) != (ssize_t)m.data_len)
				abort();
			break;
		case NETMSG_FIN_DATA:
			fin = true;
			break;
		}
	}
	if (fin && meta >= 0) {
		int out = memfd_create("fuzz-out", MFD_CLOEXEC);
		int ncpus = t.cpus ? (int)t.cpus : 1;
		int *fds = malloc(ncpus * sizeof(*fds));
		uint64_t *bytes = calloc(ncpus, sizeof(*bytes)), sz;

		for (int i = 0; i < ncpus; i++)
			fds[i] = -1;
		net_file_write(meta, ncpus, fds, bytes, out, pick & 1 ? 7 : 6, TFW_ZIP_ZSTD, NULL, 0,
			       &sz);
		tr_detail_clear();
		close(out);
		free(fds);
		free(bytes);
	}
	if (meta >= 0)
		close(meta);
	return 0;
}
