static char help[] = "Parallel SpMV benchmark: MatMult() of one matrix, distributed over the MPI processes (which may share one GPU),\n\
in a list of parallel GPU matrix types, against mpiaijcusparse with the same partition.\n\
  -types <aijcusparse,cmrs,cmrs/offdiag,sellcs/overlap,...> : entries; /offdiag puts the off-diagonal blocks in the format\n\
     too, /overlap runs MatMult() with -mat_gpuformat_overlap (the diagonal block's product during the whole scatter)\n\
  -matrix <kind> and its size options, or -matrix file -f FILE : the matrix (examples/matgen.c), generated on every process\n\
  -gpus_expected n : stop unless the processes use exactly n distinct GPUs (0: any)\n\
  -warmup n -batches b -reps r : untimed products, then b timed batches of r products\n\
  -bw_mib mib -bw_reps n : the copy bandwidth measurement (rank 0 alone)\n\
  -json_out file : append one JSON record per entry\n\
  -timeline : also print, per entry, a timeline of one product on every process (PETSc's events, host times)\n";

/*
   For each entry, with the rows split evenly (PETSc's default layout, the same for every entry):
     product   the time of one MatMult() of the parallel matrix, the maximum over the processes of each batch
               (batches start at a barrier, each process synchronizes its device at the end), median over batches
               (the records also give the least and the greatest batch: product_lo_us, product_hi_us, and
               mpiaijcusparse's ref_product_lo_us, ref_product_hi_us);
     diagonal  the same for the product of the diagonal block alone (MatMult() of the block on local vectors);
     offdiag   the same for the off-diagonal block's product alone (MatMultAdd() of the block on a vector of ghost
               values, as MatMult() does after the scatter);
     scatter   the same for the scatter of the ghost values alone (a VecScatter of the off-diagonal block's columns);
               split into its two calls, each process's device synchronised after each scatter: VecScatterBegin()
               (with an MPI that is not GPU-aware: packing, the copy of the packed values to host memory, the sends)
               and VecScatterEnd() (the wait for the messages, the copy to the device, the unpacking);
   and the ratios to mpiaijcusparse; paired: the product's ratio measured again in pairs, a batch of mpiaijcusparse's
   products then a batch of the entry's, for every batch (the median of the per-pair ratios, and their least and
   greatest in the records: paired_ratio_lo, paired_ratio_hi), which what drifts between the entries (the host, the
   staged scatter) does not move. The result is checked against mpiaijcusparse's (relative 2-norm error).
   Rank 0 prints a table; the JSON records carry the device, the number of distinct GPUs the processes use (PETSc
   gives rank r the device r mod the devices it sees, -device_select_cuda overrides), the copy bandwidth of rank 0's
   GPU, the matrix, the process count.
   With -timeline (what a profiler's timeline of one product would show; Nsight Systems makes no report on our GPU
   hosts), each entry also traces one product on every process after a barrier: PETSc's events (MatMult,
   VecScatterBegin/End, PetscSF's packing and unpacking and their device-host copies) as each process's host enters
   and leaves them, then the device synchronisation that ends the product, in microseconds since the process entered
   MatMult(). With an MPI that is not GPU-aware, PetscSF waits for the device before its sends, so the host times there
   are device times too. The tracer costs a few microseconds an event.
*/
#include <petscmat.h>
#include <petsctime.h>
#include <petscdevice_cuda.h>
#include <petscgpuformats.h>
#include "matgen.h"
#include "benchutil.h"

typedef struct {
  PetscInt  warmup, batches, reps;
  PetscReal product, diagonal, offdiag, scatter, scatter_begin, scatter_end; /* seconds, medians of the per-batch maxima */
  PetscReal product_lo, product_hi;                                          /* the least and the greatest batch of the product */
} Timing;

/* The seconds per operation of one batch of t->reps operations, the maximum over the ranks (the batch starts at a
   barrier, each rank synchronizes its device at the end); op(ctx) runs one operation */
static PetscErrorCode TimeBatch(MPI_Comm comm, const Timing *t, PetscErrorCode (*op)(void *), void *opctx, PetscReal *secs)
{
  PetscLogDouble t0, t1;
  PetscReal      local;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Barrier(comm));
  PetscCall(PetscTime(&t0));
  for (PetscInt r = 0; r < t->reps; r++) PetscCall(op(opctx));
  PetscCallCUDA(cudaDeviceSynchronize());
  PetscCall(PetscTime(&t1));
  local = (PetscReal)(t1 - t0) / t->reps;
  PetscCallMPI(MPIU_Allreduce(&local, secs, 1, MPIU_REAL, MPI_MAX, comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Seconds per operation, max over ranks of each batch, median over batches (and the least and greatest batch, when lo
   and hi are not NULL); op(ctx) runs one operation */
static PetscErrorCode TimeOp(MPI_Comm comm, const Timing *t, PetscErrorCode (*op)(void *), void *opctx, PetscReal *median, PetscReal *lo, PetscReal *hi)
{
  PetscReal *secs;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(t->batches, &secs));
  for (PetscInt w = 0; w < t->warmup; w++) PetscCall(op(opctx));
  PetscCallCUDA(cudaDeviceSynchronize());
  for (PetscInt b = 0; b < t->batches; b++) {
    PetscCall(TimeBatch(comm, t, op, opctx, &secs[b]));
    if (lo) *lo = b ? PetscMin(*lo, secs[b]) : secs[b];
    if (hi) *hi = b ? PetscMax(*hi, secs[b]) : secs[b];
  }
  PetscCall(BenchMedianReal(t->batches, secs, median));
  PetscCall(PetscFree(secs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The speed-up of opb over opa measured in pairs: batch b of opa, then batch b of opb, so that what drifts during the
   run (the host, the other processes, the staged scatter) falls on both alike; the median of the per-pair ratios
   (opa's time over opb's) and their least and greatest */
static PetscErrorCode TimePaired(MPI_Comm comm, const Timing *t, PetscErrorCode (*op)(void *), void *ctxa, void *ctxb, PetscReal *median, PetscReal *lo, PetscReal *hi)
{
  PetscReal *ratio;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(t->batches, &ratio));
  for (PetscInt w = 0; w < t->warmup; w++) {
    PetscCall(op(ctxa));
    PetscCall(op(ctxb));
  }
  PetscCallCUDA(cudaDeviceSynchronize());
  for (PetscInt b = 0; b < t->batches; b++) {
    PetscReal sa, sb;

    PetscCall(TimeBatch(comm, t, op, ctxa, &sa));
    PetscCall(TimeBatch(comm, t, op, ctxb, &sb));
    ratio[b] = sa / sb;
    *lo      = b ? PetscMin(*lo, ratio[b]) : ratio[b];
    *hi      = b ? PetscMax(*hi, ratio[b]) : ratio[b];
  }
  PetscCall(BenchMedianReal(t->batches, ratio, median));
  PetscCall(PetscFree(ratio));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  Mat        A;
  Vec        x, y;
  VecScatter sc;
} OpCtx;

static PetscErrorCode OpMult(void *p)
{
  OpCtx *o = (OpCtx *)p;

  PetscFunctionBeginUser;
  PetscCall(MatMult(o->A, o->x, o->y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode OpMultAdd(void *p)
{
  OpCtx *o = (OpCtx *)p;

  PetscFunctionBeginUser;
  PetscCall(MatMultAdd(o->A, o->x, o->y, o->y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode OpScatter(void *p)
{
  OpCtx *o = (OpCtx *)p;

  PetscFunctionBeginUser;
  PetscCall(VecScatterBegin(o->sc, o->x, o->y, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(o->sc, o->x, o->y, INSERT_VALUES, SCATTER_FORWARD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The host time of VecScatterBegin() and of VecScatterEnd() with the device synchronised after it, per scatter: the
   maximum over the processes of each batch's mean, median over the batches */
static PetscErrorCode TimeScatterParts(MPI_Comm comm, Timing *t, VecScatter sc, Vec x, Vec g)
{
  PetscReal *b, *e;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(t->batches, &b, t->batches, &e));
  for (PetscInt batch = 0; batch < t->batches; batch++) {
    PetscLogDouble sb = 0, se = 0;
    PetscReal      local[2], global[2];

    PetscCallMPI(MPI_Barrier(comm));
    for (PetscInt r = 0; r < t->reps; r++) {
      PetscLogDouble t0, t1, t2;

      PetscCall(PetscTime(&t0));
      PetscCall(VecScatterBegin(sc, x, g, INSERT_VALUES, SCATTER_FORWARD));
      PetscCall(PetscTime(&t1));
      PetscCall(VecScatterEnd(sc, x, g, INSERT_VALUES, SCATTER_FORWARD));
      PetscCallCUDA(cudaDeviceSynchronize());
      PetscCall(PetscTime(&t2));
      sb += t1 - t0;
      se += t2 - t1;
    }
    local[0] = (PetscReal)sb / t->reps;
    local[1] = (PetscReal)se / t->reps;
    PetscCallMPI(MPIU_Allreduce(local, global, 2, MPIU_REAL, MPI_MAX, comm));
    b[batch] = global[0];
    e[batch] = global[1];
  }
  PetscCall(BenchMedianReal(t->batches, b, &t->scatter_begin));
  PetscCall(BenchMedianReal(t->batches, e, &t->scatter_end));
  PetscCall(PetscFree2(b, e));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rank 0 prints one product of A traced on every process (PETSc's trace log handler, each process into a temporary
   file): the lines of all processes sorted by time, in microseconds since each process entered MatMult() */
static PetscErrorCode TraceProduct(Mat A, Vec x, Vec y, const char *entry, PetscLogEvent sync)
{
  MPI_Comm        comm = PetscObjectComm((PetscObject)A);
  PetscMPIInt     size, rank, len, *lens = NULL, *displs = NULL;
  PetscLogHandler h;
  FILE           *fp;
  size_t          n   = 0;
  char           *buf = NULL, *all = NULL;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  /* in memory: a temporary file's flush after every event would be a system call, tens of microseconds on some hosts */
  fp = open_memstream(&buf, &n);
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_MEM, "Cannot open a memory stream for the trace");
  PetscCall(MatMult(A, x, y));
  PetscCallCUDA(cudaDeviceSynchronize());
  PetscCall(PetscLogHandlerCreateTrace(PETSC_COMM_SELF, fp, &h));
  PetscCall(PetscLogHandlerStart(h));
  PetscCallMPI(MPI_Barrier(comm));
  PetscCall(MatMult(A, x, y));
  PetscCall(PetscLogEventBegin(sync, 0, 0, 0, 0));
  PetscCallCUDA(cudaDeviceSynchronize());
  PetscCall(PetscLogEventEnd(sync, 0, 0, 0, 0));
  PetscCall(PetscLogHandlerStop(h));
  PetscCall(PetscLogHandlerDestroy(&h));
  PetscCheck(fclose(fp) == 0 && buf, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot close the trace's memory stream");
  PetscCall(PetscMPIIntCast((PetscInt)n + 1, &len));
  if (rank == 0) PetscCall(PetscMalloc2(size, &lens, size + 1, &displs));
  PetscCallMPI(MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, comm));
  if (rank == 0) {
    displs[0] = 0;
    for (PetscMPIInt r = 0; r < size; r++) displs[r + 1] = displs[r] + lens[r];
    PetscCall(PetscMalloc1(displs[size], &all));
  }
  PetscCallMPI(MPI_Gatherv(buf, len, MPI_CHAR, all, lens, displs, MPI_CHAR, 0, comm)); /* with its terminating 0 */
  free(buf);
  if (rank == 0) {
    typedef struct {
      double      t;
      PetscMPIInt rank;
      int         depth;
      char        what[8], name[64];
    } Line;
    Line    *lines;
    PetscInt nl = 0, cap = 0;

    for (PetscInt i = 0; i < displs[size]; i++) cap += all[i] == '\n';
    PetscCall(PetscMalloc1(cap + 1, &lines));
    for (PetscMPIInt r = 0; r < size; r++) {
      char *s = all + displs[r], *eol;

      for (; *s; s = eol + 1) {
        int    depth = 0, pr;
        double t;
        char   what[8], name[64];

        eol = strchr(s, '\n');
        if (!eol) break;
        *eol = 0;
        while (s[depth] == ' ') depth++;
        if (sscanf(s + depth, "[%d] %lf Event %7[a-z]: %63[^\n]", &pr, &t, what, name) == 4 && nl < cap) {
          lines[nl].t     = t;
          lines[nl].rank  = r;
          lines[nl].depth = depth;
          PetscCall(PetscStrncpy(lines[nl].what, what, sizeof(lines[nl].what)));
          PetscCall(PetscStrncpy(lines[nl].name, name, sizeof(lines[nl].name)));
          nl++;
        }
      }
    }
    for (PetscInt i = 1; i < nl; i++) { /* insertion sort by time, stable: a few dozen lines */
      Line     l = lines[i];
      PetscInt j = i;

      for (; j > 0 && lines[j - 1].t > l.t; j--) lines[j] = lines[j - 1];
      lines[j] = l;
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "# timeline of one product, %s: process, microseconds since it entered MatMult(), event\n", entry));
    for (PetscInt i = 0; i < nl; i++) PetscCall(PetscPrintf(PETSC_COMM_SELF, "#   %3d %9.1f %*s%s %s\n", lines[i].rank, 1e6 * lines[i].t, lines[i].depth, "", lines[i].what, lines[i].name));
    PetscCall(PetscFree(lines));
    PetscCall(PetscFree(all));
    PetscCall(PetscFree2(lens, displs));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Times the product, the diagonal and off-diagonal blocks' products and the ghost scatter of A on x */
static PetscErrorCode TimeMatrix(Mat A, Vec x, Vec y, Timing *t)
{
  MPI_Comm        comm = PetscObjectComm((PetscObject)A);
  Mat             Ad, Ao;
  const PetscInt *garray;
  OpCtx           o;

  PetscFunctionBeginUser;
  o.A = A;
  o.x = x;
  o.y = y;
  PetscCall(TimeOp(comm, t, OpMult, &o, &t->product, &t->product_lo, &t->product_hi));
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, &garray));
  PetscCall(MatCreateVecs(Ad, &o.x, &o.y));
  PetscCall(VecSet(o.x, 1.0));
  o.A = Ad;
  PetscCall(TimeOp(comm, t, OpMult, &o, &t->diagonal, NULL, NULL));
  PetscCall(VecDestroy(&o.x));
  PetscCall(VecDestroy(&o.y));
  /* the off-diagonal block on a vector of ghost values (as many as its columns), added to y: what MatMult() does */
  PetscCall(MatCreateVecs(Ao, &o.x, &o.y));
  PetscCall(VecSet(o.x, 1.0));
  PetscCall(VecSet(o.y, 0.0));
  o.A = Ao;
  PetscCall(TimeOp(comm, t, OpMultAdd, &o, &t->offdiag, NULL, NULL));
  PetscCall(VecDestroy(&o.x));
  PetscCall(VecDestroy(&o.y));
  { /* the scatter that MatMult() does: the ghost columns of this process, from x */
    IS       from;
    PetscInt nghost;

    PetscCall(MatGetLocalSize(Ao, NULL, &nghost));
    PetscCall(ISCreateGeneral(PETSC_COMM_SELF, nghost, garray, PETSC_COPY_VALUES, &from));
    PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, nghost, &o.y));
    PetscCall(VecScatterCreate(x, from, o.y, NULL, &o.sc));
    o.x = x;
    PetscCall(TimeOp(comm, t, OpScatter, &o, &t->scatter, NULL, NULL));
    PetscCall(TimeScatterParts(comm, t, o.sc, x, o.y));
    PetscCall(VecScatterDestroy(&o.sc));
    PetscCall(VecDestroy(&o.y));
    PetscCall(ISDestroy(&from));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char                  types[PETSC_MAX_PATH_LEN] = "aijcusparse,cmrs,cmrs/offdiag,cmrs/overlap,sellcs,sellcs/offdiag,sellcs/overlap,bce,bce/offdiag,bce/overlap", json_out[PETSC_MAX_PATH_LEN] = "", matrix[64], params[PETSC_MAX_PATH_LEN];
  char                **entries;
  int                   ntypes;
  PetscInt              bw_mib = 1024, bw_reps = 20, M, N, rstart, rend, nfailed = 0, gpus_expected = 0, ghosts_max = 0;
  PetscMPIInt           ngpus = 0;
  PetscInt64            nnz   = 0;
  PetscMPIInt           size, rank;
  PetscReal             bw = 0, row_mean, row_std, nrmref;
  PetscInt              row_max;
  PetscBool             flg_json, timeline = PETSC_FALSE;
  PetscLogEvent         sync_event;
  Timing                t = {10, 7, 100, 0, 0, 0, 0, 0, 0}, ref = {0};
  Mat                   H, Hl, Ahost, Aref;
  Vec                   x, yref, y;
  FILE                 *json = NULL;
  struct cudaDeviceProp prop;
  BenchProvenance       prov;
  char                  provjson[512];
  int                   dev;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGPUFormatsInitializePackage());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Parallel SpMV benchmark options", NULL);
  PetscCall(PetscOptionsString("-types", "Comma separated list of entries: a type, type/offdiag, type/overlap or type/offdiag/overlap", NULL, types, types, sizeof(types), NULL));
  PetscCall(BenchTimingOptions(PetscOptionsObject, &t.warmup, &t.batches, &t.reps, &bw_mib, &bw_reps));
  PetscCall(PetscOptionsString("-json_out", "Also append the JSON records to this file (rank 0)", NULL, json_out, json_out, sizeof(json_out), &flg_json));
  PetscCall(PetscOptionsBool("-timeline", "Also print a timeline of one product on every process, per entry", NULL, timeline, &timeline, NULL));
  PetscCall(PetscOptionsBoundedInt("-gpus_expected", "Stop unless the processes use exactly this many distinct GPUs (0: any)", NULL, gpus_expected, &gpus_expected, NULL, 0));
  PetscOptionsEnd();
  {
    PetscBool stop;
    int       rc;

    PetscCall(BenchHelpOrNoDevice("bench_mpi", &stop, &rc));
    if (stop) {
      PetscCall(PetscFinalize());
      return rc;
    }
  }
  PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
  PetscCall(PetscLogEventRegister("DeviceSynchronize", MAT_CLASSID, &sync_event)); /* the end of a traced product */
  PetscCallCUDA(cudaGetDevice(&dev));
  PetscCallCUDA(cudaGetDeviceProperties(&prop, dev));
  { /* which GPU each process uses, by PCI address: the number of distinct ones goes into the records */
    char        bus[32], *all = NULL;
    PetscMPIInt len = (PetscMPIInt)sizeof(bus);

    PetscCallCUDA(cudaDeviceGetPCIBusId(bus, (int)sizeof(bus), dev));
    if (rank == 0) PetscCall(PetscCalloc1((size_t)size * sizeof(bus), &all));
    PetscCallMPI(MPI_Gather(bus, len, MPI_CHAR, all, len, MPI_CHAR, 0, PETSC_COMM_WORLD));
    if (rank == 0) {
      for (PetscMPIInt r = 0; r < size; r++) {
        PetscBool seen = PETSC_FALSE;

        for (PetscMPIInt q = 0; q < r && !seen; q++) PetscCall(PetscStrcmp(all + r * sizeof(bus), all + q * sizeof(bus), &seen));
        if (!seen) ngpus++;
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "# rank %d: GPU %s\n", r, all + r * sizeof(bus)));
      }
      PetscCall(PetscFree(all));
    }
    PetscCallMPI(MPI_Bcast(&ngpus, 1, MPI_INT, 0, PETSC_COMM_WORLD));
    PetscCheck(!gpus_expected || ngpus == gpus_expected, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "The %d processes use %d distinct GPUs, not the %" PetscInt_FMT " of -gpus_expected (PETSc gives rank r the device r mod the devices it sees; -device_select_cuda overrides)", size, ngpus, gpus_expected);
  }
  PetscCall(BenchGetProvenance(&prov));
  PetscCall(BenchProvenanceJSON(&prov, provjson, sizeof(provjson)));
  if (rank == 0) PetscCall(BenchMeasureCopyBandwidth(bw_mib, bw_reps, &bw)); /* the others wait: the GPU may be shared */
  PetscCallMPI(MPI_Bcast(&bw, 1, MPIU_REAL, 0, PETSC_COMM_WORLD));

  /* the matrix, generated whole on every process (the same seed), each taking its rows of PETSc's default layout */
  PetscCall(MatGenFromOptions(&H, matrix, sizeof(matrix), params, sizeof(params)));
  PetscCall(MatGetSize(H, &M, &N));
  PetscCall(MatGenRowStatistics(H, &nnz, &row_mean, &row_std, &row_max));
  PetscCall(MatCreate(PETSC_COMM_WORLD, &Ahost));
  PetscCall(MatSetSizes(Ahost, PETSC_DECIDE, PETSC_DECIDE, M, N));
  PetscCall(MatSetType(Ahost, MATMPIAIJ));
  PetscCall(MatSetUp(Ahost));
  PetscCall(MatGetOwnershipRange(Ahost, &rstart, &rend));
  {
    IS rows, cols;

    PetscCall(ISCreateStride(PETSC_COMM_SELF, rend - rstart, rstart, 1, &rows));
    PetscCall(ISCreateStride(PETSC_COMM_SELF, N, 0, 1, &cols));
    PetscCall(MatCreateSubMatrix(H, rows, cols, MAT_INITIAL_MATRIX, &Hl));
    PetscCall(ISDestroy(&rows));
    PetscCall(ISDestroy(&cols));
  }
  {
    const PetscInt    *ia, *ja;
    const PetscScalar *va;
    PetscInt           m;
    PetscBool          done;

    PetscCall(MatGetRowIJ(Hl, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
    PetscCall(MatSeqAIJGetArrayRead(Hl, &va));
    PetscCall(MatDestroy(&Ahost));
    PetscCall(MatCreateMPIAIJWithArrays(PETSC_COMM_WORLD, m, PETSC_DECIDE, M, N, ia, ja, va, &Ahost));
    PetscCall(MatSeqAIJRestoreArrayRead(Hl, &va));
    PetscCall(MatRestoreRowIJ(Hl, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
  }
  PetscCall(MatDestroy(&Hl));
  PetscCall(MatDestroy(&H));

  PetscCall(MatConvert(Ahost, MATMPIAIJCUSPARSE, MAT_INITIAL_MATRIX, &Aref));
  PetscCall(MatCreateVecs(Aref, &x, &yref));
  PetscCall(VecDuplicate(yref, &y));
  {
    PetscRandom rnd;

    PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
    PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
    PetscCall(VecSetRandom(x, rnd));
    PetscCall(PetscRandomDestroy(&rnd));
  }
  PetscCall(MatMult(Aref, x, yref));
  PetscCall(VecNorm(yref, NORM_2, &nrmref));
  { /* the ghost values a process receives in each product: the columns of its off-diagonal block, max over processes */
    Mat      Ao;
    PetscInt nghost;

    PetscCall(MatMPIAIJGetSeqAIJ(Aref, NULL, &Ao, NULL));
    PetscCall(MatGetLocalSize(Ao, NULL, &nghost));
    PetscCallMPI(MPIU_Allreduce(&nghost, &ghosts_max, 1, MPIU_INT, MPI_MAX, PETSC_COMM_WORLD));
  }
  ref = t;
  PetscCall(TimeMatrix(Aref, x, y, &ref));

  if (flg_json && rank == 0) PetscCall(PetscFOpen(PETSC_COMM_SELF, json_out, "a", &json));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "# %s, %d processes on %d GPUs, copy bandwidth %.1f GB/s; matrix %s %s: %" PetscInt_FMT " x %" PetscInt_FMT ", %" PetscInt64_FMT " entries, at most %" PetscInt_FMT " ghost values per process\n", prop.name, size, ngpus, (double)bw, matrix, params, M, N, (PetscInt64)nnz, ghosts_max));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "# %-20s %12s %12s %12s %12s %12s %10s %10s %10s %10s\n", "entry", "product_us", "diagonal_us", "offdiag_us", "scatter_us", "begin+end", "vs_product", "paired", "vs_diag", "error"));
  PetscCall(PetscStrToArray(types, ',', &ntypes, &entries));
  for (int k = 0; k < ntypes; k++) {
    char      type[64], *slash;
    PetscBool offdiag = PETSC_FALSE, overlap = PETSC_FALSE, cusparse;
    Mat       A;
    Timing    tk = t;
    PetscReal err, paired = 1, paired_lo = 1, paired_hi = 1;

    PetscCall(PetscStrncpy(type, entries[k], sizeof(type)));
    PetscCall(PetscStrchr(type, '/', &slash));
    while (slash) { /* the entry's options, each after a slash */
      char     *next;
      PetscBool isoff, isover;

      *slash = 0;
      PetscCall(PetscStrchr(slash + 1, '/', &next));
      if (next) *next = 0;
      PetscCall(PetscStrcmp(slash + 1, "offdiag", &isoff));
      PetscCall(PetscStrcmp(slash + 1, "overlap", &isover));
      PetscCheck(isoff || isover, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "Entry %s: only /offdiag and /overlap are known", entries[k]);
      offdiag = (PetscBool)(offdiag || isoff);
      overlap = (PetscBool)(overlap || isover);
      slash   = next;
    }
    PetscCall(PetscStrcmp(type, "aijcusparse", &cusparse));
    if (cusparse) {
      PetscCall(PetscObjectReference((PetscObject)Aref));
      A  = Aref;
      tk = ref;
    } else {
      char prefix[64];

      PetscCall(MatConvert(Ahost, type, MAT_INITIAL_MATRIX, &A));
      PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "bench%d_", k));
      PetscCall(MatSetOptionsPrefix(A, prefix));
      PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "-bench%d_mat_gpuformat_offdiag", k));
      PetscCall(PetscOptionsSetValue(NULL, prefix, offdiag ? "true" : "false"));
      PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "-bench%d_mat_gpuformat_overlap", k));
      PetscCall(PetscOptionsSetValue(NULL, prefix, overlap ? "true" : "false"));
      PetscCall(MatSetFromOptions(A));
      PetscCall(TimeMatrix(A, x, y, &tk));
      { /* the product against mpiaijcusparse's, batch after batch */
        OpCtx ca = {Aref, x, y, NULL}, cb = {A, x, y, NULL};

        PetscCall(TimePaired(PETSC_COMM_WORLD, &t, OpMult, &ca, &cb, &paired, &paired_lo, &paired_hi));
      }
    }
    PetscCall(MatMult(A, x, y));
    PetscCall(VecAXPY(y, -1.0, yref));
    PetscCall(VecNorm(y, NORM_2, &err));
    err = nrmref > 0 ? err / nrmref : err;
    if (!(err <= 1e-12)) nfailed++;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-20s %12.2f %12.2f %12.2f %12.2f %5.0f+%-6.0f %10.3f %10.3f %10.3f %10.2e\n", entries[k], 1e6 * (double)tk.product, 1e6 * (double)tk.diagonal, 1e6 * (double)tk.offdiag, 1e6 * (double)tk.scatter, 1e6 * (double)tk.scatter_begin, 1e6 * (double)tk.scatter_end, (double)(ref.product / tk.product), (double)paired, (double)(ref.diagonal / tk.diagonal), (double)err));
    if (timeline) PetscCall(TraceProduct(A, x, y, entries[k], sync_event));
    if (json)
      PetscCall(PetscFPrintf(PETSC_COMM_SELF, json,
                             "{\"device\": \"%s\", %s, \"copy_bw_GBs\": %.2f, \"nprocs\": %d, \"gpus\": %d, \"matrix\": \"%s\", \"matrix_params\": \"%s\", \"rows\": %" PetscInt_FMT ", \"cols\": %" PetscInt_FMT ", \"nnz\": %" PetscInt64_FMT
                             ", \"ghosts_max\": %" PetscInt_FMT ", \"entry\": \"%s\", \"type\": \"%s\", \"offdiag\": %s, \"overlap\": %s, \"product_us\": %.3f, \"diagonal_us\": %.3f, \"offdiag_us\": %.3f, \"scatter_us\": %.3f, \"scatter_begin_us\": %.3f, \"scatter_end_us\": %.3f, \"ref_product_us\": %.3f, \"ref_diagonal_us\": %.3f, \"ref_offdiag_us\": %.3f, \"ref_scatter_us\": %.3f, \"product_lo_us\": %.3f, \"product_hi_us\": %.3f, \"ref_product_lo_us\": %.3f, \"ref_product_hi_us\": %.3f, \"paired_ratio\": %.4f, \"paired_ratio_lo\": %.4f, \"paired_ratio_hi\": %.4f, \"batches\": %" PetscInt_FMT ", \"reps\": %" PetscInt_FMT ", \"rel_error\": %.3e}\n",
                             prop.name, provjson, (double)bw, size, ngpus, matrix, params, M, N, (PetscInt64)nnz, ghosts_max, entries[k], type, offdiag ? "true" : "false", overlap ? "true" : "false", 1e6 * (double)tk.product, 1e6 * (double)tk.diagonal, 1e6 * (double)tk.offdiag, 1e6 * (double)tk.scatter, 1e6 * (double)tk.scatter_begin, 1e6 * (double)tk.scatter_end, 1e6 * (double)ref.product, 1e6 * (double)ref.diagonal, 1e6 * (double)ref.offdiag, 1e6 * (double)ref.scatter, 1e6 * (double)tk.product_lo, 1e6 * (double)tk.product_hi, 1e6 * (double)ref.product_lo, 1e6 * (double)ref.product_hi, (double)paired, (double)paired_lo, (double)paired_hi, t.batches, t.reps, (double)err));
    PetscCall(MatDestroy(&A));
  }
  PetscCall(PetscStrToArrayDestroy(ntypes, entries));
  if (json) PetscCall(PetscFClose(PETSC_COMM_SELF, json));
  if (nfailed) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bench_mpi: %" PetscInt_FMT " entries differ from mpiaijcusparse by more than 1e-12 (relative)\n", nfailed));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yref));
  PetscCall(MatDestroy(&Aref));
  PetscCall(MatDestroy(&Ahost));
  PetscCall(PetscFinalize());
  return nfailed ? 1 : 0;
}
