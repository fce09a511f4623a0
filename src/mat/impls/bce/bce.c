/*
   BCE host reference: the optimal partitioning algorithm (shared with the device build), the block layout,
   the build from CSR and the product as plain loops over the arrays the CUDA kernel reads. It is the oracle
   of the tests and needs no GPU.
*/
#include "bce.h"

/*
   t(W): the fewest threads per row, a power of two up to BCE_BLOCK, that leave each thread at most BCE_ENTRIES_PER_THREAD
   entries, or wide.entries (at most BCE_ENTRIES_PER_THREAD, so that t(W) never decreases as W grows, which
   BCEPartition() needs) in rows longer than wide.row.
*/
PetscInt BCEThreadsPerRow(PetscInt W, BCEWide wide)
{
  const PetscInt per = W > wide.row ? wide.entries : BCE_ENTRIES_PER_THREAD;
  PetscInt       t   = 1;

  while (t < BCE_BLOCK && (PetscInt64)t * per < W) t *= 2;
  return t;
}

/* Entries in rows longer than row, of q distinct lengths len with cnt rows each */
static PetscInt64 BCEEntriesAbove(PetscInt q, const PetscInt *len, const PetscInt64 *cnt, PetscInt row)
{
  PetscInt64 entries = 0;

  for (PetscInt i = 0; i < q; i++)
    if (len[i] > row) entries += len[i] * cnt[i];
  return entries;
}

/*
   The rule for wide rows (q distinct lengths len, cnt rows each); a nonzero field of set is taken as it is (checked,
   with the chosen values, where it is used: BCEPartition()). Chosen: the wide rows are those longer than
   BCE_WIDE_ROW_SMALL in a matrix of at most BCE_SMALL_ENTRIES entries, else those longer than BCE_WIDE_ROW; they get
   BCE_WIDE_ENTRIES_PER_THREAD entries per thread when they hold at most BCE_WIDE_MAX_ENTRIES entries, else
   BCE_ENTRIES_PER_THREAD.

   A thread's entries are a chain of memory round trips (BCE_UNROLL entries each). When the wide rows are a few, the
   tail of a product, nothing hides theirs: on an H100 the 4 rows of about 3,900 entries of the circuit-like matrix of
   100,000 rows, 64 threads each, took the product 11.7 us (aijcusparse 10.4); with 256 threads, 8.1. When they are many,
   the product is bound by throughput, and more threads only add partial sums: R-MAT of scale 20 (6,196 rows of more
   than 512 entries, 7 million entries) went from 139.4 to 144.2 us (bench/results/h100/bce-wide.md). In a small
   matrix the whole product is such a tail: one thread's 17 to 64 entries are 3 to 8 round trips where the product
   takes a few. With 16 entries per thread in every row of more than 16, R-MAT of scale 14 (228,539 entries) went from
   8.5 to 5.2 us, the 27-point Laplacian of 24^3 from 5.2 to 4.2; R-MAT of scale 17 (2 million entries) went from 22.5
   to 24.9 us already with rows past 64 wide (bench/results/h100/bce-small.md).
*/
BCEWide BCEWideChoose(PetscInt q, const PetscInt *len, const PetscInt64 *cnt, BCEWide set)
{
  BCEWide w;

  w.row     = set.row ? set.row : (BCEEntriesAbove(q, len, cnt, 0) <= BCE_SMALL_ENTRIES ? BCE_WIDE_ROW_SMALL : BCE_WIDE_ROW);
  w.entries = set.entries ? set.entries : (BCEEntriesAbove(q, len, cnt, w.row) <= BCE_WIDE_MAX_ENTRIES ? BCE_WIDE_ENTRIES_PER_THREAD : BCE_ENTRIES_PER_THREAD);
  return w;
}

/*
   The cost model of the paper, T(C) = W(C) max(N(C), L), with rows counted in threads: a block of N rows of
   width W run with t = t(W) threads per row costs W max(N, L / t). A block that keeps fewer than L threads
   busy costs as much as one of L threads. For t = 1 (rows of up to BCE_ENTRIES_PER_THREAD) it is the paper's.
*/
PetscLogDouble BCEBlockCost(PetscInt W, PetscInt64 N, PetscInt L, BCEWide wide)
{
  return (PetscLogDouble)W * PetscMax((PetscLogDouble)N, (PetscLogDouble)L / (PetscLogDouble)BCEThreadsPerRow(W, wide));
}

/*
   The optimal partition of q distinct row lengths len[0] < ... < len[q-1] with cnt[i] rows each into blocks of
   consecutive lengths (the paper's Theorems 5.1 and 5.2), minimizing the sum of BCEBlockCost over the blocks.
   Output: k blocks, block i ending at length index ends[i] (ascending, ends[k-1] = q-1), and the cost.

   The paper's dynamic program (Theorem 5.3) is O(q^3), or O(q^2) with k free; it leaves a merge of lengths,
   unspecified, for q > 100. This one is exact and O(q): with F(i) the optimal cost of the first i lengths
   and S(i) their row count, F(i) = min over j < i of F(j) + W_i max(S(i) - S(j), L_i) (W_i = len[i-1], L_i =
   L / t(W_i)). The candidates j split at jL(i), the first j with S(i) - S(j) <= L_i, which never decreases:
   - j >= jL(i): F(j) + W_i L_i, a sliding-window minimum of F (a monotone deque);
   - j <  jL(i): F(j) - W_i S(j) + W_i S(i), the lower envelope of the lines y = -S(j) x + F(j) at x = W_i,
     added with decreasing slopes and queried at increasing x (a monotone convex-hull deque).
   Every j enters and leaves each deque once. Ties go to the earlier candidate, so the result is deterministic.
*/
PetscErrorCode BCEPartition(PetscInt q, const PetscInt *len, const PetscInt64 *cnt, PetscInt L, BCEWide wide, PetscInt *k, PetscInt *ends, PetscLogDouble *cost)
{
  PetscInt64     *S;
  PetscLogDouble *F;
  PetscInt       *from, *win, *hull, wh = 0, wt = 0, hh = 0, ht = 0, jL = 0, next = 0, nb = 0;

  PetscFunctionBegin;
  PetscCheck(L >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "BCE: L = %" PetscInt_FMT " must be positive", L);
  PetscCheck(wide.entries >= 1 && wide.entries <= BCE_ENTRIES_PER_THREAD, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "BCE: %" PetscInt_FMT " entries per thread in wide rows is not in [1, %d]", wide.entries, BCE_ENTRIES_PER_THREAD);
  PetscCheck(wide.row >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "BCE: wide rows longer than %" PetscInt_FMT " entries: the length must be positive", wide.row);
  *k    = 0;
  *cost = 0;
  if (!q) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc5(q + 1, &S, q + 1, &F, q + 1, &from, q + 1, &win, q + 1, &hull));
  S[0] = 0;
  F[0] = 0;
  for (PetscInt i = 1; i <= q; i++) {
    PetscCheck(cnt[i - 1] > 0 && len[i - 1] > 0 && (i == 1 || len[i - 1] > len[i - 2]), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "BCE: lengths must increase and counts be positive");
    S[i] = S[i - 1] + cnt[i - 1];
  }
  for (PetscInt i = 1; i <= q; i++) {
    const PetscLogDouble W = (PetscLogDouble)len[i - 1], Li = (PetscLogDouble)L / (PetscLogDouble)BCEThreadsPerRow(len[i - 1], wide);
    PetscLogDouble       best;
    PetscInt             arg;

    /* j = i - 1 becomes a candidate; jL moves on */
    while (wt > wh && F[win[wt - 1]] > F[i - 1]) wt--;
    win[wt++] = i - 1;
    while ((PetscLogDouble)(S[i] - S[jL]) > Li) jL++;
    while (wh < wt && win[wh] < jL) wh++;
    /* lines of the candidates j < jL */
    for (; next < jL; next++) {
      while (ht - hh >= 2) { /* the back line is useless if the new one takes over before it does */
        const PetscInt    a = hull[ht - 2], b = hull[ht - 1];
        const long double lhs = ((long double)F[next] - F[a]) * (long double)(S[b] - S[a]), rhs = ((long double)F[b] - F[a]) * (long double)(S[next] - S[a]);

        if (lhs <= rhs) ht--;
        else break;
      }
      hull[ht++] = next;
    }
    best = PETSC_MAX_REAL;
    arg  = -1;
    if (hh < ht) {
      while (ht - hh >= 2 && F[hull[hh + 1]] - W * (PetscLogDouble)S[hull[hh + 1]] < F[hull[hh]] - W * (PetscLogDouble)S[hull[hh]]) hh++;
      best = F[hull[hh]] + W * (PetscLogDouble)(S[i] - S[hull[hh]]);
      arg  = hull[hh];
    }
    if (wh < wt && F[win[wh]] + W * Li < best) {
      best = F[win[wh]] + W * Li;
      arg  = win[wh];
    }
    F[i]    = best;
    from[i] = arg;
  }
  for (PetscInt i = q; i > 0; i = from[i]) ends[nb++] = i - 1;
  for (PetscInt a = 0, b = nb - 1; a < b; a++, b--) {
    const PetscInt e = ends[a];

    ends[a] = ends[b];
    ends[b] = e;
  }
  *k    = nb;
  *cost = F[q];
  PetscCall(PetscFree5(S, F, from, win, hull));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The merge rule, for the paper's case of many distinct lengths (it merges past 100 and leaves the rule open;
   our partition is exact and linear, so this is only an option): consecutive lengths whose longest is at most
   (1 + eps) times their shortest form a group, with the smallest eps = 2^j / 1024 that leaves at most maxgroups
   groups. gend[g] is the index of the last length of group g. A partition of the groups is one of the lengths,
   and its cost is the model's, exactly; against the optimum over the lengths it costs at most 2 (1 + eps) times
   as much: moving each optimal boundary up to the end of its group widens a block by at most 1 + eps and adds
   rows no shorter than its old width, whose entries the optimum already paid for (the cpu test measures the
   actual gap).
*/
PetscErrorCode BCEMergeLengths(PetscInt q, const PetscInt *len, PetscInt maxgroups, PetscInt *ngroups, PetscInt *gend)
{
  PetscFunctionBegin;
  PetscCheck(maxgroups >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "BCE: at most %" PetscInt_FMT " groups of lengths", maxgroups);
  for (PetscReal eps = 1.0 / 1024;; eps *= 2) {
    PetscInt g = 0;

    for (PetscInt i = 0; i < q;) {
      PetscInt j = i;

      while (j + 1 < q && (PetscReal)len[j + 1] <= (1 + eps) * (PetscReal)len[i]) j++;
      gend[g++] = j;
      i         = j + 1;
    }
    *ngroups = g;
    if (g <= maxgroups) break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* BCEPartition, after BCEMergeLengths when maxgroups > 0 and there are more lengths; ends index the lengths */
PetscErrorCode BCEPartitionMerged(PetscInt q, const PetscInt *len, const PetscInt64 *cnt, PetscInt L, BCEWide wide, PetscInt maxgroups, PetscInt *ngroups, PetscInt *k, PetscInt *ends, PetscLogDouble *cost)
{
  PetscInt   *gend, *glen, *gends;
  PetscInt64 *gcnt;

  PetscFunctionBegin;
  *ngroups = q;
  if (!maxgroups || q <= maxgroups) {
    PetscCall(BCEPartition(q, len, cnt, L, wide, k, ends, cost));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscMalloc4(q, &gend, q, &glen, q, &gcnt, q, &gends));
  PetscCall(BCEMergeLengths(q, len, maxgroups, ngroups, gend));
  for (PetscInt g = 0, l = 0; g < *ngroups; g++) {
    glen[g] = len[gend[g]];
    gcnt[g] = 0;
    for (; l <= gend[g]; l++) gcnt[g] += cnt[l];
  }
  PetscCall(BCEPartition(*ngroups, glen, gcnt, L, wide, k, gends, cost));
  for (PetscInt i = 0; i < *k; i++) ends[i] = gend[gends[i]];
  PetscCall(PetscFree4(gend, glen, gcnt, gends));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The blocks, their threads per row and the CUDA-block schedule of a partition (the ends of BCEPartition) of q
   distinct lengths with cnt rows each, plus nempty empty rows (block 0 when there are any), with the threads per row
   of A->wide. Sets everything else in A but the row order and the entries.
*/
PetscErrorCode BCESetBlocks(PetscInt q, const PetscInt *len, const PetscInt64 *cnt, PetscInt nempty, PetscInt k, const PetscInt *ends, BCEArrays *A)
{
  PetscInt64 row0 = 0, pos = 0, sub = 0, part = 0, split = 0;
  PetscInt   b = 0;

  PetscFunctionBegin;
  A->nlengths = q;
  A->nempty   = nempty;
  A->k        = k;
  A->nblocks  = k + (nempty ? 1 : 0);
  PetscCall(PetscFree(A->blocks));
  PetscCall(PetscCalloc1(A->nblocks, &A->blocks));
  if (nempty) {
    A->blocks[b].nrows  = (int)nempty;
    A->blocks[b].pieces = 1;
    sub                 = (nempty + BCE_BLOCK - 1) / BCE_BLOCK;
    row0                = nempty;
    b++;
  }
  for (PetscInt i = 0; i < k; i++, b++) {
    BCEBlock      *B = &A->blocks[b];
    PetscInt64     N = 0;
    const PetscInt W = len[ends[i]], t = BCEThreadsPerRow(W, A->wide), groups = (W + t - 1) / t;
    int            logt = 0;

    for (PetscInt l = i ? ends[i - 1] + 1 : 0; l <= ends[i]; l++) N += cnt[l];
    while ((1 << logt) < t) logt++;
    B->pos    = pos;
    B->row0   = (int)row0;
    B->nrows  = (int)N;
    B->width  = (int)W;
    B->minlen = (int)len[i ? ends[i - 1] + 1 : 0];
    B->logt   = logt;
    B->sub0   = (int)sub;
    B->pieces = t == BCE_BLOCK ? (int)((groups + BCE_GROUPS_PER_PIECE - 1) / BCE_GROUPS_PER_PIECE) : 1;
    B->part0  = (int)part;
    B->split0 = (int)split;
    row0 += N;
    pos += N * t * groups;
    if (B->pieces > 1) {
      sub += N * B->pieces;
      part += N * B->pieces;
      split += N;
    } else sub += (N * t + BCE_BLOCK - 1) / BCE_BLOCK;
    PetscCheck(sub <= PETSC_INT32_MAX && part <= PETSC_INT32_MAX && row0 <= PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "BCE: this matrix needs more than 2^31 CUDA blocks, partial sums or rows");
  }
  A->nsub   = (PetscInt)sub;
  A->nparts = (PetscInt)part;
  A->nsplit = (PetscInt)split;
  A->nslots = pos;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The block of a row of length l: 0 for an empty row (block 0 then), else the first block as wide as l */
static PetscInt BCEBlockOf(const BCEArrays *A, PetscInt l)
{
  PetscInt lo = A->nempty ? 1 : 0, hi = A->nblocks - 1;

  if (!l) return 0;
  while (lo < hi) {
    const PetscInt mid = (lo + hi) / 2;

    if (A->blocks[mid].width >= l) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/* Builds the BCE arrays of an m x n CSR matrix (rowptr[0] = 0) with the cost model's L, the rule for wide rows
   (BCEWideChoose()'s set: a field 0 chooses), merging lengths into at most maxgroups groups (0: never) */
PetscErrorCode BCEBuildHost(PetscInt m, PetscInt n, const PetscInt *rowptr, const PetscInt *colind, const PetscScalar *val, PetscInt L, BCEWide wide, PetscInt maxgroups, BCEArrays *A)
{
  PetscInt   *sorted, *len, *ends, *next, q = 0, nz = 0, k;
  PetscInt64 *cnt;

  PetscFunctionBegin;
  PetscCall(PetscArrayzero(A, 1));
  A->m         = m;
  A->n         = n;
  A->nnz       = m ? rowptr[m] : 0;
  A->L         = L;
  A->maxgroups = maxgroups;
  /* the distribution function: distinct nonzero lengths and their counts */
  PetscCall(PetscMalloc4(m, &sorted, m, &len, m, &cnt, m, &ends));
  for (PetscInt i = 0; i < m; i++)
    if (rowptr[i + 1] > rowptr[i]) sorted[nz++] = rowptr[i + 1] - rowptr[i];
  PetscCall(PetscSortInt(nz, sorted));
  for (PetscInt i = 0; i < nz; i++) {
    if (!q || len[q - 1] != sorted[i]) {
      len[q] = sorted[i];
      cnt[q] = 0;
      q++;
    }
    cnt[q - 1]++;
  }
  A->wide = BCEWideChoose(q, len, cnt, wide);
  PetscCall(BCEPartitionMerged(q, len, cnt, L, A->wide, maxgroups, &A->ngroups, &k, ends, &A->cost));
  PetscCall(BCESetBlocks(q, len, cnt, m - nz, k, ends, A));
  PetscCall(PetscFree4(sorted, len, cnt, ends));

  /* rows into their blocks, stably: a counting sort by block */
  PetscCall(PetscMalloc1(m, &A->rowno));
  PetscCall(PetscMalloc1(m, &A->rowlen));
  PetscCall(PetscMalloc1(A->nblocks, &next));
  for (PetscInt b = 0; b < A->nblocks; b++) next[b] = A->blocks[b].row0;
  for (PetscInt i = 0; i < m; i++) {
    const PetscInt l = rowptr[i + 1] - rowptr[i], b = BCEBlockOf(A, l);

    PetscCheck(l <= A->blocks[b].width, PETSC_COMM_SELF, PETSC_ERR_PLIB, "BCE: row %" PetscInt_FMT " of length %" PetscInt_FMT " has no block", i, l);
    A->rowno[next[b]]    = (int)i;
    A->rowlen[next[b]++] = (int)l;
  }
  PetscCall(PetscFree(next));

  /* the entries */
  PetscCall(PetscCalloc1(A->nslots, &A->col));
  PetscCall(PetscCalloc1(A->nslots, &A->val));
  for (PetscInt b = 0; b < A->nblocks; b++) {
    const BCEBlock *B = &A->blocks[b];
    const PetscInt  t = (PetscInt)1 << B->logt;

    for (PetscInt qq = 0; qq < B->nrows; qq++) {
      const PetscInt r = B->row0 + qq, o = A->rowno[r];

      for (PetscInt j = 0; j < A->rowlen[r]; j++) {
        const PetscInt64 slot = B->pos + (PetscInt64)(j / t) * B->nrows * t + (PetscInt64)qq * t + j % t;

        A->col[slot] = (int)colind[rowptr[o] + j];
        A->val[slot] = val[rowptr[o] + j];
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* z = A x (y == NULL) or z = y + A x, in the original row order; y may equal z */
PetscErrorCode BCEMultHost(const BCEArrays *A, const PetscScalar *x, const PetscScalar *y, PetscScalar *z)
{
  PetscFunctionBegin;
  for (PetscInt b = 0; b < A->nblocks; b++) {
    const BCEBlock *B = &A->blocks[b];
    const PetscInt  t = (PetscInt)1 << B->logt;

    for (PetscInt qq = 0; qq < B->nrows; qq++) {
      const PetscInt r = B->row0 + qq, o = A->rowno[r];
      PetscScalar    sum = 0;

      for (PetscInt j = 0; j < A->rowlen[r]; j++) {
        const PetscInt64 slot = B->pos + (PetscInt64)(j / t) * B->nrows * t + (PetscInt64)qq * t + j % t;

        sum += A->val[slot] * x[A->col[slot]];
      }
      z[o] = (y ? y[o] : 0.0) + sum;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BCEDestroyHost(BCEArrays *A)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(A->blocks));
  PetscCall(PetscFree(A->rowno));
  PetscCall(PetscFree(A->rowlen));
  PetscCall(PetscFree(A->col));
  PetscCall(PetscFree(A->val));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Slots over entries: 1 without padding; 1 for an empty matrix */
PetscReal BCEPaddingRatio(const BCEArrays *A)
{
  return A->nnz ? (PetscReal)A->nslots / (PetscReal)A->nnz : 1.0;
}
