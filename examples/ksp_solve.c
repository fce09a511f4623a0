static char help[] = "Solves a Laplacian system with KSP; the matrix type comes from the command line (-mat_type cmrs).\n\
  -dim <2,3>     : 5-point (2D) or 7-point (3D) Laplacian\n\
  -grid <N>      : grid points per direction (default 512 in 2D, 64 in 3D)\n\
  -f <file>      : load the matrix from a PETSc binary file instead\n\
  -mult_reps <n> : MatMult() products timed after the solve\n\n";

/*
   ksp_solve - KSP solve with a matrix of any type, used to exercise the GPU formats of petsc-gpuformats

   Synopsis:
     mpiexec -n <np> ksp_solve [-dim 2|3] [-grid N] [-f file] [-mult_reps n] [-mat_type cmrs]
                               [-ksp_type cg] [-pc_type jacobi] [-ksp_rtol 1e-8]

   Description:
     Assembles the Dirichlet Laplacian of an N^dim grid (4 or 6 on the diagonal, -1 for each
     neighbour inside the grid), or loads a matrix from a file, with the type selected by
     MatSetFromOptions(). The right-hand side is b = A x_exact with x_exact random in [0.5, 1.5) (fixed
     seeds, one per process: the same on every run with the same processes), and the system is
     solved with KSPSetFromOptions() (defaults: CG, Jacobi, relative tolerance 1e-8) from a zero
     initial guess. Afterwards -mult_reps products MatMult(A, x, b2) are timed.

     The output lines are stable so scripts can grep them:
       Matrix type <name>
       Rows <n>
       Nonzeros <nnz>
       Iterations <its>
       Converged reason <reason>
       First product time <seconds> s   (b = A x_exact; includes the build of a GPU format)
       Right-hand side norm <||b||>     (to compare the product b = A x_exact of two types)
       Setup time <seconds> s
       Solve time <seconds> s
       Relative error <||x - x_exact|| / ||x_exact||>
       MatMult GFLOP/s <rate>

     Times are the maximum over the MPI processes; when the vectors are CUDA vectors the device is
     synchronized before reading the clock.

   Level: beginner

.seealso: `MATCMRS`, `KSPSolve()`, `MatSetFromOptions()`
*/

#include <petscksp.h>
#include <petsctime.h>
#include <petscgpuformats.h>
#if PetscDefined(HAVE_CUDA)
  #include <petscdevice_cuda.h>
#endif

/* Waits for all work queued on the device when v lives on a CUDA device */
static PetscErrorCode SynchronizeDevice(Vec v)
{
  PetscBool iscuda = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)v, &iscuda, VECSEQCUDA, VECMPICUDA, ""));
#if PetscDefined(HAVE_CUDA)
  if (iscuda) PetscCallCUDA(cudaDeviceSynchronize());
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Largest elapsed time over the processes of comm */
static PetscErrorCode MaxTime(MPI_Comm comm, PetscLogDouble local, PetscLogDouble *global)
{
  PetscFunctionBeginUser;
  PetscCallMPI(MPIU_Allreduce(&local, global, 1, MPI_DOUBLE, MPI_MAX, comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Laplacian of an N^dim grid, rows numbered lexicographically with x fastest, assembled by rows */
static PetscErrorCode AssembleLaplacian(Mat A, PetscInt dim, PetscInt N)
{
  const PetscInt    nz   = (dim == 3) ? N : 1;
  const PetscScalar diag = 2.0 * dim; /* 4 in 2D, 6 in 3D: number of neighbours of an interior point */
  PetscInt          rstart, rend;

  PetscFunctionBeginUser;
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt row = rstart; row < rend; row++) {
    const PetscInt i = row % N, j = (row / N) % N, k = row / (N * N);
    PetscInt       cols[7], cnt = 0; /* 7: largest stencil (3D) */
    PetscScalar    vals[7];

    /* neighbours in increasing column order */
    if (k > 0) {
      cols[cnt]   = row - N * N;
      vals[cnt++] = -1.0;
    }
    if (j > 0) {
      cols[cnt]   = row - N;
      vals[cnt++] = -1.0;
    }
    if (i > 0) {
      cols[cnt]   = row - 1;
      vals[cnt++] = -1.0;
    }
    cols[cnt]   = row;
    vals[cnt++] = diag;
    if (i < N - 1) {
      cols[cnt]   = row + 1;
      vals[cnt++] = -1.0;
    }
    if (j < N - 1) {
      cols[cnt]   = row + N;
      vals[cnt++] = -1.0;
    }
    if (k < nz - 1) {
      cols[cnt]   = row + N * N;
      vals[cnt++] = -1.0;
    }
    PetscCall(MatSetValues(A, 1, &row, cnt, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm           comm;
  Mat                A;
  Vec                x, b, xexact, b2;
  KSP                ksp;
  PC                 pc;
  PetscInt           dim = 2, grid = 512, mult_reps = 50, its, rows;
  char               file[PETSC_MAX_PATH_LEN] = "";
  PetscBool          flg_file, flg_grid, to_sellcuda = PETSC_FALSE;
  const char        *mtype;
  MatInfo            info;
  PetscReal          nrm_err, nrm_exact, nrm_b, flops;
  PetscRandom        rnd;
  PetscLogDouble     t0, t1, t_first, t_setup, t_solve, t_mult;
  KSPConvergedReason reason;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  /* registers the plugin's matrix types so -mat_type cmrs works without -dll_append */
  PetscCall(PetscGPUFormatsInitializePackage());
  comm = PETSC_COMM_WORLD;

  PetscOptionsBegin(comm, NULL, "KSP solve options", NULL);
  PetscCall(PetscOptionsRangeInt("-dim", "Dimension of the Laplacian (2 or 3)", NULL, dim, &dim, NULL, 2, 3));
  grid = (dim == 3) ? 64 : 512; /* default: 262144 rows in either dimension */
  PetscCall(PetscOptionsBoundedInt("-grid", "Grid points per direction", NULL, grid, &grid, &flg_grid, 1));
  PetscCall(PetscOptionsString("-f", "PETSc binary matrix file (replaces the Laplacian)", NULL, file, file, sizeof(file), &flg_file));
  PetscCall(PetscOptionsBoundedInt("-mult_reps", "Number of timed MatMult() products", NULL, mult_reps, &mult_reps, NULL, 0));
  PetscOptionsEnd();
  {
    PetscBool hashelp;

    PetscCall(PetscOptionsHasHelp(NULL, &hashelp));
    if (hashelp) { /* the solver's options too, then nothing else: no matrix, no GPU */
      PetscCall(PetscPrintf(comm, "  -mat_type <type>: the matrix type, e.g. aijcusparse, or cmrs, sellcs, bce of petsc-gpuformats\n"));
      PetscCall(KSPCreate(comm, &ksp));
      PetscCall(KSPSetType(ksp, KSPCG));
      PetscCall(KSPSetFromOptions(ksp));
      PetscCall(KSPDestroy(&ksp));
      PetscCall(PetscFinalize());
      return 0;
    }
  }
  PetscCheck(!(flg_file && flg_grid), comm, PETSC_ERR_USER_INPUT, "-grid and -f are mutually exclusive");

  /* PETSc's SELL types have neither MatLoad() nor MatSeqAIJSetPreallocation(): their users assemble an AIJ matrix
     and convert it with PETSc's own converters, AIJ -> SELL -> SELLCUDA in place, which is what runs here */
  {
    char      req[256] = "";
    PetscBool set;

    PetscCall(PetscOptionsGetString(NULL, NULL, "-mat_type", req, sizeof(req), &set));
    if (set) PetscCall(PetscStrendswith(req, "sellcuda", &to_sellcuda));
  }

  /* Matrix */
  PetscCall(MatCreate(comm, &A));
  if (flg_file) {
    PetscViewer viewer;

    if (to_sellcuda) PetscCall(MatSetType(A, MATAIJ));
    else PetscCall(MatSetFromOptions(A));
    PetscCall(PetscViewerBinaryOpen(comm, file, FILE_MODE_READ, &viewer));
    PetscCall(MatLoad(A, viewer));
    PetscCall(PetscViewerDestroy(&viewer));
  } else {
    const PetscInt stencil = 2 * dim + 1; /* entries per row: upper bound for both diagonal and off-diagonal blocks */
    PetscInt64     n64     = (dim == 3) ? (PetscInt64)grid * grid * grid : (PetscInt64)grid * grid;

    PetscCheck(n64 <= (PetscInt64)PETSC_INT_MAX, comm, PETSC_ERR_ARG_OUTOFRANGE, "grid^dim = %" PetscInt64_FMT " rows do not fit in PetscInt", n64);
    PetscCall(MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, (PetscInt)n64, (PetscInt)n64));
    if (to_sellcuda) PetscCall(MatSetType(A, MATAIJ));
    else PetscCall(MatSetFromOptions(A));
    PetscCall(MatSeqAIJSetPreallocation(A, stencil, NULL));
    PetscCall(MatMPIAIJSetPreallocation(A, stencil, NULL, stencil, NULL));
    PetscCall(MatSetUp(A));
    PetscCall(AssembleLaplacian(A, dim, grid));
  }
  if (to_sellcuda) {
    PetscCall(PetscTime(&t0));
    PetscCall(MatConvert(A, MATSELL, MAT_INPLACE_MATRIX, &A));
    PetscCall(MatConvert(A, MATSELLCUDA, MAT_INPLACE_MATRIX, &A));
    PetscCall(PetscTime(&t1));
    PetscCall(PetscPrintf(comm, "Conversion AIJ -> SELL -> SELLCUDA %g s\n", (double)(t1 - t0)));
  }
  PetscCall(MatGetSize(A, &rows, NULL));
  PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));
  PetscCall(PetscObjectGetType((PetscObject)A, &mtype));

  /* Vectors: b = A x_exact with x_exact random (x_exact = 1 would hide a product that takes a wrong column) */
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecDuplicate(x, &xexact));
  PetscCall(VecDuplicate(b, &b2));
  PetscCall(PetscRandomCreate(comm, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, 0.5, 1.5));
  {
    PetscMPIInt rank;

    PetscCallMPI(MPI_Comm_rank(comm, &rank));
    PetscCall(PetscRandomSetSeed(rnd, 20261126 + (unsigned long)rank)); /* each process its own values */
  }
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(VecSetRandom(xexact, rnd));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(SynchronizeDevice(x));
  PetscCall(PetscTime(&t0));
  PetscCall(MatMult(A, xexact, b)); /* the first product: it builds a GPU format */
  PetscCall(SynchronizeDevice(x));
  PetscCall(PetscTime(&t1));
  PetscCall(MaxTime(comm, t1 - t0, &t_first));
  PetscCall(VecNorm(b, NORM_2, &nrm_b));
  PetscCall(VecSet(x, 0.0));

  /* Solver */
  PetscCall(KSPCreate(comm, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, PETSC_CURRENT)); /* default relative tolerance */
  PetscCall(KSPSetFromOptions(ksp));

  PetscCall(SynchronizeDevice(x));
  PetscCall(PetscTime(&t0));
  PetscCall(KSPSetUp(ksp));
  PetscCall(SynchronizeDevice(x));
  PetscCall(PetscTime(&t1));
  PetscCall(MaxTime(comm, t1 - t0, &t_setup));

  PetscCall(PetscTime(&t0));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(SynchronizeDevice(x));
  PetscCall(PetscTime(&t1));
  PetscCall(MaxTime(comm, t1 - t0, &t_solve));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));

  /* Error */
  PetscCall(VecNorm(xexact, NORM_2, &nrm_exact));
  PetscCall(VecAXPY(x, -1.0, xexact));
  PetscCall(VecNorm(x, NORM_2, &nrm_err));
  PetscCall(VecCopy(xexact, x));

  /* MatMult rate */
  PetscCall(SynchronizeDevice(x));
  PetscCall(PetscTime(&t0));
  for (PetscInt r = 0; r < mult_reps; r++) PetscCall(MatMult(A, x, b2));
  PetscCall(SynchronizeDevice(x));
  PetscCall(PetscTime(&t1));
  PetscCall(MaxTime(comm, t1 - t0, &t_mult));
  /* per product: one multiply and one add per nonzero, minus the first add of each row */
  flops = (2.0 * (PetscReal)info.nz_used - (PetscReal)rows) * (PetscReal)mult_reps;

  PetscCall(PetscPrintf(comm, "Matrix type %s\n", mtype));
  PetscCall(PetscPrintf(comm, "Rows %" PetscInt_FMT "\n", rows));
  PetscCall(PetscPrintf(comm, "Nonzeros %" PetscInt64_FMT "\n", (PetscInt64)info.nz_used));
  PetscCall(PetscPrintf(comm, "Iterations %" PetscInt_FMT "\n", its));
  PetscCall(PetscPrintf(comm, "Converged reason %s\n", KSPConvergedReasons[reason]));
  PetscCall(PetscPrintf(comm, "First product time %g s\n", (double)t_first));
  PetscCall(PetscPrintf(comm, "Right-hand side norm %.15e\n", (double)nrm_b));
  PetscCall(PetscPrintf(comm, "Setup time %g s\n", (double)t_setup));
  PetscCall(PetscPrintf(comm, "Solve time %g s\n", (double)t_solve));
  PetscCall(PetscPrintf(comm, "Relative error %g\n", (double)(nrm_exact > 0.0 ? nrm_err / nrm_exact : nrm_err)));
  if (mult_reps > 0 && t_mult > 0.0) PetscCall(PetscPrintf(comm, "MatMult GFLOP/s %g\n", (double)(flops / t_mult / 1e9))); /* 1e9 flop per GFLOP */

  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&xexact));
  PetscCall(VecDestroy(&b2));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
