/* entry.c - parsing the entry list (JPMPI_TOOLS_ENTRY / OMPI_MCA_ompi_tools_entry). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jpmpi_core.h"

static int is_keyword(const char *s, const char *kw)
{
    return strcmp(s, kw) == 0;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* A bare library name: letters, digits, '_', '-', '+', '.'; no '/' and no '='. */
static int is_bare_name(const char *s)
{
    for (; *s; s++) {
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-' && *s != '+' && *s != '.') {
            return 0;
        }
    }
    return 1;
}

static int add_level(struct jpmpi_entry_list *out, enum jpmpi_item_kind kind, const char *text, int pos,
                     char *err, size_t errlen)
{
    if (out->count == JPMPI_MAX_LEVELS) {
        snprintf(err, errlen, "item %d '%s': more than %d levels (JPMPI_MAX_LEVELS)", pos, text, JPMPI_MAX_LEVELS);
        return -1;
    }
    struct jpmpi_item *it = &out->items[out->count++];
    it->kind = kind;
    it->text = strdup(text);
    it->position = pos;
    return it->text ? 0 : -1;
}

static int parse_item(char *item, int pos, struct jpmpi_entry_list *out, int *fort_seen, char *err, size_t errlen)
{
    if (*item == '\0') {
        snprintf(err, errlen, "item %d is empty (two commas in a row, or a comma at an end)", pos);
        return -1;
    }
    if (is_keyword(item, "v") || is_keyword(item, "vv")) {
        int level = (int)strlen(item);
        out->verbose = out->verbose > level ? out->verbose : level;
        return 0;
    }
    if (is_keyword(item, "fort") || is_keyword(item, "fortran")) {
        if ((*fort_seen)++) {
            snprintf(err, errlen, "item %d '%s': the Fortran layer is placed twice", pos, item);
            return -1;
        }
        out->fort_pos = out->count;
        return 0;
    }
    if (is_keyword(item, "preload")) {
        out->preload = 1;
        return 0;
    }
    if (ends_with(item, ".jar")) {
        return add_level(out, JPMPI_ITEM_JAR, item, pos, err, errlen);
    }
    if (strchr(item, '/') || strstr(item, ".so") || is_bare_name(item)) {
        return add_level(out, JPMPI_ITEM_C, item, pos, err, errlen);
    }
    snprintf(err, errlen, "item %d '%s': unknown keyword (keywords: v, vv, fort, fortran, preload; "
             "levels: path/to/libtool.so, a bare library name, tool.jar)", pos, item);
    return -1;
}

int jpmpi_entry_parse(const char *text, struct jpmpi_entry_list *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (text == NULL) {
        return 0;
    }
    char *copy = strdup(text);
    if (copy == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    /* An empty or all-blank list means "no levels", not an error. */
    int blank = 1;
    for (const char *p = copy; *p; p++) {
        blank &= isspace((unsigned char)*p) != 0;
    }
    int rc = 0, fort_seen = 0, pos = 0;
    char *cursor = copy;
    while (!blank && rc == 0) {
        char *comma = strchr(cursor, ',');
        if (comma) {
            *comma = '\0';
        }
        char *item = cursor;
        while (isspace((unsigned char)*item)) {
            item++;
        }
        char *end = item + strlen(item);
        while (end > item && isspace((unsigned char)end[-1])) {
            *--end = '\0';
        }
        rc = parse_item(item, ++pos, out, &fort_seen, err, errlen);
        if (!comma) {
            break;
        }
        cursor = comma + 1;
    }
    free(copy);
    if (rc != 0) {
        jpmpi_entry_free(out);
    }
    return rc;
}

void jpmpi_entry_free(struct jpmpi_entry_list *list)
{
    for (int i = 0; i < list->count; i++) {
        free(list->items[i].text);
        list->items[i].text = NULL;
    }
    list->count = 0;
}
