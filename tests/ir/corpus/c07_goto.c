/* goto for error handling and loops, plus GNU computed goto (&&label, goto *p)
   which clang emits as blockaddress constants and indirectbr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_config(const char *text, int *out, int cap) {
    int n = 0;
    char *copy = strdup(text);
    if (!copy)
        goto fail;
    int *tmp = malloc((size_t)cap * sizeof(int));
    if (!tmp)
        goto free_copy;
    for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
        if (n == cap)
            goto free_tmp;
        tmp[n++] = atoi(tok);
    }
    memcpy(out, tmp, (size_t)n * sizeof(int));
    free(tmp);
    free(copy);
    return n;
free_tmp:
    free(tmp);
free_copy:
    free(copy);
fail:
    return -1;
}

static long interpret(const unsigned char *prog, long acc) {
    static void *const dispatch[] = { &&op_halt, &&op_inc, &&op_dbl, &&op_dec, &&op_jnz };
    const unsigned char *pc = prog;
#define NEXT goto *dispatch[*pc++]
    NEXT;
op_inc:
    acc++;
    NEXT;
op_dbl:
    acc *= 2;
    NEXT;
op_dec:
    acc--;
    NEXT;
op_jnz:
    if (acc % 7)
        pc = prog;
    NEXT;
op_halt:
    return acc;
#undef NEXT
}

static int find_pair(int m[4][4], int target, int *ri, int *rj) {
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            if (m[i][j] == target) {
                *ri = i;
                *rj = j;
                goto found;
            }
    return 0;
found:
    return 1;
}

static int collatz(unsigned long n) {
    int steps = 0;
again:
    if (n == 1)
        return steps;
    n = (n & 1) ? 3 * n + 1 : n / 2;
    steps++;
    goto again;
}

int main(int argc, char **argv) {
    (void)argv;
    int vals[8];
    int n = parse_config("4,8,15,16,23,42", vals, 8);
    unsigned char prog[] = { 1, 2, 1, 3, 4, 0 };
    int m[4][4] = { { 1, 2, 3, 4 }, { 5, 6, 7, 8 }, { 9, 10, 11, 12 }, { 13, 14, 15, 16 } };
    int ri = -1, rj = -1;
    int ok = find_pair(m, 10 + argc, &ri, &rj);
    printf("%d %d %ld %d %d %d %d\n", n, vals[2], interpret(prog, argc), ok, ri, rj,
           collatz(27 + (unsigned long)argc));
    return 0;
}
