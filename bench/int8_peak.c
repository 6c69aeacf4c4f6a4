/* The ceiling of the int8 kernels on this CPU: how many integer
 * multiply-adds a second one core's dot product instructions give, each
 * in a loop of 12 independent accumulators (no loads, no dependences
 * between them).
 *
 *     clang-22 -O2 bench/int8_peak.c -o /tmp/int8_peak && /tmp/int8_peak
 *
 * (clang-22 comes with scripts/install-deps.sh; GCC 12 copies the
 * accumulators between registers every iteration and reads 10% low.)
 *
 * Prints, for the forms this CPU runs: AVX-512 VNNI `vpdpbusd` on 512-bit
 * vectors (64 byte products a instruction: the int8 convs' form on VNNI
 * CPUs), and AVX2 `vpmaddwd` + `vpaddd` on 256-bit vectors (16 i16 pair
 * products: the pairs form). docs/Quantization.md compares the int8
 * convs' rates with these. */
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

#define N 100000000L

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Each kernel runs N iterations of 12 independent dot products and
 * returns a sum of its accumulators (kept live through `sink`). */
__attribute__((target("avx512f,avx512bw,avx512vnni"))) static int
vnni512(void) {
  __m512i a[12], b = _mm512_set1_epi32(0x01010101),
                 c = _mm512_set1_epi32(0x02020202);
#pragma GCC unroll 12
  for (int j = 0; j < 12; j++)
    a[j] = _mm512_set1_epi32(j);
  for (long i = 0; i < N; i++) {
#pragma GCC unroll 12
    for (int j = 0; j < 12; j++)
      a[j] = _mm512_dpbusd_epi32(a[j], b, c);
    __asm__ volatile("" : "+v"(b));
  }
  for (int j = 1; j < 12; j++)
    a[0] = _mm512_add_epi32(a[0], a[j]);
  return _mm512_reduce_add_epi32(a[0]);
}

__attribute__((target("avx2"))) static int pairs256(void) {
  /* One product per accumulator, each of its own operands (y[j]): with
   * one shared product the compiler would form it once an iteration. */
  __m256i acc[12], y[12], x = _mm256_set1_epi16(3);
#pragma GCC unroll 12
  for (int j = 0; j < 12; j++) {
    acc[j] = _mm256_set1_epi32(j);
    y[j] = _mm256_set1_epi16(j + 5);
  }
  for (long i = 0; i < N; i++) {
#pragma GCC unroll 12
    for (int j = 0; j < 12; j++)
      acc[j] = _mm256_add_epi32(acc[j], _mm256_madd_epi16(x, y[j]));
    __asm__ volatile("" : "+x"(x));
  }
  for (int j = 1; j < 12; j++)
    acc[0] = _mm256_add_epi32(acc[0], acc[j]);
  return _mm256_extract_epi32(acc[0], 0);
}

/* Multiply-adds a second of `kernel`, doing `per` a dot product. */
static double rate(int (*kernel)(void), int per, int *sink) {
  double t0 = seconds();
  *sink += kernel();
  return N * 12.0 * per / (seconds() - t0);
}

int main(void) {
  int sink = 0;
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512vnni") &&
      __builtin_cpu_supports("avx512bw"))
    printf("vpdpbusd (512-bit): %.0f G multiply-adds/s\n",
           rate(vnni512, 64, &sink) / 1e9);
  else
    printf("vpdpbusd (512-bit): no AVX-512 VNNI on this CPU\n");
  if (__builtin_cpu_supports("avx2"))
    printf("vpmaddwd + vpaddd (256-bit): %.0f G multiply-adds/s\n",
           rate(pairs256, 16, &sink) / 1e9);
  return sink == 42; /* keeps the sums live */
}
