/*
 * The trust check on the command line: its wording, the refusal of the
 * directories a command was given, the PARTALIGN_TOOLDIR warning.
 */
#include "config.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/trusted.h"
#include "core/exitcodes.h"
#include "shared/spawn.h"

/* "uid 65534 (nobody)", or "uid 1234" for a uid without a name. */
static void owner_text(uid_t uid, char *buf, size_t len)
{
	struct passwd pw, *res = NULL;
	char sbuf[1024];

	if (getpwuid_r(uid, &pw, sbuf, sizeof(sbuf), &res) == 0 && res)
		snprintf(buf, len, "uid %u (%s)", (unsigned)uid, res->pw_name);
	else
		snprintf(buf, len, "uid %u", (unsigned)uid);
}

static char *why_text(const struct trust_fail *f)
{
	unsigned mode = (unsigned)(f->mode & 07777);
	char who[300];
	char *s = NULL;
	int rc = -1;

	switch (f->why) {
	case TRUST_OK:
		rc = asprintf(&s, "%s is trusted", f->path);
		break;
	case TRUST_OWNER:
		owner_text(f->uid, who, sizeof(who));
		rc = asprintf(&s, "%s is owned by %s, not root", f->path, who);
		break;
	case TRUST_GROUP_WRITE:
		rc = asprintf(&s, "%s is writable by its group (mode %04o)", f->path,
			      mode);
		break;
	case TRUST_OTHER_WRITE:
		rc = asprintf(&s, "%s is writable by others (mode %04o)", f->path, mode);
		break;
	case TRUST_NOT_DIR:
		rc = asprintf(&s, "%s is %s", f->path,
			      S_ISLNK(f->mode)
				  ? "a symbolic link (to a file), not a directory"
				  : "not a directory");
		break;
	case TRUST_NOT_FILE:
		rc = asprintf(&s, "%s is %s", f->path,
			      S_ISLNK(f->mode)	 ? "a symbolic link"
			      : S_ISDIR(f->mode) ? "a directory"
						 : "not a regular file");
		break;
	case TRUST_LINK_OWNER:
		owner_text(f->uid, who, sizeof(who));
		rc = asprintf(&s, "%s is a symbolic link owned by %s, not root", f->path,
			      who);
		break;
	case TRUST_ERROR:
		rc = asprintf(&s, "%s cannot be checked: %s", f->path, strerror(f->err));
		break;
	}
	return rc < 0 ? NULL : s;
}

char *cli_trust_text(const char *given, const struct trust_fail *f)
{
	char *why = why_text(f), *s = NULL;

	if (!why)
		return NULL;
	if (!given || strcmp(given, f->path) == 0)
		return why;
	if (asprintf(&s, "%s: %s", given, why) < 0)
		s = NULL;
	free(why);
	return s;
}

const char *cli_trust_rule(const struct trust_fail *f)
{
	/* a link on the way is judged on the way to a directory */
	return S_ISDIR(f->mode) || f->why == TRUST_NOT_DIR || f->why == TRUST_LINK_OWNER
		   ? TRUST_DIR_RULE
		   : TRUST_FILE_RULE;
}

/* cli_trust_refuse(), the line into @log too */
static void refuse(struct msg_log *log, const char *device, const char *given,
		   const struct trust_fail *f, const char *rule)
{
	char *t = cli_trust_text(given, f);

	msg_log_err(log, device, t ? 0 : ENOMEM, "refused: %s; %s", t ? t : given, rule);
	free(t);
}

void cli_trust_refuse(const char *device, const char *given, const struct trust_fail *f,
		      const char *rule)
{
	refuse(NULL, device, given, f, rule);
}

int cli_trust_dirs(struct msg_log *log, const char *const *dirs, size_t n)
{
	struct trust_fail f;
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		if (!dirs[i])
			continue;
		rc = trust_dir_open(dirs[i], 0, NULL, &f);
		if (rc == 0 || rc == -ENOENT)
			continue;
		if (rc == -EPERM)
			refuse(log, NULL, dirs[i], &f, TRUST_DIR_RULE);
		else
			msg_log_err(log, NULL, f.err, "refused: %s cannot be checked",
				    f.path);
		return PA_EXIT_ERROR;
	}
	return PA_EXIT_OK;
}

void cli_trust_tooldir(void)
{
	struct trust_fail f;
	char *t;

	if (spawn_tooldir(&f) || f.why == TRUST_OK)
		return;
	t = cli_trust_text(getenv(SPAWN_TOOLDIR_ENV), &f);
	msg_warn(NULL,
		 "PARTALIGN_TOOLDIR ignored: %s; the programs partalign runs come "
		 "from " SPAWN_PATH " only",
		 t ? t : getenv(SPAWN_TOOLDIR_ENV));
	free(t);
}
