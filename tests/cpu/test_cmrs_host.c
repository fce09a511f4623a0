static const char help[] = "CMRS host reference against a plain CSR product on random and edge-case matrices.\n"
                           "  -count <n>: random matrices (default 1000)\n";

/*
   For every matrix and every variant (height 1, 2, 4, 8, 16; packed or separate row-in-strip array; CSR
   or column-sorted order) this checks the format invariants (strip pointers, every entry decoded back to
   its row, column and value) and compares z = A x, z = y + A x and z = z + A x with a CSR product.
   Values and x are small integers, so every sum is exact and the comparison is bitwise. Random real
   values are checked against a rounding bound.
*/
#include <cmrs/cmrs.h>
#include "../common/testcsr.h"

static PetscErrorCode CheckInvariants(const CSR *A, const CMRSArrays *F, PetscInt height, PetscBool pack, PetscBool sort)
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

/* Every variant of the format against the CSR product; returns the number of variants checked */
static PetscErrorCode CheckMatrix(PetscRandom rnd, const CSR *A, PetscBool exact, PetscInt *nchecked)
{
  const PetscInt heights[] = {1, 2, 4, 8, 16};
  PetscScalar   *x, *y, *z, *ref;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc4(A->n, &x, A->m, &y, A->m, &z, A->m, &ref));
  for (PetscInt j = 0; j < A->n; j++) {
    PetscReal r;

    PetscCall(PetscRandomGetValueReal(rnd, &r));
    x[j] = exact ? (PetscScalar)((PetscInt)(7 * r) - 3) : 2 * r - 1;
  }
  for (PetscInt i = 0; i < A->m; i++) y[i] = (PetscScalar)(i % 5) - 2;
  for (size_t hi = 0; hi < PETSC_STATIC_ARRAY_LENGTH(heights); hi++) {
    for (int pack = 0; pack < 2; pack++) {
      for (int sort = 0; sort < 2; sort++) {
        CMRSArrays F;

        PetscCall(CMRSBuildHost(A->m, A->n, A->rowptr, A->colind, A->val, heights[hi], (PetscBool)pack, (PetscBool)sort, &F));
        PetscCall(CheckInvariants(A, &F, heights[hi], (PetscBool)pack, (PetscBool)sort));
        for (PetscInt i = 0; i < A->m; i++) z[i] = NAN;
        PetscCall(CMRSMultHost(&F, x, NULL, z));
        CSRMult(A, x, NULL, ref);
        PetscCall(Compare(A, x, ref, z, exact, "z = A x"));
        PetscCall(CMRSMultHost(&F, x, y, z));
        CSRMult(A, x, y, ref);
        PetscCall(Compare(A, x, ref, z, exact, "z = y + A x"));
        PetscCall(PetscArraycpy(z, y, A->m));
        PetscCall(CMRSMultHost(&F, x, z, z));
        PetscCall(Compare(A, x, ref, z, exact, "z = z + A x"));
        PetscCall(CMRSDestroyHost(&F));
        (*nchecked)++;
      }
    }
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
  PetscCall(PetscFree(len));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Heights outside {1, 2, 4, 8, 16} are PETSc errors; the default height follows the documented rule */
static PetscErrorCode CheckParameters(void)
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

int main(int argc, char **argv)
{
  PetscRandom rnd;
  PetscInt    count = 1000, nmat = 0, nchecked = 0, *len;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-count", &count, NULL));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 20261122));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(CheckParameters());
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
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "CMRS host reference: %" PetscInt_FMT " matrices, %" PetscInt_FMT " format variants, all equal to the CSR product\n", nmat, nchecked));
  PetscCall(PetscFinalize());
  return 0;
}
