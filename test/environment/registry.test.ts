import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DomainRegistry } from '../../environment/registry.js';
import { domains } from '../../domains/index.js';
import { templateDatabaseName } from '../../environment/naming.js';
import { domainContentHash } from '../../environment/template.js';
import { UserError } from '../../core/errors.js';
import { fixtureHelpdeskDomain } from '../fixtures/fixture-helpdesk-domain.js';
import { fixtureEnvironment, fixtureTask, uniqueEpisodeId } from './harness.js';

describe('domain registry and templates', () => {
  const env = fixtureEnvironment({ sparesPerTemplate: 0 });
  after(() => env.close());

  it('maps names to packs, refuses a second pack of the same name and names the known ones', () => {
    const registry = new DomainRegistry(domains);
    registry.register(fixtureHelpdeskDomain);
    registry.register(fixtureHelpdeskDomain); // the same pack again is fine
    assert.equal(registry.get('fixture_helpdesk'), fixtureHelpdeskDomain);
    assert.throws(() => registry.register({ ...fixtureHelpdeskDomain }), /already registered/);
    assert.throws(
      () => registry.get('atlantis'),
      (err: unknown) =>
        err instanceof UserError && /unknown domain "atlantis" \(registered: .*fixture_helpdesk/.test(err.message),
    );
  });

  it('refuses a pack whose profiles name unknown tools or whose mini profile is too big', () => {
    const bad = {
      ...fixtureHelpdeskDomain,
      name: 'bad_pack',
      profileTools: {
        full: ['get_order', 'warp'],
        mini: ['get_order', 'get_order', 'get_order', 'get_order', 'get_order', 'get_order', 'get_order'],
      },
    };
    assert.throws(
      () => new DomainRegistry([bad]),
      (err: unknown) => {
        assert.match((err as Error).message, /profileTools\.full names unknown tool warp/);
        assert.match((err as Error).message, /profileTools\.mini has 7 tools \(at most 6\)/);
        return true;
      },
    );
  });

  it('refuses a pack whose schema or tools read the wall clock or a random source', () => {
    const clockTool = { ...fixtureHelpdeskDomain.tools[0]!, name: 'stamp', handler: async () => ({ at: Date.now() }) };
    const bad = {
      ...fixtureHelpdeskDomain,
      name: 'fixture_clocked',
      schemaSql: fixtureHelpdeskDomain.schemaSql.replace(
        'at timestamptz NOT NULL',
        'at timestamptz NOT NULL DEFAULT now()',
      ),
      tools: [...fixtureHelpdeskDomain.tools, clockTool],
    };
    assert.throws(
      () => new DomainRegistry([bad]),
      (err: unknown) => {
        assert.match((err as Error).message, /schemaSql uses a wall-clock or random SQL function/);
        assert.match((err as Error).message, /tool stamp reads the wall clock or a random source/);
        return true;
      },
    );
  });

  it('refuses a pack whose grading policy disagrees with its schema, when the template is built', async () => {
    const bad = {
      ...fixtureHelpdeskDomain,
      name: 'fixture_bad_grading',
      grading: {
        ...fixtureHelpdeskDomain.grading,
        orders: { primaryKey: ['customer_id'], ignoreColumns: ['colour'], canonicalize: {} },
      },
    };
    env.registry.register(bad);
    await assert.rejects(
      env.backend.template(bad),
      /grading\.orders\.primaryKey is \[customer_id\] but the table's primary key is \[order_id\][\s\S]*unknown column colour/,
    );
  });

  it('names the template by the content hash, so a changed seed builds a new template', async () => {
    const changed = {
      ...fixtureHelpdeskDomain,
      name: 'fixture_changed_seed',
      seed: {
        ...fixtureHelpdeskDomain.seed,
        customers: [
          ...fixtureHelpdeskDomain.seed.customers!,
          { customer_id: 'C-3', name: 'Cy', email: 'cy@example.com', tier: 'gold' },
        ],
      },
    };
    const original = { ...changed, seed: fixtureHelpdeskDomain.seed };
    assert.notEqual(domainContentHash(changed), domainContentHash(original));
    env.registry.register(changed);
    const template = await env.backend.template(changed);
    assert.equal(template.name, templateDatabaseName('fixture_changed_seed', domainContentHash(changed)));
    const task = { ...fixtureTask('cancel-O-1'), domain: 'fixture_changed_seed' };
    const episode = await env.backend.provision(uniqueEpisodeId('changed'), task);
    try {
      const n = await episode.pool.query('SELECT count(*)::int AS n FROM customers');
      assert.equal(n.rows[0].n, 3);
    } finally {
      await env.backend.teardown(episode, { wait: true });
      await env.backend.admin.query(`ALTER DATABASE ${template.name} WITH IS_TEMPLATE false`);
      await env.backend.admin.query(`DROP DATABASE IF EXISTS ${template.name}`);
    }
  });
});
