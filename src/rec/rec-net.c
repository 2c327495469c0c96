// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The network sink of tr record -N (rec.h): the recorder's callback sink
 * hands each CPU's sub-buffers to that CPU's data connection (net.h), so
 * nothing is written locally.  The file's metadata goes first, as the
 * protocol wants (trace-cmd's listener waits 5 s for it): the formats of
 * the events enabled, kallsyms, printk formats and the command names known
 * when recording starts, as trace-cmd record -N sends them.  Under
 * record-tgid, the kernel's saved_tgids follows the pages, to a listener
 * that takes it (tr listen, netmsg.h).
 *
 * The metadata is a version 6 file up to its options, whoever listens:
 * trace-cmd's listener then writes a v6 file, which everything reads, and
 * tr listen writes the version it is asked for.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "net.h"
#include "rec-local.h"
#include "rec.h"
#include "tfs.h"
#include "tfw.h"

int rec_net_page(void *arg, int cpu, const void *pages, size_t len)
{
	struct rec_net *n = arg;
	/* The listener went away: this reader stops; the session says so. */
	int e = net_send_pages(n->client, cpu, pages, len);

	/* Each CPU's count is written by its reader alone. */
	if (!e)
		n->bytes[cpu] += len;
	return e;
}

int rec_net_meta(struct rec *r, struct tfs_inst *in, const struct tfw_opt *extra, size_t nextra,
		 void **buf, size_t *len, bool *tgid)
{
	struct tfw_meta m;
	struct tfw_src *none;
	struct tfw_result res;
	int fd, e;

	e = rec_gather_meta(r, in, false, &m);
	if (e)
		return e;
	if (tgid)
		*tgid = tfw_meta_has_text_option(&m, "record-tgid");
	for (size_t i = 0; i < nextra; i++)
		tfw_meta_add_option(&m, extra[i].id, extra[i].data.data, extra[i].data.len);
	none = xcalloc(m.cpus, sizeof(*none));
	for (int c = 0; c < m.cpus; c++)
		none[c].fd = -1;
	fd = memfd_create("tr-meta", MFD_CLOEXEC);
	e = fd < 0 ? -errno : tfw_write(fd, &m, &(struct tfw_buffer){ NULL, none }, 1, 0, &res);
	if (!e) {
		*len = tfw_header_size(&m, 0, NULL);
		*buf = xmalloc(*len + 10);
		if (pread(fd, *buf, *len + 10, 0) != (ssize_t)(*len + 10) ||
		    memcmp((char *)*buf + *len, "flyrecord", 10)) {
			free(*buf);
			e = -EIO;
		}
	}
	if (e)
		tr_fail(e, "cannot make the file's metadata: %s", strerror(-e));
	if (fd >= 0)
		close(fd);
	free(none);
	tfw_meta_free(&m);
	return e;
}

int rec_net_start(struct rec_net *n, struct rec *r, struct tfs_inst *in,
		  const struct tfw_opt *extra, size_t nextra)
{
	void *meta = NULL;
	size_t len = 0;
	int e = net_connect(n->host, n->port, n->vsock, rec_ncpus(r), rec_page_size(r),
			    n->psk_file, &tr_stop, &n->client);

	n->bytes = xcalloc(rec_ncpus(r) ? rec_ncpus(r) : 1, sizeof(*n->bytes));

	if (!e)
		e = rec_net_meta(r, in, extra, nextra, &meta, &len, &n->tgid);
	if (!e)
		e = net_send_meta(n->client, meta, len);
	free(meta);
	if (e)
		rec_net_free(n);
	return e;
}

void rec_net_free(struct rec_net *n)
{
	net_client_free(n->client);
	n->client = NULL;
	free(n->bytes);
	n->bytes = NULL;
}

int rec_net_end(struct rec_net *n, struct rec *r, struct tfs_inst *in,
		const struct rec_kstats *before, struct rec_summary *sum)
{
	int e;

	rec_summarize(r, in, before, sum);
	sum->total.bytes = 0;
	for (int c = 0; c < sum->ncpus; c++) {
		sum->cpu[c].bytes = n->bytes[c];
		sum->total.bytes += n->bytes[c];
	}
	/*
	 * saved_tgids is filled as the recording runs: it goes now, as a local
	 * recording reads it as its file is written (rec_add_tgids()).
	 */
	if (n->tgid) {
		char *path = tfs_path(NULL, "saved_tgids"), *text = NULL;
		size_t tlen = 0;

		e = read_file(path, &text, &tlen) || !tlen ? 0 : net_send_tgids(n->client, text, tlen);
		free(text);
		free(path);
		if (e) {
			rec_net_free(n);
			return e;
		}
	}
	e = net_finish(n->client);
	rec_net_free(n);
	return e;
}
