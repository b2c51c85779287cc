import { randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import { loadConfig } from '../../infra/config.js';
import { fromRoot } from '../../infra/paths.js';
import * as stack from '../../infra/stack/index.js';
import { workflowUrl } from '../../infra/stack/temporal.js';
import { connectClient } from '../../infra/temporal-client.js';
import { crossLanguageSmokeWorkflow, smokeWorkflow } from '../../workflows/smoke.js';
import { startControlWorker } from '../../workers/control.js';
import { parse, printJson, type Command } from '../command.js';

const NOT_BUILT_YET = [
  'the mini campaign itself: this command does not yet build the base model and run probe, selection, GRPO steps and evaluation end to end (issue 8)',
];

/** What a newcomer can run today, beside this smoke check. */
const TRY_NOW = [
  'finalstate run --task retail.train.mini.cancel_order.107919   # one graded episode',
  'finalstate tasks verify --profile mini --domain retail --split train   # oracle, no-op and mutations',
  'finalstate model build-base   # the tiny base model (about 15 minutes)',
  'finalstate campaign --help',
];

const usage = `finalstate demo [--json]

Runs the main job on embedded defaults. Today it brings the stack up and runs the foundation's smoke
workflows (PostgreSQL round trip, TypeScript -> Python activity); the training campaign is not built yet.`;

export const demoCommand: Command = {
  name: 'demo',
  summary: 'run the main job on embedded defaults (today: the foundation smoke workflows)',
  usage,
  async run(argv) {
    const { values } = parse('demo', argv, {});
    if (values.help) {
      console.log(usage);
      return 0;
    }
    const log = (line: string) => values.json || console.log(line);
    const config = loadConfig();
    await stack.up(config);
    log('stack: up');
    const taskQueue = `demo-${randomUUID().slice(0, 8)}`;
    const pythonTaskQueue = `${taskQueue}-py`;
    const worker = await startControlWorker(config, { taskQueue });
    const python = spawn(
      fromRoot(config.python.venv, 'bin', 'python'),
      ['-m', 'finalstate.smoke_worker', '--address', config.temporal.address, '--namespace', config.temporal.namespace, '--task-queue', pythonTaskQueue],
      { env: { ...process.env, PYTHONPATH: fromRoot('python') }, stdio: 'ignore' },
    );
    try {
      const client = await connectClient(config);
      const rowId = `demo-smoke-${Date.now()}`;
      const row = await client.workflow.execute(smokeWorkflow, { taskQueue, workflowId: rowId, args: [{ label: 'hello from finalstate' }] });
      log(`smoke workflow: wrote and read PostgreSQL row ${row.id} (${JSON.stringify(row.readBack)})\n  ${workflowUrl(config, rowId)}`);
      const xlangId = `demo-xlang-${Date.now()}`;
      const echo = await client.workflow.execute(crossLanguageSmokeWorkflow, {
        taskQueue,
        workflowId: xlangId,
        args: [{ text: 'policy update goes here', pythonTaskQueue }],
      });
      log(`cross-language workflow: Python ${echo.python} worker answered sha256 ${echo.sha256.slice(0, 16)}…\n  ${workflowUrl(config, xlangId)}`);
      await client.connection.close();
      log(`\nNot built yet:\n${NOT_BUILT_YET.map((line) => `  - ${line}`).join('\n')}`);
      log(`\nTry now:\n${TRY_NOW.map((line) => `  ${line}`).join('\n')}`);
      if (values.json) printJson({ smoke: row, crossLanguage: echo, notBuiltYet: NOT_BUILT_YET });
      return 0;
    } finally {
      python.kill('SIGTERM');
      await worker.stop();
    }
  },
};
