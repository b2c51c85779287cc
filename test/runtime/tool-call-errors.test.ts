import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../workers/config.js';
import { fromRoot } from '../../core/paths.js';
import { McpToolSession } from '../../runtime/episode/mcp-tool-session.js';
import { type EpisodeRuntime } from '../../runtime/episode/runtime.js';
import { createEpisodeRuntime } from '../../workers/episode-runtime.js';
import type { AgentPolicy } from '../../runtime/policy/agent-policy.js';
import { connectEpisodeTools } from '../../environment/episode-tools.js';
import type { ToolCall, Task } from '../../schemas/task.js';
import { uniqueName } from '../helpers/index.js';
import { playEpisode } from './play-episode.js';
import { ScriptedCallsPolicy, ScriptedTextPolicy } from './scripted-policies.js';
import { finalStateHolds } from '../../environment/grader.js';

// Item 1 of issue 14: one call refused by the MCP SDK's input validation, or failing inside the tool, must not break
// the calls after it. Real retail pack, real PostgreSQL backend, real in-process MCP session, the real agent loop.
const config = loadConfig();
let runtime: EpisodeRuntime;

before(async () => {
  runtime = await createEpisodeRuntime(config);
});
after(async () => {
  await runtime.close();
});

function taskOf(set: string, type: string): Task {
  const domain = set.slice(0, set.indexOf('-'));
  return runtime.tasks
    .taskSet(fromRoot('tasks', domain, `${set}.manifest.json`))
    .tasks.find((t) => t.tags[0] === type)!;
}

const play = (task: Task, policy: AgentPolicy) => playEpisode(runtime, task, policy);

const addressTask = () => taskOf('retail-train-mini', 'address_change');
const golden = (task: Task, tool: string) => task.golden.find((c) => c.tool === tool)!;

test('a call the MCP SDK rejects (3-character address) is a tool error, and the valid call after it still earns reward 1', async () => {
  const task = addressTask();
  const [lookup, update] = task.golden as [ToolCall, ToolCall];
  const { grade, toolTurns, tools, recorded } = await play(
    task,
    new ScriptedCallsPolicy([
      lookup,
      { tool: update.tool, arguments: { ...update.arguments, address: 'abc' } },
      update,
      'Your address is updated.',
    ]),
  );
  assert.match(toolTurns[1]!, /^Error: .*address/s, 'the refusal reached the agent as a tool error');
  assert.equal(toolTurns[2]!.startsWith('Error'), false, `the valid call after it succeeded: ${toolTurns[2]}`);
  assert.deepEqual(
    tools.calls.map((c) => [c.tool, c.index, c.isError]),
    [
      [lookup.tool, 0, false],
      [update.tool, null, true],
      [update.tool, 1, false],
    ],
  );
  assert.deepEqual(
    recorded.map((r) => r.callIndex),
    [0, 1],
    'the refused call consumed no index on either side',
  );
  assert.equal(finalStateHolds(grade), true, JSON.stringify(grade.diff));
});

test('through the interpreter, the same short address is refused as a parse failure naming the rule, before the SDK sees it', async () => {
  const task = addressTask();
  const [lookup, update] = task.golden as [ToolCall, ToolCall];
  const text = (call: ToolCall) =>
    `<tool_call>\n${JSON.stringify({ name: call.tool, arguments: call.arguments })}\n</tool_call>`;
  const { grade, toolTurns, loop } = await play(
    task,
    new ScriptedTextPolicy([
      text(lookup),
      text({ tool: update.tool, arguments: { ...update.arguments, address: 'abc' } }),
      text(update),
      'Your address is updated.',
    ]),
  );
  assert.deepEqual(loop.agentTurns.map((t) => t.parseFailures).slice(0, 3), [0, 1, 0]);
  assert.match(
    toolTurns[1]!,
    /^Error: your last message could not be executed[\s\S]*"address" must be at least 5 characters long, got 3/,
  );
  assert.equal(finalStateHolds(grade), true, JSON.stringify(grade.diff));
});

test('a NUL character in an argument is a tool error naming the argument, and the episode can still pass', async () => {
  const task = addressTask();
  const [lookup, update] = task.golden as [ToolCall, ToolCall];
  const nul = {
    tool: update.tool,
    arguments: { ...update.arguments, address: `${String(update.arguments.address)}\u0000` },
  };
  const { grade, toolTurns, tools } = await play(
    task,
    new ScriptedCallsPolicy([lookup, nul, update, 'Your address is updated.']),
  );
  assert.match(toolTurns[1]!, /^Error: .*address.*NUL/s);
  assert.equal(toolTurns[2]!.startsWith('Error'), false, toolTurns[2]);
  assert.equal(tools.calls[2]!.isError, false);
  assert.equal(finalStateHolds(grade), true, JSON.stringify(grade.diff));
});

test('the same NUL written by a model as a JSON escape goes through the interpreter and is refused the same way', async () => {
  const task = addressTask();
  const [lookup, update] = task.golden as [ToolCall, ToolCall];
  const text = (call: ToolCall) =>
    `<tool_call>\n${JSON.stringify({ name: call.tool, arguments: call.arguments })}\n</tool_call>`;
  const { grade, toolTurns } = await play(
    task,
    new ScriptedTextPolicy([
      text(lookup),
      text({ tool: update.tool, arguments: { ...update.arguments, address: 'x\u0000y street 12' } }),
      text(update),
      'Your address is updated.',
    ]),
  );
  assert.match(toolTurns[1]!, /^Error: .*NUL/s);
  assert.equal(toolTurns[2]!.startsWith('Error'), false, toolTurns[2]);
  assert.equal(finalStateHolds(grade), true, JSON.stringify(grade.diff));
});

/** Letters from a fixed linear congruential sequence: text PostgreSQL cannot compress below the btree row limit. */
function incompressible(length: number): string {
  let x = 2026;
  let out = '';
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    out += String.fromCharCode(97 + (x % 26));
  }
  return out;
}

test('a 7,000-character e-mail over the btree row limit fails inside the tool as a recorded tool error; the episode can still pass', async () => {
  const task = taskOf('retail-train-full', 'contact_update');
  const contact = golden(task, 'update_customer_contact');
  const steps: Array<ToolCall | string> = [];
  for (const call of task.golden) {
    if (call === contact) {
      steps.push({
        tool: contact.tool,
        arguments: { ...contact.arguments, email: `${incompressible(7000)}@example.com` },
      });
      steps.push({ tool: contact.tool, arguments: { ...contact.arguments, email: 'not-an-email' } });
    }
    steps.push(call);
  }
  steps.push('Your contact details are updated.');
  const { grade, toolTurns, tools, recorded } = await play(task, new ScriptedCallsPolicy(steps));
  const at = task.golden.indexOf(contact);
  assert.match(toolTurns[at]!, /^Error: .*(index row|exceeds)/s, toolTurns[at]!.slice(0, 200));
  assert.match(toolTurns[at + 1]!, /^Error: .*email/is);
  assert.equal(toolTurns[at + 2]!.startsWith('Error'), false, toolTurns[at + 2]!.slice(0, 200));
  assert.equal(tools.calls[at]!.index, at, 'the failed write consumed its index: it ran and is recorded');
  assert.equal(tools.calls[at + 1]!.index, null, 'the SDK-refused call consumed none');
  assert.equal(recorded[at]!.isError, true);
  assert.equal(recorded.length, task.golden.length + 1);
  assert.equal(finalStateHolds(grade), true, JSON.stringify(grade.diff));
});

test('a resumed session continues after a refused call: the next index follows the recorded calls, and a replayed call runs once', async () => {
  const task = addressTask();
  const [lookup, update] = task.golden as [ToolCall, ToolCall];
  const backend = runtime.backend;
  const episode = await backend.open(uniqueName('calls-resume'), task);
  try {
    const first = await connectEpisodeTools(backend, episode);
    const session = new McpToolSession(first.client, () => first.close());
    await session.callTool(lookup.tool, lookup.arguments);
    await session.callTool(update.tool, { ...update.arguments, address: 'abc' });
    await session.callTool(update.tool, update.arguments);
    const checkpointed = session.calls.slice(0, 2); // the attempt died after the last call committed, before its checkpoint
    await session.close();

    const second = await connectEpisodeTools(backend, episode);
    const resumed = new McpToolSession(second.client, () => second.close());
    resumed.resumeAfter(checkpointed);
    await resumed.callTool(update.tool, update.arguments);
    await resumed.callTool(lookup.tool, lookup.arguments);
    await resumed.close();
    assert.deepEqual(
      resumed.calls.map((c) => c.index),
      [0, null, 1, 2],
    );
    const records = await second.executor.recorded();
    assert.deepEqual(
      records.map((r) => [r.callIndex, r.tool]),
      [
        [0, lookup.tool],
        [1, update.tool],
        [2, lookup.tool],
      ],
      'the replayed write ran once',
    );
  } finally {
    await backend.teardown(episode);
  }
});
