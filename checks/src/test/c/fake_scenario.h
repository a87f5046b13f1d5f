/*
 * What the project's fake GPU libraries (fake_nvml.c, fake_amdsmi.c) share: a small JSON reader
 * for their scenarios, the loader's helpers that turn JSON into values with FILE:LINE:COL errors,
 * finding the scenario (an environment variable, else scenario.json beside the library), and the
 * per-call return/delay overrides. Each fake includes this header; its functions are static, so
 * each library has its own copy and they never meet.
 */
#ifndef FAKE_SCENARIO_H
#define FAKE_SCENARIO_H

#define _GNU_SOURCE /* dladdr */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Every helper here is static: a fake that does not use one must not fail -Werror over it. */
#define FAKE_HELPER static __attribute__((unused))

/* A value the scenario may or may not give: absent answers the library's "not supported". */
typedef struct { int present; unsigned long long v; } opt_u64;

/* ---------------------------------------------------------------- a small JSON reader */

typedef enum { J_NULL, J_BOOL, J_NUMBER, J_STRING, J_ARRAY, J_OBJECT } jtype;

typedef struct jvalue {
    jtype type;
    int line, col;
    int boolean;
    double number;
    int negative, integral;
    unsigned long long u64;
    char *string;
    struct jvalue **items;      /* array items or object values */
    char **keys;                /* object keys */
    int count;
} jvalue;

typedef struct {
    const char *text;
    size_t pos, len;
    int line, col;
    char error[256];
} jparser;

FAKE_HELPER void jfail(jparser *p, const char *fmt, ...) {
    if (p->error[0]) {
        return;
    }
    char what[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(p->error, sizeof p->error, "line %d column %d: %s", p->line, p->col, what);
}

FAKE_HELPER int jpeek(jparser *p) {
    return p->pos < p->len ? (unsigned char) p->text[p->pos] : -1;
}

FAKE_HELPER int jnext(jparser *p) {
    if (p->pos >= p->len) {
        return -1;
    }
    int c = (unsigned char) p->text[p->pos++];
    if (c == '\n') {
        p->line++;
        p->col = 1;
    } else {
        p->col++;
    }
    return c;
}

FAKE_HELPER void jspace(jparser *p) {
    while (p->pos < p->len && isspace((unsigned char) p->text[p->pos])) {
        jnext(p);
    }
}

FAKE_HELPER jvalue *jnew(jparser *p, jtype t) {
    jvalue *v = calloc(1, sizeof *v);
    v->type = t;
    v->line = p->line;
    v->col = p->col;
    return v;
}

FAKE_HELPER void jfree(jvalue *v) {
    if (!v) {
        return;
    }
    for (int i = 0; i < v->count; i++) {
        jfree(v->items[i]);
        if (v->keys) {
            free(v->keys[i]);
        }
    }
    free(v->items);
    free(v->keys);
    free(v->string);
    free(v);
}

FAKE_HELPER jvalue *jvalue_parse(jparser *p, int depth);

FAKE_HELPER char *jstring_raw(jparser *p) {
    if (jnext(p) != '"') {
        jfail(p, "expected '\"'");
        return NULL;
    }
    size_t cap = 32, n = 0;
    char *s = malloc(cap);
    for (;;) {
        int c = jnext(p);
        if (c < 0 || c == '\n') {
            jfail(p, "unterminated string");
            free(s);
            return NULL;
        }
        if (c == '"') {
            break;
        }
        if (c == '\\') {
            c = jnext(p);
            switch (c) {
                case '"': case '\\': case '/': break;
                case 'n': c = '\n'; break;
                case 't': c = '\t'; break;
                case 'r': c = '\r'; break;
                case 'b': c = '\b'; break;
                case 'f': c = '\f'; break;
                default:
                    jfail(p, "unsupported escape '\\%c' in string", c < 0 ? '?' : c);
                    free(s);
                    return NULL;
            }
        }
        if (n + 2 > cap) {
            cap *= 2;
            s = realloc(s, cap);
        }
        s[n++] = (char) c;
    }
    s[n] = 0;
    return s;
}

FAKE_HELPER jvalue *jcontainer(jparser *p, int depth, int object) {
    jvalue *v = jnew(p, object ? J_OBJECT : J_ARRAY);
    jnext(p);
    jspace(p);
    if (jpeek(p) == (object ? '}' : ']')) {
        jnext(p);
        return v;
    }
    for (;;) {
        jspace(p);
        char *key = NULL;
        if (object) {
            if (jpeek(p) != '"') {
                jfail(p, "expected a quoted key");
                jfree(v);
                return NULL;
            }
            key = jstring_raw(p);
            if (!key) {
                jfree(v);
                return NULL;
            }
            jspace(p);
            if (jnext(p) != ':') {
                jfail(p, "expected ':' after key \"%s\"", key);
                free(key);
                jfree(v);
                return NULL;
            }
        }
        jvalue *item = jvalue_parse(p, depth + 1);
        if (!item) {
            free(key);
            jfree(v);
            return NULL;
        }
        v->items = realloc(v->items, sizeof(jvalue *) * (v->count + 1));
        if (object) {
            v->keys = realloc(v->keys, sizeof(char *) * (v->count + 1));
            v->keys[v->count] = key;
        }
        v->items[v->count++] = item;
        jspace(p);
        int c = jnext(p);
        if (c == ',') {
            continue;
        }
        if (c == (object ? '}' : ']')) {
            return v;
        }
        jfail(p, c < 0 ? "unexpected end of file, expected ',' or '%c'" : "expected ',' or '%c'", object ? '}' : ']');
        jfree(v);
        return NULL;
    }
}

FAKE_HELPER jvalue *jvalue_parse(jparser *p, int depth) {
    if (depth > 32) {
        jfail(p, "nested too deeply");
        return NULL;
    }
    jspace(p);
    int c = jpeek(p);
    if (c < 0) {
        jfail(p, "unexpected end of file, expected a value");
        return NULL;
    }
    if (c == '{' || c == '[') {
        return jcontainer(p, depth, c == '{');
    }
    if (c == '"') {
        jvalue *v = jnew(p, J_STRING);
        v->string = jstring_raw(p);
        if (!v->string) {
            jfree(v);
            return NULL;
        }
        return v;
    }
    if (c == '-' || isdigit(c)) {
        jvalue *v = jnew(p, J_NUMBER);
        size_t start = p->pos;
        while (p->pos < p->len && strchr("+-0123456789.eExX", p->text[p->pos]) != NULL) {
            jnext(p);
        }
        char buf[64];
        size_t n = p->pos - start;
        if (n >= sizeof buf) {
            jfail(p, "number too long");
            jfree(v);
            return NULL;
        }
        memcpy(buf, p->text + start, n);
        buf[n] = 0;
        char *end;
        v->negative = buf[0] == '-';
        v->integral = strpbrk(buf, ".eE") == NULL || (buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X'));
        if (v->integral && !v->negative) {
            errno = 0;
            v->u64 = strtoull(buf, &end, 0);
            if (*end || errno) {
                jfail(p, "'%s' is not a number", buf);
                jfree(v);
                return NULL;
            }
            v->number = (double) v->u64;
        } else {
            v->number = strtod(buf, &end);
            if (*end) {
                jfail(p, "'%s' is not a number", buf);
                jfree(v);
                return NULL;
            }
        }
        return v;
    }
    const char *words[] = {"true", "false", "null"};
    for (int i = 0; i < 3; i++) {
        size_t n = strlen(words[i]);
        if (p->len - p->pos >= n && strncmp(p->text + p->pos, words[i], n) == 0) {
            jvalue *v = jnew(p, i == 2 ? J_NULL : J_BOOL);
            v->boolean = i == 0;
            for (size_t k = 0; k < n; k++) {
                jnext(p);
            }
            return v;
        }
    }
    jfail(p, "unexpected character '%c', expected a value", c);
    return NULL;
}

/* ---------------------------------------------------------------- scenario → structs */

typedef struct {
    const char *file;
    char error[512];
} loader;

FAKE_HELPER int lfail(loader *l, const jvalue *at, const char *fmt, ...) {
    if (l->error[0]) {
        return 0;
    }
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(l->error, sizeof l->error, "%s:%d:%d: %s", l->file, at ? at->line : 0, at ? at->col : 0, what);
    return 0;
}

FAKE_HELPER int want(loader *l, const jvalue *v, jtype t, const char *key) {
    static const char *names[] = {"null", "boolean", "number", "string", "array", "object"};
    if (v->type != t) {
        return lfail(l, v, "\"%s\" must be a%s %s, not a%s %s", key, t == J_ARRAY || t == J_OBJECT ? "n" : "",
                     names[t], v->type == J_ARRAY || v->type == J_OBJECT ? "n" : "", names[v->type]);
    }
    return 1;
}

/* A counter or flag: a non-negative integer, or true/false (1/0). null means "not supported". */
FAKE_HELPER int read_u64(loader *l, const jvalue *v, const char *key, opt_u64 *out) {
    if (v->type == J_NULL) {
        out->present = 0;
        return 1;
    }
    if (v->type == J_BOOL) {
        out->present = 1;
        out->v = v->boolean ? 1 : 0;
        return 1;
    }
    if (v->type != J_NUMBER || !v->integral || v->negative) {
        return lfail(l, v, "\"%s\" must be a non-negative integer, true/false or null", key);
    }
    out->present = 1;
    out->v = v->u64;
    return 1;
}

FAKE_HELPER int read_text(loader *l, const jvalue *v, const char *key, char *out, size_t cap, int *present) {
    if (v->type == J_NULL) {
        *present = 0;
        return 1;
    }
    if (!want(l, v, J_STRING, key)) {
        return 0;
    }
    if (strlen(v->string) >= cap) {
        return lfail(l, v, "\"%s\" is longer than %zu characters", key, cap - 1);
    }
    strcpy(out, v->string);
    *present = 1;
    return 1;
}

typedef struct { const char *key; opt_u64 *slot; } field;

FAKE_HELPER int read_fields(loader *l, const jvalue *v, const char *what, const field *fields, int n) {
    if (!want(l, v, J_OBJECT, what)) {
        return 0;
    }
    for (int i = 0; i < v->count; i++) {
        int found = 0;
        for (int k = 0; k < n; k++) {
            if (strcmp(fields[k].key, v->keys[i]) == 0) {
                if (!read_u64(l, v->items[i], v->keys[i], fields[k].slot)) {
                    return 0;
                }
                found = 1;
                break;
            }
        }
        if (!found) {
            char known[400] = "";
            for (int k = 0; k < n; k++) {
                strncat(known, k ? ", " : "", sizeof known - strlen(known) - 1);
                strncat(known, fields[k].key, sizeof known - strlen(known) - 1);
            }
            return lfail(l, v->items[i], "unknown key \"%s\" in %s (known: %s)", v->keys[i], what, known);
        }
    }
    return 1;
}

/*
 * The call overrides of a scenario ("returns" or "delays_ms"): call name → number. {@code names} are
 * the calls the fake provides; a name it does not know is an error naming {@code library}.
 */
FAKE_HELPER int read_call_map(loader *l, const jvalue *v, const char *key, const char *const *names, int count,
                              const char *library, int *rets, long *delays) {
    if (!want(l, v, J_OBJECT, key)) {
        return 0;
    }
    for (int i = 0; i < v->count; i++) {
        int call = -1;
        for (int c = 0; c < count; c++) {
            if (strcmp(names[c], v->keys[i]) == 0) {
                call = c;
                break;
            }
        }
        if (call < 0) {
            return lfail(l, v->items[i], "\"%s\" names no %s call the fake provides: \"%s\"", key, library, v->keys[i]);
        }
        const jvalue *n = v->items[i];
        if (n->type != J_NUMBER || !n->integral || n->negative) {
            return lfail(l, n, "%s.%s must be a non-negative integer", key, v->keys[i]);
        }
        if (rets) {
            rets[call] = (int) n->u64;
        } else {
            delays[call] = (long) n->u64;
        }
    }
    return 1;
}

/*
 * Without the scenario variable the scenario is scenario.json next to this library: slurmd runs its
 * HealthCheckProgram with an empty environment, so a test there can only place a file.
 */
FAKE_HELPER int scenario_beside_library(char *out, size_t cap) {
    Dl_info info;
    if (!dladdr((void *) &scenario_beside_library, &info) || !info.dli_fname) {
        return 0;
    }
    const char *slash = strrchr(info.dli_fname, '/');
    int dir_len = slash ? (int) (slash - info.dli_fname) : 1;
    const char *dir = slash ? info.dli_fname : ".";
    return snprintf(out, cap, "%.*s/scenario.json", dir_len, dir) < (int) cap;
}

/*
 * Reads and parses the scenario named by the environment variable {@code env} (else scenario.json
 * beside the library): the JSON root, or NULL with the reason in l->error. Free it with jfree.
 */
FAKE_HELPER jvalue *read_scenario(loader *l, const char *env) {
    static char beside[4096];
    const char *path = getenv(env);
    if (!path || !*path) {
        if (!scenario_beside_library(beside, sizeof beside)) {
            l->file = "(unset)";
            snprintf(l->error, sizeof l->error, "%s is not set and the library cannot find its own path for scenario.json", env);
            return NULL;
        }
        path = beside;
    }
    l->file = path;
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(l->error, sizeof l->error, "%.240s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, len = 0;
    char *text = malloc(cap);
    size_t n;
    while ((n = fread(text + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) {
            cap *= 2;
            text = realloc(text, cap);
        }
    }
    fclose(f);

    jparser p = {text, 0, len, 1, 1, ""};
    jvalue *root = jvalue_parse(&p, 0);
    if (root) {
        jspace(&p);
        if (p.pos < p.len) {
            jfail(&p, "unexpected text after the scenario's closing brace");
        }
    }
    free(text);
    if (p.error[0]) {
        snprintf(l->error, sizeof l->error, "%.240s: %s", path, p.error);
        jfree(root);
        return NULL;
    }
    return root;
}

FAKE_HELPER void sleep_ms(long ms) {
    if (ms <= 0) {
        return;
    }
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) == -1 && errno == EINTR) {
    }
}

#endif
