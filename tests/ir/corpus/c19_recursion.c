/* Recursion: direct, mutual and tail recursion, recursive data structures
   (binary search tree with malloc'd nodes), divide and conquer (quicksort,
   mergesort) and backtracking (n-queens). */
#include <stdio.h>
#include <stdlib.h>

struct tree { int key; struct tree *left, *right; };

static struct tree *insert(struct tree *t, int key) {
    if (!t) {
        t = malloc(sizeof *t);
        if (!t)
            abort();
        t->key = key;
        t->left = t->right = NULL;
    } else if (key < t->key) {
        t->left = insert(t->left, key);
    } else {
        t->right = insert(t->right, key);
    }
    return t;
}

static int height(const struct tree *t) {
    if (!t)
        return 0;
    int l = height(t->left), r = height(t->right);
    return 1 + (l > r ? l : r);
}

static void destroy(struct tree *t) {
    if (!t)
        return;
    destroy(t->left);
    destroy(t->right);
    free(t);
}

static long gcd(long a, long b) { return b ? gcd(b, a % b) : a; }

static unsigned long ackermann(unsigned long m, unsigned long n) {
    if (m == 0) return n + 1;
    if (n == 0) return ackermann(m - 1, 1);
    return ackermann(m - 1, ackermann(m, n - 1));
}

static int is_odd(unsigned n);
static int is_even(unsigned n) { return n == 0 ? 1 : is_odd(n - 1); }
static int is_odd(unsigned n) { return n == 0 ? 0 : is_even(n - 1); }

static void quicksort(int *a, int lo, int hi) {
    if (lo >= hi)
        return;
    int p = a[(lo + hi) / 2], i = lo, j = hi;
    while (i <= j) {
        while (a[i] < p) i++;
        while (a[j] > p) j--;
        if (i <= j) {
            int t = a[i];
            a[i++] = a[j];
            a[j--] = t;
        }
    }
    quicksort(a, lo, j);
    quicksort(a, i, hi);
}

static void merge_sort(double *a, double *tmp, int n) {
    if (n < 2)
        return;
    int h = n / 2;
    merge_sort(a, tmp, h);
    merge_sort(a + h, tmp, n - h);
    int i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = a[i] <= a[j] ? a[i++] : a[j++];
    while (i < h) tmp[k++] = a[i++];
    while (j < n) tmp[k++] = a[j++];
    for (k = 0; k < n; k++)
        a[k] = tmp[k];
}

static int queens(int n, int row, unsigned cols, unsigned d1, unsigned d2) {
    if (row == n)
        return 1;
    int count = 0;
    for (int c = 0; c < n; c++) {
        unsigned a = 1u << c, b = 1u << (row + c), d = 1u << (row - c + n);
        if ((cols & a) || (d1 & b) || (d2 & d))
            continue;
        count += queens(n, row + 1, cols | a, d1 | b, d2 | d);
    }
    return count;
}

static double power(double x, int n) {
    if (n == 0) return 1;
    double h = power(x, n / 2);
    return n % 2 ? h * h * x : h * h;
}

int main(int argc, char **argv) {
    (void)argv;
    struct tree *t = NULL;
    int keys[] = { 50, 30, 70, 20, 40, 60, 80, 35, 45, 65 };
    for (int i = 0; i < 10; i++)
        t = insert(t, keys[i] + argc);
    int arr[] = { 5, 1, 4, 2, 8, 7, 3, 6 };
    quicksort(arr, 0, 7);
    double ds[6] = { 3.5, -1, 2.25, 9, 0, (double)argc }, tmp[6];
    merge_sort(ds, tmp, 6);
    printf("%d %ld %lu %d %d %g %d %g\n", height(t), gcd(1071, 462 * argc), ackermann(2, (unsigned long)argc),
           is_even(10u + (unsigned)argc), arr[3], ds[0], queens(6, 0, 0, 0, 0), power(1.5, 10 + argc));
    destroy(t);
    return 0;
}
