#pragma once
/*
   CMRS on the GPU, what its translation units share: the parameters and device arrays of the format (Mat_CMRS), the
   product's arguments, and CMRSLaunchHeight<H>(), the product of strips of H rows. cmrs.cu holds the build and the
   format's interface; the product's kernels are in cmrsmult.cuh, which only the units of one height each include
   (cmrs_h<H>.cu).
   CUDA loads a unit's device code at the first launch of one of its kernels (lazy loading, CUDA's default since 12.2),
   at about 1.6 ms per MB on an H100 (bench/results/h100/ex45-first-build.md): the five heights in one unit made 5.6 MB,
   which a program's first product paid whatever the height it used.
*/
#include "../cmrs.h"
#include <petsc/private/petscimpl.h>

#define CMRS_BLOCK  256 /* threads per block */
#define CMRS_WARPS  (CMRS_BLOCK / 32)
#define CMRS_UNROLL 4 /* entries each lane loads before it uses the first (memory-level parallelism) */
/*
   A strip with more than max(CMRS_LONG_MIN, CMRS_LONG_FACTOR x the mean strip) entries would keep one warp
   busy long after the others finish (the paper's lp1 weakness): it is split into chunks of CMRS_CHUNK
   entries, one warp each. Each chunk stores its per-row partial sums; the warp that finishes the last chunk
   of a strip (a counter per strip) adds them up in chunk order, so the result does not depend on timing.
   A small matrix has too few warps to hide its longest one, which then is the product's time (a strip of 4,000
   entries is 31 dependent steps of one warp: the circuit-like matrix of 6,000 rows took 14.6 us on an H100, 1.4
   times cuSPARSE): there a strip is also long past 1 / CMRS_LONG_SHARE of all entries (at least CMRS_CHUNK_SMALL),
   and is split into chunks of the fewest entries of CMRS_CHUNK_SMALL_MIN, twice that, ... up to CMRS_CHUNK_SMALL, that
   leave at most CMRS_CHUNKS_PER_ROW chunks to the longest row. A chunk of 128 entries is one step of its warp, but the
   last warp of a strip reads every chunk's partial sums, and the chunks of a strip count on one atomic counter: on an
   H100, chunks of 128 took the circuit-like matrices of 6,000, 20,000 and 100,000 rows (longest rows 3,815, 5,747 and
   3,904) from 6.6, 7.4 and 11.1 us (chunks of 512) to 5.8, 6.6 and 8.7, R-MAT of scale 14 from 8.6 to 7.1, but the
   LP-like matrix (rows of 25,196 entries) from 7.9 to 11.1 (bench/results/h100/cmrs-chunks.md). From about 2 million
   entries on, nnz / CMRS_LONG_SHARE exceeds CMRS_LONG_MIN and the rule is the one above. -mat_cmrs_long_strip and
   -mat_cmrs_chunk set the threshold and the chunk instead.
*/
#define CMRS_LONG_MIN        4096
#define CMRS_LONG_FACTOR     8
#define CMRS_CHUNK           1024
#define CMRS_LONG_SHARE      512
#define CMRS_CHUNK_SMALL     512
#define CMRS_CHUNK_SMALL_MIN 128
#define CMRS_CHUNKS_PER_ROW  64
#define CMRS_CHUNK_MAX       4096 /* -mat_cmrs_chunk: a chunk's end, its first entry plus the chunk, stays within int (MATGPUFORMAT_MAX_NNZ) */
/* The one-pass ranking of a build takes one warp per strip unless the longest row exceeds both CMRS_RANK_WARP_MAX / height
   entries (a warp's 64 passes) and CMRS_RANK_SKEW times the mean row; then one thread per entry */
#define CMRS_RANK_WARP_MAX 2048
#define CMRS_RANK_SKEW     8.0
/* Where every strip has at most 32 CMRS_WARP_SORT_ITEMS entries (height times the longest row), a warp sorts each instead
   (-mat_cmrs_warp_sort). H200, device builds (bench_spmv -types cmrs/mat_cmrs_warp_sort=0,cmrs, median of 5), searches
   against sorts: 2D 5-point Laplacian (strips of 16 rows of 5) 1.39 -> 1.01 ms, 3D 7-point (16 of 7) 1.83 -> 1.06; with 8
   keys a lane, the 27-point Laplacian (8 rows of 27) 1.50 -> 1.48 and the banded matrix (4 rows of 50) 2.95 -> 4.40 */
#define CMRS_WARP_SORT_ITEMS 4
/* Where the rows are skewed (above), the indices packed and the matrix has more than CMRS_RANK_SPLIT_MIN entries, strips of
   up to 32 CMRS_WARP_SORT_ITEMS entries are sorted by a warp, and the entries of longer ones ranked a thread each,
   CMRS_RANK_CHUNK consecutive entries per CUDA block, instead of a thread per entry that searches all rows for its own.
   H200, device builds (bench_spmv -types cmrs/mat_cmrs_warp_sort=0,cmrs, median of 5): circuit-like 4M rows 2.00 ->
   1.30 ms, R-MAT scale 20 1.11 -> 1.02; on matrices of 48 k to 614 k entries (R-MAT, circuit-like) 0 to 34 µs slower
   (one kernel more), hence the bound */
#define CMRS_RANK_CHUNK     1024
#define CMRS_RANK_SPLIT_MIN (1 << 20)
/* The ranking stores each entry's value as it places it (no gather through perm after it) where the mean row has at
   most this many entries. Measured on an H200 (build phases, -info): ranking + gather 1.18 -> 1.06 ms on the 2D 5-point
   Laplacian (rows of 5, strips of 16), 1.54 -> 1.34 on the 3D 7-point one; but 1.04 -> 1.04 on the 27-point Laplacian
   (rows of 27, strips of 8) and 2.35 -> 2.73 on the banded matrix (rows of 50, strips of 4), whose scattered 8-byte
   stores held the ranking up more than the separate gather took */
#define CMRS_RANK_VALUES_MEAN 16
/*
   A warp may take 2 or 4 consecutive strips and issue all their loads at once (when each has at most
   32 CMRS_UNROLL entries; a longer one in the group sends the warp through the strips one by one). By
   default it takes CMRS_GROUP when the mean strip has at most CMRS_SHORT_MEAN entries and the row lengths
   vary more than their mean (measured in bench/README.md: it pays where x gathers miss the caches, and
   costs 9 to 25% on stencils, whose x stays in cache).
*/
#define CMRS_GROUP      4
#define CMRS_SHORT_MEAN 96

typedef struct {
  /* parameters */
  PetscInt  height;    /* 0: chosen from the row lengths at build time */
  PetscBool sort;      /* sort the entries of each strip by column */
  PetscBool warpsort;  /* build: a warp sorts each short strip (cmrs_sort_strips_kernel()) instead of ranking by searches */
  PetscBool pack;      /* pack the row in strip into the column index when the columns fit */
  PetscInt  spw;       /* strips per warp, 1, 2 or 4; 0: chosen from the mean strip at build time */
  PetscInt  longstrip; /* strips with more entries are split into chunks; 0: chosen at build time */
  PetscInt  chunkset;  /* entries per chunk of a split strip; 0: chosen at build time */
  /* the matrix, on the device */
  CMRSArrays d;
  int       *perm;     /* sorted only: CSR position of each entry, for value refreshes */
  PetscBool  identity; /* perm is the identity (strips of one row ranked from rows sorted by column): not read */
  PetscBool  ranked;   /* the strips ranked from CSR rows sorted by column: in a strip, each row's entries keep the CSR's order */
  PetscInt   group;    /* strips per warp in use */
  PetscInt   longthreshold, nlong, nchunks;
  PetscInt   chunk;                /* entries per chunk of a long strip: CMRS_CHUNK, or CMRS_CHUNK_SMALL_MIN to CMRS_CHUNK_SMALL below CMRS_LONG_MIN */
  PetscBool  small;                /* the chosen threshold is below CMRS_LONG_MIN (under about 2 M entries): the fused refresh
                                      stays with split strips */
  int                 *longstrips; /* nlong strips split into chunks */
  int                 *chunkptr;   /* nlong + 1: chunks of long strip l are [chunkptr[l], chunkptr[l+1]) */
  PetscScalar         *partial;    /* nchunks x height partial row sums */
  unsigned            *done;       /* nlong chunk counters, back to 0 after each product */
  MatGPUFormatRowStats stats;
  PetscLogDouble       bytes;
  MatGPUFormatScratch  scratch; /* the build's device temporaries */
  void                *mem[2];  /* the device allocations that hold the arrays: d's and perm; partial, longstrips, chunkptr and done */
} Mat_CMRS;

struct CMRSKernelArgs {
  int                  m, nstrips, nlong, nchunks, longthreshold, chunk;
  const int           *strip_ptr;
  const unsigned      *colind;
  const unsigned char *rowin;
  const PetscScalar   *val;
  const int           *longstrips, *chunkptr;
  PetscScalar         *partial;
  unsigned            *done;
};

/* With the refresh fused into the product: the new values (CSR order), the CSR entry of each CMRS entry (NULL: the same
   order, also when sorted, or found from rowptr), the entries' values to store them in, and the CSR's row offsets
   (ranked strips, none split, H > 1; else NULL): then the CSR entry of a strip's entry is its row's start plus the count
   of that row's entries before it in the strip, found by the warp as it goes, and perm is not read (4 bytes an entry) */
struct CMRSRefreshArgs {
  const PetscScalar *csrval;
  const int         *perm;
  PetscScalar       *val;
  const int         *rowptr;
};

/* The product of strips of H rows (f: NULL, or the refresh fused into it): defined in cmrsmult.cuh, instantiated once
   per height in cmrs_h<H>.cu, so that this unit (cmrs.cu) holds no product kernel */
template <int H>
PETSC_VISIBILITY_INTERNAL PetscErrorCode CMRSLaunchHeight(const Mat_CMRS *, const CMRSRefreshArgs *, const PetscScalar *, const PetscScalar *, PetscScalar *, cudaStream_t);
