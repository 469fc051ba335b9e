/*
 * An unfinished data move as the audit sees it (struct pa_move_state in
 * device.h, one per whole disk that has one): gathered from udev's database
 * here, from the disk's table by the scanner (--probe), from a journal by
 * the cli; and turned into rows and words.  Pure: the device list and
 * numbers in, state and text out.
 *
 * Ownership: a whole disk's ->move belongs to it (device_free frees it).
 * device.c, which frees it, knows nothing of this file (no call circle).
 */
#ifndef PARTALIGN_MOVESTATE_H
#define PARTALIGN_MOVESTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/device.h"

/*
 * @w's state, made (seen NONE) when it has none; NULL without memory.  A
 * state already seen stays seen: a marker outranks a journal.
 */
struct pa_move_state *move_state_of(struct pa_dev *w);

/* Record partition @p (bytes; @to 0 when unknown) in @s, once per number. */
int move_state_add_part(struct pa_move_state *s, const struct pa_move_part *p);

/* The moving partition @num of @s, or NULL. */
const struct pa_move_part *move_state_part(const struct pa_move_state *s,
					   unsigned int num);

/*
 * What udev's database tells of every whole disk of @l: a disk GUID that is
 * the marker's (core/marker.h), or a partition whose entry type is the
 * marker's (an earlier build's form: its id in the name, or a dos disk's
 * PARTUUID).  0 or -ENOMEM.
 */
int move_state_from_udev(const struct pa_devlist *l);

/*
 * A row for each moving partition @w's state knows that the kernel does not
 * have (the marker hides it): a partition device marked kernel_missing, at
 * its old place, added to @l.  0 or -ENOMEM.
 */
int move_state_add_rows(struct pa_devlist *l, struct pa_dev *w);

/* The move id as the disk or the journal tells it: 16 hex digits, or 8 (dos). */
const char *move_state_id(const struct pa_move_state *s, char *buf, size_t len);

/*
 * The clause a row of disk @w (the disk itself, or partition @d of it, or
 * NULL for the disk) carries: what the move is and the command that
 * finishes it.  Into @buf; the text's length.
 */
size_t move_state_text(const struct pa_dev *w, const struct pa_dev *d, char *buf,
		       size_t len);

#endif
