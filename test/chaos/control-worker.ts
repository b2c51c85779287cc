import { loadConfig } from '../../workers/config.js';
import { startControlWorker } from '../../workers/control.js';
import { sharedWorkflowBundle } from '../../testkit/pipeline/bundle.js';

/**
 * The chaos suite's control worker process: the real control worker (every workflow, the light activities, the
 * control-database migrations) on the given task queue, for the stack the environment names. The workflow bundle
 * is the shared, content-hashed one, so a restart after SIGKILL costs seconds, not a webpack run.
 *
 *   node dist/test/chaos/control-worker.js <taskQueue>
 */
const [taskQueue] = process.argv.slice(2);
if (!taskQueue) throw new Error('usage: control-worker.js <taskQueue>');
const running = await startControlWorker(loadConfig(), { taskQueue, workflowBundle: await sharedWorkflowBundle() });
console.log(`chaos control worker ready on ${taskQueue}`);
await running.done;
