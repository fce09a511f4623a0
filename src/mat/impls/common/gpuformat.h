#pragma once

/*
   The common layer of petsc-gpuformats: everything a GPU matrix format does not need to know about PETSc.

   A format is a small interface (MatGPUFormatOps) over a format object of its own. The common layer
   (gpuformat.c) turns it into a PETSc Mat type derived from MATSEQAIJCUSPARSE: it owns the overridden
   operations, the state tracking (rebuild on a nonzero-pattern change, values-only refresh on a value
   change), the converters, options, logging, viewing and error checks. The host CSR and cuSPARSE's
   device CSR stay PETSc's; the format keeps a shadow copy on the device that MatMult and MatMultAdd use.
*/

#include <petscgpuformats.h>

#if defined(PETSC_USE_COMPLEX) || defined(PETSC_USE_64BIT_INDICES) || !defined(PETSC_USE_REAL_DOUBLE)
  #define MATGPUFORMAT_UNSUPPORTED_BUILD 1
#endif

#if !defined(MATGPUFORMAT_UNSUPPORTED_BUILD)
  #include <petscdevice_cuda.h>
#else
typedef void             *cudaStream_t;
typedef void             *cudaEvent_t;
#endif

/* The options object that a type's SetFromOptions() receives: a pointer to PetscOptionItems up to PETSc 3.22, a
   PetscOptionItems (itself a pointer type) since 3.23 */
#if PETSC_VERSION_GE(3, 23, 0)
typedef PetscOptionItems MatGPUFormatOptionItems;
#else
typedef PetscOptionItems *MatGPUFormatOptionItems;
#endif

/* Row-length statistics of a CSR matrix, computed on the device by the common layer before a build */
typedef struct {
  PetscInt       nnz;    /* entries */
  PetscInt       nzrows; /* rows with at least one entry */
  PetscInt       maxlen; /* longest row */
  PetscLogDouble mean;   /* nnz / m */
  PetscLogDouble stddev; /* standard deviation of the row lengths */
} MatGPUFormatRowStats;

/*
   Where a build's time goes, for -info: the phases a build marks with MatGPUFormatBuildPhase_Private(), each timed to the
   end of its kernels, and the device allocations. Off, and no synchronisation added, unless PetscInfo() is on for Mat.
*/
#define MATGPUFORMAT_MAX_PHASES 16
typedef struct {
  PetscBool      on;
  PetscInt       n;
  const char    *name[MATGPUFORMAT_MAX_PHASES];
  PetscLogDouble seconds[MATGPUFORMAT_MAX_PHASES];
  PetscLogDouble last;                       /* PetscTime() at the end of the previous phase */
  PetscInt       mallocs, frees;             /* device allocations and frees during the build, ... */
  PetscLogDouble mallocbytes, mallocseconds; /* ... the bytes allocated, the host time in cudaMalloc() and cudaFree() */
} MatGPUFormatPhases;

/* A read-only view of the device CSR owned by cuSPARSE; valid only during the call it is passed to */
typedef struct {
  PetscInt             m, n, nnz; /* nnz > 0 and m > 0: empty matrices never reach a format */
  const int           *rowptr;    /* device, m+1 entries, never compressed */
  const int           *colind;    /* device, nnz */
  const PetscScalar   *val;       /* device, nnz */
  MatGPUFormatRowStats stats;
  cudaStream_t         stream;
  MatGPUFormatPhases  *phases; /* of a build, else NULL */
} MatGPUFormatCSR;

/*
   The interface a format fills. Every function receives the format object created by create().
   build() replaces whatever the object held before; refresh() copies new values in the same
   pattern; mult() computes z = A x (y == NULL) or z = y + A x (y may equal z) on the given stream;
   multrefresh(), optional, does refresh() and mult() in one pass over the format.
*/
typedef struct {
  const char *name;    /* lower-case root, used in option names: -mat_<name>_<param> */
  const char *title;   /* used in log events (<Title>Build, <Title>Values) and in viewers */
  const char *seqtype; /* concrete sequential type name */
  const char *mpitype; /* concrete parallel type name (gpuformatmpi.c) */
  PetscErrorCode (*create)(void **);
  PetscErrorCode (*copyparams)(const void *, void *);
  PetscErrorCode (*sameparams)(const void *, const void *, PetscBool *); /* the parameters copyparams() copies are equal */
  PetscErrorCode (*setfromoptions)(void *, MatGPUFormatOptionItems);
  PetscErrorCode (*build)(void *, const MatGPUFormatCSR *);
  PetscErrorCode (*refresh)(void *, const MatGPUFormatCSR *);
  PetscErrorCode (*mult)(void *, const PetscScalar *, const PetscScalar *, PetscScalar *, cudaStream_t);
  PetscErrorCode (*reset)(void *);                    /* frees the device data, keeps the parameters (before a rebuild; at destroy the common layer then frees the object) */
  PetscErrorCode (*view)(void *, PetscViewer);        /* ascii_info statistics */
  PetscErrorCode (*memory)(void *, PetscLogDouble *); /* device bytes held */
  PetscLogEvent event_build, event_values;            /* registered by PetscGPUFormatsInitializePackage() */
  /* optional: the product with the refresh fused into it, z = A x or z = y + A x as mult() computes it, where A's values
     are first taken from the device CSR csr (the same pattern as built) and stored in the format as refresh() would;
     the common layer calls it for the first product after a values-only change instead of refresh() then mult() */
  PetscErrorCode (*multrefresh)(void *, const MatGPUFormatCSR *, const PetscScalar *, const PetscScalar *, PetscScalar *, cudaStream_t);
  /* optional: after a successful build, whether the format declined the matrix (DIA, whose diagonals would hold more
     padding than its bound allows) instead of building it; the common layer then multiplies with cuSPARSE's CSR
     (aijcusparse's product) until the pattern or a parameter changes, and refreshes nothing in between. A declined
     format holds no device memory; its view() says why it declined */
  PetscErrorCode (*declined)(void *, PetscBool *);
  /* optional: frees the object that create() made, after reset(); needed only by a format whose object holds other host
     allocations (gpuauto: its candidates' objects). Without it the common layer frees the object with PetscFree() */
  PetscErrorCode (*destroy)(void *);
  /* the default of -mat_gpuformat_build_after: products through cuSPARSE's CSR after each change of the nonzero pattern
     before the format is built (0: the first product builds; gpuauto: GPUAUTO_BUILD_AFTER) */
  PetscInt build_after;
} MatGPUFormatOps;

PETSC_INTERN PetscErrorCode MatGPUFormatRegister_Private(MatGPUFormatOps *);
PETSC_INTERN PetscErrorCode MatCreate_SeqGPUFormat_Private(Mat, MatGPUFormatOps *);
PETSC_INTERN PetscErrorCode MatCreate_MPIGPUFormat_Private(Mat, MatGPUFormatOps *);
PETSC_INTERN PetscErrorCode MatGPUFormatGetFormat_Private(Mat, MatGPUFormatOps *, void **);
PETSC_INTERN PetscErrorCode MatGPUFormatRequireFormat_Private(Mat, MatGPUFormatOps *, void **);
PETSC_INTERN PetscErrorCode MatGPUFormatGetLocalFormat_Private(Mat, MatGPUFormatOps *, void **);
PETSC_INTERN PetscErrorCode MatGPUFormatInvalidate_Private(Mat);
PETSC_INTERN PetscErrorCode MatGPUFormatObjectDestroy_Private(MatGPUFormatOps *, void **);

/* Entries at most: the kernels index with 32-bit integers and step up to this far past the last entry */
#define MATGPUFORMAT_MAX_NNZ (PETSC_INT_MAX - 4096)

#if defined(__cplusplus)
  #include <exception>
  #include <new>
  #include <stdexcept>
/* A Thrust call that may throw (allocation, CUDA errors) becomes a PETSc error; out of memory is PETSC_ERR_MEM */
  #define MatGPUFormatCallThrust(...)                                                            \
    do {                                                                                         \
      try {                                                                                      \
        __VA_ARGS__;                                                                             \
      } catch (const std::bad_alloc &ex) {                                                       \
        SETERRQ(PETSC_COMM_SELF, PETSC_ERR_MEM, "Thrust: out of device memory (%s)", ex.what()); \
      } catch (const std::exception &ex) {                                                       \
        SETERRQ(PETSC_COMM_SELF, PETSC_ERR_LIB, "Thrust: %s", ex.what());                        \
      }                                                                                          \
    } while (0)
#endif

/* Device helpers shared by formats (cuda/gpuformat.cu) */
PETSC_INTERN PetscErrorCode MatGPUFormatRowStats_Private(const char *, PetscInt, const int *, cudaStream_t, MatGPUFormatRowStats *);
PETSC_INTERN PetscErrorCode MatGPUFormatGatherValues_Private(PetscInt64, const int *, const PetscScalar *, PetscScalar *, cudaStream_t);
PETSC_INTERN PetscErrorCode MatGPUFormatDeviceMalloc_Private(const char *, size_t, void **);
PETSC_INTERN PetscErrorCode MatGPUFormatDeviceFree_Private(void **);
PETSC_INTERN PetscErrorCode MatGPUFormatDeviceFreeTemporary_Private(void **);
/* The phase that has just ended in a build (name: a string literal); nothing unless csr->phases->on */
PETSC_INTERN PetscErrorCode      MatGPUFormatBuildPhase_Private(const MatGPUFormatCSR *, const char *);
PETSC_INTERN MatGPUFormatPhases *MatGPUFormatCurrentPhases; /* of the build running now, for the allocations' count */
PETSC_INTERN PetscErrorCode      MatGPUFormatCheckDeviceMemory_Private(const char *, size_t);
PETSC_INTERN PetscErrorCode      MatGPUFormatReleaseCachedMemory_Private(void);
PETSC_INTERN PetscBool3          MatGPUFormatStreamAllocOption;                /* -mat_gpuformat_stream_alloc, read once at the package's initialization */
PETSC_INTERN PetscErrorCode      MatGPUFormatStreamAlloc_Private(PetscBool *); /* the formats' memory from the pool, or from cudaMalloc() */
/* Brackets a build (its row statistics included): its small temporaries then share one device block, and with
   cudaMalloc() the others are freed together at its end, after one wait (the block after another, short one) */
PETSC_INTERN PetscErrorCode MatGPUFormatBuildTemporariesBegin_Private(void);
PETSC_INTERN PetscErrorCode MatGPUFormatBuildTemporariesEnd_Private(void);
/* A temporary of a build (a scratch block, Thrust's storage), freed with MatGPUFormatDeviceFreeTemporary_Private() */
PETSC_INTERN PetscErrorCode MatGPUFormatTemporaryMalloc_Private(const char *, size_t, void **);

/*
   A format's arrays in one device allocation: MatGPUFormatDeviceMallocArrays_Private(title, &mem, n, arrays) sets each
   *arrays[i].ptr to its own part of the block *mem, at a 256-byte boundary (NULL when it has no bytes). The arrays'
   pointers are views: the format frees mem, and never an array.
*/
typedef struct {
  void **ptr;
  size_t bytes;
} MatGPUFormatArray;
PETSC_INTERN PetscErrorCode MatGPUFormatDeviceMallocArrays_Private(const char *, void **, PetscInt, const MatGPUFormatArray[]);

/*
   The device temporaries of a build, owned by the format object as a stack: a helper takes a mark (scratch.n), allocates
   with MatGPUFormatScratchMalloc_Private() and releases down to its mark at its end. An error on the way returns with the
   temporaries still on the stack; the format's reset() releases them all (to 0), so no error path leaks device memory.
*/
#define MATGPUFORMAT_SCRATCH_MAX 16
typedef struct {
  void    *ptr[MATGPUFORMAT_SCRATCH_MAX];
  PetscInt n;
} MatGPUFormatScratch;

PETSC_INTERN PetscErrorCode MatGPUFormatScratchMalloc_Private(MatGPUFormatScratch *, const char *, size_t, void **);
PETSC_INTERN PetscErrorCode MatGPUFormatScratchRelease_Private(MatGPUFormatScratch *, PetscInt);
/* Several temporaries of the same life as one entry of the stack: views into one block, as MatGPUFormatDeviceMallocArrays_Private() */
PETSC_INTERN PetscErrorCode MatGPUFormatScratchMallocArrays_Private(MatGPUFormatScratch *, const char *, PetscInt, const MatGPUFormatArray[]);

/* A format's bound on its slots per entry (DIA, ELL), -mat_<name>_max_fill: above it the build declines the matrix
   (nothing allocated; the products are aijcusparse's, through the optional declined() op) or, with -mat_<name>_fallback
   false, fails with PETSC_ERR_SUP naming the bound */
typedef struct {
  PetscReal maxfill;  /* 0: no bound */
  PetscBool fallback; /* a declined matrix multiplies with aijcusparse's product (else the build fails) */
} MatGPUFormatFillBound;

static inline PetscBool MatGPUFormatFillBoundExceeded(const MatGPUFormatFillBound *b, PetscReal fill)
{
  return (PetscBool)(b->maxfill > 0 && fill > b->maxfill);
}
PETSC_INTERN PetscErrorCode MatGPUFormatFillBoundSetFromOptions_Private(MatGPUFormatFillBound *, const char *, const char *, const char *, const char *, MatGPUFormatOptionItems);
PETSC_INTERN PetscErrorCode MatGPUFormatFillBoundRefuse_Private(const MatGPUFormatFillBound *, const char *, const char *, PetscReal, const char *, const char *);
PETSC_INTERN PetscErrorCode MatGPUFormatFillBoundString_Private(const MatGPUFormatFillBound *, const char *, char *, size_t);
PETSC_INTERN PetscErrorCode MatGPUFormatFillBoundViewDeclined_Private(const char *, PetscBool, PetscViewer);

#if defined(__CUDACC__)
/* Blocks of a grid-stride launch over n work items at `block` threads each: at least 1, at most 65536 */
static inline unsigned MatGPUFormatGrid(PetscInt64 n, int block)
{
  return (unsigned)PetscMax(1, PetscMin((n + block - 1) / block, 65536));
}

/* The row of CSR entry e: the last row i < m with rowptr[i] <= e, by binary search */
__device__ __forceinline__ int MatGPUFormatRowOfEntry(const int *__restrict__ rowptr, int m, long long e)
{
  int lo = 0, hi = m - 1;

  while (lo < hi) {
    const int mid = (lo + hi + 1) >> 1;

    if (__ldg(rowptr + mid) <= e) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/*
   The deterministic step of split rows (the part that stores the last partial sum of a row, found by a counter,
   adds them all in a fixed order) is written out in each format's kernel: CMRS's long strips, SELL-C-sigma's long
   part, BCE's split rows. Through a shared device function the products on long rows took 1 to 3% longer (CMRS
   on `longrows` 41.4 against 40.1 us, SELL-C-sigma on the dense matrix 78.8 against 77.9; bench/README.md).
*/

/* Sum over the 32 lanes of a full warp; every lane gets it, bitwise the same as lane 0 of the __shfl_down_sync form */
__device__ __forceinline__ PetscScalar MatGPUFormatWarpSum(PetscScalar sum)
{
  #pragma unroll
  for (int off = 16; off > 0; off >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, off);
  return sum;
}
#endif

#if defined(__CUDACC__) && !defined(MATGPUFORMAT_UNSUPPORTED_BUILD)
  #include <thrust/execution_policy.h>
/* Thrust's temporary storage through the common layer's checked allocations, so that a build's -info line counts them
   and running out of memory names the bytes; out of memory is std::bad_alloc, which MatGPUFormatCallThrust() turns into
   PETSC_ERR_MEM, any other failure std::runtime_error (PETSC_ERR_LIB) */
struct MatGPUFormatThrustAllocator {
  typedef char value_type;
  char        *allocate(std::ptrdiff_t bytes)
  {
    void *p = NULL;

    const PetscErrorCode ierr = MatGPUFormatTemporaryMalloc_Private("Thrust temporary", (size_t)bytes, &p);

    if (ierr == PETSC_ERR_MEM) throw std::bad_alloc();
    if (ierr) throw std::runtime_error("a device allocation for Thrust failed, not for lack of memory");
    return (char *)p;
  }
  void deallocate(char *p, size_t)
  {
    void *q = p;

    (void)MatGPUFormatDeviceFreeTemporary_Private(&q);
  }
};
static MatGPUFormatThrustAllocator MatGPUFormatThrustAlloc; /* stateless; Thrust's policy keeps a reference to it */

/* par_nosync: an algorithm that returns no value to the host does not wait for its kernels (they are ordered on the
   stream like ours); one that does (count_if, reduce, copy_if) still waits, as it must */
  #define MatGPUFormatThrustPolicy(stream) thrust::cuda::par_nosync(MatGPUFormatThrustAlloc).on(stream)
#endif
