import { proxyActivities } from '@temporalio/workflow';
import type { SmokeActivities } from '../activities/smoke.js';

/** Shape of the activity the Python worker serves (python/finalstate/smoke_worker.py), called by name. */
export interface PythonSmokeActivities {
  smokeEcho(input: { text: string }): Promise<{ text: string; sha256: string; python: string; worker: string }>;
}

const { writeAndReadRow } = proxyActivities<SmokeActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 3, initialInterval: '1 second' },
});

/** The foundation's end-to-end check: a workflow whose activity writes and reads back a row in PostgreSQL. */
export async function smokeWorkflow(input: {
  label: string;
}): Promise<{ id: number; label: string; readBack: string }> {
  return await writeAndReadRow(input.label);
}

/** Calls an activity served by a Python worker on another task queue: the path the GPU policy update uses. */
export async function crossLanguageSmokeWorkflow(input: { text: string; pythonTaskQueue: string }) {
  const python = proxyActivities<PythonSmokeActivities>({
    taskQueue: input.pythonTaskQueue,
    startToCloseTimeout: '30 seconds',
    retry: { maximumAttempts: 3, initialInterval: '1 second' },
  });
  return await python.smokeEcho({ text: input.text });
}
