static const char help[] = "Host reference of a format against a plain CSR product on random and edge-case matrices.\n"
                           "  -format cmrs|sellcs|bce|dia|hyb|argcsr: the format (default cmrs)\n"
                           "  -count <n>: random matrices (default 1000)\n";

/*
   For every matrix and every variant of the format's parameters (CMRS: height 1, 2, 4, 8, 16, packed or
   separate row-in-strip array, CSR or column-sorted order; SELL-C-sigma: C 4, 8, 16, 32 and sigma 1, C, 4C
   and past m, with and without a long part; BCE: L 1, 4, 32, 64, 256 and 10^6, entries per thread in wide rows chosen, 64 and 4, crossed with wide rows past a length chosen, 512 and 8; DIA: no parameter but its bound of slots per entry, unbounded here; HYB: ELL widths the paper's rule, 0 (all COO), 1, 3 and the
   longest row's (ELL alone); ARG-CSR: threads per group 128, 32, 64 and 1 crossed with desired chunk sizes 1, 32, 8 and 2) this checks the format invariants (every entry found back at its row, column and value, the
   format's own structure) and compares z = A x, z = y + A x and z = z + A x with a CSR product.
   Values and x are small integers, so every sum is exact and the comparison is bitwise. Random real
   values are checked against a rounding bound.
*/
#include <cmrs/cmrs.h>
#include <sellcs/sellcs.h>
#include <bce/bce.h>
#include <dia/dia.h>
#include <hyb/hyb.h>
#include <argcsr/argcsr.h>
#include <petsctime.h>
#include "../common/testcsr.h"

static PetscErrorCode CMRSCheckInvariants(const CSR *A, const CMRSArrays *F, PetscInt height, PetscBool pack, PetscBool sort)
{
  const PetscInt h = height;

  PetscFunctionBeginUser;
  PetscCheck(F->m == A->m && F->n == A->n && F->nnz == A->nnz && F->height == h, PETSC_COMM_SELF, PETSC_ERR_PLIB, "sizes");
  PetscCheck(F->nstrips == (A->m + h - 1) / h, PETSC_COMM_SELF, PETSC_ERR_PLIB, "strip count");
  PetscCheck(F->packed == CMRSPackable(A->n, pack) && F->sorted == sort, PETSC_COMM_SELF, PETSC_ERR_PLIB, "flags");
  PetscCheck(F->packed || F->rowin || !A->nnz, PETSC_COMM_SELF, PETSC_ERR_PLIB, "missing row-in-strip array");
  for (PetscInt s = 0; s <= F->nstrips; s++) PetscCheck(F->strip_ptr[s] == A->rowptr[PetscMin(s * h, A->m)], PETSC_COMM_SELF, PETSC_ERR_PLIB, "StripPtr[%" PetscInt_FMT "]", s);
  for (PetscInt s = 0; s < F->nstrips; s++) {
    PetscInt64 prev = -1;

    for (PetscInt k = F->strip_ptr[s]; k < F->strip_ptr[s + 1]; k++) {
      const unsigned   c   = F->colind[k];
      const PetscInt   r   = F->packed ? (PetscInt)(c & (CMRS_MAX_HEIGHT - 1)) : F->rowin[k];
      const PetscInt   col = F->packed ? (PetscInt)(c >> CMRS_BITS) : (PetscInt)c;
      const PetscInt   row = s * h + r;
      const PetscInt64 key = ((PetscInt64)col << CMRS_BITS) | r;
      PetscInt         q;

      PetscCheck(r < h && row < A->m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "row %" PetscInt_FMT " out of its strip", row);
      /* the entry must be in row `row` of the CSR at column `col`, with the same value */
      PetscCall(PetscFindInt(col, A->rowptr[row + 1] - A->rowptr[row], A->colind + A->rowptr[row], &q));
      PetscCheck(q >= 0 && A->val[A->rowptr[row] + q] == F->val[k], PETSC_COMM_SELF, PETSC_ERR_PLIB, "entry %" PetscInt_FMT " decodes to (%" PetscInt_FMT ", %" PetscInt_FMT ") which is not in the CSR", k, row, col);
      if (!sort) PetscCheck(A->rowptr[row] + q == k, PETSC_COMM_SELF, PETSC_ERR_PLIB, "entry %" PetscInt_FMT " moved without sorting", k);
      else PetscCheck(key > prev, PETSC_COMM_SELF, PETSC_ERR_PLIB, "strip %" PetscInt_FMT " not sorted by (column, row)", s);
      prev = key;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* z = [y +] A x in CSR order */
static void CSRMult(const CSR *A, const PetscScalar *x, const PetscScalar *y, PetscScalar *z)
{
  for (PetscInt i = 0; i < A->m; i++) {
    PetscScalar s = 0;

    for (PetscInt k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) s += A->val[k] * x[A->colind[k]];
    z[i] = (y ? y[i] : 0) + s;
  }
}

/* Exact comparison for integer data; otherwise |a - b| <= 64 eps (|A| |x|)_i + tiny */
static PetscErrorCode Compare(const CSR *A, const PetscScalar *x, const PetscScalar *ref, const PetscScalar *z, PetscBool exact, const char *what)
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < A->m; i++) {
    PetscReal bound = 0;

    if (!exact) {
      for (PetscInt k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) bound += PetscAbsScalar(A->val[k] * x[A->colind[k]]);
      bound = 64 * PETSC_MACHINE_EPSILON * (bound + 1);
    }
    PetscCheck(!PetscIsNanScalar(z[i]) && PetscAbsScalar(z[i] - ref[i]) <= bound, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: row %" PetscInt_FMT " of a %" PetscInt_FMT " x %" PetscInt_FMT " matrix: %g, expected %g", what, i, A->m, A->n,
               (double)PetscRealPart(z[i]), (double)PetscRealPart(ref[i]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A format under test: variant v of matrix A, built (with its invariants checked), multiplied, destroyed */
typedef struct {
  const char *name;
  PetscInt    nvariants;
  PetscErrorCode (*build)(const CSR *, PetscInt, void **);
  PetscErrorCode (*mult)(const void *, const PetscScalar *, const PetscScalar *, PetscScalar *);
  PetscErrorCode (*destroy)(void **);
  PetscErrorCode (*parameters)(void);
} HostFormat;

static PetscErrorCode CMRSBuild(const CSR *A, PetscInt v, void **F)
{
  const PetscInt  heights[] = {1, 2, 4, 8, 16}, h = heights[v % 5];
  const PetscBool pack = (PetscBool)((v / 5) % 2), sort = (PetscBool)((v / 10) % 2);
  CMRSArrays     *c;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&c));
  PetscCall(CMRSBuildHost(A->m, A->n, A->rowptr, A->colind, A->val, h, pack, sort, c));
  PetscCall(CMRSCheckInvariants(A, c, h, pack, sort));
  *F = c;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CMRSMult(const void *F, const PetscScalar *x, const PetscScalar *y, PetscScalar *z)
{
  return CMRSMultHost((const CMRSArrays *)F, x, y, z);
}

static PetscErrorCode CMRSDestroy(void **F)
{
  PetscFunctionBeginUser;
  PetscCall(CMRSDestroyHost((CMRSArrays *)*F));
  PetscCall(PetscFree(*F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* SELL-C-sigma: sorted windows, chunk widths, every entry at its slot, padding zero */
static PetscErrorCode SELLCSCheckInvariants(const CSR *A, const SELLCSArrays *F, PetscInt C, PetscInt sigma, PetscInt longrow)
{
  PetscInt64 used = 0;
  PetscBool *seen;
  PetscInt   nl = 0;

  PetscFunctionBeginUser;
  PetscCheck(F->m == A->m && F->n == A->n && F->nnz == A->nnz && F->C == C && F->sigma == sigma && F->nchunks == (A->m + C - 1) / C && F->longrow == longrow, PETSC_COMM_SELF, PETSC_ERR_PLIB, "sizes");
  for (PetscInt i = 0; i < A->m; i++) { /* the long part: the rows longer than longrow, in order, as CSR */
    const PetscInt len = A->rowptr[i + 1] - A->rowptr[i];

    if (len <= longrow) continue;
    PetscCheck(nl < F->nlong && F->lrow[nl] == i && F->lptr[nl + 1] - F->lptr[nl] == len, PETSC_COMM_SELF, PETSC_ERR_PLIB, "long row %" PetscInt_FMT " missing from the long part", i);
    for (PetscInt j = 0; j < len; j++) PetscCheck(F->lcol[F->lptr[nl] + j] == A->colind[A->rowptr[i] + j] && F->lval[F->lptr[nl] + j] == A->val[A->rowptr[i] + j], PETSC_COMM_SELF, PETSC_ERR_PLIB, "long row %" PetscInt_FMT " entry %" PetscInt_FMT, i, j);
    used += len;
    nl++;
  }
  PetscCheck(nl == F->nlong && F->lptr[0] == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "long part has %" PetscInt_FMT " rows, expected %" PetscInt_FMT, F->nlong, nl);
  PetscCheck(sigma > 1 || !F->perm, PETSC_COMM_SELF, PETSC_ERR_PLIB, "permutation without sorting");
  PetscCall(PetscCalloc1(A->m, &seen));
  for (PetscInt r = 0; r < A->m; r++) {
    const PetscInt o = F->perm ? F->perm[r] : r, len = A->rowptr[o + 1] - A->rowptr[o] > longrow ? -1 : A->rowptr[o + 1] - A->rowptr[o];

    PetscCheck(o >= 0 && o < A->m && !seen[o], PETSC_COMM_SELF, PETSC_ERR_PLIB, "perm is not a permutation");
    seen[o] = PETSC_TRUE;
    PetscCheck(o / sigma == r / sigma, PETSC_COMM_SELF, PETSC_ERR_PLIB, "row %" PetscInt_FMT " left its window", o);
    PetscCheck(F->rowlen[r] == len, PETSC_COMM_SELF, PETSC_ERR_PLIB, "rowlen[%" PetscInt_FMT "]", r);
    if (r % sigma) {
      const PetscInt p = F->perm ? F->perm[r - 1] : r - 1;

      PetscCheck(F->rowlen[r - 1] > len || (F->rowlen[r - 1] == len && p < o), PETSC_COMM_SELF, PETSC_ERR_PLIB, "window not sorted by descending length, stably, at %" PetscInt_FMT, r);
    }
    for (PetscInt j = 0; j < len; j++) { /* none for a long row */
      const PetscInt64 slot = F->chunk_ptr[r / C] + (PetscInt64)j * C + r % C;

      PetscCheck(F->col[slot] == A->colind[A->rowptr[o] + j] && F->val[slot] == A->val[A->rowptr[o] + j], PETSC_COMM_SELF, PETSC_ERR_PLIB, "entry %" PetscInt_FMT " of row %" PetscInt_FMT " not at its slot", j, o);
    }
    used += PetscMax(len, 0);
  }
  for (PetscInt r = A->m; r < F->nchunks * C; r++) PetscCheck(F->rowlen[r] == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "padding row with a length");
  PetscCheck(F->chunk_ptr[0] == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "chunk_ptr[0]");
  for (PetscInt c = 0; c < F->nchunks; c++) {
    PetscInt w = 0;

    for (PetscInt k = 0; k < C; k++) w = PetscMax(w, F->rowlen[c * C + k]);
    PetscCheck(F->chunk_ptr[c + 1] - F->chunk_ptr[c] == (PetscInt64)C * w, PETSC_COMM_SELF, PETSC_ERR_PLIB, "chunk %" PetscInt_FMT " is not as wide as its longest row", c);
  }
  PetscCheck(F->nslots == F->chunk_ptr[F->nchunks] && used == A->nnz, PETSC_COMM_SELF, PETSC_ERR_PLIB, "slot count");
  for (PetscInt r = 0; r < F->nchunks * C; r++) { /* padding: column 0, value 0 */
    for (PetscInt64 slot = F->chunk_ptr[r / C] + (PetscInt64)PetscMax(F->rowlen[r], 0) * C + r % C; slot < F->chunk_ptr[r / C + 1]; slot += C) PetscCheck(F->col[slot] == 0 && F->val[slot] == 0.0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "padding not zero");
  }
  PetscCall(PetscFree(seen));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SELLCSBuild(const CSR *A, PetscInt v, void **F)
{
  const PetscInt Cs[] = {4, 8, 16, 32}, C = Cs[v % 4], s = (v / 4) % 4, sigma = s == 0 ? 1 : (s == 1 ? C : (s == 2 ? 4 * C : 1024 * C));
  const PetscInt longrow = v / 16 ? 3 : PETSC_INT_MAX; /* rows of more than 3 entries in the long part, or none */
  SELLCSArrays  *c;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&c));
  PetscCall(SELLCSBuildHost(A->m, A->n, A->rowptr, A->colind, A->val, C, sigma, longrow, c));
  PetscCall(SELLCSCheckInvariants(A, c, C, sigma, longrow));
  *F = c;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SELLCSMult(const void *F, const PetscScalar *x, const PetscScalar *y, PetscScalar *z)
{
  return SELLCSMultHost((const SELLCSArrays *)F, x, y, z);
}

static PetscErrorCode SELLCSDestroy(void **F)
{
  PetscFunctionBeginUser;
  PetscCall(SELLCSDestroyHost((SELLCSArrays *)*F));
  PetscCall(PetscFree(*F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* BCE: blocks of consecutive length ranges, rows stably in their blocks, every entry at its slot, padding zero */
static PetscErrorCode BCECheckInvariants(const CSR *A, const BCEArrays *F, PetscInt L)
{
  PetscInt64 slots = 0, sub = 0, part = 0, split = 0, used = 0;
  PetscBool *seen;
  PetscInt   nempty = 0;

  PetscFunctionBeginUser;
  PetscCheck(F->m == A->m && F->n == A->n && F->nnz == A->nnz && F->L == L, PETSC_COMM_SELF, PETSC_ERR_PLIB, "sizes");
  for (PetscInt i = 0; i < A->m; i++) nempty += A->rowptr[i + 1] == A->rowptr[i];
  PetscCheck(F->nempty == nempty && F->nblocks == F->k + (nempty ? 1 : 0), PETSC_COMM_SELF, PETSC_ERR_PLIB, "empty rows or block count");
  PetscCall(PetscCalloc1(A->m, &seen));
  for (PetscInt b = 0; b < F->nblocks; b++) {
    const BCEBlock *B = &F->blocks[b];
    const PetscInt  t = (PetscInt)1 << B->logt, groups = (B->width + t - 1) / t, lo = b ? F->blocks[b - 1].width : -1;
    PetscInt        shortest = PETSC_INT_MAX;

    PetscCheck(B->row0 == (b ? F->blocks[b - 1].row0 + F->blocks[b - 1].nrows : 0) && B->nrows > 0 && B->pos == slots && B->sub0 == sub && B->part0 == part && B->split0 == split, PETSC_COMM_SELF, PETSC_ERR_PLIB, "block %" PetscInt_FMT " offsets", b);
    PetscCheck(B->width > lo && t == (B->width ? BCEThreadsPerRow(B->width, F->wide) : 1), PETSC_COMM_SELF, PETSC_ERR_PLIB, "block %" PetscInt_FMT ": widths not increasing or wrong threads per row", b);
    PetscCheck(B->pieces == (t == BCE_BLOCK ? (groups + BCE_GROUPS_PER_PIECE - 1) / BCE_GROUPS_PER_PIECE : 1), PETSC_COMM_SELF, PETSC_ERR_PLIB, "block %" PetscInt_FMT " parts", b);
    for (PetscInt q = 0; q < B->nrows; q++) {
      const PetscInt r = B->row0 + q, o = F->rowno[r], len = A->rowptr[o + 1] - A->rowptr[o];

      PetscCheck(o >= 0 && o < A->m && !seen[o], PETSC_COMM_SELF, PETSC_ERR_PLIB, "rowno is not a permutation");
      seen[o] = PETSC_TRUE;
      PetscCheck(F->rowlen[r] == len && len > lo && len >= B->minlen && len <= B->width, PETSC_COMM_SELF, PETSC_ERR_PLIB, "row %" PetscInt_FMT " of length %" PetscInt_FMT " in block %" PetscInt_FMT " of lengths (%" PetscInt_FMT ", %d]", o, len, b, lo, B->width);
      PetscCheck(!q || F->rowno[r - 1] < o, PETSC_COMM_SELF, PETSC_ERR_PLIB, "block %" PetscInt_FMT " not in row order", b);
      for (PetscInt j = 0; j < groups * t; j++) {
        const PetscInt64 slot = B->pos + (PetscInt64)(j / t) * B->nrows * t + (PetscInt64)q * t + j % t;

        if (j < len) PetscCheck(F->col[slot] == A->colind[A->rowptr[o] + j] && F->val[slot] == A->val[A->rowptr[o] + j], PETSC_COMM_SELF, PETSC_ERR_PLIB, "entry %" PetscInt_FMT " of row %" PetscInt_FMT " not at its slot", j, o);
        else PetscCheck(F->col[slot] == 0 && F->val[slot] == 0.0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "padding not zero");
      }
      used += len;
      shortest = PetscMin(shortest, len);
    }
    PetscCheck(shortest == B->minlen, PETSC_COMM_SELF, PETSC_ERR_PLIB, "block %" PetscInt_FMT ": shortest row %" PetscInt_FMT ", minlen %d", b, shortest, B->minlen);
    slots += (PetscInt64)B->nrows * t * groups;
    if (B->pieces > 1) {
      sub += (PetscInt64)B->nrows * B->pieces;
      part += (PetscInt64)B->nrows * B->pieces;
      split += B->nrows;
    } else sub += ((PetscInt64)B->nrows * t + BCE_BLOCK - 1) / BCE_BLOCK;
  }
  PetscCheck(used == A->nnz && slots == F->nslots && sub == F->nsub && part == F->nparts && split == F->nsplit, PETSC_COMM_SELF, PETSC_ERR_PLIB, "totals");
  PetscCall(PetscFree(seen));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BCEBuild(const CSR *A, PetscInt v, void **F)
{
  const PetscInt Ls[] = {1, 4, 32, 64, 256, 1000000}, L = Ls[v % 6], G = (v / 6) % 2 ? 3 : 0, wides[] = {0, 64, 4}, wrows[] = {0, 512, 8};
  const BCEWide  wide = {wrows[v / 36], wides[(v / 12) % 3]};
  BCEArrays     *c;
  PetscInt64     inrow = 0; /* entries in rows longer than the rule's row */
  PetscInt       row;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&c));
  PetscCall(BCEBuildHost(A->m, A->n, A->rowptr, A->colind, A->val, L, wide, G, c));
  row = wide.row ? wide.row : (A->nnz <= BCE_SMALL_ENTRIES ? BCE_WIDE_ROW_SMALL : BCE_WIDE_ROW);
  for (PetscInt i = 0; i < A->m; i++)
    if (A->rowptr[i + 1] - A->rowptr[i] > row) inrow += A->rowptr[i + 1] - A->rowptr[i];
  PetscCheck(c->wide.row == row && c->wide.entries == (wide.entries ? wide.entries : (inrow <= BCE_WIDE_MAX_ENTRIES ? BCE_WIDE_ENTRIES_PER_THREAD : BCE_ENTRIES_PER_THREAD)), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%" PetscInt_FMT " entries per thread in rows of more than %" PetscInt_FMT ", %" PetscInt_FMT " and %" PetscInt_FMT " set", c->wide.entries, c->wide.row, wide.entries, wide.row);
  PetscCall(BCECheckInvariants(A, c, L));
  PetscCheck(c->maxgroups == G && c->ngroups <= (G && c->nlengths > G ? G : c->nlengths), PETSC_COMM_SELF, PETSC_ERR_PLIB, "merged into %" PetscInt_FMT " groups, at most %" PetscInt_FMT " asked", c->ngroups, G);
  *F = c;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BCEMult(const void *F, const PetscScalar *x, const PetscScalar *y, PetscScalar *z)
{
  return BCEMultHost((const BCEArrays *)F, x, y, z);
}

static PetscErrorCode BCEDestroy(void **F)
{
  PetscFunctionBeginUser;
  PetscCall(BCEDestroyHost((BCEArrays *)*F));
  PetscCall(PetscFree(*F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* DIA: increasing offsets, every CSR entry at its diagonal's slot with its bit set, nothing else set, padding 0 */
static PetscErrorCode DIACheckInvariants(const CSR *A, const DIAArrays *F)
{
  const PetscInt words = F->pitch / 32;
  PetscInt       ndiag, bits = 0;

  PetscFunctionBeginUser;
  PetscCall(DIACount(A->m, A->n, A->rowptr, A->colind, &ndiag));
  PetscCheck(F->m == A->m && F->n == A->n && F->nnz == A->nnz && F->ndiag == ndiag, PETSC_COMM_SELF, PETSC_ERR_PLIB, "sizes");
  PetscCheck(F->pitch >= F->m && F->pitch % DIA_ALIGN == 0 && F->pitch < F->m + DIA_ALIGN, PETSC_COMM_SELF, PETSC_ERR_PLIB, "pitch %" PetscInt_FMT " for %" PetscInt_FMT " rows", F->pitch, F->m);
  for (PetscInt d = 0; d < F->ndiag; d++) PetscCheck(F->offsets[d] > -F->m && F->offsets[d] < F->n && (d == 0 || F->offsets[d] > F->offsets[d - 1]), PETSC_COMM_SELF, PETSC_ERR_PLIB, "offset %d of diagonal %" PetscInt_FMT, F->offsets[d], d);
  for (PetscInt i = 0; i < A->m; i++)
    for (PetscInt k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      PetscInt d;

      for (d = 0; d < F->ndiag && F->offsets[d] != A->colind[k] - i; d++)
        ;
      PetscCheck(d < F->ndiag, PETSC_COMM_SELF, PETSC_ERR_PLIB, "entry (%" PetscInt_FMT ", %" PetscInt_FMT ") on no diagonal", i, A->colind[k]);
      PetscCheck(F->val[d * F->pitch + i] == A->val[k] && (F->mask[d * words + i / 32] >> (i % 32) & 1u), PETSC_COMM_SELF, PETSC_ERR_PLIB, "entry (%" PetscInt_FMT ", %" PetscInt_FMT ") not at its slot", i, A->colind[k]);
    }
  for (PetscInt d = 0; d < F->ndiag; d++)
    for (PetscInt r = 0; r < F->pitch; r++) {
      const PetscBool set = (PetscBool)(F->mask[d * words + r / 32] >> (r % 32) & 1u);

      bits += set;
      PetscCheck(set || F->val[d * F->pitch + r] == 0.0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "padding slot %" PetscInt_FMT " of diagonal %" PetscInt_FMT " not 0", r, d);
      PetscCheck(!set || (r < F->m && r + F->offsets[d] >= 0 && r + F->offsets[d] < F->n), PETSC_COMM_SELF, PETSC_ERR_PLIB, "slot %" PetscInt_FMT " of diagonal %" PetscInt_FMT " set outside the matrix", r, d);
    }
  PetscCheck(bits == A->nnz, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%" PetscInt_FMT " slots set for %" PetscInt_FMT " entries", bits, A->nnz);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DIABuild(const CSR *A, PetscInt v, void **F)
{
  DIAArrays *d;

  PetscFunctionBeginUser;
  (void)v;
  PetscCall(PetscNew(&d));
  PetscCall(DIABuildHost(A->m, A->n, A->rowptr, A->colind, A->val, 0.0, d));
  PetscCall(DIACheckInvariants(A, d));
  *F = d;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DIAMult(const void *F, const PetscScalar *x, const PetscScalar *y, PetscScalar *z)
{
  return DIAMultHost((const DIAArrays *)F, x, y, z);
}

static PetscErrorCode DIADestroy(void **F)
{
  PetscFunctionBeginUser;
  PetscCall(DIADestroyHost((DIAArrays *)*F));
  PetscCall(PetscFree(*F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* HYB: each row's first `width` entries in its ELL slots in order, padding column -1 and value 0, the rest in COO by row */
static PetscErrorCode HYBCheckInvariants(const CSR *A, const HYBArrays *F, PetscInt width)
{
  PetscInt q = 0;

  PetscFunctionBeginUser;
  PetscCheck(F->m == A->m && F->n == A->n && F->nnz == A->nnz && F->width == width, PETSC_COMM_SELF, PETSC_ERR_PLIB, "sizes");
  PetscCheck(F->pitch >= F->m && F->pitch % HYB_ALIGN == 0 && F->pitch < F->m + HYB_ALIGN, PETSC_COMM_SELF, PETSC_ERR_PLIB, "pitch %" PetscInt_FMT " for %" PetscInt_FMT " rows", F->pitch, F->m);
  for (PetscInt i = 0; i < F->pitch; i++) {
    const PetscInt len = i < A->m ? A->rowptr[i + 1] - A->rowptr[i] : 0;

    for (PetscInt j = 0; j < width; j++) {
      const PetscInt s = j * F->pitch + i;

      if (j < len) PetscCheck(F->ell_col[s] == A->colind[A->rowptr[i] + j] && F->ell_val[s] == A->val[A->rowptr[i] + j], PETSC_COMM_SELF, PETSC_ERR_PLIB, "ELL slot %" PetscInt_FMT " of row %" PetscInt_FMT, j, i);
      else PetscCheck(F->ell_col[s] == -1 && F->ell_val[s] == 0.0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "ELL padding slot %" PetscInt_FMT " of row %" PetscInt_FMT, j, i);
    }
    for (PetscInt j = width; j < len; j++, q++) PetscCheck(q < F->ncoo && F->coo_row[q] == i && F->coo_col[q] == A->colind[A->rowptr[i] + j] && F->coo_val[q] == A->val[A->rowptr[i] + j], PETSC_COMM_SELF, PETSC_ERR_PLIB, "COO entry %" PetscInt_FMT " (row %" PetscInt_FMT ")", q, i);
  }
  PetscCheck(q == F->ncoo, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%" PetscInt_FMT " COO entries, expected %" PetscInt_FMT, F->ncoo, q);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HYBBuild(const CSR *A, PetscInt v, void **F)
{
  HYBArrays *h;
  PetscInt   width = 0;

  PetscFunctionBeginUser;
  switch (v) {
  case 0:
    PetscCall(HYBDefaultWidth(A->m, A->rowptr, &width));
    break;
  case 1:
    width = 0;
    break;
  case 2:
    width = 1;
    break;
  case 3:
    width = 3;
    break;
  default: /* ELL: the longest row */
    for (PetscInt i = 0; i < A->m; i++) width = PetscMax(width, A->rowptr[i + 1] - A->rowptr[i]);
  }
  PetscCall(PetscNew(&h));
  PetscCall(HYBBuildHost(A->m, A->n, A->rowptr, A->colind, A->val, width, h));
  PetscCall(HYBCheckInvariants(A, h, width));
  *F = h;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HYBMult(const void *F, const PetscScalar *x, const PetscScalar *y, PetscScalar *z)
{
  return HYBMultHost((const HYBArrays *)F, x, y, z);
}

static PetscErrorCode HYBDestroy(void **F)
{
  PetscFunctionBeginUser;
  PetscCall(HYBDestroyHost((HYBArrays *)*F));
  PetscCall(PetscFree(*F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ARG-CSR: groups of consecutive rows within the bounds, threads per row and chunk size as documented, every entry at
   its thread's slot, padding after a thread's entries only */
static PetscErrorCode ARGCSRCheckInvariants(const CSR *A, const ARGCSRArrays *F)
{
  PetscInt next = 0, used = 0;

  PetscFunctionBeginUser;
  PetscCheck(F->m == A->m && F->n == A->n && F->nnz == A->nnz, PETSC_COMM_SELF, PETSC_ERR_PLIB, "sizes");
  for (PetscInt g = 0; g < F->ngroups; g++) {
    const ARGCSRGroup G       = F->groups[g];
    PetscInt64        entries = A->rowptr[G.firstRow + G.size] - A->rowptr[G.firstRow];
    PetscInt          chunk   = 0;

    PetscCheck(G.firstRow == next && G.size >= 1 && G.size <= F->block && G.offset == used, PETSC_COMM_SELF, PETSC_ERR_PLIB, "group %" PetscInt_FMT ": rows from %d, %d of them, slots from %d", g, G.firstRow, G.size, G.offset);
    PetscCheck(G.size == 1 || entries <= (PetscInt64)F->desired * F->block, PETSC_COMM_SELF, PETSC_ERR_PLIB, "group %" PetscInt_FMT " holds %" PetscInt64_FMT " entries", g, entries);
    /* the next row would not have fitted: the group closed at its rows or entries */
    if (G.firstRow + G.size < A->m) PetscCheck(G.size == F->block || entries + (A->rowptr[G.firstRow + G.size + 1] - A->rowptr[G.firstRow + G.size]) > (PetscInt64)F->desired * F->block, PETSC_COMM_SELF, PETSC_ERR_PLIB, "group %" PetscInt_FMT " closed early", g);
    PetscCheck(F->map[G.firstRow + G.size - 1] <= F->block, PETSC_COMM_SELF, PETSC_ERR_PLIB, "group %" PetscInt_FMT " maps %d threads", g, F->map[G.firstRow + G.size - 1]);
    for (PetscInt q = 0; q < G.size; q++) {
      const PetscInt r = G.firstRow + q, t0 = q ? F->map[r - 1] : 0, t = F->map[r] - t0, len = A->rowptr[r + 1] - A->rowptr[r];

      PetscCheck(t >= 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "row %" PetscInt_FMT " has no thread", r);
      chunk = PetscMax(chunk, (len + t - 1) / t);
      for (PetscInt j = 0; j < t * G.chunkSize; j++) { /* the row's threads' slots: its entries in order, then padding */
        const PetscInt s = G.offset + t0 + j / G.chunkSize + (j % G.chunkSize) * F->block;

        if (j < len) PetscCheck(F->col[s] == A->colind[A->rowptr[r] + j] && F->val[s] == A->val[A->rowptr[r] + j], PETSC_COMM_SELF, PETSC_ERR_PLIB, "entry %" PetscInt_FMT " of row %" PetscInt_FMT " not at its slot", j, r);
        else PetscCheck(F->col[s] == -1 && F->val[s] == 0.0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "padding of row %" PetscInt_FMT, r);
      }
    }
    PetscCheck(chunk == G.chunkSize, PETSC_COMM_SELF, PETSC_ERR_PLIB, "group %" PetscInt_FMT ": chunk size %d, its rows need %" PetscInt_FMT, g, G.chunkSize, chunk);
    { /* the closed form of the greedy assignment, which the device build computes, gives the same threads and chunk */
      PetscInt len[1024], thr[1024], cchunk;

      for (PetscInt q = 0; q < G.size; q++) len[q] = A->rowptr[G.firstRow + q + 1] - A->rowptr[G.firstRow + q];
      PetscCall(ARGCSRThreadsClosedForm(G.size, len, F->block, thr, &cchunk));
      PetscCheck(cchunk == G.chunkSize, PETSC_COMM_SELF, PETSC_ERR_PLIB, "group %" PetscInt_FMT ": chunk size %d, the closed form's %" PetscInt_FMT, g, G.chunkSize, cchunk);
      for (PetscInt q = 0; q < G.size; q++) {
        const PetscInt r = G.firstRow + q, t = F->map[r] - (q ? F->map[r - 1] : 0);

        PetscCheck(thr[q] == t, PETSC_COMM_SELF, PETSC_ERR_PLIB, "group %" PetscInt_FMT ", row %" PetscInt_FMT ": the greedy gives %" PetscInt_FMT " threads, the closed form %" PetscInt_FMT, g, r, t, thr[q]);
      }
    }
    for (PetscInt t = F->map[G.firstRow + G.size - 1]; t < F->block; t++) /* the free threads: padding only */
      for (PetscInt i = 0; i < G.chunkSize; i++) PetscCheck(F->col[G.offset + t + i * F->block] == -1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "group %" PetscInt_FMT ": free thread %" PetscInt_FMT " holds an entry", g, t);
    next += G.size;
    used += G.chunkSize * F->block;
  }
  PetscCheck(next == A->m && used == F->nslots, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the groups cover %" PetscInt_FMT " rows and %" PetscInt_FMT " slots", next, used);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ARGCSRBuild(const CSR *A, PetscInt v, void **F)
{
  const PetscInt blocks[] = {128, 32, 64, 1}, desired[] = {1, 32, 8, 2};
  ARGCSRArrays  *a;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&a));
  PetscCall(ARGCSRBuildHost(A->m, A->n, A->rowptr, A->colind, A->val, blocks[v % 4], desired[v / 4], a));
  PetscCall(ARGCSRCheckInvariants(A, a));
  *F = a;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ARGCSRMult(const void *F, const PetscScalar *x, const PetscScalar *y, PetscScalar *z)
{
  return ARGCSRMultHost((const ARGCSRArrays *)F, x, y, z);
}

static PetscErrorCode ARGCSRDestroy(void **F)
{
  PetscFunctionBeginUser;
  PetscCall(ARGCSRDestroyHost((ARGCSRArrays *)*F));
  PetscCall(PetscFree(*F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode   CMRSParameters(void);
static PetscErrorCode   SELLCSParameters(void);
static PetscErrorCode   BCEParameters(void);
static PetscErrorCode   DIAParameters(void);
static PetscErrorCode   HYBParameters(void);
static PetscErrorCode   ARGCSRParameters(void);
static const HostFormat formats[] = {
    {"cmrs",   20,  CMRSBuild,   CMRSMult,   CMRSDestroy,   CMRSParameters  },
    {"sellcs", 32,  SELLCSBuild, SELLCSMult, SELLCSDestroy, SELLCSParameters},
    {"bce",    108, BCEBuild,    BCEMult,    BCEDestroy,    BCEParameters   },
    {"dia",    1,   DIABuild,    DIAMult,    DIADestroy,    DIAParameters   },
    {"hyb",    5,   HYBBuild,    HYBMult,    HYBDestroy,    HYBParameters   },
    {"argcsr", 16,  ARGCSRBuild, ARGCSRMult, ARGCSRDestroy, ARGCSRParameters},
};
static const HostFormat *fmt;

/* Every variant of the format against the CSR product; counts the variants checked */
static PetscErrorCode CheckMatrix(PetscRandom rnd, const CSR *A, PetscBool exact, PetscInt *nchecked)
{
  PetscScalar *x, *y, *z, *ref;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc4(A->n, &x, A->m, &y, A->m, &z, A->m, &ref));
  for (PetscInt j = 0; j < A->n; j++) {
    PetscReal r;

    PetscCall(PetscRandomGetValueReal(rnd, &r));
    x[j] = exact ? (PetscScalar)((PetscInt)(7 * r) - 3) : 2 * r - 1;
  }
  for (PetscInt i = 0; i < A->m; i++) y[i] = (PetscScalar)(i % 5) - 2;
  for (PetscInt v = 0; v < fmt->nvariants; v++) {
    void *F;

    PetscCall(fmt->build(A, v, &F));
    for (PetscInt i = 0; i < A->m; i++) z[i] = NAN;
    PetscCall(fmt->mult(F, x, NULL, z));
    CSRMult(A, x, NULL, ref);
    PetscCall(Compare(A, x, ref, z, exact, "z = A x"));
    PetscCall(fmt->mult(F, x, y, z));
    CSRMult(A, x, y, ref);
    PetscCall(Compare(A, x, ref, z, exact, "z = y + A x"));
    PetscCall(PetscArraycpy(z, y, A->m));
    PetscCall(fmt->mult(F, x, z, z));
    PetscCall(Compare(A, x, ref, z, exact, "z = z + A x"));
    PetscCall(fmt->destroy(&F));
    (*nchecked)++;
  }
  PetscCall(PetscFree4(x, y, z, ref));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckCase(PetscRandom rnd, PetscInt m, PetscInt n, const PetscInt *len, PetscBool exact, PetscInt *nmat, PetscInt *nchecked)
{
  CSR A;

  PetscFunctionBeginUser;
  PetscCall(CSRCreate(rnd, m, n, len, exact, &A));
  PetscCall(CheckMatrix(rnd, &A, exact, nchecked));
  PetscCall(CSRDestroy(&A));
  (*nmat)++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckEdgeCases(PetscRandom rnd, PetscInt *nmat, PetscInt *nchecked)
{
  PetscInt *len;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc1(5000, &len));
  PetscCall(CheckCase(rnd, 0, 7, len, PETSC_TRUE, nmat, nchecked));   /* no rows */
  PetscCall(CheckCase(rnd, 9, 0, len, PETSC_TRUE, nmat, nchecked));   /* no columns */
  PetscCall(CheckCase(rnd, 37, 37, len, PETSC_TRUE, nmat, nchecked)); /* no entries */
  len[36] = 5;
  PetscCall(CheckCase(rnd, 37, 37, len, PETSC_TRUE, nmat, nchecked)); /* only the last row */
  len[36] = 0;
  len[0]  = 1;
  PetscCall(CheckCase(rnd, 1, 1, len, PETSC_TRUE, nmat, nchecked)); /* 1 x 1 */
  for (PetscInt i = 0; i < 50; i++) len[i] = 3;
  len[7] = 5000;
  PetscCall(CheckCase(rnd, 50, 5000, len, PETSC_TRUE, nmat, nchecked)); /* one full row of 5000 */
  for (PetscInt i = 0; i < 31; i++) len[i] = i % 4;
  PetscCall(CheckCase(rnd, 31, 40, len, PETSC_TRUE, nmat, nchecked)); /* m < warp size, m not a multiple of any height */
  for (PetscInt i = 0; i < 3000; i++) len[i] = 2;
  PetscCall(CheckCase(rnd, 3000, 4, len, PETSC_TRUE, nmat, nchecked)); /* tall and thin */
  for (PetscInt i = 0; i < 3; i++) len[i] = 200;
  PetscCall(CheckCase(rnd, 3, 4000, len, PETSC_TRUE, nmat, nchecked)); /* short and wide */
  for (PetscInt i = 0; i < 64; i++) len[i] = (i % 16 == 15) ? 30 : 0;
  PetscCall(CheckCase(rnd, 64, 64, len, PETSC_TRUE, nmat, nchecked)); /* strips with one nonempty row */
  for (PetscInt i = 0; i < 40; i++) len[i] = 2;
  len[5] = 20000;
  len[9] = 9000;
  PetscCall(CheckCase(rnd, 40, 20000, len, PETSC_TRUE, nmat, nchecked)); /* rows of 20000 and 9000 among short ones */
  for (PetscInt i = 0; i < 200; i++) len[i] = 17;
  PetscCall(CheckCase(rnd, 200, 300, len, PETSC_TRUE, nmat, nchecked)); /* all rows of one length */
  for (PetscInt i = 0; i < 150; i++) len[i] = i + 1;
  PetscCall(CheckCase(rnd, 150, 300, len, PETSC_TRUE, nmat, nchecked)); /* every row of its own length */
  PetscCall(PetscFree(len));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Heights outside {1, 2, 4, 8, 16} are PETSc errors; the default height follows the documented rule */
static PetscErrorCode CMRSParameters(void)
{
  const PetscInt bad[] = {-1, 0, 3, 5, 12, 17, 32};

  PetscFunctionBeginUser;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(bad); i++) PetscCheck(CMRSCheckHeight(bad[i]) == PETSC_ERR_ARG_OUTOFRANGE, PETSC_COMM_SELF, PETSC_ERR_PLIB, "height %" PetscInt_FMT " accepted", bad[i]);
  PetscCall(PetscPopErrorHandler());
  for (PetscInt h = 1; h <= 16; h *= 2) PetscCall(CMRSCheckHeight(h));
  {
    const PetscLogDouble mean[]   = {0.5, 1, 4, 6, 12, 27, 50, 100, 5000};
    const PetscInt       expect[] = {16, 16, 16, 16, 16, 8, 4, 2, 1};

    for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(mean); i++) {
      MatGPUFormatRowStats stats = {0};

      stats.mean = mean[i];
      PetscCheck(CMRSDefaultHeight(&stats) == expect[i], PETSC_COMM_SELF, PETSC_ERR_PLIB, "default height for mean %g is %" PetscInt_FMT ", expected %" PetscInt_FMT, mean[i], CMRSDefaultHeight(&stats), expect[i]);
    }
  }
  PetscCheck(CMRSPackable(1 << 28, PETSC_TRUE) && !CMRSPackable((1 << 28) + 1, PETSC_TRUE) && !CMRSPackable(10, PETSC_FALSE), PETSC_COMM_SELF, PETSC_ERR_PLIB, "packing limit");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* C and sigma outside their sets are PETSc errors; the defaults follow the documented rules */
static PetscErrorCode SELLCSParameters(void)
{
  const PetscInt bad[][2] = {
      {3,  1 },
      {64, 1 },
      {0,  1 },
      {32, 48},
      {32, 16},
      {8,  24},
      {32, 0 }
  },
                 good[][2] = {{4, 1}, {32, 32}, {32, 1024}, {8, 64}, {16, 16 * 4096}};

  PetscFunctionBeginUser;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(bad); i++) PetscCheck(SELLCSCheckParameters(bad[i][0], bad[i][1]) == PETSC_ERR_ARG_OUTOFRANGE, PETSC_COMM_SELF, PETSC_ERR_PLIB, "C %" PetscInt_FMT " sigma %" PetscInt_FMT " accepted", bad[i][0], bad[i][1]);
  PetscCall(PetscPopErrorHandler());
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(good); i++) PetscCall(SELLCSCheckParameters(good[i][0], good[i][1]));
  PetscCheck(SELLCSDefaultSigma(32, 0.95) == 1 && SELLCSDefaultSigma(32, 0.5) == 32 * 32 && SELLCSDefaultSigma(8, 0.5) == 8 * 32, PETSC_COMM_SELF, PETSC_ERR_PLIB, "default sigma");
  {
    /* large matrices (2^20 rows): from the mean row alone; small ones of regular rows: more threads while m T < 2^17 and
       each keeps 6 entries; small ones of skewed rows (standard deviation above the mean) or of long mean rows (past 128
       entries per thread): as large ones */
    const PetscInt       m[]      = {1 << 20, 1 << 20, 1 << 20, 1 << 20, 1 << 20, 1 << 20, 1 << 20, 20000, 20000, 20000, 5000, 10000, 50000, 70000, 131072, 20000, 1000, 1000, 1000, 1000};
    const PetscLogDouble mean[]   = {0, 5, 16, 64, 65, 100, 10000, 40, 5, 12, 27, 23.9, 24, 40, 40, 40, 1000, 600, 200, 100};
    const PetscLogDouble stddev[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 41, 0, 0, 0, 0};
    const PetscInt       expect[] = {1, 1, 1, 1, 2, 2, 1, 4, 1, 2, 4, 2, 4, 2, 1, 1, 1, 1, 4, 4};

    for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(mean); i++) {
      MatGPUFormatRowStats stats = {0};

      stats.mean   = mean[i];
      stats.stddev = stddev[i];
      PetscCheck(SELLCSDefaultThreads(m[i], &stats) == expect[i], PETSC_COMM_SELF, PETSC_ERR_PLIB, "default threads per row for %" PetscInt_FMT " rows of mean %g", m[i], mean[i]);
    }
  }
  {
    /* the fused refresh: threads per row double while each keeps 12 entries of the mean row, for rows that do not vary
       much and are not long; never fewer than the product's */
    const PetscInt       T[]      = {1, 1, 1, 1, 1, 4, 1, 4, 2, 1};
    const PetscLogDouble mean[]   = {0, 5, 16, 27, 50, 400, 50, 100, 5, 10000};
    const PetscLogDouble stddev[] = {0, 0, 0, 1, 0, 0, 60, 0, 0, 0};
    const PetscInt       expect[] = {1, 1, 1, 2, 4, 32, 1, 8, 2, 1};

    for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(mean); i++) {
      MatGPUFormatRowStats stats = {0};

      stats.mean   = mean[i];
      stats.stddev = stddev[i];
      PetscCheck(SELLCSDefaultRefreshThreads(T[i], &stats) == expect[i], PETSC_COMM_SELF, PETSC_ERR_PLIB, "default refresh threads per row for T %" PetscInt_FMT " and mean %g", T[i], mean[i]);
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The cost of a partition given by its block ends */
static PetscLogDouble BCECostOf(PetscInt k, const PetscInt *ends, const PetscInt *len, const PetscInt64 *cnt, PetscInt L, BCEWide wide)
{
  PetscLogDouble cost = 0;

  for (PetscInt i = 0, l = 0; i < k; i++) {
    PetscInt64 N = 0;

    for (; l <= ends[i]; l++) N += cnt[l];
    cost += BCEBlockCost(len[ends[i]], N, L, wide);
  }
  return cost;
}

/* The optimum over all 2^(q-1) partitions into ranges of consecutive lengths */
static PetscLogDouble BCEBruteForce(PetscInt q, const PetscInt *len, const PetscInt64 *cnt, PetscInt L, BCEWide wide)
{
  PetscLogDouble best = PETSC_MAX_REAL;
  PetscInt       ends[16];

  for (PetscInt mask = 0; mask < ((PetscInt)1 << (q - 1)); mask++) {
    PetscInt k = 0;

    for (PetscInt l = 0; l < q - 1; l++)
      if (mask & ((PetscInt)1 << l)) ends[k++] = l;
    ends[k++] = q - 1;
    best      = PetscMin(best, BCECostOf(k, ends, len, cnt, L, wide));
  }
  return best;
}

/* The paper's recurrence with k free (the 1-D form, O(q^2)) over every length: the optimum without any merging */
static PetscErrorCode BCEQuadratic(PetscInt q, const PetscInt *len, const PetscInt64 *cnt, PetscInt L, BCEWide wide, PetscLogDouble *cost)
{
  PetscLogDouble *F;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(q + 1, &F));
  F[0] = 0;
  for (PetscInt i = 1; i <= q; i++) {
    PetscInt64 N = 0;

    F[i] = PETSC_MAX_REAL;
    for (PetscInt j = i - 1; j >= 0; j--) {
      N += cnt[j];
      F[i] = PetscMin(F[i], F[j] + BCEBlockCost(len[i - 1], N, L, wide));
    }
  }
  *cost = F[q];
  PetscCall(PetscFree(F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BCERandomDistribution(PetscRandom rnd, PetscInt q, PetscInt maxstep, PetscInt maxcount, PetscInt *len, PetscInt64 *cnt)
{
  PetscFunctionBeginUser;
  for (PetscInt l = 0, prev = 0; l < q; l++) {
    PetscReal r, s;

    PetscCall(PetscRandomGetValueReal(rnd, &r));
    PetscCall(PetscRandomGetValueReal(rnd, &s));
    len[l] = prev + 1 + (PetscInt)(r * r * maxstep);
    prev   = len[l];
    cnt[l] = 1 + (PetscInt64)(s * s * s * maxcount); /* mostly few rows, sometimes many */
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The partition: the paper's worked distribution, brute force over all partitions on random small
   distributions, the O(q^2) recurrence on large ones, 10,000 distinct lengths in under 10 ms, threads per row
*/
static PetscErrorCode BCEParameters(void)
{
  const PetscInt Ls[] = {1, 2, 7, 32, 64, 256, 5000};
  PetscInt      *len, *ends, k;
  PetscInt64    *cnt;
  PetscLogDouble cost, ref, t0, t1;
  PetscRandom    rnd;
  PetscInt       nbrute = 0, nquad = 0;
  const BCEWide  w512_16 = {BCE_WIDE_ROW, 16}, w512_64 = {BCE_WIDE_ROW, 64}, w16_16 = {BCE_WIDE_ROW_SMALL, 16};

  PetscFunctionBeginUser;
  PetscCheck(BCEThreadsPerRow(1, w512_16) == 1 && BCEThreadsPerRow(64, w512_16) == 1 && BCEThreadsPerRow(65, w512_16) == 2 && BCEThreadsPerRow(512, w512_16) == 8 && BCEThreadsPerRow(513, w512_16) == 64 && BCEThreadsPerRow(2048, w512_16) == 128 && BCEThreadsPerRow(2049, w512_16) == 256 && BCEThreadsPerRow(1000000, w512_16) == 256, PETSC_COMM_SELF, PETSC_ERR_PLIB, "threads per row, 16 entries each in rows of more than 512");
  PetscCheck(BCEThreadsPerRow(513, w512_64) == 16 && BCEThreadsPerRow(8192, w512_64) == 128 && BCEThreadsPerRow(8193, w512_64) == 256, PETSC_COMM_SELF, PETSC_ERR_PLIB, "threads per row, 64 entries each in rows of more than 512");
  PetscCheck(BCEThreadsPerRow(16, w16_16) == 1 && BCEThreadsPerRow(17, w16_16) == 2 && BCEThreadsPerRow(33, w16_16) == 4 && BCEThreadsPerRow(65, w16_16) == 8 && BCEThreadsPerRow(512, w16_16) == 32 && BCEThreadsPerRow(4096, w16_16) == 256 && BCEThreadsPerRow(100000, w16_16) == 256, PETSC_COMM_SELF, PETSC_ERR_PLIB, "threads per row, 16 entries each in rows of more than 16");
  for (PetscInt w = 1; w <= BCE_ENTRIES_PER_THREAD; w++) /* never fewer threads for a longer row, for every allowed entries per thread and wide length */
    for (PetscInt r = 1; r <= 1024; r *= 2) {
      const BCEWide wr = {r + (r > 4 ? 3 : 0), w};

      for (PetscInt W = 2; W <= 20000; W++) PetscCheck(BCEThreadsPerRow(W, wr) >= BCEThreadsPerRow(W - 1, wr), PETSC_COMM_SELF, PETSC_ERR_PLIB, "t(%" PetscInt_FMT ") < t(%" PetscInt_FMT ") with %" PetscInt_FMT " entries per thread in rows of more than %" PetscInt_FMT, W, W - 1, w, wr.row);
    }
  {
    const PetscInt   wl[]  = {10, 100, 513, 4000};
    const PetscInt64 few[] = {5000, 1000, 4, 4}, many[] = {5000, 1000, 4, 600}, manyshort[] = {5000, 30000, 4, 4};
    const BCEWide    none = {0, 0}, set8 = {0, 8}, set300 = {300, 0};
    BCEWide          a = BCEWideChoose(4, wl, few, none), b = BCEWideChoose(4, wl, many, none), c = BCEWideChoose(4, wl, many, set8), d = BCEWideChoose(4, wl, manyshort, none), e = BCEWideChoose(4, wl, many, set300);

    /* few (168,052 entries): every row longer than 16 wide, 16 each; many (2.5 M entries, 2.4 M past 512): past 512, 64 each; manyshort (3 M entries, 18,052 past 512): past 512, 16 each */
    PetscCheck(a.row == BCE_WIDE_ROW_SMALL && a.entries == BCE_WIDE_ENTRIES_PER_THREAD, PETSC_COMM_SELF, PETSC_ERR_PLIB, "wide rows, few entries: %" PetscInt_FMT " entries past %" PetscInt_FMT, a.entries, a.row);
    PetscCheck(b.row == BCE_WIDE_ROW && b.entries == BCE_ENTRIES_PER_THREAD, PETSC_COMM_SELF, PETSC_ERR_PLIB, "wide rows, many entries: %" PetscInt_FMT " entries past %" PetscInt_FMT, b.entries, b.row);
    PetscCheck(c.row == BCE_WIDE_ROW && c.entries == 8, PETSC_COMM_SELF, PETSC_ERR_PLIB, "wide rows, 8 entries set: %" PetscInt_FMT " entries past %" PetscInt_FMT, c.entries, c.row);
    PetscCheck(d.row == BCE_WIDE_ROW && d.entries == BCE_WIDE_ENTRIES_PER_THREAD, PETSC_COMM_SELF, PETSC_ERR_PLIB, "wide rows, many medium rows: %" PetscInt_FMT " entries past %" PetscInt_FMT, d.entries, d.row);
    PetscCheck(e.row == 300 && e.entries == BCE_ENTRIES_PER_THREAD, PETSC_COMM_SELF, PETSC_ERR_PLIB, "wide rows past 300 set: %" PetscInt_FMT " entries past %" PetscInt_FMT, e.entries, e.row);
  }
  PetscCall(PetscMalloc3(10000, &len, 10000, &cnt, 10000, &ends));
  { /* the paper's example, B = [2 3 2 1 0 1 1]: with L = 2 the optimum is {1} {2} {3 4} {6 7} at cost 34 (the paper's (2, 4) costs 36) */
    const PetscInt   plen[] = {1, 2, 3, 4, 6, 7}, expect[] = {0, 1, 3, 5};
    const PetscInt64 pcnt[] = {2, 3, 2, 1, 1, 1};

    PetscCall(BCEPartition(6, plen, pcnt, 2, w512_64, &k, ends, &cost));
    PetscCheck(cost == 34 && k == 4 && BCEBruteForce(6, plen, pcnt, 2, w512_64) == 34, PETSC_COMM_SELF, PETSC_ERR_PLIB, "paper's example: cost %g with %" PetscInt_FMT " blocks, expected 34 with 4", (double)cost, k);
    for (PetscInt i = 0; i < k; i++) PetscCheck(ends[i] == expect[i], PETSC_COMM_SELF, PETSC_ERR_PLIB, "paper's example: block %" PetscInt_FMT " ends at %" PetscInt_FMT, i, ends[i]);
    PetscCall(BCEPartition(6, plen, pcnt, 1000, w512_64, &k, ends, &cost));
    PetscCheck(k == 1 && cost == 7000, PETSC_COMM_SELF, PETSC_ERR_PLIB, "a large L must give one block");
    PetscCall(BCEPartition(6, plen, pcnt, 1, w512_64, &k, ends, &cost));
    PetscCheck(k == 6 && cost == 2 + 6 + 6 + 4 + 6 + 7, PETSC_COMM_SELF, PETSC_ERR_PLIB, "L = 1 must give one block per length");
  }
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 4));
  PetscCall(PetscRandomSeed(rnd));
  for (PetscInt t = 0; t < 3000; t++) { /* against brute force */
    const PetscInt q = 1 + t % 12, L = Ls[(t / 12) % 7], step = (t / 84) % 3 ? 30 : 3000, wi = t % 2 ? BCE_WIDE_ENTRIES_PER_THREAD : BCE_ENTRIES_PER_THREAD;
    const BCEWide  w = {t % 3 ? BCE_WIDE_ROW : BCE_WIDE_ROW_SMALL, wi};

    PetscCall(BCERandomDistribution(rnd, q, step, t % 5 ? 300 : 3, len, cnt));
    PetscCall(BCEPartition(q, len, cnt, L, w, &k, ends, &cost));
    ref = BCEBruteForce(q, len, cnt, L, w);
    PetscCheck(k >= 1 && ends[k - 1] == q - 1 && PetscAbsReal(BCECostOf(k, ends, len, cnt, L, w) - cost) <= 1e-12 * cost, PETSC_COMM_SELF, PETSC_ERR_PLIB, "partition %" PetscInt_FMT ": the blocks do not cost what the program says", t);
    PetscCheck(PetscAbsReal(cost - ref) <= 1e-12 * ref, PETSC_COMM_SELF, PETSC_ERR_PLIB, "partition %" PetscInt_FMT " (q %" PetscInt_FMT ", L %" PetscInt_FMT "): cost %.17g, brute force %.17g", t, q, L, (double)cost, (double)ref);
    nbrute++;
  }
  for (PetscInt t = 0; t < 60; t++) { /* against the O(q^2) recurrence */
    const PetscInt q = 100 + 50 * t, L = Ls[t % 7], wi = t % 2 ? BCE_WIDE_ENTRIES_PER_THREAD : BCE_ENTRIES_PER_THREAD;
    const BCEWide  w = {t % 3 ? BCE_WIDE_ROW : BCE_WIDE_ROW_SMALL, wi};

    PetscCall(BCERandomDistribution(rnd, q, t % 2 ? 10 : 400, t % 3 ? 2000 : 20, len, cnt));
    PetscCall(BCEPartition(q, len, cnt, L, w, &k, ends, &cost));
    PetscCall(BCEQuadratic(q, len, cnt, L, w, &ref));
    PetscCheck(PetscAbsReal(cost - ref) <= 1e-12 * ref && PetscAbsReal(BCECostOf(k, ends, len, cnt, L, w) - cost) <= 1e-12 * cost, PETSC_COMM_SELF, PETSC_ERR_PLIB, "partition of %" PetscInt_FMT " lengths (L %" PetscInt_FMT "): cost %.17g, O(q^2) recurrence %.17g", q, L, (double)cost, (double)ref);
    nquad++;
  }
  /* 10,000 distinct lengths, a long tail of few rows each (the time is printed, not checked: timings belong to benchmarks) */
  PetscCall(BCERandomDistribution(rnd, 10000, 20, 200, len, cnt));
  PetscCall(PetscTime(&t0));
  PetscCall(BCEPartition(10000, len, cnt, 64, w512_16, &k, ends, &cost));
  PetscCall(PetscTime(&t1));
  PetscCall(BCEQuadratic(10000, len, cnt, 64, w512_16, &ref));
  PetscCheck(PetscAbsReal(cost - ref) <= 1e-12 * ref, PETSC_COMM_SELF, PETSC_ERR_PLIB, "10,000 lengths: cost %.17g, O(q^2) recurrence %.17g", (double)cost, (double)ref);
  { /* the merge rule: at most 100 groups, against the unmerged optimum */
    PetscInt       ng, kk, *e2;
    PetscLogDouble merged, worst = 1, sum = 0, m0, m1;
    PetscInt       nmerge = 0;

    PetscCall(PetscMalloc1(10000, &e2));
    for (PetscInt t = 0; t < 200; t++) {
      const PetscInt q = 150 + 49 * t, L = Ls[t % 7], wi = t % 2 ? BCE_WIDE_ENTRIES_PER_THREAD : BCE_ENTRIES_PER_THREAD;
      const BCEWide  w = {t % 3 ? BCE_WIDE_ROW : BCE_WIDE_ROW_SMALL, wi};

      PetscCall(BCERandomDistribution(rnd, q, t % 2 ? 10 : 400, t % 3 ? 2000 : 20, len, cnt));
      PetscCall(BCEPartition(q, len, cnt, L, w, &k, ends, &ref));
      PetscCall(BCEPartitionMerged(q, len, cnt, L, w, 100, &ng, &kk, e2, &merged));
      PetscCheck(ng <= 100 && e2[kk - 1] == q - 1 && PetscAbsReal(BCECostOf(kk, e2, len, cnt, L, w) - merged) <= 1e-12 * merged, PETSC_COMM_SELF, PETSC_ERR_PLIB, "merged partition %" PetscInt_FMT ": %" PetscInt_FMT " groups, or its cost is not the model's", t, ng);
      PetscCheck(merged >= ref * (1 - 1e-12) && merged <= 2 * 2 * ref, PETSC_COMM_SELF, PETSC_ERR_PLIB, "merged partition %" PetscInt_FMT " costs %g times the optimum", t, (double)(merged / ref));
      worst = PetscMax(worst, merged / ref);
      sum += merged / ref;
      nmerge++;
    }
    PetscCall(PetscTime(&m0));
    PetscCall(BCEPartitionMerged(10000, len, cnt, 64, w512_16, 100, &ng, &kk, e2, &merged));
    PetscCall(PetscTime(&m1));
    PetscCheck(ng <= 100, PETSC_COMM_SELF, PETSC_ERR_PLIB, "merge of 10,000 lengths: %" PetscInt_FMT " groups", ng);
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "BCE merge rule (at most 100 groups): on %" PetscInt_FMT " distributions of 150 to 9,900 lengths, %.4f times the optimum on average, %.4f at worst; 10,000 lengths in %.3f ms\n", nmerge, (double)(sum / nmerge), (double)worst, 1e3 * (m1 - m0)));
    PetscCall(PetscFree(e2));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "BCE partition: optimal on %" PetscInt_FMT " distributions against brute force and %" PetscInt_FMT " against the O(q^2) recurrence; 10,000 lengths into %" PetscInt_FMT " blocks in %.3f ms\n", nbrute, nquad, k, 1e3 * (t1 - t0)));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  PetscCheck(BCEPartition(6, len, cnt, 0, w512_64, &k, ends, &cost) == PETSC_ERR_ARG_OUTOFRANGE, PETSC_COMM_SELF, PETSC_ERR_PLIB, "L = 0 accepted");
  PetscCall(PetscPopErrorHandler());
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFree3(len, cnt, ends));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   DIA: the paper's 4 x 4 example (offsets -2, 0, 1 and its slots), the bound of slots per entry (a refusal with a PETSc
   error, before any allocation), and a 2D 5-point Laplacian of a 3 x 3 grid, whose diagonals +1 and -1 have padding inside
   the matrix (the ends of the grid's rows): with an infinity in x at such a padding slot's column, that row stays finite,
   and an entry stored as 0 times an infinity gives NaN, both as in CSR
*/
static PetscErrorCode DIAParameters(void)
{
  const PetscInt    ai[] = {0, 2, 4, 7, 9}, aj[] = {0, 1, 1, 2, 0, 2, 3, 1, 3};
  const PetscScalar av[]        = {1, 7, 2, 8, 5, 3, 9, 6, 4};
  const int         offsets[]   = {-2, 0, 1};
  const PetscScalar slots[3][4] = {
      {0, 0, 5, 6},
      {1, 2, 3, 4},
      {7, 8, 9, 0}
  };
  DIAArrays      D;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(DIABuildHost(4, 4, ai, aj, av, 0.0, &D));
  PetscCheck(D.ndiag == 3 && D.pitch == DIA_ALIGN, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the paper's example: %" PetscInt_FMT " diagonals, pitch %" PetscInt_FMT, D.ndiag, D.pitch);
  for (PetscInt d = 0; d < 3; d++) {
    PetscCheck(D.offsets[d] == offsets[d], PETSC_COMM_SELF, PETSC_ERR_PLIB, "the paper's example: offset %d, expected %d", D.offsets[d], offsets[d]);
    for (PetscInt r = 0; r < 4; r++) PetscCheck(D.val[d * D.pitch + r] == slots[d][r], PETSC_COMM_SELF, PETSC_ERR_PLIB, "the paper's example: slot %" PetscInt_FMT " of diagonal %" PetscInt_FMT, r, d);
  }
  PetscCheck(D.mask[0] == 0xcu && D.mask[1] == 0xfu && D.mask[2] == 0x7u, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the paper's example: masks %x %x %x", D.mask[0], D.mask[1], D.mask[2]);
  PetscCall(DIADestroyHost(&D));
  /* 12 slots for 9 entries: 1.33 per entry */
  PetscCall(DIABuildHost(4, 4, ai, aj, av, 1.34, &D));
  PetscCall(DIADestroyHost(&D));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = DIABuildHost(4, 4, ai, aj, av, 1.3, &D);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(ierr == PETSC_ERR_SUP && !D.val && !D.mask && !D.offsets, PETSC_COMM_SELF, PETSC_ERR_PLIB, "a matrix past the bound of slots per entry was not refused before allocating: error %d", (int)ierr);
  {
    PetscInt    gi[10], gj[45], nz = 0;
    PetscScalar gv[45], x[9], z[9];

    for (PetscInt r = 0; r < 9; r++) { /* grid point (r / 3, r % 3), neighbours in increasing column */
      const PetscInt cols[5] = {r - 3, r % 3 ? r - 1 : -1, r, r % 3 < 2 ? r + 1 : -1, r + 3};

      gi[r] = nz;
      for (int t = 0; t < 5; t++)
        if (cols[t] >= 0 && cols[t] < 9) {
          gj[nz] = cols[t];
          gv[nz] = cols[t] == r ? 4.0 : -1.0;
          nz++;
        }
    }
    gi[9]         = nz;
    gv[gi[0] + 2] = 0.0; /* (0, 3) stored as 0 */
    PetscCall(DIABuildHost(9, 9, gi, gj, gv, 0.0, &D));
    PetscCheck(D.ndiag == 5, PETSC_COMM_SELF, PETSC_ERR_PLIB, "3 x 3 grid: %" PetscInt_FMT " diagonals", D.ndiag);
    for (PetscInt j = 0; j < 9; j++) x[j] = 1.0;
    x[3] = (PetscScalar)INFINITY; /* the padding slot (2, 3) of diagonal +1 and the entry (0, 3) stored as 0 look at it */
    PetscCall(DIAMultHost(&D, x, NULL, z));
    for (PetscInt r = 0; r < 9; r++) {
      PetscScalar ref = 0.0;

      for (PetscInt k = gi[r]; k < gi[r + 1]; k++) ref += gv[k] * x[gj[k]];
      PetscCheck((PetscIsNanScalar(ref) && PetscIsNanScalar(z[r])) || ref == z[r], PETSC_COMM_SELF, PETSC_ERR_PLIB, "3 x 3 grid, x[3] infinite: row %" PetscInt_FMT " %g, CSR %g", r, (double)PetscRealPart(z[r]), (double)PetscRealPart(ref));
    }
    PetscCheck(z[2] == 2.0 && PetscIsNanScalar(z[0]), PETSC_COMM_SELF, PETSC_ERR_PLIB, "3 x 3 grid, x[3] infinite: rows 2 and 0 %g and %g, expected 2 (padding left out) and NaN (0 times an infinity)", (double)PetscRealPart(z[2]), (double)PetscRealPart(z[0]));
    PetscCall(DIADestroyHost(&D));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   HYB: the paper's 4 x 4 example (its rule gives width 2 and leaves (2, 3) = 9 to COO; ELL slots as in the paper), a
   negative width refused, and ELL of width 3 with an infinity in x[0]: row 1, whose padding slot would read column 0 were
   padding multiplied, stays finite
*/
static PetscErrorCode HYBParameters(void)
{
  const PetscInt    ai[] = {0, 2, 4, 7, 9}, aj[] = {0, 1, 1, 2, 0, 2, 3, 1, 3};
  const PetscScalar av[]        = {1, 7, 2, 8, 5, 3, 9, 6, 4};
  const PetscScalar slots[2][4] = {
      {1, 2, 5, 6},
      {7, 8, 3, 4}
  };
  HYBArrays      H;
  PetscInt       width;
  PetscErrorCode ierr;
  PetscScalar    x[4] = {(PetscScalar)INFINITY, 1, 1, 1}, z[4];

  PetscFunctionBeginUser;
  PetscCall(HYBDefaultWidth(4, ai, &width));
  PetscCheck(width == 2, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the paper's example: width %" PetscInt_FMT ", expected 2", width);
  PetscCall(HYBBuildHost(4, 4, ai, aj, av, width, &H));
  PetscCheck(H.pitch == HYB_ALIGN && H.ncoo == 1 && H.coo_row[0] == 2 && H.coo_col[0] == 3 && H.coo_val[0] == 9, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the paper's example: COO part");
  for (PetscInt j = 0; j < 2; j++)
    for (PetscInt r = 0; r < 4; r++) PetscCheck(H.ell_val[j * H.pitch + r] == slots[j][r], PETSC_COMM_SELF, PETSC_ERR_PLIB, "the paper's example: ELL slot %" PetscInt_FMT " of row %" PetscInt_FMT, j, r);
  PetscCall(HYBDestroyHost(&H));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = HYBBuildHost(4, 4, ai, aj, av, -1, &H);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(ierr == PETSC_ERR_ARG_OUTOFRANGE, PETSC_COMM_SELF, PETSC_ERR_PLIB, "a negative width was not refused: error %d", (int)ierr);
  PetscCall(HYBBuildHost(4, 4, ai, aj, av, 3, &H));
  PetscCall(HYBMultHost(&H, x, NULL, z));
  PetscCheck(z[1] == 10 && z[3] == 10 && PetscIsInfOrNanScalar(z[0]) && PetscIsInfOrNanScalar(z[2]), PETSC_COMM_SELF, PETSC_ERR_PLIB, "ELL of width 3, x[0] infinite: %g %g %g %g, expected inf 10 inf 10", (double)PetscRealPart(z[0]), (double)PetscRealPart(z[1]), (double)PetscRealPart(z[2]), (double)PetscRealPart(z[3]));
  PetscCall(HYBDestroyHost(&H));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   ARG-CSR: the paper's worked example (8 x 8, seven rows of one entry and a full row, 12 threads; desired chunk size 2,
   so that one group holds all rows): the full row gets the 4 free threads, chunks of 2 entries, the map ends at 12
   (seeds-spec 5.1: the figure leaves one thread free, the stated greedy rule does not; the chunk size is 2 either way);
   and the parameters' bounds
*/
static PetscErrorCode ARGCSRParameters(void)
{
  PetscInt       ai[9], aj[15], map[8] = {1, 2, 3, 4, 5, 6, 7, 12};
  PetscScalar    av[15], x[8], z[8];
  ARGCSRArrays   G;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  for (PetscInt r = 0; r < 7; r++) {
    ai[r] = r;
    aj[r] = (r * 3) % 8;
    av[r] = (PetscScalar)(r + 1);
  }
  ai[7] = 7;
  for (PetscInt c = 0; c < 8; c++) {
    aj[7 + c] = c;
    av[7 + c] = (PetscScalar)(c - 3);
  }
  ai[8] = 15;
  PetscCall(ARGCSRBuildHost(8, 8, ai, aj, av, 12, 2, &G));
  PetscCheck(G.ngroups == 1 && G.groups[0].firstRow == 0 && G.groups[0].size == 8 && G.groups[0].offset == 0 && G.groups[0].chunkSize == 2 && G.nslots == 24, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the paper's example: %" PetscInt_FMT " groups, chunk size %d, %" PetscInt_FMT " slots", G.ngroups, G.ngroups ? G.groups[0].chunkSize : -1, G.nslots);
  for (PetscInt r = 0; r < 8; r++) PetscCheck(G.map[r] == map[r], PETSC_COMM_SELF, PETSC_ERR_PLIB, "the paper's example: map[%" PetscInt_FMT "] %d, expected %" PetscInt_FMT, r, G.map[r], map[r]);
  for (PetscInt j = 0; j < 8; j++) x[j] = (PetscScalar)(j + 1);
  PetscCall(ARGCSRMultHost(&G, x, NULL, z));
  for (PetscInt r = 0; r < 8; r++) {
    PetscScalar ref = 0.0;

    for (PetscInt k = ai[r]; k < ai[r + 1]; k++) ref += av[k] * x[aj[k]];
    PetscCheck(z[r] == ref, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the paper's example: row %" PetscInt_FMT " %g, expected %g", r, (double)PetscRealPart(z[r]), (double)PetscRealPart(ref));
  }
  PetscCall(ARGCSRDestroyHost(&G));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = ARGCSRBuildHost(8, 8, ai, aj, av, 0, 1, &G);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(ierr == PETSC_ERR_ARG_OUTOFRANGE, PETSC_COMM_SELF, PETSC_ERR_PLIB, "0 threads per group not refused: error %d", (int)ierr);
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = ARGCSRBuildHost(8, 8, ai, aj, av, 32, 0, &G);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(ierr == PETSC_ERR_ARG_OUTOFRANGE, PETSC_COMM_SELF, PETSC_ERR_PLIB, "a desired chunk size of 0 not refused: error %d", (int)ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscRandom rnd;
  PetscInt    count = 1000, nmat = 0, nchecked = 0, *len;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-count", &count, NULL));
  {
    char      name[64] = "cmrs";
    PetscBool flg;

    PetscCall(PetscOptionsGetString(NULL, NULL, "-format", name, sizeof(name), NULL));
    for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(formats) && !fmt; i++) {
      PetscCall(PetscStrcmp(name, formats[i].name, &flg));
      if (flg) fmt = &formats[i];
    }
    PetscCheck(fmt, PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "-format %s: not a format of this test", name);
  }
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 20261122));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(fmt->parameters());
  PetscCall(CheckEdgeCases(rnd, &nmat, &nchecked));
  PetscCall(PetscMalloc1(400, &len));
  for (PetscInt t = 0; t < count; t++) {
    PetscReal r[5];
    PetscInt  m, n, maxlen;

    for (int q = 0; q < 5; q++) PetscCall(PetscRandomGetValueReal(rnd, &r[q]));
    m      = (PetscInt)(r[0] * 400);
    n      = 1 + (PetscInt)(r[1] * 400);
    maxlen = 1 + (PetscInt)(r[2] * r[2] * 60); /* mostly short rows, sometimes long ones */
    for (PetscInt i = 0; i < m; i++) {
      PetscReal s;

      PetscCall(PetscRandomGetValueReal(rnd, &s));
      len[i] = s < 0.1 ? 0 : (PetscInt)(s * maxlen); /* about a tenth of the rows empty */
    }
    if (m && r[3] < 0.1) len[(PetscInt)(r[4] * m)] = n; /* one full row */
    PetscCall(CheckCase(rnd, m, n, len, (PetscBool)(t % 4 != 3), &nmat, &nchecked));
  }
  PetscCall(PetscFree(len));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s host reference: %" PetscInt_FMT " matrices, %" PetscInt_FMT " format variants, all equal to the CSR product\n", fmt->name, nmat, nchecked));
  PetscCall(PetscFinalize());
  return 0;
}
