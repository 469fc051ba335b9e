/*
 * partalign rules: paths under --root, and the warnings that do not stop a
 * rules file -- owner and group names the target system lacks, Oracle's own
 * ASM drivers installed beside the rules, and other rules files (or udev's
 * database) that claim the same /dev/oracleasm links.  Split from
 * cmd-rules.c; see there.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/rules-warn.h"
#include "core/rules.h"
#include "shared/fileio.h"

/* "ROOT" + "PATH", PATH absolute. */
char *rules_rooted(const char *root, const char *path)
{
	char *s;

	if (!root)
		return strdup(path);
	if (asprintf(&s, "%s%s", root, path) < 0)
		return NULL;
	return s;
}

/* A name that is all digits: a numeric uid or gid. */
bool rules_numeric(const char *s)
{
	return strspn(s, "0123456789") == strlen(s);
}

void rules_warn_accounts(const struct rules_set *s, const char *root)
{
	char *passwd = NULL, *group = NULL, *pf = NULL, *gf = NULL;
	size_t i, j;

	if (root) {
		pf = rules_rooted(root, "/etc/passwd");
		gf = rules_rooted(root, "/etc/group");
		if (!pf || !gf)
			goto out;
		if (read_text(pf, FILE_MAX, &passwd) < 0)
			msg_warn(pf, "cannot read it: owners not checked");
		if (read_text(gf, FILE_MAX, &group) < 0)
			msg_warn(gf, "cannot read it: groups not checked");
	}
	for (i = 0; i < s->n; i++) {
		const struct rules_rule *r = &s->v[i];
		bool seen_o = false, seen_g = false;

		for (j = 0; j < i; j++) {
			seen_o |= strcmp(s->v[j].owner, r->owner) == 0;
			seen_g |= strcmp(s->v[j].group, r->group) == 0;
		}
		if (!seen_o && !rules_numeric(r->owner) &&
		    (root ? passwd && !rules_dbfile_has(passwd, r->owner)
			  : !getpwnam(r->owner)))
			msg_warn(NULL,
				 "user %s does not exist on the target system (%s): udev "
				 "leaves "
				 "the devices owned by root until it does",
				 r->owner, root ? pf : "passwd");
		if (!seen_g && !rules_numeric(r->group) &&
		    (root ? group && !rules_dbfile_has(group, r->group)
			  : !getgrnam(r->group)))
			msg_warn(
			    NULL,
			    "group %s does not exist on the target system (%s): udev "
			    "leaves the devices in group root until it does",
			    r->group, root ? gf : "group");
	}
out:
	free(passwd);
	free(group);
	free(pf);
	free(gf);
}

static bool exists_in(const char *root, const char *path, char **found)
{
	char *p = rules_rooted(root, path);
	struct stat st;

	if (p && lstat(p, &st) == 0) {
		*found = p;
		return true;
	}
	free(p);
	return false;
}

/* ASMLib mounts its own filesystem on /dev/oracleasm; the filter driver labels disks
 * itself. */
void rules_warn_oracle_drivers(const char *root)
{
	static const char *const asmlib[] = {
	    "/usr/sbin/oracleasm", "/etc/sysconfig/oracleasm", "/etc/init.d/oracleasm",
	    "/sys/module/oracleasm", NULL};
	static const char *const afd[] = {"/etc/afd.conf", "/etc/oracleafd.conf",
					  "/sys/module/oracleafd", "/dev/oracleafd",
					  NULL};
	const char *const *p;
	char *found = NULL;

	for (p = asmlib; *p; p++) {
		if (root && strncmp(*p, "/sys/", 5) == 0)
			continue;
		if (exists_in(root, *p, &found)) {
			msg_warn(
			    found,
			    "ASMLib is present: it mounts its own filesystem on /dev/%s, "
			    "where these links also go; use ASMLib or udev rules, not "
			    "both",
			    RULES_LINK_DIR);
			free(found);
			break;
		}
	}
	for (p = afd; *p; p++) {
		if (root &&
		    (strncmp(*p, "/sys/", 5) == 0 || strncmp(*p, "/dev/", 5) == 0))
			continue;
		if (exists_in(root, *p, &found)) {
			msg_warn(found,
				 "the ASM Filter Driver is present: it labels and guards "
				 "disks "
				 "itself; udev rules for the same disks work against it");
			free(found);
			break;
		}
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Other rules files that claim one of our links or match one of our devices. */
void rules_warn_claims(const struct rules_set *s, const char *root, const char *target)
{
	static const char *const dirs[] = {"/etc/udev/rules.d", "/run/udev/rules.d",
					   "/usr/lib/udev/rules.d", "/lib/udev/rules.d",
					   NULL};
	const char *tbase = strrchr(target, '/') ? strrchr(target, '/') + 1 : target;
	struct stat seen[4];
	size_t nseen = 0, k;
	const char *const *d;

	for (d = dirs; *d; d++) {
		char *dir = rules_rooted(root, *d);
		char **names = NULL;
		size_t n = 0, cap = 0, i;
		struct dirent *de;
		struct stat st;
		bool dup = false;
		DIR *dh;

		if (!dir || (root && strcmp(*d, "/run/udev/rules.d") == 0) ||
		    stat(dir, &st) < 0) {
			free(dir);
			continue;
		}
		/* /lib is often a link to /usr/lib */
		for (k = 0; k < nseen; k++)
			dup |= seen[k].st_dev == st.st_dev && seen[k].st_ino == st.st_ino;
		if (dup || !(dh = opendir(dir))) {
			free(dir);
			continue;
		}
		seen[nseen++] = st;
		while ((de = readdir(dh))) {
			size_t len = strlen(de->d_name);
			char **v;

			if (len < 7 || strcmp(de->d_name + len - 6, ".rules") != 0 ||
			    strcmp(de->d_name, tbase) == 0)
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 32;
				v = realloc(names, cap * sizeof(*v));
				if (!v)
					break;
				names = v;
			}
			if (!(names[n] = strdup(de->d_name)))
				break;
			n++;
		}
		closedir(dh);
		if (n) /* names is NULL in a directory without other rules */
			qsort(names, n, sizeof(*names), cmp_str);
		for (i = 0; i < n; i++) {
			struct rules_claim *c = NULL;
			char *path = NULL, *text = NULL;
			size_t nc = 0, j;

			if (asprintf(&path, "%s/%s", dir, names[i]) < 0)
				continue;
			if (read_text(path, FILE_MAX, &text) == 0 &&
			    rules_find_claims(text, s, &c, &nc) == 0) {
				for (j = 0; j < nc; j++) {
					const struct rules_rule *r = &s->v[c[j].rule];

					if (c[j].link)
						msg_warn(
						    NULL,
						    "%s:%zu also creates /dev/%s/%s: two "
						    "files fight over one link",
						    path, c[j].line, RULES_LINK_DIR,
						    r->name);
					else
						msg_warn(NULL,
							 "%s:%zu also matches %s=%s, the "
							 "device named %s here",
							 path, c[j].line,
							 rules_rule_key(r), r->value,
							 r->name);
				}
			}
			free(c);
			free(text);
			free(path);
		}
		rules_strv_free(names, n);
		free(dir);
	}
}
