/*
 * LVM2 on-disk metadata, as far as alignment needs it (issue #15): the PV
 * label (LABELONE in one of the first four sectors) with its pv_header (the
 * first data area is PE 0: pe_start), the header of the PV's first metadata
 * area (mda_header: where the current VG text is in its ring buffer), and
 * from that text the VG name and extent_size.  Pure: the scanner reads the
 * bytes (--probe, src/scan/lvm.c) and hands them in; nothing here does I/O
 * or allocates.  Every offset is range- and overflow-checked, and the
 * label, header and text checksums (LVM's CRC-32) are verified.
 */
#ifndef PARTALIGN_LVMMETA_H
#define PARTALIGN_LVMMETA_H

#include <stddef.h>
#include <stdint.h>

/* The label is in one of the first four 512-byte sectors. */
#define LVMMETA_LABEL_LEN 2048
/* The mda_header is one 512-byte sector at the start of a metadata area. */
#define LVMMETA_MDA_HEADER_LEN 512
/* VG texts longer than this are refused (LVM's default area is 1 MiB). */
#define LVMMETA_TEXT_MAX (16u << 20)
#define LVMMETA_VG_NAME_MAX 128

struct lvmmeta_pv {
	unsigned int sector;  /* of the label */
	uint64_t device_size; /* bytes, as pvcreate saw it */
	uint64_t pe_start;    /* bytes from the start of the PV's device to PE 0 */
	uint64_t mda_offset;  /* the first metadata area, bytes; 0 when it has none */
	uint64_t mda_size;
};

/* Where the current VG text is: one range, or two when it wraps around the
   ring buffer (the rest continues after the mda_header). */
struct lvmmeta_text {
	unsigned int n;
	uint64_t off[2]; /* bytes from the start of the PV's device */
	uint64_t len[2];
	uint64_t total;	   /* len[0] + len[1] */
	uint32_t checksum; /* of the whole text */
};

struct lvmmeta_vg {
	char name[LVMMETA_VG_NAME_MAX + 1];
	uint64_t extent_size; /* bytes (the text has 512-byte sectors) */
};

/*
 * The PV label in the first @len bytes of a device (LVMMETA_LABEL_LEN is
 * enough).  0, or -ENOENT when there is no LABELONE, -EINVAL when one is
 * there but damaged (checksum, type, offsets outside its sector).
 */
int lvmmeta_pv_parse(const void *buf, size_t len, struct lvmmeta_pv *pv);

/*
 * The mda_header read from pv->mda_offset: where the VG text is.  0, -ENOENT
 * when the area holds no VG (an orphan PV), -EINVAL when the header is
 * damaged or points outside its area, -E2BIG when the text is longer than
 * LVMMETA_TEXT_MAX.
 */
int lvmmeta_mda_parse(const void *buf, size_t len, const struct lvmmeta_pv *pv,
		      struct lvmmeta_text *t);

/*
 * The VG text (the ranges of @t read one after the other: t->total bytes):
 * its checksum against t->checksum (@t may be NULL: not checked), the VG
 * name and extent_size.  0, or -EINVAL.
 */
int lvmmeta_vg_parse(const char *text, size_t len, const struct lvmmeta_text *t,
		     struct lvmmeta_vg *vg);

#endif
