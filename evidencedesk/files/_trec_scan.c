/* One pass over a window of a TREC run: the arrays `files._trec_arrays.block_part` makes from
 * pyarrow's parse, for the lines it can take without doubt, in one read of their bytes.
 *
 * Loaded with ctypes by `files/_trec_scan.py` (a plain shared library: no Python header, no
 * interpreter lock held while it runs). Built by the package's build hook (hatch_build.py);
 * where it is absent, the run reader parses every window with pyarrow, to the same arrays.
 *
 * It takes only lines it reads exactly as pyarrow and the line reader do, and returns
 * EVIDENCEDESK_SCAN_DECLINED at the first other one: the caller then reads the whole window
 * with pyarrow and its checks, as it would without the scan (a declined window is no error):
 *   - six fields, each of bytes 0x21-0x7e (printable ASCII, no space), one `delimiter` byte
 *     between two fields, the line ending at "\n", "\r\n" or the window's end;
 *   - at most `max_line` bytes a line (pyarrow's block size: longer lines are measured there);
 *   - a query id not starting with '#', '=', '+', '-' or '@', a document id not starting with
 *     one of the last four (files._text.FORMULA_STARTS);
 *   - a score of the form -?[0-9]+(.[0-9]+)? whose digits, leading zeros aside, are at most
 *     15 and whose decimals are at most 22 ("Clinger's fast path": the integer of its digits
 *     and the power of ten are both exact doubles, so their quotient is the correctly rounded
 *     value, the double pyarrow's parser returns).
 *
 * Document ids are written NUL-padded to `width` bytes, and hashed as files._trec_keys.doc_hashes
 * does (a splitmix64 step per 8-byte word, in native byte order, the zero words of padding
 * skipped). An id wider than `width` stops the writing, not the scan: the call returns
 * EVIDENCEDESK_SCAN_WIDER with the widest id measured, and the caller scans again at that width.
 */
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* The digest of this source the build hook compiles in (hatch_build.source_digest): the loader
 * uses a library only where it matches the source beside it. */
#ifndef EVIDENCEDESK_SCAN_SOURCE
#define EVIDENCEDESK_SCAN_SOURCE ""
#endif

const char *evidencedesk_scan_source(void) { return EVIDENCEDESK_SCAN_SOURCE; }

#define EVIDENCEDESK_SCAN_DECLINED (-1)
#define EVIDENCEDESK_SCAN_WIDER (-2)

/* The small helpers below are inlined into each scan that calls them: called from two
 * functions, they were not, and evidencedesk_scan_run took a sixth longer. */
#if defined(__GNUC__)
#define INLINE static inline __attribute__((always_inline))
#else
#define INLINE static inline
#endif

static const uint64_t M0 = 0x9E3779B97F4A7C15ULL;
static const uint64_t M1 = 0xBF58476D1CE4E5B9ULL;
static const uint64_t M2 = 0x94D049BB133111EBULL;

static const double POWERS[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

INLINE uint64_t mix(uint64_t h) {
    h ^= h >> 30;
    h *= M1;
    h ^= h >> 27;
    h *= M2;
    h ^= h >> 31;
    return h;
}

INLINE int formula_start(uint8_t c) { return c == '=' || c == '+' || c == '-' || c == '@'; }

/* The first byte at or after `q`, before `end`, that is not printable ASCII without the space
 * (0x21-0x7e): a field's end. Eight bytes a step where eight are left (little-endian: the
 * lowest flagged byte of a word is the first one; a flag after it may be a borrow's or a
 * carry's, and is not read), the rest one by one. */
INLINE const uint8_t *field_end_of(const uint8_t *q, const uint8_t *end) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    while (end - q >= 8) {
        uint64_t word;
        memcpy(&word, q, 8);
        const uint64_t below = (word - 33 * ones) & ~word & highs; /* a byte under 0x21 */
        const uint64_t above = ((word + ones) | word) & highs;     /* a byte over 0x7e */
        if (below | above) return q + (__builtin_ctzll(below | above) >> 3);
        q += 8;
    }
#endif
    while (q < end && *q > 32 && *q < 127) q++;
    return q;
}

INLINE int same_bytes(const uint8_t *a, const uint8_t *b, long n) {
    for (long at = 0; at < n; at++) {
        if (a[at] != b[at]) return 0;
    }
    return 1;
}

/* The `length` bytes at `id` (length > 0) as 8-byte words at `doc`, NUL-padded to `width`;
 * returns their hash. A word is read whole where the buffer holds 8 bytes from it (the bytes
 * past the id masked off), else byte by byte. */
static uint64_t padded_hash(const uint8_t *id, long length, const uint8_t *end, uint8_t *doc,
                            long width) {
    uint64_t h = M0;
    for (long at = 0; at < width; at += 8) {
        uint64_t word = 0;
        long left = length - at;
        if (left >= 8) {
            memcpy(&word, id + at, 8);
        } else if (left > 0) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            if (end - (id + at) >= 8) {
                memcpy(&word, id + at, 8);
                word &= (1ULL << (8 * left)) - 1;
            } else {
                memcpy(&word, id + at, (size_t)left);
            }
#else
            (void)end;
            memcpy(&word, id + at, (size_t)left);
#endif
        }
        memcpy(doc + at, &word, 8);
        if (at == 0 || left > 0) h = mix(h ^ word);
    }
    return h;
}

/* The score of bytes [p, end), or 0 when the form is not one this scan takes. */
static int parse_score(const uint8_t *p, const uint8_t *end, double *out) {
    int negative = 0, digits = 0, decimals = 0;
    uint64_t mantissa = 0;
    if (p < end && *p == '-') {
        negative = 1;
        p++;
    }
    if (p == end || *p < '0' || *p > '9') return 0;
    for (; p < end && *p >= '0' && *p <= '9'; p++) {
        mantissa = mantissa * 10 + (uint64_t)(*p - '0');
        if (mantissa && ++digits > 15) return 0;
    }
    if (p < end && *p == '.') {
        p++;
        if (p == end || *p < '0' || *p > '9') return 0;
        for (; p < end && *p >= '0' && *p <= '9'; p++) {
            mantissa = mantissa * 10 + (uint64_t)(*p - '0');
            if (mantissa && ++digits > 15) return 0;
            if (++decimals > 22) return 0;
        }
    }
    if (p != end) return 0;
    double value = (double)mantissa / POWERS[decimals];
    *out = negative ? -value : value;
    return 1;
}

/* Scans `size` bytes at `data` into up to `capacity` lines: `docs` (capacity * width bytes),
 * `hashes` and `scores` a line; `starts` the first line of each stretch of equal query ids and
 * `heads` its id's (offset, length) in `data`, at most `capacity` stretches; `found` receives
 * the number of stretches, the widest document id and the widest query id. Returns the number
 * of lines, or EVIDENCEDESK_SCAN_DECLINED, or EVIDENCEDESK_SCAN_WIDER. */
long evidencedesk_scan_run(const uint8_t *data, long size, int delimiter, long width,
                           long max_line, uint8_t *docs, uint64_t *hashes, double *scores,
                           long capacity, int64_t *starts, int64_t *heads, int64_t *found) {
    const uint8_t *p = data, *end = data + size;
    const uint8_t *last_query = NULL;
    long last_length = -1, lines = 0, stretches = 0, widest_doc = 0, widest_query = 0;
    int wider = 0;
    if (width < 8 || width % 8) return EVIDENCEDESK_SCAN_DECLINED;
    while (p < end) {
        const uint8_t *field[6], *field_end[6];
        const uint8_t *q = p;
        for (int k = 0; k < 6; k++) {
            field[k] = q;
            q = field_end_of(q, end);
            field_end[k] = q;
            if (q == field[k]) return EVIDENCEDESK_SCAN_DECLINED;
            if (k < 5) {
                if (q == end || *q != delimiter) return EVIDENCEDESK_SCAN_DECLINED;
                q++;
            }
        }
        if (q < end && *q == '\r') {
            q++;
            if (q == end || *q != '\n') return EVIDENCEDESK_SCAN_DECLINED;
        }
        if (q < end) {
            if (*q != '\n') return EVIDENCEDESK_SCAN_DECLINED;
            q++;
        }
        if (q - p > max_line || lines == capacity) return EVIDENCEDESK_SCAN_DECLINED;
        p = q;
        long query_length = field_end[0] - field[0], doc_length = field_end[2] - field[2];
        if (formula_start(field[2][0])) return EVIDENCEDESK_SCAN_DECLINED;
        if (query_length != last_length || !same_bytes(field[0], last_query, query_length)) {
            if (field[0][0] == '#' || formula_start(field[0][0])) {
                return EVIDENCEDESK_SCAN_DECLINED;
            }
            starts[stretches] = lines;
            heads[2 * stretches] = field[0] - data;
            heads[2 * stretches + 1] = query_length;
            stretches++;
            last_query = field[0];
            last_length = query_length;
            if (query_length > widest_query) widest_query = query_length;
        }
        if (doc_length > widest_doc) widest_doc = doc_length;
        if (!parse_score(field[4], field_end[4], &scores[lines])) {
            return EVIDENCEDESK_SCAN_DECLINED;
        }
        if (doc_length > width) wider = 1;
        if (!wider) {
            hashes[lines] = padded_hash(field[2], doc_length, end, docs + lines * width, width);
        }
        lines++;
    }
    found[0] = stretches;
    found[1] = widest_doc;
    found[2] = widest_query;
    return wider ? EVIDENCEDESK_SCAN_WIDER : lines;
}

/* The stretches of lines with equal query ids among the lines of `size` bytes at `data` (whole
 * lines: the reader cuts its windows just after a newline), split where evidencedesk_scan_run
 * splits them: a line's query id is its bytes up to the first one outside 0x21-0x7e. `starts`
 * receives the first line of each stretch and `heads` its id's (offset, length) in `data`, at
 * most `capacity` stretches; `found[0]` their number. Returns the number of lines (a last one
 * without a newline counted), or -1 where there are more than `capacity` stretches. Counted
 * before a run's lines are scanned, so that each stretch's lines are scanned into their place
 * in query order: a run whose queries are not in order is written in its order, not joined
 * into it afterwards. */
long evidencedesk_count_stretches(const uint8_t *data, long size, long capacity, int64_t *starts,
                                  int64_t *heads, int64_t *found) {
    const uint8_t *end = data + size, *last_query = data;
    long last_length = -1, lines = 0, stretches = 0, at = 0;
    /* each line's start: after a newline; a line whose first bytes are the last stretch's id
     * followed by a field's end continues it (most lines: no field measured) */
    while (at < size) {
        const uint8_t *p = data + at;
        if (!(last_length >= 0 && end - p >= last_length && same_bytes(p, last_query, last_length) &&
              (end - p == last_length || p[last_length] < 33 || p[last_length] > 126))) {
            const long length = field_end_of(p, end) - p;
            if (stretches == capacity) return -1;
            starts[stretches] = lines;
            heads[2 * stretches] = at;
            heads[2 * stretches + 1] = length;
            stretches++;
            last_query = p;
            last_length = length;
        }
        lines++;
        /* the next newline: sixteen bytes a step where SSE2 is (every x86-64), eight bytes a
         * step otherwise (a byte equal to '\n' flagged exactly: no borrow crosses bytes), the
         * rest one by one */
        long next = -1;
        at += last_length;
#if defined(__SSE2__)
        const __m128i newline16 = _mm_set1_epi8('\n');
        while (size - at >= 16) {
            const __m128i block = _mm_loadu_si128((const __m128i *)(const void *)(data + at));
            const int mask = _mm_movemask_epi8(_mm_cmpeq_epi8(block, newline16));
            if (mask) {
                next = at + __builtin_ctz((unsigned)mask);
                break;
            }
            at += 16;
        }
#endif
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        const uint64_t lows = 0x7F7F7F7F7F7F7F7FULL, newlines = 0x0A0A0A0A0A0A0A0AULL;
        while (next < 0 && size - at >= 8) {
            uint64_t word;
            memcpy(&word, data + at, 8);
            word ^= newlines;
            const uint64_t zero = ~(((word & lows) + lows) | word | lows);
            if (zero) {
                next = at + (__builtin_ctzll(zero) >> 3);
                break;
            }
            at += 8;
        }
#endif
        if (next < 0) {
            while (at < size && data[at] != '\n') at++;
            if (at == size) break;
            next = at;
        }
        at = next + 1;
    }
    found[0] = stretches;
    return lines;
}

/* The number of newlines in `size` bytes at `data`: the lines of a byte range the run reader
 * cut just after a newline, counted before it is scanned, so that every range's scan writes its
 * lines straight into the run's columns at their place. */
long evidencedesk_count_lines(const uint8_t *data, long size) {
    /* byte comparisons summed in blocks of 255 into 8-bit counters: a loop compilers turn into
     * vector compares (memchr a line, at 40 bytes a line, was five times slower) */
    long lines = 0, at = 0;
    while (at < size) {
        const long stop = size - at < 255 * 32 ? size : at + 255 * 32;
        uint8_t counts[32] = {0};
        for (; at + 32 <= stop; at += 32) {
            for (int k = 0; k < 32; k++) counts[k] += data[at + k] == '\n';
        }
        for (int k = 0; k < 32; k++) lines += counts[k];
        for (; at < stop; at++) lines += data[at] == '\n';
    }
    return lines;
}

/* Sets, for each of the `n` judged keys at `judged`, its bit in `high` (by its top `high_bits`
 * bits) and in `low` (by its low `low_bits` bits): the bitmaps evidencedesk_judged_candidates
 * reads, zeroed by the caller (bits least significant first in each byte). */
void evidencedesk_judged_bitmaps(const uint64_t *judged, long n, uint8_t *high, int high_bits,
                                 uint8_t *low, int low_bits) {
    const uint64_t low_mask = (1ULL << low_bits) - 1;
    const int shift = 64 - high_bits;
    for (long at = 0; at < n; at++) {
        const uint64_t top = judged[at] >> shift, bottom = judged[at] & low_mask;
        high[top >> 3] |= (uint8_t)(1u << (top & 7));
        low[bottom >> 3] |= (uint8_t)(1u << (bottom & 7));
    }
}

/* The indices (plus `first`) of the `n` run-line keys at `keys` whose key may be a judged one,
 * written to `out` (room for `n`); returns how many. A key passes when two bitmaps of the judged
 * keys hold its bit: `high`, indexed by its top `high_bits` bits, and `low`, by its low
 * `low_bits` bits (evidencedesk_judged_bitmaps). The first bitmap is 1 MB, in a
 * core's cache, for every line; the second is read only for the few lines the first passes. */
long evidencedesk_judged_candidates(const uint64_t *keys, long n, long first,
                                    const uint8_t *high, int high_bits, const uint8_t *low,
                                    int low_bits, int64_t *out) {
    const uint64_t low_mask = (1ULL << low_bits) - 1;
    const int shift = 64 - high_bits;
    long found = 0;
    for (long at = 0; at < n; at++) {
        const uint64_t key = keys[at], top = key >> shift, bottom = key & low_mask;
        if (((high[top >> 3] >> (top & 7)) & 1) && ((low[bottom >> 3] >> (bottom & 7)) & 1)) {
            out[found++] = first + at;
        }
    }
    return found;
}

/* Whether one of the `n` stretches of lines (`lengths` lines each, one after another at `keys`)
 * holds a key twice. A table of `room` slots (a power of two, at least twice the longest
 * stretch), `slots` and `marks`, the marks zeroed by the caller: a slot holds a key of this
 * stretch when its mark is the stretch's number plus one, so no stretch clears what the last
 * one left. Each stretch's table fits a core's cache where a sort of every key did not. */
int evidencedesk_repeats_within(const uint64_t *keys, const int64_t *lengths, long n,
                                uint64_t *slots, uint32_t *marks, long room) {
    const uint64_t mask = (uint64_t)room - 1;
    long at = 0;
    for (long stretch = 0; stretch < n; stretch++) {
        const uint32_t mark = (uint32_t)stretch + 1;
        const long end = at + (long)lengths[stretch];
        for (; at < end; at++) {
            const uint64_t key = keys[at];
            uint64_t slot = key & mask; /* a key is a hash already: its low bits spread */
            while (marks[slot] == mark) {
                if (slots[slot] == key) {
                    return 1;
                }
                slot = (slot + 1) & mask;
            }
            marks[slot] = mark;
            slots[slot] = key;
        }
    }
    return 0;
}
