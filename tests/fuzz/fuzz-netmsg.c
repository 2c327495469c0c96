// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: what tr listen does with the bytes of a client's control
 * connection.  The input is the stream a client sends: the version string
 * and the magic of the handshake, then messages, parsed with netmsg.h in
 * pieces of a size the input's hash picks (a peer's bytes arrive in any
 * cuts).  TINIT and RINIT are parsed field by field; the SEND_DATA
 * payloads are the metadata; those after its FIN_DATA are saved_tgids,
 * checked at their own FIN_DATA; both go through net_file_write() as the
 * listener writes a client's file (with no pages: those are copied, never
 * parsed).
 *
 * An input that does not open with the v3 handshake is what an agent and
 * its host send each other (tr agent, tr record -A): messages in the same
 * cuts, TRACE_REQ parsed and its arguments checked as the agent does,
 * TRACE_RESP as the host does, TIME_SYNC and the ptp PROBES inside it,
 * with the offset worked out from them.
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

/* The agent's and its host's messages (netmsg.h's second half). */
static void agent_stream(const uint8_t *data, size_t size, size_t cut)
{
	static uint32_t ports[NETMSG_MAX_CPUS];
	static int64_t host[NETMSG_PTP_LOOP], sent[NETMSG_PTP_LOOP], back[NETMSG_PTP_LOOP];
	size_t pos = 0, have = cut < size ? cut : size;
	const char *why;

	while (pos < size) {
		struct netmsg m;
		struct netmsg_trace_req req;
		struct netmsg_trace_resp resp;
		struct netmsg_agent_args args;
		struct netmsg_tsync t;
		int64_t off, ts, rtt;
		ssize_t k = netmsg_take(data + pos, have - pos, &m, &why);

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
		case NETMSG_TRACE_REQ:
			if (!netmsg_trace_req_parse(&m, &req, &why))
				netmsg_agent_args_parse(req.argc, req.argv, &args, &why);
			break;
		case NETMSG_TRACE_RESP:
			netmsg_trace_resp_parse(&m, &resp, ports, NETMSG_MAX_CPUS, &why);
			break;
		case NETMSG_TIME_SYNC:
			if (netmsg_tsync_parse(&m, &t, &why) || t.id != NETMSG_PTP_PROBES)
				break;
			if (netmsg_ptp_probes_parse(t.payload, t.len, host, &why))
				break;
			for (uint32_t i = 0; i < NETMSG_PTP_LOOP; i++) {
				sent[i] = host[i] - 100 - (int64_t)(i % 7);
				back[i] = host[i] + 100 + (int64_t)(i % 5);
			}
			netmsg_ptp_offset(sent, back, host, NETMSG_PTP_LOOP, &off, &ts, &rtt);
			break;
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t pick = fuzz_pick(data, size);
	size_t cut = 1 + pick % 97, pos = 0, have;
	static uint32_t ports[NETMSG_MAX_CPUS];
	struct netmsg_tinit t = { .cpus = 0 };
	struct netmsg_token tok;
	const char *why;
	bool fin = false, tfin = false, tr;
	int meta = -1;
	char *tgids = NULL;
	size_t tlen = 0;
	ssize_t k;

	(void)fuzz_file;
	if (size < sizeof(NETMSG_V3) || memcmp(data, NETMSG_V3, sizeof(NETMSG_V3))) {
		agent_stream(data, size, cut);
		return 0;
	}
	k = netmsg_take_str(data, size, 64, &why);
	if (k <= 0)
		return 0;
	pos = k;
	if (strcmp((const char *)data, NETMSG_V3) || size - pos < NETMSG_MAGIC_LEN)
		return 0;
	pos += NETMSG_MAGIC_LEN;
	/* Messages, taken as the listener does: from what has arrived so far. */
	have = pos;
	while (pos < size && !tfin) {
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
			netmsg_rinit_parse(&m, ports, NETMSG_MAX_CPUS, &n, &tr, &tok, &why);
			break;
		case NETMSG_SEND_DATA:
			if (fin) {
				if (tlen + m.data_len > NETMSG_MAX_TGIDS)
					goto end;
				tgids = realloc(tgids, tlen + m.data_len + 1);
				if (!tgids)
					abort();
				memcpy(tgids + tlen, m.data, m.data_len);
				tlen += m.data_len;
				tgids[tlen] = 0;
				break;
			}
			if (meta < 0)
				meta = memfd_create("fuzz-meta", MFD_CLOEXEC);
			if (meta < 0 || write(meta, m.data, m.data_len) != (ssize_t)m.data_len)
				abort();
			break;
		case NETMSG_FIN_DATA:
			if (fin)
				tfin = true;
			fin = true;
			break;
		}
	}
end:
	/* As the listener: saved_tgids only when whole and well formed. */
	if (!tfin || netmsg_tgids_check(tgids, tlen, &why))
		tlen = 0;
	if (fin && meta >= 0) {
		int out = memfd_create("fuzz-out", MFD_CLOEXEC);
		int ncpus = t.cpus ? (int)t.cpus : 1;
		int *fds = malloc(ncpus * sizeof(*fds));
		uint64_t *bytes = calloc(ncpus, sizeof(*bytes)), sz;

		for (int i = 0; i < ncpus; i++)
			fds[i] = -1;
		net_file_write(meta, ncpus, fds, bytes, out, pick & 1 ? 7 : 6, TFW_ZIP_ZSTD, NULL, 0,
			       tgids, tlen, &sz);
		tr_detail_clear();
		close(out);
		free(fds);
		free(bytes);
	}
	if (meta >= 0)
		close(meta);
	free(tgids);
	return 0;
}
