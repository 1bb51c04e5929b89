/* Dense and sparse switches, fall-through, nested switches and switch on enums;
   clang turns some into lookup tables and others into branch trees at -O2. */
#include <stdio.h>

enum opcode { OP_NOP, OP_PUSH, OP_POP, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_NEG, OP_DUP, OP_HALT };

static int days_in_month(int m, int leap) {
    switch (m) {
    case 2: return leap ? 29 : 28;
    case 4: case 6: case 9: case 11: return 30;
    default: return 31;
    }
}

static const char *http_reason(int code) {
    switch (code) {
    case 200: return "OK";
    case 201: return "Created";
    case 204: return "No Content";
    case 301: return "Moved Permanently";
    case 304: return "Not Modified";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    case 100000: return "Huge";
    default: return "Unknown";
    }
}

static int score(char c) {
    int s = 0;
    switch (c) {
    case 'q': case 'z': s += 10; /* fall through */
    case 'j': case 'x': s += 8; /* fall through */
    case 'k': s += 5; break;
    case 'a': case 'e': case 'i': case 'o': case 'u': s = 1; break;
    default: s = 2;
    }
    return s;
}

static long run(const int *code, int n) {
    long stack[32];
    int sp = 0;
    for (int pc = 0; pc < n; pc++) {
        switch ((enum opcode)code[pc]) {
        case OP_NOP: break;
        case OP_PUSH: stack[sp++] = code[++pc]; break;
        case OP_POP: sp--; break;
        case OP_ADD: sp--; stack[sp - 1] += stack[sp]; break;
        case OP_SUB: sp--; stack[sp - 1] -= stack[sp]; break;
        case OP_MUL: sp--; stack[sp - 1] *= stack[sp]; break;
        case OP_DIV: sp--; if (stack[sp]) stack[sp - 1] /= stack[sp]; break;
        case OP_NEG: stack[sp - 1] = -stack[sp - 1]; break;
        case OP_DUP: stack[sp] = stack[sp - 1]; sp++; break;
        case OP_HALT: return sp ? stack[sp - 1] : 0;
        }
    }
    return sp ? stack[sp - 1] : 0;
}

static int classify(unsigned char kind, unsigned char sub) {
    switch (kind) {
    case 0:
        switch (sub) {
        case 0: return 1;
        case 1: return 2;
        default: return 3;
        }
    case 1: return 10 + (sub & 3);
    case 7: return 70;
    case 255: return -1;
    }
    return 0;
}

int main(int argc, char **argv) {
    int code[] = { OP_PUSH, 6, OP_PUSH, 7, OP_MUL, OP_DUP, OP_ADD, OP_PUSH, 4, OP_SUB, OP_HALT };
    int total = 0;
    for (const char *p = argv[0]; *p; p++)
        total += score(*p);
    printf("%d %s %d %ld %d\n", days_in_month(argc + 1, argc & 1), http_reason(argc * 100 + 104),
           total, run(code, (int)(sizeof code / sizeof code[0])), classify((unsigned char)argc, 1));
    return 0;
}
