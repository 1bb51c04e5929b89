/* A hand-written lexer and recursive-descent expression evaluator: enums, char
   classification, static local state, strtod, and a mix of while/for/switch. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

enum tok_kind { TK_NUM, TK_IDENT, TK_PLUS, TK_MINUS, TK_STAR, TK_SLASH, TK_CARET, TK_LP, TK_RP, TK_END, TK_ERR };

struct token { enum tok_kind kind; double num; const char *start; int len; };
struct lexer { const char *p; struct token cur; int errors; };

static void next_token(struct lexer *lx) {
    static const enum tok_kind single[128] = {
        ['+'] = TK_PLUS, ['-'] = TK_MINUS, ['*'] = TK_STAR, ['/'] = TK_SLASH,
        ['^'] = TK_CARET, ['('] = TK_LP, [')'] = TK_RP,
    };
    while (isspace((unsigned char)*lx->p))
        lx->p++;
    struct token t = { TK_END, 0, lx->p, 0 };
    char c = *lx->p;
    if (!c) {
        lx->cur = t;
        return;
    }
    if (isdigit((unsigned char)c) || c == '.') {
        char *end;
        t.kind = TK_NUM;
        t.num = strtod(lx->p, &end);
        t.len = (int)(end - lx->p);
    } else if (isalpha((unsigned char)c) || c == '_') {
        t.kind = TK_IDENT;
        while (isalnum((unsigned char)lx->p[t.len]) || lx->p[t.len] == '_')
            t.len++;
    } else if ((unsigned char)c < 128 && single[(unsigned char)c]) {
        t.kind = single[(unsigned char)c];
        t.len = 1;
    } else {
        t.kind = TK_ERR;
        t.len = 1;
        lx->errors++;
    }
    lx->p += t.len;
    lx->cur = t;
}

static double parse_expr(struct lexer *lx);

static double lookup_var(const struct token *t) {
    static int calls;
    calls++;
    switch (t->start[0]) {
    case 'p': return 3.14159;
    case 'e': return 2.71828;
    default: return (double)(t->len + calls);
    }
}

static double parse_primary(struct lexer *lx) {
    struct token t = lx->cur;
    switch (t.kind) {
    case TK_NUM: next_token(lx); return t.num;
    case TK_IDENT: next_token(lx); return lookup_var(&t);
    case TK_MINUS: next_token(lx); return -parse_primary(lx);
    case TK_LP: {
        next_token(lx);
        double v = parse_expr(lx);
        if (lx->cur.kind == TK_RP)
            next_token(lx);
        else
            lx->errors++;
        return v;
    }
    default: lx->errors++; next_token(lx); return 0;
    }
}

static double parse_power(struct lexer *lx) {
    double base = parse_primary(lx);
    if (lx->cur.kind == TK_CARET) {
        next_token(lx);
        double e = parse_power(lx), r = 1;
        for (int i = 0; i < (int)e; i++)
            r *= base;
        return r;
    }
    return base;
}

static double parse_term(struct lexer *lx) {
    double v = parse_power(lx);
    for (;;) {
        enum tok_kind k = lx->cur.kind;
        if (k != TK_STAR && k != TK_SLASH)
            return v;
        next_token(lx);
        double r = parse_power(lx);
        v = k == TK_STAR ? v * r : v / r;
    }
}

static double parse_expr(struct lexer *lx) {
    double v = parse_term(lx);
    while (lx->cur.kind == TK_PLUS || lx->cur.kind == TK_MINUS) {
        int add = lx->cur.kind == TK_PLUS;
        next_token(lx);
        double r = parse_term(lx);
        v = add ? v + r : v - r;
    }
    return v;
}

static double evaluate(const char *src, int *errors) {
    struct lexer lx = { src, { TK_END, 0, src, 0 }, 0 };
    next_token(&lx);
    double v = parse_expr(&lx);
    if (lx.cur.kind != TK_END)
        lx.errors++;
    *errors = lx.errors;
    return v;
}

int main(int argc, char **argv) {
    int e1, e2;
    double a = evaluate("1 + 2 * (3 - pi) ^ 2 / e", &e1);
    double b = evaluate(argc > 1 ? argv[1] : "x_1 * 4 - -2 $", &e2);
    printf("%g %d %g %d\n", a, e1, b, e2);
    return 0;
}
