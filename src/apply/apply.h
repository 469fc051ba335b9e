/* The write path (not written yet). */
#ifndef PARTALIGN_APPLY_H
#define PARTALIGN_APPLY_H
#endif
