static char help[] = "Writes a test matrix of the benchmarks (matgen.c) to a file, PETSc binary or, for a name ending in .mtx, Matrix Market.\n\
  -matrix <kind> and its size options (-help lists them), -seed <s>\n\
  -o <file>: the output file (default: the kind, .dat)\n\n";

/*
   genmat - writes a benchmark matrix to a file, and prints its rows, columns, entries, mean, standard deviation
   and longest row and the bytes of its CSR SpMV working set (12 nnz + 4 (m + 1) + 8 n + 8 m)

     genmat -matrix fem -rows 1000000 -o fem.dat
     bench_spmv -matrix file -f fem.dat -types aijcusparse,bce
*/
#include "matgen.h"

int main(int argc, char **argv)
{
  Mat        A;
  char       name[PETSC_MAX_PATH_LEN], params[PETSC_MAX_PATH_LEN], out[PETSC_MAX_PATH_LEN] = "";
  PetscBool  flg, mtx;
  PetscInt   m, n, maxlen;
  PetscInt64 nnz;
  PetscReal  mean, std;
  size_t     len;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MatGenFromOptions(&A, name, sizeof(name), params, sizeof(params)));
  if (!A) { /* -help */
    PetscCall(PetscOptionsGetString(NULL, NULL, "-o", out, sizeof(out), NULL));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  -o <file>: the output file (default: the kind, .dat; .mtx writes Matrix Market)\n"));
    PetscCall(PetscFinalize());
    return 0;
  }
  PetscCall(PetscOptionsGetString(NULL, NULL, "-o", out, sizeof(out), &flg));
  if (!flg) PetscCall(PetscSNPrintf(out, sizeof(out), "%s.dat", name));
  PetscCall(PetscStrlen(out, &len));
  PetscCall(PetscStrcmp(out + (len >= 4 ? len - 4 : 0), ".mtx", &mtx));
  if (mtx) PetscCall(MatGenWriteMatrixMarket(A, out));
  else {
    PetscViewer viewer;

    PetscCall(PetscViewerBinaryOpen(PETSC_COMM_SELF, out, FILE_MODE_WRITE, &viewer));
    PetscCall(MatView(A, viewer));
    PetscCall(PetscViewerDestroy(&viewer));
  }
  PetscCall(MatGetSize(A, &m, &n));
  PetscCall(MatGenRowStatistics(A, &nnz, &mean, &std, &maxlen));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s (%s): %" PetscInt_FMT " x %" PetscInt_FMT ", %" PetscInt64_FMT " entries, row mean %.2f, standard deviation %.2f, longest %" PetscInt_FMT ", working set %.1f MB -> %s\n", name, params, m, n, nnz, (double)mean, (double)std, maxlen,
                        (12.0 * nnz + 4.0 * (m + 1) + 8.0 * n + 8.0 * m) / 1e6, out));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
