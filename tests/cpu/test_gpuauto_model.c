static const char help[] = "gpuauto's model on the host (src/mat/impls/gpuauto/gpuauto.c): the kind and first candidate of the matrices\n"
                           "of the records it was written from, every candidate once in each order, the restriction to\n"
                           "-mat_gpuauto_formats, determinism, and the errors of a bad list.\n";

#include <petscsys.h>
#include "gpuauto/gpuauto.h"

typedef struct {
  const char          *name;
  PetscInt             m;
  MatGPUFormatRowStats s; /* nnz, nzrows, maxlen, mean, stddev */
  GPUAutoRule          rule;
  GPUAutoCandidate     first;
} Case;

static PetscInt checks;

/* The first candidate and the kind, and every allowed candidate exactly once, in an order that GPUAutoRank() gives again */
static PetscErrorCode CheckCase(const Case *c, PetscInt mask)
{
  GPUAutoCandidate order[GPUAUTO_NCANDIDATES], again[GPUAUTO_NCANDIDATES];
  PetscInt         n, n2, seen = 0;
  GPUAutoRule      rule, rule2;

  PetscFunctionBeginUser;
  PetscCall(GPUAutoRank(c->m, &c->s, mask, order, &n, &rule));
  PetscCall(GPUAutoRank(c->m, &c->s, mask, again, &n2, &rule2));
  PetscCheck(n == n2 && rule == rule2, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: two rankings differ", c->name);
  for (PetscInt i = 0; i < n; i++) {
    PetscCheck(order[i] == again[i], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: two rankings differ at %" PetscInt_FMT, c->name, i);
    PetscCheck(mask & (1 << order[i]), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %s ranked, not allowed", c->name, GPUAutoCandidateNames[order[i]]);
    PetscCheck(!(seen & (1 << order[i])), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %s ranked twice", c->name, GPUAutoCandidateNames[order[i]]);
    seen |= 1 << order[i];
  }
  PetscCheck(seen == mask, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: not every allowed candidate ranked (%" PetscInt_FMT " of mask %" PetscInt_FMT ")", c->name, n, mask);
  PetscCheck(rule == c->rule, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: kind %s, expected %s", c->name, GPUAutoRuleNames[rule], GPUAutoRuleNames[c->rule]);
  if (mask == (1 << GPUAUTO_NCANDIDATES) - 1) PetscCheck(order[0] == c->first, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: first %s, expected %s", c->name, GPUAutoCandidateNames[order[0]], GPUAutoCandidateNames[c->first]);
  checks++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A list of -mat_gpuauto_formats that must fail with code expect, its message naming `names` when given */
static PetscErrorCode CheckBadList(const char *list, PetscErrorCode expect, const char *names)
{
  PetscInt       mask;
  PetscErrorCode ierr;
  char          *msg = NULL;

  PetscFunctionBeginUser;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = GPUAutoParseFormats(list, &mask);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(ierr == expect, PETSC_COMM_SELF, PETSC_ERR_PLIB, "-mat_gpuauto_formats '%s': error %d, expected %d", list, (int)ierr, (int)expect);
  if (names) {
    char *found = NULL;

    PetscCall(PetscErrorMessage(ierr, NULL, &msg));
    if (msg) PetscCall(PetscStrstr(msg, names, &found));
    PetscCheck(found, PETSC_COMM_SELF, PETSC_ERR_PLIB, "-mat_gpuauto_formats '%s': the message '%s' does not name %s", list, msg ? msg : "", names);
  }
  checks++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  /* row statistics of the records' matrices (bench/results/h200: rows, entries, longest row, mean, deviation) */
  const Case cases[] = {
      {"lap2d5 grid 2048",             4194304, {20963328, 4194304, 5, 4.998, 0.05},                    GPUAUTO_RULE_REGULAR_SHORT,   GPUAUTO_DIA   },
      {"lap3d27 grid 100",             1000000, {26463592, 1000000, 27, 26.46, 2.1},                    GPUAUTO_RULE_REGULAR_SHORT,   GPUAUTO_DIA   },
      {"fem 4 M rows",                 4000000, {107979974, 4000000, 27, 26.99, 0.157},                 GPUAUTO_RULE_REGULAR_SHORT,   GPUAUTO_DIA   },
      {"diagonals occupancy 0.5",      4000000, {20000000, 4000000, 9, 5.0, 1.4},                       GPUAUTO_RULE_REGULAR_SHORT,   GPUAUTO_DIA   },
      {"dense 5000",                   5000,    {25000000, 5000, 5000, 5000.0, 0.0},                    GPUAUTO_RULE_REGULAR_LONG,    GPUAUTO_BCE   },
      {"rmat scale 20",                1048576, {16086094, 1000000, 39435, 15.34, 140.5},               GPUAUTO_RULE_POWER_LAW,       GPUAUTO_BCE   },
      {"rmat scale 22",                4194304, {65242764, 4000000, 80000, 15.55, 140.0},               GPUAUTO_RULE_POWER_LAW_LARGE, GPUAUTO_CSR   },
      {"power-law at the large bound", 4194304, {GPUAUTO_POWER_LARGE_NNZ, 4000000, 80000, 11.9, 140.0}, GPUAUTO_RULE_POWER_LAW,       GPUAUTO_BCE   },
      {"circuit 4 M rows",             4000000, {24091475, 4000000, 9541, 6.02, 12.8},                  GPUAUTO_RULE_IRREGULAR,       GPUAUTO_SELLCS},
      {"lp1 4 M rows",                 4000000, {24000103, 4000000, 2000000, 6.0, 2000.0},              GPUAUTO_RULE_IRREGULAR,       GPUAUTO_SELLCS},
      {"fem 30 k rows",                30000,   {808711, 30000, 30, 26.96, 0.2},                        GPUAUTO_RULE_SMALL,           GPUAUTO_BCE   },
      {"rows of 20 (m < 32)",          20,      {200, 20, 10, 10.0, 0.0},                               GPUAUTO_RULE_SMALL,           GPUAUTO_BCE   },
      {"no entries",                   7,       {0, 0, 0, 0.0, 0.0},                                    GPUAUTO_RULE_SMALL,           GPUAUTO_BCE   },
      {"at the small bound",           100000,  {GPUAUTO_SMALL_NNZ, 100000, 11, 10.49, 0.5},            GPUAUTO_RULE_SMALL,           GPUAUTO_BCE   },
      {"just past the small bound",    100000,  {GPUAUTO_SMALL_NNZ + 1, 100000, 11, 10.49, 0.5},        GPUAUTO_RULE_REGULAR_SHORT,   GPUAUTO_DIA   },
  };
  const PetscInt all = (1 << GPUAUTO_NCANDIDATES) - 1;
  PetscInt       mask;
  char           list[256];

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  for (size_t k = 0; k < PETSC_STATIC_ARRAY_LENGTH(cases); k++) {
    PetscCall(CheckCase(&cases[k], all));
    /* every single candidate alone, and the pairs with cuSPARSE's CSR */
    for (PetscInt c = 0; c < GPUAUTO_NCANDIDATES; c++) {
      PetscCall(CheckCase(&cases[k], 1 << c));
      PetscCall(CheckCase(&cases[k], (1 << c) | (1 << GPUAUTO_CSR)));
    }
  }
  /* a list: parsed in any order, spaces allowed; the mask back to the list in the fixed order */
  PetscCall(GPUAutoParseFormats("sellcs, aijcusparse,dia", &mask));
  PetscCheck(mask == ((1 << GPUAUTO_SELLCS) | (1 << GPUAUTO_CSR) | (1 << GPUAUTO_DIA)), PETSC_COMM_SELF, PETSC_ERR_PLIB, "mask %" PetscInt_FMT, mask);
  PetscCall(GPUAutoFormatsString(mask, list, sizeof(list)));
  {
    PetscBool same;

    PetscCall(PetscStrcmp(list, "aijcusparse,sellcs,dia", &same));
    PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the list back: '%s'", list);
  }
  {
    GPUAutoCandidate order[GPUAUTO_NCANDIDATES];
    PetscInt         n;
    GPUAutoRule      rule;

    /* the 2D Laplacian with the three: DIA, then SELL-C-sigma, then cuSPARSE's CSR */
    PetscCall(GPUAutoRank(cases[0].m, &cases[0].s, mask, order, &n, &rule));
    PetscCheck(n == 3 && order[0] == GPUAUTO_DIA && order[1] == GPUAUTO_SELLCS && order[2] == GPUAUTO_CSR, PETSC_COMM_SELF, PETSC_ERR_PLIB, "lap2d5, aijcusparse,sellcs,dia: %" PetscInt_FMT " candidates, first %s", n, GPUAutoCandidateNames[order[0]]);
    checks++;
  }
  PetscCall(GPUAutoParseFormats("aijcusparse,cmrs,sellcs,bce,dia,hyb,ell,argcsr", &mask));
  PetscCheck(mask == all, PETSC_COMM_SELF, PETSC_ERR_PLIB, "every name: mask %" PetscInt_FMT, mask);
  PetscCall(CheckBadList("sellcs,coo", PETSC_ERR_ARG_UNKNOWN_TYPE, "'coo'"));
  PetscCall(CheckBadList("", PETSC_ERR_ARG_WRONG, NULL));
  PetscCall(CheckBadList(" , ", PETSC_ERR_ARG_WRONG, NULL));
  {
    GPUAutoCandidate order[GPUAUTO_NCANDIDATES];
    PetscInt         n;
    GPUAutoRule      rule;
    PetscErrorCode   ierr;

    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = GPUAutoRank(cases[0].m, &cases[0].s, 0, order, &n, &rule);
    PetscCall(PetscPopErrorHandler());
    PetscCheck(ierr == PETSC_ERR_ARG_OUTOFRANGE, PETSC_COMM_SELF, PETSC_ERR_PLIB, "no candidate allowed: error %d", (int)ierr);
    checks++;
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "gpuauto's model: %" PetscInt_FMT " checks passed\n", checks));
  PetscCall(PetscFinalize());
  return 0;
}
