/**
 * Environment benchmark: provisioning, teardown, tool calls and grading on the real PostgreSQL, beside a bare
 * `CREATE DATABASE ... TEMPLATE` baseline measured in the same run. Run after building:
 *   node dist/bench/provisioning.js [--iterations N] [--json]
 * Uses the built-in domain packs, or the test-fixture pack when none is registered yet.
 */
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../infra/config.js';
import { fromRoot } from '../core/paths.js';
import { Task } from '../schemas/task.js';
import { EnvironmentBackend, type BackendOptions } from '../environment/backend.js';
import type { DomainDefinition } from '../environment/domain.js';
import { connectEpisodeTools } from '../environment/episode-tools.js';
import { ExpectedStates } from '../environment/expected-state.js';
import { gradeEpisode } from '../environment/grader.js';
import { type DomainRegistry } from '../environment/registry.js';
import { defaultRegistry } from '../wiring/registry.js';
import { ident } from '../environment/sql.js';

interface Stats {
  n: number;
  p50: number;
  p95: number;
  mean: number;
}

function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  const round = (x: number) => Math.round(x * 10) / 10;
  return {
    n: sorted.length,
    p50: round(at(0.5)),
    p95: round(at(0.95)),
    mean: round(sorted.reduce((a, b) => a + b, 0) / sorted.length),
  };
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const value = await fn();
  return [value, performance.now() - start];
}

async function registryWithSomething(): Promise<{ registry: DomainRegistry; usingFixture: boolean }> {
  const registry = await defaultRegistry();
  if (registry.names().length) return { registry, usingFixture: false };
  const fixture = (await import(
    pathToFileURL(fromRoot('dist', 'test', 'fixtures', 'fixture-helpdesk-domain.js')).href
  )) as { domains: DomainDefinition[] };
  for (const d of fixture.domains) registry.register(d);
  return { registry, usingFixture: true };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { iterations: { type: 'string', default: '30' }, json: { type: 'boolean', default: false } },
  });
  const iterations = Number(values.iterations);
  const config = loadConfig();
  const { registry, usingFixture } = await registryWithSomething();
  const domain = registry.all()[0]!;
  const tasks = domain.generateTasks({ seed: 1, split: 'train', profile: 'mini', count: 50 }).map((t) => Task.parse(t));
  const results: Record<string, unknown> = { domain: domain.name, usingFixture, iterations };

  const make = (options: BackendOptions) => new EnvironmentBackend(config, registry, options);
  const backend = make({});
  const template = await backend.template(domain);

  // Interleaved, so that the baseline and each provisioning mode see the same load on this shared machine:
  // per iteration, the bare copy + drop, then an episode on each backend mode.
  const direct = make({ sparesPerTemplate: 0, dropInBackground: false });
  const samples: Record<string, number[]> = {};
  const push = (key: string, ms: number) => (samples[key] ??= []).push(ms);
  const episodeCycle = async (b: EnvironmentBackend, label: string, i: number) => {
    const [episode, p] = await timed(() => b.provision(`bench-${label}-${process.pid}-${i}`, tasks[i % tasks.length]!));
    const [, t] = await timed(() => b.teardown(episode));
    push(`${label}.provision`, p);
    push(`${label}.teardown`, t);
    push(`${label}.total`, p + t);
  };
  await backend.warmSpares(domain);
  for (let i = 0; i < iterations; i++) {
    const name = `fs_bench_${process.pid}_${i}`;
    const [, c] = await timed(() =>
      backend.admin.query(`CREATE DATABASE ${ident(name)} TEMPLATE ${ident(template.name)} STRATEGY WAL_LOG`),
    );
    const [, d] = await timed(() => backend.admin.query(`DROP DATABASE ${ident(name)}`));
    push('baseline.create', c);
    push('baseline.drop', d);
    push('baseline.total', c + d);
    await episodeCycle(direct, 'direct', i);
    await backend.flushDrops();
    await backend.warmSpares(domain);
    await episodeCycle(backend, 'warm', i);
    await backend.flushDrops(); // background work of this iteration never overlaps the next one's timings
    await backend.warmSpares(domain);
  }
  await backend.flushDrops();
  await direct.close();
  // back-to-back: no time for spares to refill or drops to finish between episodes (a throughput bound)
  for (let i = 0; i < iterations; i++) await episodeCycle(backend, 'b2b', i);
  await backend.flushDrops();
  // FILE_COPY forces checkpoints, which would disturb everything else: measured last, a few times
  for (let i = 0; i < Math.min(5, iterations); i++) {
    const name = `fs_bench_fc_${process.pid}_${i}`;
    const [, c] = await timed(() =>
      backend.admin.query(`CREATE DATABASE ${ident(name)} TEMPLATE ${ident(template.name)} STRATEGY FILE_COPY`),
    );
    const [, d] = await timed(() => backend.admin.query(`DROP DATABASE ${ident(name)}`));
    push('filecopy.total', c + d);
  }
  for (const [key, list] of Object.entries(samples)) results[key] = stats(list);

  // tool calls through the in-process MCP session, and grading with a warm expected-state cache
  const expected = new ExpectedStates(backend, fromRoot('.data', 'bench-expected-states', String(process.pid)));
  const readCalls: number[] = [];
  const writeCalls: number[] = [];
  const grading: number[] = [];
  const expectedCold: number[] = [];
  for (const task of tasks.slice(0, Math.min(tasks.length, 10))) {
    const [, cold] = await timed(() => expected.get(task));
    expectedCold.push(cold);
  }
  for (let i = 0; i < Math.max(3, Math.floor(iterations / 3)); i++) {
    const task = tasks[i % Math.min(tasks.length, 10)]!;
    const episode = await backend.provision(`bench-tools-${process.pid}-${i}`, task);
    const tools = await connectEpisodeTools(backend, episode);
    for (const call of task.golden) {
      const readOnly = domain.tools.find((t) => t.name === call.tool)?.readOnly;
      const [, ms] = await timed(() => tools.client.callTool(call.tool, call.arguments));
      (readOnly ? readCalls : writeCalls).push(ms);
    }
    const [report, g] = await timed(() => gradeEpisode(backend, expected, { episode }));
    if (!report.pass) throw new Error(`bench: oracle replay of ${task.id} did not pass grading`);
    grading.push(g);
    await tools.close();
    await backend.teardown(episode);
  }
  results.tool_call_read = stats(readCalls);
  results.tool_call_write = stats(writeCalls);
  results.grading_mini_warm_cache = stats(grading);
  results.expected_state_cold = stats(expectedCold);
  await backend.close();
  const { rmSync } = await import('node:fs');
  rmSync(expected.cacheDir, { recursive: true, force: true });

  if (values.json) {
    console.log(JSON.stringify(results, null, 2));
    return;
  }
  const base = results['baseline.total'] as Stats;
  const { loadavg } = await import('node:os');
  console.log(
    `environment benchmark: domain ${domain.name}${usingFixture ? ' (test fixture: no built-in pack yet)' : ''}, ${iterations} iterations, all times ms, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  const line = (label: string, key: string, ratio = false) => {
    const s = results[key] as Stats;
    console.log(
      `  ${label.padEnd(58)} p50 ${String(s.p50).padStart(7)}  p95 ${String(s.p95).padStart(7)}  (n=${s.n})${ratio ? `  ${(s.p50 / base.p50).toFixed(2)}x baseline` : ''}`,
    );
  };
  line('baseline: bare CREATE DATABASE ... TEMPLATE (WAL_LOG)', 'baseline.create');
  line('baseline: bare DROP DATABASE', 'baseline.drop');
  line('baseline: create + drop (WAL_LOG)', 'baseline.total', true);
  line('baseline: create + drop (FILE_COPY)', 'filecopy.total', true);
  for (const [key, label] of [
    ['warm', 'episode, spare ready, background drop'],
    ['b2b', 'episode, back-to-back'],
    ['direct', 'episode, direct copy, drop waited'],
  ] as const) {
    line(`${label}: provision`, `${key}.provision`);
    line(`${label}: teardown`, `${key}.teardown`);
    line(`${label}: provision + teardown`, `${key}.total`, true);
  }
  line('tool call via in-process MCP (read)', 'tool_call_read');
  line('tool call via in-process MCP (write)', 'tool_call_write');
  line('grading per episode (mini, expected state cached)', 'grading_mini_warm_cache');
  line('expected state, cold (golden replay on a fresh db)', 'expected_state_cold');
}

await main();
