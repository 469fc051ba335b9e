/*
 * What move.c (the journal file) and move-run.c (the mover's threads) share:
 * the mover itself and its few helpers.  Private to src/apply.
 */
#ifndef PARTALIGN_MOVE_IMPL_H
#define PARTALIGN_MOVE_IMPL_H

#include <stdbool.h>

#include "apply/move.h"
#include "core/journal.h"

struct pa_mover {
	char *path;
	char *dir;
	char *pointer; /* a link to path in the default directory, or NULL */
	char *abs;     /* path made absolute */
	int fd;	       /* buffered: header, progress, checksums */
	int dfd;       /* O_DIRECT when the file system allows: the data ring */
	int dir_fd;    /* the journal's directory, as checked (shared/trust.h) */
	struct pa_journal j;
	struct pa_jprog prog; /* the newest progress record */
};

/* CLOCK_MONOTONIC in seconds */
double move_now(void);
/* fdatasync(), 0 or -errno */
int move_sync_fd(int fd);
/* The CRC-32 of the checksum table entries [0, n) of move @k, as on file. */
int move_table_crc(struct pa_mover *m, size_t k, uint64_t n, uint32_t *crc);
/* Write progress record @r to its slot (seq % 2) and fdatasync the journal. */
int move_write_prog(struct pa_mover *m, const struct pa_jprog *r);

#endif
