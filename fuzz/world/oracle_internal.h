/*
 * What the policy oracle's sources share (oracle.c, oracle_chain.c): the call records as read
 * (struct w_records is opaque in world.h) and the record-field helpers. Internal to fuzz/world/.
 */
#ifndef VKL_FUZZ_ORACLE_INTERNAL_H
#define VKL_FUZZ_ORACLE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "fuzz/world/world.h"
#include "loader/internal/json.h"

struct w_rec {
    const char *call;
    struct vkl_json *root;
};

struct w_slot_recs {
    bool file_exists;
    struct w_rec *r;
    size_t n;
};

struct w_records {
    struct w_slot_recs s[W_MAX_DRIVERS];
    struct w_slot_recs l[W_MAX_LAYERS]; /* the mock layers' records */
    bool chain_mode;                    /* chain_log world: `l` borrows the roots of `chain` */
    struct w_slot_recs chain;           /* every layer's records in global order */
};

/* ---- oracle.c */
/* The first layer slot named `name` (-1: none). */
int slot_of_name(const struct world *w, const char *name);
bool rec_is(const struct w_rec *r, const char *call);

#endif
