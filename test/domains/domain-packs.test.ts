import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { domains } from '../../domains/index.js';
import { ToolRejection, type DomainDefinition } from '../../environment/domain.js';
import { Task, type TaskInput } from '../../schemas/task.js';
import {
  applyInit,
  checkAssertions,
  createScratchDb,
  diffSnapshots,
  finalState,
  runCall,
  snapshot,
  toolContext,
  type ScratchDb,
} from './harness.js';

const tablesOf = (domain: DomainDefinition) => [...domain.schemaSql.matchAll(/CREATE TABLE (\w+)/g)].map((m) => m[1]!);
const writeTools = (domain: DomainDefinition) => new Set(domain.tools.filter((t) => !t.readOnly).map((t) => t.name));
/** Writes a refused or escalated request may still make: the ticket that records it. */
const TICKET_TOOLS = new Set(['create_ticket', 'update_ticket', 'escalate_ticket']);

function sample(domain: DomainDefinition): TaskInput[] {
  return [
    ...domain.generateTasks({ seed: 7, split: 'train', profile: 'full', count: 320 }),
    ...domain.generateTasks({ seed: 7, split: 'train', profile: 'mini', count: 160 }),
    ...domain.generateTasks({ seed: 7, split: 'eval', profile: 'full', count: 64 }),
    ...domain.generateTasks({ seed: 7, split: 'eval', profile: 'mini', count: 32 }),
  ];
}

/** Entity ids a task creates (the primary keys of its init rows). */
function entityIds(domain: DomainDefinition, task: TaskInput): string[] {
  return Object.entries(task.init?.upsert ?? {})
    .filter(([table]) => !['products', 'inventory', 'hotels', 'room_types', 'fare_rules'].includes(table))
    .flatMap(([table, rows]) =>
      rows.map((row) => `${table}:${domain.grading[table]!.primaryKey.map((c) => String(row[c])).join('/')}`),
    );
}

for (const domain of domains) {
  describe(`domain pack ${domain.name}`, () => {
    test('declares at least 10 tables with a grading policy each, at least 15 tools, and valid profiles', () => {
      const tables = tablesOf(domain);
      assert.ok(tables.length >= 10, `${tables.length} tables`);
      assert.ok(tables.includes('tickets') && tables.includes('audit_log'));
      assert.deepEqual(
        [...tables].sort(),
        Object.keys(domain.grading).sort(),
        'grading covers exactly the schema tables',
      );
      for (const table of Object.keys(domain.seed)) assert.ok(tables.includes(table), `seed table ${table}`);
      assert.ok(domain.tools.length >= 15, `${domain.tools.length} tools`);
      assert.equal(new Set(domain.tools.map((t) => t.name)).size, domain.tools.length, 'tool names are unique');
      for (const tool of domain.tools)
        assert.ok(tool.description.length >= 40, `${tool.name} has a usable description`);
      assert.deepEqual(
        domain.profileTools.full,
        domain.tools.map((t) => t.name),
      );
      assert.ok(domain.profileTools.mini.length >= 1 && domain.profileTools.mini.length <= 6, 'mini offers 1-6 tools');
      for (const name of domain.profileTools.mini)
        assert.ok(
          domain.tools.some((t) => t.name === name),
          `mini tool ${name} exists`,
        );
      assert.ok(domain.policy.mini.length <= 1500, `mini policy is ${domain.policy.mini.length} characters`);
      const rules = domain.policy.full.match(/^\s*\d+\.\d+ /gm) ?? [];
      assert.ok(rules.length >= 12, `full policy states ${rules.length} numbered rules`);
    });

    test('the generator is deterministic and yields at least 300 distinct valid tasks over at least 10 types', () => {
      const options = { seed: 11, split: 'train' as const, profile: 'full' as const, count: 300 };
      const first = domain.generateTasks(options);
      assert.deepEqual(domain.generateTasks(options), first, 'same options, same tasks');
      assert.equal(new Set(first.map((t) => t.id)).size, 300);
      const types = new Set(first.map((t) => t.tags?.[0]));
      assert.ok(types.size >= 10, `${types.size} task types`);
      for (const task of first) Task.parse(task);
      const otherSeed = domain.generateTasks({ ...options, seed: 12 });
      assert.notDeepEqual(
        otherSeed.map((t) => t.query),
        first.map((t) => t.query),
        'another seed gives other tasks',
      );
      for (const tag of ['read-only', 'refuse', 'escalate', 'needs-private-facts', 'multi-write', 'declined']) {
        assert.ok(
          first.some((t) => t.tags?.includes(tag)),
          `some task is tagged ${tag}`,
        );
      }
      const withDecisions = first.filter((t) => Object.keys(t.userDecisions ?? {}).length > 0);
      assert.ok(
        withDecisions.some((t) => Object.values(t.userDecisions!).includes(false)) &&
          withDecisions.some((t) => Object.values(t.userDecisions!).includes(true)),
      );
      for (const task of withDecisions)
        assert.equal(
          task.tags?.includes('declined'),
          Object.values(task.userDecisions!).includes(false),
          `${task.id}: a declined offer is tagged declined`,
        );
    });

    test('train and eval never share a task or an entity', () => {
      for (const profile of ['full', 'mini'] as const) {
        for (const seed of [1, 2]) {
          const train = domain.generateTasks({ seed, split: 'train', profile, count: 400 });
          const evalTasks = domain.generateTasks({ seed, split: 'eval', profile, count: 400 });
          const trainIds = new Set(train.flatMap((t) => entityIds(domain, t)));
          const shared = evalTasks.flatMap((t) => entityIds(domain, t)).filter((id) => trainIds.has(id));
          assert.deepEqual(shared, [], `${profile}/${seed}: entities shared between splits`);
          const trainTaskIds = new Set(train.map((t) => t.id));
          assert.ok(evalTasks.every((t) => !trainTaskIds.has(t.id)));
          const trainQueries = new Set(train.map((t) => t.query));
          assert.ok(
            evalTasks.every((t) => !trainQueries.has(t.query)),
            'no eval query repeats a train query',
          );
        }
      }
    });

    test('a task set spreads its entity numbers over every leading digit, and sets of two seeds share none', () => {
      const numberOf = (t: { id: string }) => Number(t.id.split('.').at(-1));
      for (const split of ['train', 'eval'] as const) {
        const one = domain.generateTasks({ seed: 1, split, profile: 'mini', count: 96 }).map(numberOf);
        const other = domain.generateTasks({ seed: 2026, split, profile: 'mini', count: 96 }).map(numberOf);
        for (const numbers of [one, other]) {
          const leading = new Map<string, number>();
          for (const n of numbers) leading.set(String(n)[0]!, (leading.get(String(n)[0]!) ?? 0) + 1);
          assert.deepEqual(
            [...leading.keys()].sort(),
            ['1', '2', '3', '4', '5', '6', '7', '8'],
            `${split}: leading digits of ${numbers.slice(0, 5)}...`,
          );
          assert.ok(Math.max(...leading.values()) <= 96 / 4, `${split}: no leading digit dominates (${[...leading]})`);
        }
        const seen = new Set(one);
        assert.deepEqual(
          other.filter((n) => seen.has(n)),
          [],
          `${split}: seeds 1 and 2026 share no entity number`,
        );
      }
    });

    test('mini tasks use only mini tools, 1 to 3 calls, and name the ids they need', () => {
      const mini = domain.generateTasks({ seed: 3, split: 'train', profile: 'mini', count: 200 });
      const allowed = new Set(domain.profileTools.mini);
      for (const task of mini) {
        assert.ok(task.golden.length >= 1 && task.golden.length <= 3, `${task.id}: ${task.golden.length} calls`);
        for (const call of task.golden) {
          assert.ok(allowed.has(call.tool), `${task.id} uses ${call.tool}`);
          for (const value of Object.values(call.arguments)) {
            if (typeof value === 'string' && /^[A-Z]{2,4}-[A-Z0-9-]+$/.test(value))
              assert.ok(task.query.includes(value), `${task.id}: id ${value} is in the query`);
          }
        }
      }
      assert.ok(new Set(mini.map((t) => t.tags?.[0])).size >= 5, 'mini covers several task types');
    });

    test('refused and escalated tasks make no business write; read-only tags match the golden', () => {
      const writes = writeTools(domain);
      for (const task of domain.generateTasks({ seed: 5, split: 'train', profile: 'full', count: 320 })) {
        const businessWrites = task.golden.filter((c) => writes.has(c.tool) && !TICKET_TOOLS.has(c.tool));
        if (task.tags?.includes('refuse') || task.tags?.includes('escalate'))
          assert.deepEqual(businessWrites, [], `${task.id} refuses or escalates but writes`);
        if (task.tags?.includes('refuse') || task.tags?.includes('declined'))
          assert.ok(
            task.golden.every((c) => !writes.has(c.tool)),
            `${task.id}: a refusal has no write tool at all`,
          );
        assert.equal(
          task.tags?.includes('read-only'),
          task.golden.every((c) => !writes.has(c.tool)),
          task.id,
        );
      }
    });

    describe('on the real PostgreSQL', () => {
      let db: ScratchDb;
      before(async () => {
        db = await createScratchDb(domain);
      });
      after(async () => {
        await db?.drop();
      });

      test('every sampled task: init applies, the golden calls succeed, assertions hold, read-only tasks change nothing', async () => {
        const tasks = sample(domain);
        let calls = 0;
        for (const task of tasks) {
          Task.parse(task);
          await db.client.query('BEGIN');
          try {
            await applyInit(db.client, domain, task);
            const beforeGolden = await snapshot(db.client, domain);
            const ctx = toolContext(db.client, task.now);
            for (const [i, call] of task.golden.entries()) {
              try {
                await runCall(domain, ctx, call);
                calls++;
              } catch (err) {
                assert.fail(`${task.id}: golden call ${i} ${call.tool} failed: ${(err as Error).message}`);
              }
            }
            assert.deepEqual(await checkAssertions(db.client, task), [], task.id);
            const changes = diffSnapshots(beforeGolden, await snapshot(db.client, domain));
            if (task.tags?.includes('read-only')) assert.deepEqual(changes, [], `${task.id} is read-only`);
            else assert.ok(changes.length > 0, `${task.id} writes but changes nothing`);
          } finally {
            await db.client.query('ROLLBACK');
          }
        }
        assert.ok(calls > tasks.length);
      });

      test('every golden write matters: dropping it or altering any argument changes the graded state; repeating it does too unless the tool rejects the repeat', async () => {
        const writes = writeTools(domain);
        const perType = (profile: 'full' | 'mini') => {
          const all = domain.generateTasks({ seed: 9, split: 'train', profile, count: 40 });
          return [...new Map(all.map((t) => [t.tags?.[0], t])).values()];
        };
        const alter = (v: unknown) => (typeof v === 'number' ? v + 1 : typeof v === 'boolean' ? !v : `${String(v)}X`);
        let mutations = 0;
        for (const task of [...perType('full'), ...perType('mini')]) {
          const golden = (await finalState(db.client, domain, task, task.golden)).snap;
          for (const [i, call] of task.golden.entries()) {
            if (!writes.has(call.tool)) continue;
            const dropped = task.golden.filter((_, j) => j !== i);
            const altered = Object.keys(call.arguments).map((key) =>
              task.golden.map((c, j) =>
                j === i ? { ...c, arguments: { ...c.arguments, [key]: alter(c.arguments[key]) } } : c,
              ),
            );
            for (const calls of [dropped, ...altered]) {
              const mutated = await finalState(db.client, domain, task, calls, { tolerate: true });
              assert.notDeepEqual(
                diffSnapshots(golden, mutated.snap),
                [],
                `${task.id}: mutating ${call.tool} leaves the graded state unchanged`,
              );
              mutations++;
            }
            const repeated = await finalState(
              db.client,
              domain,
              task,
              [...task.golden.slice(0, i + 1), call, ...task.golden.slice(i + 1)],
              { tolerate: true },
            );
            assert.ok(
              repeated.rejected > 0 || diffSnapshots(golden, repeated.snap).length > 0,
              `${task.id}: repeating ${call.tool} is silently accepted`,
            );
            mutations++;
          }
        }
        assert.ok(mutations > 50, `${mutations} mutations`);
      });

      test('a tool that looks up an unknown id rejects with a message naming it', async () => {
        const reader = domain.tools.find(
          (t) => t.readOnly && Object.keys(t.input).length === 1 && t.name.startsWith('get_'),
        )!;
        const [param] = Object.keys(reader.input);
        await db.client.query('BEGIN');
        try {
          await assert.rejects(
            runCall(domain, toolContext(db.client, '2026-03-01T12:00:00Z'), {
              tool: reader.name,
              arguments: { [param!]: 'NOPE-0' },
            }),
            (err: Error) => {
              assert.ok(err instanceof ToolRejection, `${err.name}: ${err.message}`);
              assert.match(err.message, /NOPE-0/);
              return true;
            },
          );
        } finally {
          await db.client.query('ROLLBACK');
        }
      });
    });
  });
}
