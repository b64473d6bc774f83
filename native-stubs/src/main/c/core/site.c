/*
 * site.c - the site's tools: a configuration file (JPMPI_SITE_CONFIG, else the installation's
 * etc/jpmpi/site.conf) naming tools that every job gets below its own entry list, whichever way
 * jpmpi was switched on (the one preload, bin/jpmpi run, a user's own LD_PRELOAD):
 *
 *   tools = accounting                      built-in names (lib<mpi>/libjpmpi-NAME.so beside this
 *                                           dispatcher), library paths, bare library names, jars
 *   opt-out = allowed | forbidden           may a job say JPMPI_SITE_TOOLS=off? (default allowed)
 *   set JPMPI_ACCOUNTING_FILE = unix:/run/jpmpi/accounting.sock   a JPMPI_ setting for them
 *
 * A site's mistake never stops a job: it is one line on stderr and the site's tools are left out.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "jpmpi_core.h"
#include "jpmpi_settings.h"

#define MAX_SETS 16

struct config {
    char tools[1024];
    int forbid_opt_out;
    int nsets;
    char set_name[MAX_SETS][128];
    char set_value[MAX_SETS][1024];
};

static void say(const struct jpmpi_site *site, int line, const char *what)
{
    if (line > 0) {
        dprintf(STDERR_FILENO, "jpmpi: site configuration %s:%d: %s; the site's tools are left out\n", site->file,
                line, what);
    } else {
        dprintf(STDERR_FILENO, "jpmpi: site configuration %s: %s; the site's tools are left out\n", site->file, what);
    }
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s)) {
        s++;
    }
    char *end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1])) {
        *--end = '\0';
    }
    return s;
}

/* One line "key = value" (or "set NAME = value"); 0, or -1 after saying why. */
static int parse_line(const struct jpmpi_site *site, int number, char *line, struct config *c)
{
    char *eq = strchr(line, '=');
    if (eq == NULL) {
        say(site, number, "not 'key = value' (keys: tools, opt-out, set NAME)");
        return -1;
    }
    *eq = '\0';
    char *key = trim(line), *value = trim(eq + 1);
    if (strcmp(key, "tools") == 0) {
        snprintf(c->tools, sizeof c->tools, "%s", value);
    } else if (strcmp(key, "opt-out") == 0) {
        if (strcmp(value, "allowed") != 0 && strcmp(value, "forbidden") != 0) {
            say(site, number, "opt-out is 'allowed' or 'forbidden'");
            return -1;
        }
        c->forbid_opt_out = strcmp(value, "forbidden") == 0;
    } else if (strncmp(key, "set", 3) == 0 && isspace((unsigned char)key[3])) {
        char *name = trim(key + 3);
        if (strncmp(name, "JPMPI_", 6) != 0 || strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != strlen(name)
            || strlen(name) >= sizeof c->set_name[0] || strlen(value) >= sizeof c->set_value[0]) {
            say(site, number, "set names a JPMPI_ variable (upper case, digits, _)");
            return -1;
        }
        if (c->nsets == MAX_SETS) {
            say(site, number, "more than 16 set lines");
            return -1;
        }
        snprintf(c->set_name[c->nsets], sizeof c->set_name[0], "%s", name);
        snprintf(c->set_value[c->nsets++], sizeof c->set_value[0], "%s", value);
    } else {
        say(site, number, "unknown key (keys: tools, opt-out, set NAME)");
        return -1;
    }
    return 0;
}

/* 1: read into `c`; 0: no configuration; -1: a bad one (said). */
static int read_config(struct jpmpi_site *site, struct config *c)
{
    const char *named = getenv(JPMPI_SETTING_SITE_CONFIG);
    if (named && *named) {
        snprintf(site->file, sizeof site->file, "%s", named);
    } else if (jpmpi_install_path(JPMPI_LAYOUT_SITE_CONFIG, site->file, sizeof site->file) != 0) {
        site->file[0] = '\0';
        return 0;
    }
    FILE *f = fopen(site->file, "re");
    if (f == NULL) {
        if (named && *named) {
            say(site, 0, strerror(errno)); /* a site that names a file means it */
            return -1;
        }
        site->file[0] = '\0';
        return 0;
    }
    char line[2048];
    int number = 0, rc = 1;
    while (rc == 1 && fgets(line, sizeof line, f)) {
        number++;
        char *text = trim(line);
        if (*text != '\0' && *text != '#' && parse_line(site, number, text, c) != 0) {
            rc = -1;
        }
    }
    fclose(f);
    return rc;
}

/* The library `item` names, for comparing with the job's: a built-in name becomes its file beside
 * this dispatcher. */
static void resolve_tool(const char *item, char *out, size_t outlen)
{
    char self[PATH_MAX];
    if (strchr(item, '/') == NULL && strstr(item, ".so") == NULL && strstr(item, ".jar") == NULL
        && jpmpi_install_path("lib", self, sizeof self) == 0) {
        int n = snprintf(out, outlen, "%s/%s/libjpmpi-%s.so", self, jpmpi_impl_id, item);
        if (n > 0 && (size_t)n < outlen && access(out, R_OK) == 0) {
            return;
        }
    }
    snprintf(out, outlen, "%s", item);
}

/* Does the job's list name the same file already? */
static int listed(const struct jpmpi_entry_list *list, const char *path)
{
    char mine[PATH_MAX], theirs[PATH_MAX];
    if (realpath(path, mine) == NULL) {
        return 0;
    }
    for (int k = 0; k < list->count; k++) {
        if (realpath(list->items[k].text, theirs) && strcmp(mine, theirs) == 0) {
            return 1;
        }
    }
    return 0;
}

void jpmpi_site_add(struct jpmpi_entry_list *list, struct jpmpi_site *site)
{
    memset(site, 0, sizeof *site);
    static struct config c;
    memset(&c, 0, sizeof c);
    if (read_config(site, &c) <= 0) {
        return;
    }
    const char *off = getenv(JPMPI_SETTING_SITE_TOOLS);
    if (off && (strcmp(off, "off") == 0 || strcmp(off, "OFF") == 0 || strcmp(off, "no") == 0 || strcmp(off, "0") == 0)) {
        if (!c.forbid_opt_out) {
            site->opted_out = 1;
            return;
        }
        site->refused = 1;
    }
    /* the items first, so that a bad one leaves the job's list as it was */
    struct jpmpi_entry_list add;
    char err[512];
    if (jpmpi_entry_parse(c.tools, &add, err, sizeof err) != 0) {
        say(site, 0, err);
        return;
    }
    if (add.verbose || add.preload || add.fort_pos != 0) {
        say(site, 0, "tools takes tools only (no v, vv, fort, preload)");
        jpmpi_entry_free(&add);
        return;
    }
    char path[PATH_MAX];
    for (int k = 0; k < add.count; k++) {
        resolve_tool(add.items[k].text, path, sizeof path);
        if (listed(list, path)) {
            continue; /* the job has it: one level, the job's place */
        }
        if (list->count == JPMPI_MAX_LEVELS) {
            say(site, 0, "the job's levels and the site's are more than JPMPI_MAX_LEVELS");
            break;
        }
        struct jpmpi_item *it = &list->items[list->count];
        it->kind = add.items[k].kind;
        it->text = strdup(path);
        it->position = add.items[k].position;
        it->site = 1;
        if (it->text) {
            list->count++;
            site->added++;
        }
    }
    jpmpi_entry_free(&add);
    for (int i = 0; i < c.nsets; i++) {
        setenv(c.set_name[i], c.set_value[i], 1);
    }
}
