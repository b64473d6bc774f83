/* jpmpi_core.h - what the generated dispatcher and the hand-written core share. Private. */
#ifndef JPMPI_CORE_H
#define JPMPI_CORE_H

#include <stddef.h>
#include "jpmpi.h"
#include "jpmpi_slots.h"

#define JPMPI_EXPORT __attribute__((visibility("default")))

typedef jpmpi_function_t jpmpi_fn;

/* Filled by the generated file (jpmpi_dispatch.c). */
extern jpmpi_fn jpmpi_entry[JPMPI_NSLOTS];   /* what the application's MPI_X reaches */
extern jpmpi_fn jpmpi_pentry[JPMPI_NSLOTS];  /* what the application's PMPI_X reaches */
extern const char *const jpmpi_slot_names[JPMPI_NSLOTS];
extern const char jpmpi_impl_id[];
extern const char jpmpi_impl_name[];
extern const char jpmpi_impl_version[];
extern const char *const jpmpi_fortran_libraries[];

/* Runs the core once (entry list, levels, tables); the boot stubs call it. */
void jpmpi_core_boot(void);
/* A slot whose MPI library lacks the function was called: report and abort. */
void jpmpi_core_missing(int slot) __attribute__((noreturn));

/* ---- entry.c: the entry list ---- */
enum jpmpi_item_kind { JPMPI_ITEM_C, JPMPI_ITEM_JAR };

struct jpmpi_item {
    enum jpmpi_item_kind kind;
    char *text;      /* as written, trimmed */
    int position;    /* 1-based item number in the list */
};

struct jpmpi_entry_list {
    struct jpmpi_item items[JPMPI_MAX_LEVELS];
    int count;       /* levels, in order */
    int verbose;     /* 0, 1 (v) or 2 (vv) */
    int fort_pos;    /* Fortran calls enter at this level; default 0 (on top) */
    int preload;
};

/* Parses `text`; on error returns -1 with a one-line reason in `err`. */
int jpmpi_entry_parse(const char *text, struct jpmpi_entry_list *out, char *err, size_t errlen);
void jpmpi_entry_free(struct jpmpi_entry_list *list);

/* ---- got.c: pointing a loaded object's references to MPI names at chosen targets ---- */
struct link_map;
/* Returns the target for an imported `name`, or NULL to leave the reference alone. */
typedef jpmpi_fn (*jpmpi_target_fn)(const char *name, void *ctx);
/* Rewrites the object's relocated references (GOT/PLT slots); returns how many, or -1. */
int jpmpi_patch_object(struct link_map *map, jpmpi_target_fn target, void *ctx, char *err, size_t errlen);

#endif
