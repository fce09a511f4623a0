/*
   first_touch - what a process pays once, the first time it uses CUDA's stream-ordered allocator or cudaMalloc()

   Synopsis:
     first_touch MODE      (one MODE per process: the costs measured are those of a process's first call)

   MODE:
     pool        cudaMallocAsync() of 32 bytes from the device's default pool on the NULL stream, twice
     poolstream  the same on a created non-blocking stream
     poolbig     cudaMallocAsync() of 448 MiB from the default pool, then 32 bytes
     ownpool     cudaMemPoolCreate() of a pool of device memory, then cudaMallocFromPoolAsync() of 32 bytes, twice
     malloc      cudaMalloc() of 32 bytes, twice, then of 448 MiB

   The CUDA context is created first (cudaFree(NULL)) and a kernel-free cudaMalloc()/cudaFree() pair is made, as a PETSc
   program has done before it builds a matrix; each call is timed on the host with the stream synchronised after it.
   Prints one line: MODE and the milliseconds of each step.
*/
#include <chrono>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

static double Now(void)
{
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

#define CHECK(call)                                                                              \
  do {                                                                                           \
    cudaError_t e_ = (call);                                                                     \
    if (e_ != cudaSuccess) {                                                                     \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      return 1;                                                                                  \
    }                                                                                            \
  } while (0)

int main(int argc, char **argv)
{
  const char  *mode = argc > 1 ? argv[1] : "pool";
  const size_t big  = (size_t)448 << 20;
  void        *p = nullptr, *q = nullptr, *w = nullptr;
  cudaStream_t s = nullptr;
  double       t0, t[4] = {0, 0, 0, 0};

  CHECK(cudaFree(nullptr));
  CHECK(cudaMalloc(&w, 1 << 20)); /* what PETSc has done before: its vectors and the matrix come from cudaMalloc() */
  CHECK(cudaFree(w));
  if (!std::strcmp(mode, "pool") || !std::strcmp(mode, "poolstream") || !std::strcmp(mode, "poolbig")) {
    const size_t first = std::strcmp(mode, "poolbig") ? 32 : big; /* the first allocation's size; the second's is 32 B */

    if (!std::strcmp(mode, "poolstream")) CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    t0 = Now();
    CHECK(cudaMallocAsync(&p, first, s));
    CHECK(cudaStreamSynchronize(s));
    t[0] = Now() - t0;
    t0   = Now();
    CHECK(cudaMallocAsync(&q, 32, s));
    CHECK(cudaStreamSynchronize(s));
    t[1] = Now() - t0;
    CHECK(cudaFreeAsync(p, s));
    CHECK(cudaFreeAsync(q, s));
    if (first == big) std::printf("%s: first 448 MiB %.3f ms, then 32 B %.3f ms\n", mode, t[0], t[1]);
    else std::printf("%s: first 32 B %.3f ms, second %.3f ms\n", mode, t[0], t[1]);
  } else if (!std::strcmp(mode, "ownpool")) {
    cudaMemPool_t    pool;
    cudaMemPoolProps props;

    std::memset(&props, 0, sizeof(props));
    props.allocType     = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id   = 0;
    t0                  = Now();
    CHECK(cudaMemPoolCreate(&pool, &props));
    t[0] = Now() - t0;
    t0   = Now();
    CHECK(cudaMallocFromPoolAsync(&p, 32, pool, s));
    CHECK(cudaStreamSynchronize(s));
    t[1] = Now() - t0;
    t0   = Now();
    CHECK(cudaMallocFromPoolAsync(&q, 32, pool, s));
    CHECK(cudaStreamSynchronize(s));
    t[2] = Now() - t0;
    CHECK(cudaFreeAsync(p, s));
    CHECK(cudaFreeAsync(q, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemPoolDestroy(pool));
    std::printf("%s: create %.3f ms, first 32 B %.3f ms, second %.3f ms\n", mode, t[0], t[1], t[2]);
  } else if (!std::strcmp(mode, "malloc")) {
    t0 = Now();
    CHECK(cudaMalloc(&p, 32));
    t[0] = Now() - t0;
    t0   = Now();
    CHECK(cudaMalloc(&q, 32));
    t[1] = Now() - t0;
    t0   = Now();
    CHECK(cudaMalloc(&w, big));
    t[2] = Now() - t0;
    t0   = Now();
    CHECK(cudaFree(w));
    t[3] = Now() - t0;
    CHECK(cudaFree(p));
    CHECK(cudaFree(q));
    std::printf("%s: first 32 B %.3f ms, second %.3f ms, 448 MiB %.3f ms, its cudaFree() %.3f ms\n", mode, t[0], t[1], t[2], t[3]);
  } else {
    std::fprintf(stderr, "unknown mode %s\n", mode);
    return 1;
  }
  return 0;
}
