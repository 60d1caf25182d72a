/* Plain table-entry inserts of a serialised p4.v1.WriteRequest, decoded in one pass.

   The walker reads the request's updates (field 4) in order. An update is "plain" when it
   is an INSERT of a TableEntry holding only table_id, match, action and priority 0, its
   table is one of the given specs (exact and lpm keys of at most 64 bits), every match
   field and action parameter is known, once, of the right kind, non-empty and fits its
   width, an lpm prefix is 1..width with no bits set past it, every exact key is there, and
   the action is a direct action of the table with all its parameters. Anything else
   (another entity or update type, metadata, counters, unknown or repeated fields, any
   check failing) is left to the general decoder, which names what is wrong.

   For a plain update the walker writes its table spec and action spec, then appends its
   key values and prefix lengths (EW_EXACT for an exact key, 0 for an lpm key left a
   don't-care) to values and plens, its parameter values in the action's order to args,
   and its canonical encoding: what the server's reads return for it
   (table_id, match fields in key order, the action with its parameters in order, every
   value its shortest big-endian bytes), appended to enc. */
#include <stdint.h>
#include <stddef.h>
#include <string.h>

/* interface begin */
#define EW_MAX 16
#define EW_EXACT 255
typedef struct {
    uint32_t id;                 /* P4Info table id */
    uint32_t nfields;
    uint32_t field_id[EW_MAX];
    uint8_t kind[EW_MAX];        /* 0 exact, 1 lpm */
    uint8_t width[EW_MAX];       /* 1..64 */
    uint32_t first_action;       /* its direct actions: specs first_action.. */
    uint32_t nactions;
} ew_table_t;
typedef struct {
    uint32_t id;                 /* P4Info action id */
    uint32_t nparams;
    uint32_t param_id[EW_MAX];   /* in P4Info order */
    uint8_t width[EW_MAX];       /* 1..64 */
} ew_action_t;
int64_t ew_decode(const uint8_t *buf, size_t len, const ew_table_t *tables,
                  uint32_t ntables, const ew_action_t *actions, uint32_t max_updates,
                  uint8_t *plain, uint32_t *table, uint64_t *values, uint8_t *plens,
                  uint32_t *action, uint64_t *args, uint8_t *enc, uint32_t *enc_end);
/* interface end */

typedef struct { const uint8_t *p, *end; } rd_t;

static int varint(rd_t *r, uint64_t *out) {
    uint64_t v = 0;
    for (int shift = 0; shift < 64 && r->p < r->end; shift += 7) {
        uint8_t b = *r->p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) { *out = v; return 1; }
    }
    return 0;
}

/* The next field: 1 and its number, wire type and value (a varint's value, or a
   length-delimited field's bytes); 0 at the end; -1 when malformed. */
static int field(rd_t *r, uint32_t *num, int *wt, uint64_t *v, rd_t *sub) {
    uint64_t tag;
    if (r->p >= r->end) return 0;
    if (!varint(r, &tag) || tag >> 32 || !(tag >> 3)) return -1;
    *num = (uint32_t)(tag >> 3);
    *wt = tag & 7;
    switch (*wt) {
    case 0: return varint(r, v) ? 1 : -1;
    case 1: if (r->end - r->p < 8) return -1; r->p += 8; return 1;
    case 5: if (r->end - r->p < 4) return -1; r->p += 4; return 1;
    case 2:
        if (!varint(r, v) || *v > (uint64_t)(r->end - r->p)) return -1;
        sub->p = r->p;
        sub->end = r->p + *v;
        r->p += *v;
        return 1;
    default: return -1;
    }
}

/* A byte string as a number of at most ``width`` bits: 1, or 0 when empty or wider. */
static int number(rd_t s, int width, uint64_t *out) {
    if (s.p == s.end) return 0;
    while (s.p < s.end && *s.p == 0) s.p++;
    if (s.end - s.p > 8) return 0;
    uint64_t v = 0;
    while (s.p < s.end) v = v << 8 | *s.p++;
    if (width < 64 && v >> width) return 0;
    *out = v;
    return 1;
}

/* ---------------------------------------------------------------- encoding */
typedef struct { uint8_t *p; } wr_t;

static int varint_size(uint64_t v) { int n = 1; while (v > 0x7f) { v >>= 7; n++; } return n; }
static void put_varint(wr_t *w, uint64_t v) {
    while (v > 0x7f) { *w->p++ = (uint8_t)(v | 0x80); v >>= 7; }
    *w->p++ = (uint8_t)v;
}
static int bytes_of(uint64_t v) { int n = 1; while (v >> (8 * n) && n < 8) n++; return n; }
static void put_number(wr_t *w, uint64_t v) {     /* the shortest big-endian bytes */
    int n = bytes_of(v);
    for (int i = n - 1; i >= 0; i--) *w->p++ = (uint8_t)(v >> (8 * i));
}
static int value_field_size(uint64_t v) { return 1 + 1 + bytes_of(v); }  /* key, len, bytes */

/* The canonical TableEntry of a decoded plain entry: fields in number order as protobuf
   writes them, a value field always present (a bytes value is never empty). */
static size_t encode(uint8_t *out, const ew_table_t *t, const ew_action_t *a,
                     const uint64_t *vals, const uint8_t *pl, const uint64_t *args) {
    wr_t w = {out};
    *w.p++ = 0x08;                                   /* table_id */
    put_varint(&w, t->id);
    for (uint32_t k = 0; k < t->nfields; k++) {
        if (pl[k] == 0) continue;                    /* a don't-care lpm key */
        int inner = value_field_size(vals[k]) + (pl[k] != EW_EXACT ? 1 + varint_size(pl[k]) : 0);
        int fm = 1 + varint_size(t->field_id[k]) + 1 + varint_size(inner) + inner;
        *w.p++ = 0x12;                               /* match */
        put_varint(&w, fm);
        *w.p++ = 0x08;                               /* field_id */
        put_varint(&w, t->field_id[k]);
        *w.p++ = pl[k] != EW_EXACT ? 0x22 : 0x12;    /* lpm or exact */
        put_varint(&w, inner);
        *w.p++ = 0x0a;                               /* value */
        *w.p++ = (uint8_t)bytes_of(vals[k]);
        put_number(&w, vals[k]);
        if (pl[k] != EW_EXACT) {
            *w.p++ = 0x10;                           /* prefix_len */
            put_varint(&w, pl[k]);
        }
    }
    int action = 1 + varint_size(a->id);
    for (uint32_t j = 0; j < a->nparams; j++) {
        int param = 1 + varint_size(a->param_id[j]) + value_field_size(args[j]);
        action += 1 + varint_size(param) + param;
    }
    *w.p++ = 0x1a;                                   /* action (TableAction) */
    put_varint(&w, 1 + varint_size(action) + action);
    *w.p++ = 0x0a;                                   /* .action (Action) */
    put_varint(&w, action);
    *w.p++ = 0x08;                                   /* action_id */
    put_varint(&w, a->id);
    for (uint32_t j = 0; j < a->nparams; j++) {
        *w.p++ = 0x22;                               /* params */
        put_varint(&w, 1 + varint_size(a->param_id[j]) + value_field_size(args[j]));
        *w.p++ = 0x10;                               /* param_id */
        put_varint(&w, a->param_id[j]);
        *w.p++ = 0x1a;                               /* value */
        *w.p++ = (uint8_t)bytes_of(args[j]);
        put_number(&w, args[j]);
    }
    return (size_t)(w.p - out);
}

/* ---------------------------------------------------------------- decoding */
/* A FieldMatch into key position k of t: 1 when plain. */
static int match_field(rd_t r, const ew_table_t *t, uint64_t *vals, uint8_t *pl,
                       uint8_t *seen) {
    uint32_t num, fid = 0;
    int wt, rc, kind = -1, got_id = 0;
    uint64_t v;
    rd_t sub, body = {0, 0};
    while ((rc = field(&r, &num, &wt, &v, &sub)) == 1) {
        if (num == 1 && wt == 0 && !got_id) { fid = (uint32_t)v; got_id = 1; }
        else if ((num == 2 || num == 4) && wt == 2 && kind < 0) { kind = num == 4; body = sub; }
        else return 0;
    }
    if (rc < 0 || kind < 0) return 0;
    uint32_t k = 0;
    while (k < t->nfields && t->field_id[k] != fid) k++;
    if (k == t->nfields || seen[k] || t->kind[k] != kind) return 0;
    int width = t->width[k], got_value = 0;
    uint64_t plen = 0, value = 0;
    while ((rc = field(&body, &num, &wt, &v, &sub)) == 1) {
        if (num == 1 && wt == 2 && !got_value) {
            if (!number(sub, width, &value)) return 0;
            got_value = 1;
        } else if (num == 2 && wt == 0 && kind == 1 && !plen) {
            plen = v;
            if (!plen) return 0;                     /* written as 0: not canonical input */
        } else return 0;
    }
    if (rc < 0 || !got_value) return 0;
    if (kind == 1) {
        if (plen < 1 || plen > (uint64_t)width) return 0;
        uint64_t low = plen == (uint64_t)width ? 0 : (~0ULL >> (64 - (width - plen)));
        if (value & low) return 0;
        pl[k] = (uint8_t)plen;
    }
    vals[k] = value;
    seen[k] = 1;
    return 1;
}

/* An Action of table t: 1 when plain, with its spec index and parameters. */
static int action_of(rd_t r, const ew_table_t *t, const ew_action_t *actions,
                     uint32_t *which, uint64_t *args) {
    uint32_t num, aid = 0, nparams = 0, got_id = 0;
    int wt, rc;
    uint64_t v;
    rd_t sub;
    const uint8_t *params[EW_MAX * 2];
    const uint8_t *ends[EW_MAX * 2];
    while ((rc = field(&r, &num, &wt, &v, &sub)) == 1) {
        if (num == 1 && wt == 0 && !got_id) { aid = (uint32_t)v; got_id = 1; }
        else if (num == 4 && wt == 2 && nparams < EW_MAX * 2) {
            params[nparams] = sub.p; ends[nparams++] = sub.end;
        } else return 0;
    }
    if (rc < 0) return 0;
    const ew_action_t *a = NULL;
    for (uint32_t i = 0; i < t->nactions; i++)
        if (actions[t->first_action + i].id == aid) {
            a = &actions[t->first_action + i];
            *which = t->first_action + i;
        }
    if (a == NULL || nparams != a->nparams) return 0;
    uint8_t seen[EW_MAX] = {0};
    for (uint32_t i = 0; i < nparams; i++) {
        rd_t p = {params[i], ends[i]}, val = {0, 0};
        uint32_t pid = 0;
        int got_pid = 0, got_value = 0;
        while ((rc = field(&p, &num, &wt, &v, &sub)) == 1) {
            if (num == 2 && wt == 0 && !got_pid) { pid = (uint32_t)v; got_pid = 1; }
            else if (num == 3 && wt == 2 && !got_value) { val = sub; got_value = 1; }
            else return 0;
        }
        if (rc < 0 || !got_value) return 0;
        uint32_t j = 0;
        while (j < a->nparams && a->param_id[j] != pid) j++;
        if (j == a->nparams || seen[j] || !number(val, a->width[j], &args[j])) return 0;
        seen[j] = 1;
    }
    return 1;
}

/* A TableEntry: 1 when plain, its results written. */
static int table_entry(rd_t r, const ew_table_t *tables, uint32_t ntables,
                       const ew_action_t *actions, uint32_t *table, uint64_t *vals,
                       uint8_t *pl, uint32_t *action, uint64_t *args) {
    uint32_t num, tid = 0, nmatch = 0;
    int wt, rc, got_id = 0, got_action = 0;
    uint64_t v;
    rd_t sub, act = {0, 0}, matches[EW_MAX];
    while ((rc = field(&r, &num, &wt, &v, &sub)) == 1) {
        if (num == 1 && wt == 0 && !got_id) { tid = (uint32_t)v; got_id = 1; }
        else if (num == 2 && wt == 2 && nmatch < EW_MAX) matches[nmatch++] = sub;
        else if (num == 3 && wt == 2 && !got_action) { act = sub; got_action = 1; }
        else return 0;            /* priority, metadata, counters, flags, anything else */
    }
    if (rc < 0 || !got_action) return 0;
    uint32_t ti = 0;
    while (ti < ntables && tables[ti].id != tid) ti++;
    if (ti == ntables) return 0;
    const ew_table_t *t = &tables[ti];
    uint8_t seen[EW_MAX] = {0};
    memset(pl, 0, EW_MAX);
    for (uint32_t i = 0; i < nmatch; i++)
        if (!match_field(matches[i], t, vals, pl, seen)) return 0;
    for (uint32_t k = 0; k < t->nfields; k++)
        if (t->kind[k] == 0 && !seen[k]) return 0;  /* an exact key is never a don't-care */
        else if (!seen[k]) vals[k] = 0;
        else if (t->kind[k] == 0) pl[k] = EW_EXACT;
    /* TableAction: only its direct action */
    uint32_t anum;
    int awt, got = 0;
    rd_t body = {0, 0};
    while ((rc = field(&act, &anum, &awt, &v, &sub)) == 1) {
        if (anum == 1 && awt == 2 && !got) { body = sub; got = 1; }
        else return 0;
    }
    if (rc < 0 || !got || !action_of(body, t, actions, action, args)) return 0;
    *table = ti;
    return 1;
}

/* Walk the request's updates (at most max_updates): per update, plain[i] says whether it
   was decoded, and enc_end[i] where its encoding ends in enc (where the previous one
   ended when it is not plain). values, plens and args take EW_MAX words per update, enc
   len bytes (an encoding is never longer than the entry it came from). The number of
   updates, or -1 when the request is malformed or has more. */
int64_t ew_decode(const uint8_t *buf, size_t len, const ew_table_t *tables,
                  uint32_t ntables, const ew_action_t *actions, uint32_t max_updates,
                  uint8_t *plain, uint32_t *table, uint64_t *values, uint8_t *plens,
                  uint32_t *action, uint64_t *args, uint8_t *enc, uint32_t *enc_end) {
    rd_t r = {buf, buf + len}, upd;
    uint32_t num, n = 0;
    int wt, rc;
    uint64_t v;
    size_t at = 0, vat = 0, aat = 0;
    while ((rc = field(&r, &num, &wt, &v, &upd)) == 1) {
        if (num != 4) continue;                      /* device_id, election_id, ... */
        if (wt != 2 || n == max_updates) return -1;
        uint64_t type = 0;
        int got_type = 0, got_entity = 0, ok = 1;
        rd_t entity = {0, 0}, sub;
        while ((rc = field(&upd, &num, &wt, &v, &sub)) == 1) {
            if (num == 1 && wt == 0 && !got_type) { type = v; got_type = 1; }
            else if (num == 2 && wt == 2 && !got_entity) { entity = sub; got_entity = 1; }
            else ok = 0;
        }
        ok = ok && rc == 0 && type == 1 && got_entity;   /* INSERT */
        rd_t te = {0, 0};
        if (ok) {
            int got_te = 0;
            while ((rc = field(&entity, &num, &wt, &v, &sub)) == 1) {
                if (num == 2 && wt == 2 && !got_te) { te = sub; got_te = 1; }
                else ok = 0;
            }
            ok = ok && rc == 0 && got_te;
        }
        size_t i = n;
        ok = ok && table_entry(te, tables, ntables, actions, &table[i], &values[vat],
                               &plens[vat], &action[i], &args[aat]);
        plain[i] = (uint8_t)ok;
        if (ok) {
            const ew_table_t *t = &tables[table[i]];
            const ew_action_t *a = &actions[action[i]];
            at += encode(enc + at, t, a, &values[vat], &plens[vat], &args[aat]);
            vat += t->nfields;
            aat += a->nparams;
        }
        enc_end[i] = (uint32_t)at;
        n++;
    }
    return rc < 0 ? -1 : (int64_t)n;
}
