/* What the benchmark programs share: the median of a set of timings and the measured device copy bandwidth */
#include "benchutil.h"
#include <petscdevice_cuda.h>
#include "matgen.h"

#define MIB ((size_t)1024 * 1024)

PetscErrorCode BenchMedianReal(PetscInt n, PetscReal v[], PetscReal *median)
{
  PetscFunctionBeginUser;
  PetscCheck(n > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Median of an empty set");
  PetscCall(PetscSortReal(n, v));
  *median = (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Device-to-device copy bandwidth: median over reps timed cudaMemcpy() of mib MiB, counting each byte
  once read and once written. Returned in GB/s (1e9 bytes per second).
*/
PetscErrorCode BenchMeasureCopyBandwidth(PetscInt mib, PetscInt reps, PetscReal *gbs)
{
  const size_t bytes = (size_t)mib * MIB;
  void        *src, *dst;
  cudaEvent_t  start, stop;
  PetscReal   *secs, median;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(reps, &secs));
  PetscCallCUDA(cudaMalloc(&src, bytes));
  PetscCallCUDA(cudaMalloc(&dst, bytes));
  PetscCallCUDA(cudaMemset(src, 0, bytes));
  PetscCallCUDA(cudaMemset(dst, 0, bytes));
  PetscCallCUDA(cudaEventCreate(&start));
  PetscCallCUDA(cudaEventCreate(&stop));
  /* warm-up copy */
  PetscCallCUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice));
  PetscCallCUDA(cudaDeviceSynchronize());
  for (PetscInt r = 0; r < reps; r++) {
    float ms;

    PetscCallCUDA(cudaEventRecord(start, 0));
    PetscCallCUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice));
    PetscCallCUDA(cudaEventRecord(stop, 0));
    PetscCallCUDA(cudaEventSynchronize(stop));
    PetscCallCUDA(cudaEventElapsedTime(&ms, start, stop));
    secs[r] = 1e-3 * (PetscReal)ms; /* milliseconds to seconds */
  }
  PetscCall(BenchMedianReal(reps, secs, &median));
  *gbs = 2.0 * (PetscReal)bytes / median / 1e9; /* read + write, in units of 1e9 bytes/s */
  PetscCallCUDA(cudaEventDestroy(start));
  PetscCallCUDA(cudaEventDestroy(stop));
  PetscCallCUDA(cudaFree(src));
  PetscCallCUDA(cudaFree(dst));
  PetscCall(PetscFree(secs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BenchHelpOrNoDevice(const char prog[], PetscBool *stop, int *rc)
{
  PetscBool   hashelp;
  int         ndev = 0;
  cudaError_t cerr;

  PetscFunctionBeginUser;
  *stop = PETSC_TRUE;
  *rc   = 0;
  PetscCall(PetscOptionsHasHelp(NULL, &hashelp));
  if (hashelp) {
    Mat  H;
    char matrix[64], params[PETSC_MAX_PATH_LEN];

    PetscCall(MatGenFromOptions(&H, matrix, sizeof(matrix), params, sizeof(params)));
    PetscCall(MatDestroy(&H));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  cerr = cudaGetDeviceCount(&ndev);
  if (cerr != cudaSuccess || ndev < 1) {
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, PETSC_STDERR, "%s: no usable CUDA device (%s); it times products on a GPU\n", prog, cerr != cudaSuccess ? cudaGetErrorString(cerr) : "none found"));
    PetscCall(PetscOptionsSetValue(NULL, "-options_left", "false")); /* the options it did not get to read */
    *rc = 1;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  *stop = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if !defined(PETSCGPUFORMATS_CONFIGURE_COMMIT)
  #define PETSCGPUFORMATS_CONFIGURE_COMMIT "unknown"
#endif

PetscErrorCode BenchGetProvenance(BenchProvenance *p)
{
  const char *commit = getenv("GIT_COMMIT"), *dirty = getenv("GIT_DIRTY");

  PetscFunctionBeginUser;
  if (commit && commit[0]) PetscCall(PetscStrncpy(p->commit, commit, sizeof(p->commit)));
  else PetscCall(PetscSNPrintf(p->commit, sizeof(p->commit), "%s (configure time)", PETSCGPUFORMATS_CONFIGURE_COMMIT));
  PetscCall(PetscStrncpy(p->dirty, dirty && (dirty[0] == '0' || dirty[0] == '1') ? dirty : "", sizeof(p->dirty)));
  PetscCall(PetscGetVersion(p->petsc, sizeof(p->petsc)));
  PetscCallCUDA(cudaDriverGetVersion(&p->driver));
  PetscCallCUDA(cudaRuntimeGetVersion(&p->runtime));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* s with " and \ escaped for a JSON string */
static void BenchJSONEscape(const char s[], char out[], size_t len)
{
  size_t o = 0;

  for (; *s && o + 2 < len; s++) {
    if (*s == '"' || *s == '\\') out[o++] = '\\';
    out[o++] = *s;
  }
  out[o] = 0;
}

PetscErrorCode BenchProvenanceJSON(const BenchProvenance *p, char buf[], size_t len)
{
  char commit[2 * sizeof(p->commit)], petsc[2 * sizeof(p->petsc)];

  PetscFunctionBeginUser;
  BenchJSONEscape(p->commit, commit, sizeof(commit));
  BenchJSONEscape(p->petsc, petsc, sizeof(petsc));
  PetscCall(PetscSNPrintf(buf, len, "\"commit\": \"%s\", \"dirty\": %s, \"cuda_driver\": \"%d.%d\", \"cuda_runtime\": \"%d.%d\", \"petsc\": \"%s\"", commit, p->dirty[0] ? (p->dirty[0] == '1' ? "true" : "false") : "null", p->driver / 1000, (p->driver % 1000) / 10, p->runtime / 1000, (p->runtime % 1000) / 10, petsc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BenchTimingOptions(BenchOptionItems PetscOptionsObject, PetscInt *warmup, PetscInt *batches, PetscInt *reps, PetscInt *bw_mib, PetscInt *bw_reps)
{
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsBoundedInt("-warmup", "Untimed products before timing", NULL, *warmup, warmup, NULL, 0));
  PetscCall(PetscOptionsBoundedInt("-batches", "Number of timed batches", NULL, *batches, batches, NULL, 1));
  PetscCall(PetscOptionsBoundedInt("-reps", "Products per timed batch", NULL, *reps, reps, NULL, 1));
  PetscCall(PetscOptionsBoundedInt("-bw_mib", "MiB per buffer of the copy bandwidth measurement", NULL, *bw_mib, bw_mib, NULL, 1));
  PetscCall(PetscOptionsBoundedInt("-bw_reps", "Timed copies of the copy bandwidth measurement", NULL, *bw_reps, bw_reps, NULL, 1));
  PetscFunctionReturn(PETSC_SUCCESS);
}
