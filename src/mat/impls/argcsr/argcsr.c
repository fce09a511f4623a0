/*
   ARG-CSR host reference: the build from CSR (the paper's grouping, thread assignment and fill) and the product as plain
   loops over the arrays the CUDA kernel is to read. It is the oracle of the tests and needs no GPU.
*/
#include "argcsr.h"

/* The rows of the group that starts at row i: while it has fewer than block rows and the next row keeps its entries within
   desired * block (a row longer than that alone is a group of its own) */
PetscInt ARGCSRGroupRows(PetscInt m, const PetscInt *rowptr, PetscInt i, PetscInt block, PetscInt desired)
{
  PetscInt   size    = 0;
  PetscInt64 entries = 0;

  while (i + size < m && size < block && (size == 0 || entries + (rowptr[i + size + 1] - rowptr[i + size]) <= (PetscInt64)desired * block)) {
    entries += rowptr[i + size + 1] - rowptr[i + size];
    size++;
  }
  return size;
}

/* ceil(a / b) without a + b - 1, which overflows for a row of about 2^31 entries */
static inline PetscInt ARGCSRCeilDiv(PetscInt a, PetscInt b)
{
  return a / b + (a % b != 0);
}

/*
   The threads of a group's rows that the paper's greedy assignment gives (below, in ARGCSRBuildHost()), without its
   loop over the free threads; the device build computes the same in parallel (cuda/argcsr.cu), and a CPU test checks
   the two against each other. With T(L) = sum over the rows of max(1, ceil(len / L)):
   - once the greedy has brought every row's chunks down to at most L entries, each row has exactly max(1, ceil(len / L))
     threads (a row gets threads only while its chunks are the fullest, and just enough to fall below that filling);
   - so it reaches that state for L*, the smallest L with T(L) <= block; if L* = 1 it stops there (no chunk holds more
     than one entry);
   - else the block - T(L*) threads left go, in row order, to the rows whose chunks hold the most entries, M: each takes
     what brings it below M (ceil(len / (M - 1)) threads in all) until none is left; they run out before the last such
     row, or L* would not be the smallest.
   len: the size rows' lengths; threads: out; chunk: out, the group's chunk size.
*/
PetscErrorCode ARGCSRThreadsClosedForm(PetscInt size, const PetscInt *len, PetscInt block, PetscInt *threads, PetscInt *chunk)
{
  PetscInt maxlen = 0, lo = 1, hi, left, most = 0;

  PetscFunctionBegin;
  PetscCheck(size <= block, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "ARG-CSR: a group of %" PetscInt_FMT " rows for %" PetscInt_FMT " threads", size, block);
  for (PetscInt q = 0; q < size; q++) maxlen = PetscMax(maxlen, len[q]);
  hi = PetscMax(maxlen, 1);
  while (lo < hi) { /* T(hi) = size <= block */
    const PetscInt mid = (lo + hi) / 2;
    PetscInt64     T   = 0;

    for (PetscInt q = 0; q < size; q++) T += PetscMax(1, ARGCSRCeilDiv(len[q], mid));
    if (T <= block) hi = mid;
    else lo = mid + 1;
  }
  left = block;
  for (PetscInt q = 0; q < size; q++) {
    threads[q] = PetscMax(1, ARGCSRCeilDiv(len[q], lo));
    left -= threads[q];
    most = PetscMax(most, ARGCSRCeilDiv(len[q], threads[q]));
  }
  if (lo > 1 && most > 1)
    for (PetscInt q = 0; q < size && left > 0; q++)
      if (ARGCSRCeilDiv(len[q], threads[q]) == most) {
        const PetscInt add = PetscMin(left, ARGCSRCeilDiv(len[q], most - 1) - threads[q]);

        threads[q] += add;
        left -= add;
      }
  *chunk = 0;
  for (PetscInt q = 0; q < size; q++) *chunk = PetscMax(*chunk, ARGCSRCeilDiv(len[q], threads[q]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Builds the ARG-CSR arrays of an m x n CSR matrix (rowptr[0] = 0) with groups of `block` threads and the paper's
   desiredChunkSize `desired`. Where the paper is ambiguous (seeds-spec 5.2), the choices are:
   - a group takes rows while it has fewer than `block` rows and the next row keeps its entries within desired * block;
     a row that would take it past starts the next group, and a row longer than that alone is a group of its own;
   - each row starts with one thread, and the group's free threads go one at a time to the row whose chunks would be
     fullest (ceil(length / threads); the first such row), until none is left or no chunk holds more than one entry;
   - the map is the inclusive prefix sum of the threads of the group's rows, as the paper's kernel reads it.
*/
PetscErrorCode ARGCSRBuildHost(PetscInt m, PetscInt n, const PetscInt *rowptr, const PetscInt *colind, const PetscScalar *val, PetscInt block, PetscInt desired, ARGCSRArrays *A)
{
  PetscInt *threads;

  PetscFunctionBegin;
  PetscCheck(block >= 1 && block <= 1024, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "ARG-CSR: %" PetscInt_FMT " threads per group, not in 1 .. 1024", block);
  PetscCheck(desired >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "ARG-CSR: desired chunk size %" PetscInt_FMT " is not positive", desired);
  PetscCall(PetscArrayzero(A, 1));
  A->m       = m;
  A->n       = n;
  A->nnz     = m ? rowptr[m] : 0;
  A->block   = block;
  A->desired = desired;
  /* 1. the groups */
  for (PetscInt i = 0; i < m; A->ngroups++) i += ARGCSRGroupRows(m, rowptr, i, block, desired);
  PetscCall(PetscMalloc1(A->ngroups, &A->groups));
  PetscCall(PetscMalloc1(m, &A->map));
  PetscCall(PetscMalloc1(PetscMin(m, block), &threads));
  /* 2. the threads of each row and the chunk size of each group */
  for (PetscInt g = 0, i = 0; g < A->ngroups; g++) {
    const PetscInt size = ARGCSRGroupRows(m, rowptr, i, block, desired);
    PetscInt       free, chunk = 0, sum = 0;

    for (PetscInt q = 0; q < size; q++) threads[q] = 1;
    for (free = block - size; free > 0; free--) {
      PetscInt best = -1, most = 1;

      for (PetscInt q = 0; q < size; q++) {
        const PetscInt len = rowptr[i + q + 1] - rowptr[i + q], fill = (len + threads[q] - 1) / threads[q];

        if (fill > most) {
          most = fill;
          best = q;
        }
      }
      if (best < 0) break; /* no chunk holds more than one entry */
      threads[best]++;
    }
    for (PetscInt q = 0; q < size; q++) {
      const PetscInt len = rowptr[i + q + 1] - rowptr[i + q];

      chunk = PetscMax(chunk, (len + threads[q] - 1) / threads[q]);
      sum += threads[q];
      A->map[i + q] = (int)sum;
    }
    A->groups[g].firstRow  = (int)i;
    A->groups[g].size      = (int)size;
    A->groups[g].offset    = (int)A->nslots;
    A->groups[g].chunkSize = (int)chunk;
    A->nslots += chunk * block;
    i += size;
  }
  PetscCall(PetscFree(threads));
  /* 3. the slots */
  PetscCall(PetscMalloc1(A->nslots, &A->col));
  PetscCall(PetscCalloc1(A->nslots, &A->val));
  for (PetscInt s = 0; s < A->nslots; s++) A->col[s] = -1;
  for (PetscInt g = 0; g < A->ngroups; g++) {
    const ARGCSRGroup G = A->groups[g];

    for (PetscInt q = 0; q < G.size; q++) {
      const PetscInt r = G.firstRow + q, t0 = q ? A->map[r - 1] : 0;

      for (PetscInt k = rowptr[r]; k < rowptr[r + 1]; k++) {
        const PetscInt j = k - rowptr[r], t = t0 + j / G.chunkSize, s = G.offset + t + (j % G.chunkSize) * A->block;

        A->col[s] = (int)colind[k];
        A->val[s] = val[k];
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* z = A x (y == NULL) or z = y + A x; y may equal z. As the kernel: each thread's partial sum, then each row's in order */
PetscErrorCode ARGCSRMultHost(const ARGCSRArrays *A, const PetscScalar *x, const PetscScalar *y, PetscScalar *z)
{
  PetscScalar *partial;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(A->block, &partial));
  for (PetscInt g = 0; g < A->ngroups; g++) {
    const ARGCSRGroup G = A->groups[g];

    for (PetscInt t = 0; t < A->block; t++) {
      PetscScalar sum = 0.0;

      for (PetscInt i = 0, s = G.offset + t; i < G.chunkSize && A->col[s] != -1; i++, s += A->block) sum += A->val[s] * x[A->col[s]];
      partial[t] = sum;
    }
    for (PetscInt q = 0; q < G.size; q++) {
      const PetscInt r   = G.firstRow + q;
      PetscScalar    sum = 0.0;

      for (PetscInt t = q ? A->map[r - 1] : 0; t < A->map[r]; t++) sum += partial[t];
      z[r] = (y ? y[r] : 0.0) + sum;
    }
  }
  PetscCall(PetscFree(partial));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ARGCSRDestroyHost(ARGCSRArrays *A)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(A->groups));
  PetscCall(PetscFree(A->map));
  PetscCall(PetscFree(A->col));
  PetscCall(PetscFree(A->val));
  PetscFunctionReturn(PETSC_SUCCESS);
}
