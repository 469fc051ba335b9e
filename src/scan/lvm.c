/*
 * --probe: where an LVM2 physical volume's extents start (pe_start, from the
 * PV label) and how large they are (extent_size, from the VG text in the
 * PV's first metadata area).  This file only reads the bytes, read-only, at
 * the places the previous step gave; core/lvmmeta.c checks and parses them.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/lvmmeta.h"
#include "scan/lvm.h"

/* @len bytes at @off of the @size-byte region at @base: 0 or -EIO */
static int read_in(int fd, uint64_t base, uint64_t size, uint64_t off, void *buf,
		   size_t len)
{
	ssize_t n;

	if (off > size || len > size - off || base > (uint64_t)INT64_MAX - size)
		return -EIO;
	n = pread(fd, buf, len, (off_t)(base + off));
	return n == (ssize_t)len ? 0 : -EIO;
}

int scan_lvm_probe(int fd, struct pa_dev *d, uint64_t off, uint64_t size)
{
	unsigned char label[LVMMETA_LABEL_LEN], mda[LVMMETA_MDA_HEADER_LEN];
	struct lvmmeta_pv pv;
	struct lvmmeta_text t;
	struct lvmmeta_vg vg;
	uint64_t at = 0;
	unsigned int i;
	char *text;

	if (read_in(fd, off, size, 0, label, sizeof(label)) < 0 ||
	    lvmmeta_pv_parse(label, sizeof(label), &pv) < 0)
		return -ENOENT;
	d->lvm_pv_known = true;
	d->lvm_pe_start = pv.pe_start;
	d->lvm_extent_size = 0;
	free(d->lvm_vg);
	d->lvm_vg = NULL;
	if (!pv.mda_offset ||
	    read_in(fd, off, size, pv.mda_offset, mda, sizeof(mda)) < 0 ||
	    lvmmeta_mda_parse(mda, sizeof(mda), &pv, &t) < 0)
		return 0;
	text = malloc(t.total);
	if (!text)
		return -ENOMEM;
	for (i = 0; i < t.n; i++) {
		if (read_in(fd, off, size, t.off[i], text + at, t.len[i]) < 0)
			break;
		at += t.len[i];
	}
	if (i == t.n && lvmmeta_vg_parse(text, t.total, &t, &vg) == 0) {
		d->lvm_vg = strndup(vg.name, sizeof(vg.name));
		if (d->lvm_vg)
			d->lvm_extent_size = vg.extent_size;
	}
	free(text);
	return 0;
}
