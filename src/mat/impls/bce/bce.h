#pragma once

/*
   BCE with the optimal partitioning algorithm (Yang, Li, Li, "Performance analysis and optimization for SpMV on
   GPU using probabilistic modeling", IEEE TPDS 26, 2015): the rows are grouped by length into k blocks, each
   a range of row lengths (M_{i-1}, M_i] chosen by a dynamic program over a cost model, and each block is
   stored as ELL, as wide as its longest row. The arrays below describe the format both on the host (the
   reference, bce.c) and on the device (cuda/bce.cu): the kernel reads exactly these.

   Layout. Block b holds the reordered rows [row0, row0 + nrows) and is run with t = 2^logt threads per row.
   Entry j of its local row q is at pos + (j / t) (nrows t) + q t + j mod t: column-major in groups of t
   entries, so the t threads of a row and the rows of a warp read consecutive slots (for t = 1 this is the
   paper's column-major ELL). Slots past a row's length are padding (column 0, value 0) and are never read:
   a thread stops at its row's length. Empty rows, if any, form block 0, of width 0.

   Schedule. The kernel runs `nsub` CUDA blocks of BCE_BLOCK threads; block b owns [sub0, sub0 + nsub_b): a
   sub-block of BCE_BLOCK / t rows, or, for rows split in `pieces` parts (the widest blocks), one part of one
   row, whose partial sums the last part to finish adds in order. The device runs the sub-blocks of rows of
   two or more threads first, widest block first, then the others (one thread per row) by the original index of their
   first row (cuda/bce.cu).
*/
#include "../common/gpuformat.h"

#define BCE_BLOCK              256 /* threads per CUDA block, and the most threads per row */
#define BCE_ENTRIES_PER_THREAD 64  /* t: the fewest threads per row that leave each at most this many entries */
/* ... at most BCE_WIDE_ENTRIES_PER_THREAD in wide rows, when these hold at most BCE_WIDE_MAX_ENTRIES entries: rows longer
   than BCE_WIDE_ROW_SMALL in a matrix of at most BCE_SMALL_ENTRIES entries, else rows longer than BCE_WIDE_ROW (see
   BCEThreadsPerRow() and BCEWideChoose()) */
#define BCE_SMALL_ENTRIES           (1 << 20)
#define BCE_WIDE_ROW_SMALL          16
#define BCE_WIDE_ROW                512
#define BCE_WIDE_ENTRIES_PER_THREAD 16
#define BCE_WIDE_MAX_ENTRIES        (1 << 21)
/* Hot columns by default (-mat_bce_hot_columns -1): where the row lengths' standard deviation exceeds their mean and the
   matrix has at least BCE_HOT_MIN_COLUMNS columns, the k = min(BCE_HOT_AUTO, n / BCE_HOT_FRACTION) most used columns are
   counted, and kept where they hold at least BCE_HOT_MIN_SHARE of the entries and BCE_HOT_SKEW times their share of the
   columns, k / n (columns used evenly gain nothing; run_suite.sh hot: R-MAT's 65,536 most used hold 63 to 82 % of its
   entries, the circuit-like and LP-like matrices' 3 %) */
#define BCE_HOT_AUTO         131072
#define BCE_HOT_MIN_COLUMNS  262144
#define BCE_HOT_FRACTION     8
#define BCE_HOT_MIN_SHARE    0.2
#define BCE_HOT_SKEW         4
#define BCE_GROUPS_PER_PIECE 16 /* rows run with BCE_BLOCK threads are split in parts of this many groups of t */

typedef struct {
  PetscInt64 pos;    /* first slot */
  int        row0;   /* first reordered row */
  int        nrows;  /* rows */
  int        width;  /* longest row: M_i */
  int        minlen; /* shortest row: when it equals width, the kernel reads no row lengths */
  int        logt;   /* log2 of the threads per row */
  int        sub0;   /* first CUDA block of the schedule */
  int        pieces; /* parts each row is split in (1 but for the widest blocks) */
  int        part0;  /* first partial sum of this block's split rows */
  int        split0; /* first counter of this block's split rows */
} BCEBlock;

/* The rule for wide rows: rows longer than `row` entries get at most `entries` (in [1, BCE_ENTRIES_PER_THREAD]) entries
   per thread */
typedef struct {
  PetscInt row, entries;
} BCEWide;

typedef struct {
  PetscInt       m, n, nnz;
  PetscInt       L;         /* the cost model's L, in threads */
  BCEWide        wide;      /* the rule for wide rows (BCEWideChoose()) */
  PetscInt       nlengths;  /* distinct nonzero row lengths (M') */
  PetscInt       maxgroups; /* merge the lengths into at most this many groups before the partition; 0: never */
  PetscInt       ngroups;   /* groups the partition ran on (nlengths when not merged) */
  PetscInt       nempty;    /* empty rows */
  PetscInt       k;         /* blocks of nonempty rows */
  PetscInt       nblocks;   /* k, plus 1 when there are empty rows */
  PetscInt       nsub;      /* CUDA blocks of a product */
  PetscInt       nparts;    /* partial sums of split rows */
  PetscInt       nsplit;    /* rows split in parts */
  PetscInt64     nslots;    /* entries plus padding */
  PetscLogDouble cost;      /* the model's cost of the partition */
  BCEBlock      *blocks;    /* nblocks */
  int           *rowno;     /* m: original row of reordered row r */
  int           *rowlen;    /* m: length of reordered row r */
  int           *col;       /* nslots */
  PetscScalar   *val;       /* nslots */
} BCEArrays;

PETSC_INTERN PetscInt       BCEThreadsPerRow(PetscInt, BCEWide);
PETSC_INTERN BCEWide        BCEWideChoose(PetscInt, const PetscInt *, const PetscInt64 *, BCEWide);
PETSC_INTERN PetscLogDouble BCEBlockCost(PetscInt, PetscInt64, PetscInt, BCEWide);
PETSC_INTERN PetscErrorCode BCEPartition(PetscInt, const PetscInt *, const PetscInt64 *, PetscInt, BCEWide, PetscInt *, PetscInt *, PetscLogDouble *);
PETSC_INTERN PetscErrorCode BCEMergeLengths(PetscInt, const PetscInt *, PetscInt, PetscInt *, PetscInt *);
PETSC_INTERN PetscErrorCode BCEPartitionMerged(PetscInt, const PetscInt *, const PetscInt64 *, PetscInt, BCEWide, PetscInt, PetscInt *, PetscInt *, PetscInt *, PetscLogDouble *);
PETSC_INTERN PetscErrorCode BCESetBlocks(PetscInt, const PetscInt *, const PetscInt64 *, PetscInt, PetscInt, const PetscInt *, BCEArrays *);
PETSC_INTERN PetscErrorCode BCEBuildHost(PetscInt, PetscInt, const PetscInt *, const PetscInt *, const PetscScalar *, PetscInt, BCEWide, PetscInt, BCEArrays *);
PETSC_INTERN PetscErrorCode BCEMultHost(const BCEArrays *, const PetscScalar *, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode BCEDestroyHost(BCEArrays *);
PETSC_INTERN PetscReal      BCEPaddingRatio(const BCEArrays *);

PETSC_INTERN MatGPUFormatOps MatBCEOps;
PETSC_INTERN PetscErrorCode  MatCreate_SeqBCE(Mat);
