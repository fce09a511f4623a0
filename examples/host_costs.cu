static char help[] = "host_costs: the host's time for each step of a GPU MatMult() (launches by parameter size, PETSc's accessors and checks).\n\
  -calls <n>   : calls per batch (default 2000)\n\
  -batches <b> : batches, the median of which is printed (default 9)\n\n";

/*
   host_costs - what each step of a product costs the host, in nanoseconds per call, on the GPU host

   Synopsis:
     host_costs [-calls n] [-batches b]

   Description:
     A product of a small matrix is bound by the host: the time to issue it is its time (bench_spmv's issue_us). PETSc's
     sellcuda issues its product 0.06 to 0.3 us faster than our types (bench/results/h200/small-inline.md). This program
     times, each alone, the steps that a product's host path is made of, so that the gap can be taken apart:
       launch_<P>B       an empty kernel launched on PETSc's stream with a parameter of P bytes (our kernels take 100 to
                         250 bytes of parameters, sellcuda's about 60); the GPU is synchronised after each batch only
       get_last_error    cudaGetLastError()
       current_stream    PetscGetCurrentCUDAStream()
       cuda_read         VecCUDAGetArrayRead() and VecCUDARestoreArrayRead() (sellcuda's accessor of x)
       memtype_read      VecGetArrayReadAndMemType() and its restore (ours)
       cuda_write        VecCUDAGetArrayWrite() and VecCUDARestoreArrayWrite() (sellcuda's accessor of y)
       memtype_write     VecGetArrayWriteAndMemType() and its restore (ours)
       type_compare      PetscObjectTypeCompareAny(x, VECSEQCUDA, VECMPICUDA) (ours, for each vector)
       container_query   PetscObjectContainerQuery() on a matrix with one composed container (ours, the format's context)
       states            MatGetNonzeroState(), PetscObjectStateGet() and PetscObjectGetId() (ours: is the format current?)
       gpu_timer         PetscLogGpuTimeBegin() and PetscLogGpuTimeEnd()
     Prints one line per step: its name, the median over the batches of the nanoseconds per call, and the least and most.
*/
#include <petscmat.h>
#include <petscdevice_cuda.h>
#include <petsc/private/petscimpl.h> /* PetscObjectStateGet(), which our products call */

template <int P>
struct HostCostsParam {
  char bytes[P];
};

template <int P>
__global__ static void host_costs_empty_kernel(HostCostsParam<P> p, double *y)
{
  if (threadIdx.x == 0 && blockIdx.x == 0 && p.bytes[P - 1] == 1) y[0] = 0.0; /* never true: the parameter is read */
}

typedef enum {
  STEP_LAUNCH16,
  STEP_LAUNCH64,
  STEP_LAUNCH128,
  STEP_LAUNCH256,
  STEP_GET_LAST_ERROR,
  STEP_CURRENT_STREAM,
  STEP_CUDA_READ,
  STEP_MEMTYPE_READ,
  STEP_CUDA_WRITE,
  STEP_MEMTYPE_WRITE,
  STEP_TYPE_COMPARE,
  STEP_CONTAINER_QUERY,
  STEP_STATES,
  STEP_GPU_TIMER,
  STEP_COUNT
} HostCostsStep;

static const char *const HostCostsName[STEP_COUNT] = {"launch_16B", "launch_64B", "launch_128B", "launch_256B", "get_last_error", "current_stream", "cuda_read", "memtype_read", "cuda_write", "memtype_write", "type_compare", "container_query", "states", "gpu_timer"};

template <int P>
static PetscErrorCode HostCostsLaunch(double *y, cudaStream_t stream)
{
  HostCostsParam<P> p;

  PetscFunctionBegin;
  PetscCall(PetscArrayzero(p.bytes, P));
  host_costs_empty_kernel<P><<<1, 32, 0, stream>>>(p, y);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HostCostsCall(HostCostsStep step, Vec x, Vec y, Mat A, double *ya, cudaStream_t stream)
{
  const PetscScalar *ra;
  PetscScalar       *wa;
  PetscMemType       mt;
  cudaStream_t       s;
  PetscBool          same;
  void              *ptr;
  PetscObjectState   state;
  PetscObjectId      id;

  PetscFunctionBegin;
  switch (step) {
  case STEP_LAUNCH16:
    PetscCall(HostCostsLaunch<16>(ya, stream));
    break;
  case STEP_LAUNCH64:
    PetscCall(HostCostsLaunch<64>(ya, stream));
    break;
  case STEP_LAUNCH128:
    PetscCall(HostCostsLaunch<128>(ya, stream));
    break;
  case STEP_LAUNCH256:
    PetscCall(HostCostsLaunch<256>(ya, stream));
    break;
  case STEP_GET_LAST_ERROR:
    PetscCallCUDA(cudaGetLastError());
    break;
  case STEP_CURRENT_STREAM:
    PetscCall(PetscGetCurrentCUDAStream(&s));
    break;
  case STEP_CUDA_READ:
    PetscCall(VecCUDAGetArrayRead(x, &ra));
    PetscCall(VecCUDARestoreArrayRead(x, &ra));
    break;
  case STEP_MEMTYPE_READ:
    PetscCall(VecGetArrayReadAndMemType(x, &ra, &mt));
    PetscCall(VecRestoreArrayReadAndMemType(x, &ra));
    break;
  case STEP_CUDA_WRITE:
    PetscCall(VecCUDAGetArrayWrite(y, &wa));
    PetscCall(VecCUDARestoreArrayWrite(y, &wa));
    break;
  case STEP_MEMTYPE_WRITE:
    PetscCall(VecGetArrayWriteAndMemType(y, &wa, &mt));
    PetscCall(VecRestoreArrayWriteAndMemType(y, &wa));
    break;
  case STEP_TYPE_COMPARE:
    PetscCall(PetscObjectTypeCompareAny((PetscObject)x, &same, VECSEQCUDA, VECMPICUDA, ""));
    break;
  case STEP_CONTAINER_QUERY:
    PetscCall(PetscObjectContainerQuery((PetscObject)A, "HostCostsContext", &ptr));
    break;
  case STEP_STATES:
    PetscCall(MatGetNonzeroState(A, &state));
    PetscCall(PetscObjectStateGet((PetscObject)A, &state));
    PetscCall(PetscObjectGetId((PetscObject)A, &id));
    break;
  case STEP_GPU_TIMER:
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(PetscLogGpuTimeEnd());
    break;
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "unknown step %d", (int)step);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int HostCostsCompare(const void *a, const void *b)
{
  const PetscReal u = *(const PetscReal *)a, v = *(const PetscReal *)b;

  return (u > v) - (u < v);
}

int main(int argc, char **argv)
{
  PetscInt       calls = 2000, batches = 9, one = 1;
  Vec            x, y;
  Mat            A;
  double        *ya;
  PetscReal     *ns;
  cudaStream_t   stream;
  PetscContainer container;
  PetscLogDouble t0, t1;
  PetscBool      hashelp;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscOptionsBegin(PETSC_COMM_SELF, NULL, "host_costs options", NULL);
  PetscCall(PetscOptionsBoundedInt("-calls", "Calls per batch", NULL, calls, &calls, NULL, 1));
  PetscCall(PetscOptionsBoundedInt("-batches", "Batches, the median of which is printed", NULL, batches, &batches, NULL, 1));
  PetscOptionsEnd();
  PetscCall(PetscOptionsHasHelp(NULL, &hashelp));
  if (hashelp) {
    PetscCall(PetscFinalize());
    return 0;
  }
  PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, 1000, &x));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(VecSet(x, 1.0));
  PetscCall(VecSet(y, 0.0));
  PetscCall(MatCreateSeqAIJCUSPARSE(PETSC_COMM_SELF, 1, 1, 1, NULL, &A));
  PetscCall(MatSetValue(A, 0, 0, 1.0, INSERT_VALUES));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &container));
  PetscCall(PetscContainerSetPointer(container, &one));
  PetscCall(PetscObjectCompose((PetscObject)A, "HostCostsContext", (PetscObject)container));
  PetscCall(PetscContainerDestroy(&container));
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaMalloc((void **)&ya, sizeof(double)));
  PetscCall(PetscMalloc1(batches, &ns));
  for (int step = 0; step < STEP_COUNT; step++) {
    for (PetscInt i = 0; i < calls; i++) PetscCall(HostCostsCall((HostCostsStep)step, x, y, A, ya, stream)); /* warm-up */
    for (PetscInt b = 0; b < batches; b++) {
      PetscCallCUDA(cudaDeviceSynchronize());
      PetscCall(PetscTime(&t0));
      for (PetscInt i = 0; i < calls; i++) PetscCall(HostCostsCall((HostCostsStep)step, x, y, A, ya, stream));
      PetscCall(PetscTime(&t1));
      ns[b] = 1e9 * (PetscReal)(t1 - t0) / (PetscReal)calls;
    }
    qsort(ns, (size_t)batches, sizeof(PetscReal), HostCostsCompare);
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "host_costs: %-16s %8.1f ns (%.1f to %.1f)\n", HostCostsName[step], (double)ns[batches / 2], (double)ns[0], (double)ns[batches - 1]));
  }
  PetscCallCUDA(cudaDeviceSynchronize());
  PetscCallCUDA(cudaFree(ya));
  PetscCall(PetscFree(ns));
  PetscCall(MatDestroy(&A));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(PetscFinalize());
  return 0;
}
