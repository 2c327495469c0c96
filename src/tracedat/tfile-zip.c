// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Decompression of v7 sections and trace-data chunks: zstd and zlib, the
 * two algorithms trace-cmd writes.  Sizes come from the file, so the caller
 * bounds them; here the output must come out exactly that size.
 */
#include <errno.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "tfile-local.h"

/* Decompress src into exactly dlen bytes of dst: 0, or -EBADMSG. */
int tfile_unzip(struct tfile *tf, void *dst, size_t dlen, const void *src, size_t slen)
{
	int kind = tf->zip;

	if (kind == TFW_ZIP_ZSTD) {
		size_t r;

		if (!tf->zctx && !(tf->zctx = ZSTD_createDCtx()))
			return -ENOMEM;
		r = ZSTD_decompressDCtx(tf->zctx, dst, dlen, src, slen);

		if (ZSTD_isError(r) || r != dlen)
			return -EBADMSG;
		return 0;
	}
	if (kind == TFW_ZIP_ZLIB) {
		uLongf out = dlen;

		if (slen > UINT32_MAX || uncompress(dst, &out, src, slen) != Z_OK || out != dlen)
			return -EBADMSG;
		return 0;
	}
	return -ENOTSUP;
}

void tfile_unzip_free(struct tfile *tf)
{
	ZSTD_freeDCtx(tf->zctx);
	tf->zctx = NULL;
}
