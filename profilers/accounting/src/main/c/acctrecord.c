/*
 * acctrecord.c - the text of an accounting record (acctrecord.h).
 *
 * What the Java model writes, and so what this writes too:
 *   - numbers with decimals: the shortest decimal that reads back as the double (Java's
 *     Double.toString digits), rounded half up to the field's decimals, without trailing zeros or
 *     an exponent ("0" for zero and for a value that is not finite);
 *   - strings: '"' and '\' escaped, \b \t \n \f \r, other control characters as \u00XX
 *     (upper-case hex), everything else as it is (UTF-8); a byte that is not part of valid UTF-8
 *     becomes U+FFFD, as the Java side would have decoded it;
 *   - times: yyyy-mm-ddThh:mm:ssZ (UTC, whole seconds).
 */
#include "acctrecord.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---------------------------------------------------------------- the output buffer */

/* Appends what fits and counts everything, so that the caller learns the length it needed. */
struct acct_out {
    char *p;
    size_t cap, len;
};

static void out_bytes(struct acct_out *o, const char *s, size_t n)
{
    if (o->len < o->cap) {
        size_t room = o->cap - o->len;
        memcpy(o->p + o->len, s, n < room ? n : room);
    }
    o->len += n;
}

static void out_text(struct acct_out *o, const char *s)
{
    out_bytes(o, s, strlen(s));
}

static void out_char(struct acct_out *o, char c)
{
    out_bytes(o, &c, 1);
}

static void out_finish(struct acct_out *o)
{
    if (o->cap > 0) {
        o->p[o->len < o->cap ? o->len : o->cap - 1] = 0;
    }
}

/* ---------------------------------------------------------------- numbers */

/* The shortest %e text that reads back as v: its digits (no sign, no point) and decimal exponent. */
static int shortest_digits(double v, char *digits, int *e10)
{
    char sci[40];
    for (int precision = 1; precision <= 17; precision++) {
        snprintf(sci, sizeof sci, "%.*e", precision - 1, v);
        if (strtod(sci, NULL) == v) {
            break;
        }
    }
    int n = 0;
    const char *s = sci[0] == '-' ? sci + 1 : sci;
    for (; *s && *s != 'e'; s++) {
        if (*s >= '0' && *s <= '9') {
            digits[n++] = *s;
        }
    }
    *e10 = *s == 'e' ? atoi(s + 1) : 0;
    return n;
}

size_t acct_decimal(double v, int scale, char *buf, size_t cap)
{
    struct acct_out o = {buf, cap, 0};
    char d[24];
    int e10 = 0;
    int n = isfinite(v) && v != 0 ? shortest_digits(v, d, &e10) : 0;
    /* v = 0.d[0]d[1]... x 10^(e10 + 1): keep the digits down to 10^-scale, half up. */
    int keep = e10 + 1 + scale;
    if (n > 0 && keep < n) {
        int up = keep >= 0 && d[keep] >= '5';
        n = keep > 0 ? keep : 0;
        if (up) {
            int i = n - 1;
            while (i >= 0 && d[i] == '9') {
                d[i--] = '0';
            }
            if (i >= 0) {
                d[i]++;
            } else {
                memmove(d + 1, d, (size_t)n);
                d[0] = '1';
                n++;
                e10++;
            }
        }
    }
    while (n > 0 && d[n - 1] == '0') {
        n--;
    }
    if (n == 0) {
        out_char(&o, '0');
        out_finish(&o);
        return o.len;
    }
    if (v < 0) {
        out_char(&o, '-');
    }
    int whole = e10 + 1; /* digits before the point */
    if (whole <= 0) {
        out_text(&o, "0.");
        for (int i = 0; i < -whole; i++) {
            out_char(&o, '0');
        }
        out_bytes(&o, d, (size_t)n);
    } else if (whole >= n) {
        out_bytes(&o, d, (size_t)n);
        for (int i = n; i < whole; i++) {
            out_char(&o, '0');
        }
    } else {
        out_bytes(&o, d, (size_t)whole);
        out_char(&o, '.');
        out_bytes(&o, d + whole, (size_t)(n - whole));
    }
    out_finish(&o);
    return o.len;
}

static void out_decimal(struct acct_out *o, double v, int scale)
{
    char text[400];
    size_t n = acct_decimal(v, scale, text, sizeof text);
    out_bytes(o, text, n < sizeof text ? n : sizeof text - 1);
}

static void out_unsigned(struct acct_out *o, uint64_t v)
{
    char text[24];
    /* The Java side reads 64-bit signed integers: larger sums stay at the largest. */
    int n = snprintf(text, sizeof text, "%llu", (unsigned long long)(v > INT64_MAX ? INT64_MAX : v));
    out_bytes(o, text, (size_t)n);
}

/* ---------------------------------------------------------------- strings */

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0. */
static int utf8_length(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    int len;
    unsigned min;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        min = 0x10000;
    } else {
        return 0;
    }
    if ((size_t)len > n) {
        return 0;
    }
    unsigned cp = c & (0x7Fu >> len);
    for (int i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) {
            return 0;
        }
        cp = cp << 6 | (s[i] & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        return 0;
    }
    return len;
}

static void out_string(struct acct_out *o, const char *text)
{
    static const char hex[] = "0123456789ABCDEF";
    const unsigned char *s = (const unsigned char *)text;
    size_t n = strlen(text);
    out_char(o, '"');
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            out_bytes(o, e, 2);
        } else if (c < 0x20) {
            const char *shortform = c == '\b' ? "\\b" : c == '\t' ? "\\t" : c == '\n' ? "\\n"
                                  : c == '\f' ? "\\f" : c == '\r' ? "\\r" : NULL;
            if (shortform) {
                out_text(o, shortform);
            } else {
                char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
                out_bytes(o, e, 6);
            }
        } else if (c < 0x80) {
            out_char(o, (char)c);
        } else {
            int len = utf8_length(s + i, n - i);
            if (len) {
                out_bytes(o, (const char *)s + i, (size_t)len);
                i += (size_t)len;
                continue;
            }
            out_text(o, "\xEF\xBF\xBD");
        }
        i++;
    }
    out_char(o, '"');
}

static void out_key(struct acct_out *o, const char *key)
{
    if (o->len > 1) {
        out_char(o, ',');
    }
    out_char(o, '"');
    out_text(o, key);
    out_text(o, "\":");
}

static void out_time(struct acct_out *o, int64_t unix_seconds)
{
    time_t t = (time_t)unix_seconds;
    struct tm tm;
    char text[64];
    if (!gmtime_r(&t, &tm)) {
        memset(&tm, 0, sizeof tm);
    }
    snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
             tm.tm_hour, tm.tm_min, tm.tm_sec);
    out_string(o, text);
}

/* ---------------------------------------------------------------- the record */

struct acct_rank {
    const char *name;
    double seconds;
    uint64_t calls;
};

static int by_time(const void *a, const void *b)
{
    const struct acct_rank *x = a, *y = b;
    if (x->seconds != y->seconds) {
        return x->seconds > y->seconds ? -1 : 1;
    }
    if (x->calls != y->calls) {
        return x->calls > y->calls ? -1 : 1;
    }
    return strcmp(x->name, y->name);
}

int acct_pick_top(int n, const char *const *names, const double *seconds, const uint64_t *calls,
                  struct acct_top *top)
{
    /* The best ACCT_TOP so far, in order: one pass, no allocation. */
    struct acct_rank best[ACCT_TOP + 1];
    int nbest = 0;
    for (int f = 0; f < n; f++) {
        if (calls[f] == 0 || !names[f]) {
            continue;
        }
        struct acct_rank c = {names[f], seconds[f], calls[f]};
        int at = nbest;
        while (at > 0 && by_time(&c, &best[at - 1]) < 0) {
            at--;
        }
        if (at >= ACCT_TOP) {
            continue;
        }
        memmove(best + at + 1, best + at, sizeof best[0] * (size_t)(nbest - at));
        best[at] = c;
        if (nbest < ACCT_TOP) {
            nbest++;
        }
    }
    for (int i = 0; i < nbest; i++) {
        top[i].function = best[i].name;
        top[i].seconds = best[i].seconds;
        top[i].calls = best[i].calls;
    }
    return nbest;
}

size_t acct_json(const struct acct_record *r, char *buf, size_t cap)
{
    struct acct_out o = {buf, cap, 0};
    out_char(&o, '{');
    out_key(&o, "schema");
    out_string(&o, ACCT_SCHEMA);
    out_key(&o, "job");
    out_string(&o, r->job);
    if (r->step) {
        out_key(&o, "step");
        out_string(&o, r->step);
    }
    out_key(&o, "user");
    out_string(&o, r->user);
    out_key(&o, "exe");
    out_string(&o, r->exe);
    if (r->host) {
        out_key(&o, "host");
        out_string(&o, r->host);
    }
    if (r->mpi) {
        out_key(&o, "mpi");
        out_string(&o, r->mpi);
    }
    if (r->has_start) {
        out_key(&o, "start");
        out_time(&o, r->start);
    }
    out_key(&o, "end");
    out_time(&o, r->end);
    out_key(&o, "wall_s");
    out_decimal(&o, r->wall_s, 3);
    char n[16];
    out_key(&o, "ranks");
    snprintf(n, sizeof n, "%d", r->ranks);
    out_text(&o, n);
    out_key(&o, "nodes");
    snprintf(n, sizeof n, "%d", r->nodes);
    out_text(&o, n);
    out_key(&o, "core_h");
    out_decimal(&o, r->core_h, 6);
    out_key(&o, "mpi_pct");
    out_decimal(&o, r->mpi_pct, 2);
    out_key(&o, "top");
    out_char(&o, '[');
    for (int i = 0; i < r->ntop; i++) {
        out_text(&o, i ? ",[" : "[");
        out_string(&o, r->top[i].function);
        out_char(&o, ',');
        out_decimal(&o, r->top[i].seconds, 6);
        if (r->samples < 0) {
            out_char(&o, ',');
            out_unsigned(&o, r->top[i].calls);
        }
        out_char(&o, ']');
    }
    out_char(&o, ']');
    if (r->samples >= 0) {
        out_key(&o, "samples");
        out_unsigned(&o, (uint64_t)r->samples);
    }
    if (r->has_hwc) {
        out_key(&o, "hwc");
        out_text(&o, r->hardware ? "{\"hardware\":true,\"events\":{" : "{\"hardware\":false,\"events\":{");
        for (int e = 0; e < r->nevents; e++) {
            if (e) {
                out_char(&o, ',');
            }
            out_string(&o, r->events[e].name);
            out_text(&o, ":{\"total\":");
            out_unsigned(&o, r->events[e].total);
            out_text(&o, ",\"mpi\":");
            out_unsigned(&o, r->events[e].mpi);
            out_char(&o, '}');
        }
        out_text(&o, "}}");
    }
    if (!isnan(r->acct_ms)) {
        out_key(&o, "acct_ms");
        out_decimal(&o, r->acct_ms, 1);
    }
    out_char(&o, '}');
    out_finish(&o);
    return o.len;
}

size_t acct_line(const struct acct_record *r, char *buf, size_t cap, int *dropped)
{
    *dropped = 0;
    size_t n = acct_json(r, buf, cap);
    if (n + 1 > ACCT_MAX_RECORD && r->has_hwc) {
        struct acct_record bare = *r;
        bare.has_hwc = 0;
        *dropped = 1;
        n = acct_json(&bare, buf, cap);
    }
    if (n + 1 < cap) {
        buf[n] = '\n';
        buf[n + 1] = 0;
    }
    return n + 1;
}
