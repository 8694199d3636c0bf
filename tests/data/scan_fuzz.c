/* Random windows through the compiled run scan (evidencedesk/files/_trec_scan.c), built with
 * AddressSanitizer and UndefinedBehaviorSanitizer by tests/test_trec_scan_sanitized.py: every
 * window and every output array is allocated at the exact size the Python caller allocates
 * (`files._trec_scan.scan`), so a read or write past any of them, or undefined arithmetic,
 * ends the run with the sanitizer's report.
 *
 *     scan_fuzz ITERATIONS SEED   ->   "taken T declined D wider W counted C over O" on stdout
 *
 * Each window also goes through evidencedesk_count_stretches, its arrays sized as
 * `files._trec_scan.count_stretches` sizes them for a random capacity: counted (C) or past
 * the capacity (O).
 *
 * A third of the windows are whole well-formed lines (ids of 1 to 40 bytes, negative scores,
 * CRLF ends, the shortest fields after an id, half of them without the last newline); the
 * others mix pieces of lines, cut anywhere, with bytes the scan must decline (control bytes,
 * '#', formula starts, long digit strings, tabs). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long evidencedesk_scan_run(const uint8_t *data, long size, int delimiter, long width,
                           long max_line, uint8_t *docs, uint64_t *hashes, double *scores,
                           long capacity, int64_t *starts, int64_t *heads, int64_t *found);
long evidencedesk_count_stretches(const uint8_t *data, long size, long capacity, int64_t *starts,
                                  int64_t *heads, int64_t *found);

static uint64_t state;

static uint64_t next(void) { /* xorshift64 */
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

static const char *PIECES[] = {
    "q1", "q2", "Q0", "d1", "doc-12345678", "0.5", "-1.25", "1", "tag", " ", " ", " ", "\n",
    "\r\n", "\t", "#", "=x", "00000000000000000001", "1.0000000000000000000001",
    "123456789012345678", "x", "\x01", "\xff", ".", "-",
};
static const char ID_BYTES[] = "abcdefghij0123456789-_:./XYZ";

/* A well-formed run line into `line` (at least 160 bytes); its length. */
static long good_line(char *line) {
    char id[48];
    int length = 1 + (int)(next() % 40);
    for (int k = 0; k < length; k++) id[k] = ID_BYTES[next() % (sizeof ID_BYTES - 1)];
    id[length] = 0;
    if (id[0] == '-') id[0] = 'a'; /* (a formula start: declined, as it should be) */
    if (next() % 4 == 0) /* the shortest fields after the id: its last word near the end */
        return snprintf(line, 160, "q%lu Q0 %s %lu %lu t\n", (unsigned long)(next() % 3), id,
                        (unsigned long)(next() % 10), (unsigned long)(next() % 10));
    return snprintf(line, 160, "q%lu Q0 %s %lu %s%lu.%lu t%s", (unsigned long)(next() % 3), id,
                    (unsigned long)(next() % 100), next() % 5 ? "" : "-",
                    (unsigned long)(next() % 100), (unsigned long)(next() % 1000),
                    next() % 5 ? "\n" : "\r\n");
}

int main(int argc, char **argv) {
    long iterations = argc > 1 ? atol(argv[1]) : 10000;
    state = argc > 2 ? strtoull(argv[2], NULL, 10) << 1 | 1 : 88172645463325252ULL;
    long taken = 0, declined = 0, wider = 0, counted = 0, over = 0;
    for (long it = 0; it < iterations; it++) {
        long target = (long)(next() % 600);
        int clean = next() % 3 == 0;
        uint8_t *window = malloc(target + 1);
        long size = 0;
        while (size < target) {
            char line[160];
            const char *piece = line;
            long length;
            if (clean || next() % 8 == 0) {
                length = good_line(line);
            } else {
                piece = PIECES[next() % (sizeof PIECES / sizeof *PIECES)];
                length = (long)strlen(piece);
            }
            if (size + length > target) {
                if (clean) break; /* whole lines only */
                length = target - size;
            }
            memcpy(window + size, piece, (size_t)length);
            size += length;
        }
        if (clean && size && next() % 2) size--; /* the last line without its newline */
        uint8_t *data = malloc(size ? size : 1); /* exactly the window: nothing after it */
        memcpy(data, window, (size_t)size);
        free(window);
        long capacity = size / 12 + 1; /* as `scan` sizes its arrays */
        long width = 8 * (1 + (long)(next() % 4));
        int delimiter = next() % 4 ? ' ' : '\t';
        long max_line = 1 + (long)(next() % 700);
        for (int attempt = 0; attempt < 3; attempt++) {
            uint8_t *docs = malloc(capacity * width);
            uint64_t *hashes = malloc(capacity * sizeof *hashes);
            double *scores = malloc(capacity * sizeof *scores);
            int64_t *starts = malloc(capacity * sizeof *starts);
            int64_t *heads = malloc(2 * capacity * sizeof *heads);
            int64_t found[3];
            long lines = evidencedesk_scan_run(data, size, delimiter, width, max_line, docs,
                                               hashes, scores, capacity, starts, heads, found);
            free(docs);
            free(hashes);
            free(scores);
            free(starts);
            free(heads);
            if (lines >= 0) taken++;
            else if (lines == -1) declined++;
            else wider++;
            if (lines != -2) break;
            width = 8 * ((found[1] + 7) / 8); /* scanned again at the widest id's width */
        }
        long room = 1 + (long)(next() % 12); /* the capacity, then as `count_stretches` sizes */
        if (room > size + 1) room = size + 1;
        int64_t *starts = malloc(room * sizeof *starts);
        int64_t *heads = malloc(2 * room * sizeof *heads);
        int64_t found[1];
        if (evidencedesk_count_stretches(data, size, room, starts, heads, found) >= 0) counted++;
        else over++;
        free(starts);
        free(heads);
        free(data);
    }
    printf("taken %ld declined %ld wider %ld counted %ld over %ld\n", taken, declined, wider,
           counted, over);
    return 0;
}
