/*
 * A device's sysfs attributes (scan/sysattr.c), read relative to the
 * descriptor of its directory; nothing here allocates but sysattr_dup and
 * sysattr_names, whose strings the caller frees.
 */
#ifndef PARTALIGN_SCAN_SYSATTR_H
#define PARTALIGN_SCAN_SYSATTR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/device.h"

/* A decimal attribute; false when absent, empty or not a number. */
bool sysattr_u64(int dfd, const char *attr, uint64_t *v);
bool sysattr_s64(int dfd, const char *attr, int64_t *v);
bool sysattr_exists(int dfd, const char *attr);
/* Copy a string attribute, NULL when absent or empty. */
char *sysattr_dup(int dfd, const char *attr);
/* File @path below @dirfd into @buf (empty when unreadable), cut at @len - 1. */
void sysattr_read_file(int dirfd, const char *path, char *buf, size_t len);
/* The topology of a whole device, the kernel's defaults for what is missing. */
void sysattr_topology(int syspath, struct pa_topology *t);
/* Names in directory @sub of the device (holders/, slaves/), space-separated. */
int sysattr_names(int dfd, const char *sub, char **list);

#endif
