import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { checkPlan, PLAN_FILE, planFileText } from '../../infra/gpu-check-plan.js';
import { MEMORY_PLAN_FILE, memoryPlanText } from '../../infra/memory-check-plan.js';

// The GPU proof (infra/gpu-check.sh) compares its measurements with the preflight's arithmetic through
// python/benchmarks/gpu_check_plan.json; its CPU rehearsal runs in python/tests/test_gpu_check.py.
test('the GPU check plan is the preflight arithmetic of today (node dist/infra/gpu-check-plan.js rewrites it)', () => {
  assert.equal(fs.readFileSync(PLAN_FILE, 'utf8'), planFileText());
});

// The CPU memory check (python/benchmarks/update_memory.py, python/tests/test_update_memory.py) reads its predictions
// from python/benchmarks/memory_check_plan.json.
test('the CPU memory check plan is the preflight arithmetic of today (node dist/infra/memory-check-plan.js rewrites it)', () => {
  assert.equal(fs.readFileSync(MEMORY_PLAN_FILE, 'utf8'), memoryPlanText());
});

test('the GPU check builds a 1-2B Qwen3 whose update and load fit one 80 GB GPU', () => {
  const plan = checkPlan('cuda');
  assert.ok(plan.parameters > 1e9 && plan.parameters < 2e9, `${plan.parameters}`);
  assert.equal(plan.worldSize, 1);
  const usable = 80 * 2 ** 30 * 0.9 - 2 * 2 ** 30;
  for (const part of plan.update)
    assert.ok(part.predictedPeakBytes! < usable, `${part.name}: ${part.predictedPeakBytes}`);
  const [plain, offload] = plan.update;
  assert.ok(
    offload!.optimizerOffload && offload!.predictedPeakBytes! < plain!.predictedPeakBytes! - 16 * plan.parameters + 1e9,
  );
  assert.ok(plan.load.predictedPeakBytes! < 4 * plan.parameters + 1e9);
  // (c): packed passes of episodes of spread lengths through the chunked head, sequence parallelism 1 on one GPU.
  const packed = plan.update.find((part) => part.name === 'packed')!;
  assert.ok(packed.packing && packed.sequenceParallel === 1);
  assert.ok(
    Math.min(...packed.lengths) < packed.tokensPerEpisode / 4 &&
      Math.max(...packed.lengths) === packed.tokensPerEpisode,
  );
  assert.equal(checkPlan('cpu').update.find((part) => part.name === 'packed')!.sequenceParallel, 2);
  assert.equal(checkPlan('cpu').update[0]!.predictedPeakBytes, null, 'no memory statistics on the CPU');
});
