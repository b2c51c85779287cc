import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { fromRoot } from '../../core/paths.js';
import { loadProbes, markdownTable, notHeld, type ProbeRow } from './runner.js';

// `npm run security` as CI runs it: the command itself (dist/test/security/run.js --json, the script's body after the
// build), once; then a test per probe that fails naming every attempt that got through, and is reported skipped when
// the probe made none of its attempts here (e.g. a second OS user without root).
describe('security probes on the real stack (npm run security)', async () => {
  let rows: ProbeRow[] = [];
  let exitCode = 0;
  before(async () => {
    try {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [fromRoot('dist', 'test', 'security', 'run.js'), '--json'],
        { cwd: fromRoot(), maxBuffer: 64 * 1024 * 1024 },
      );
      rows = JSON.parse(stdout) as ProbeRow[];
    } catch (err) {
      const failed = err as { code?: number; stdout?: string; stderr?: string };
      exitCode = failed.code ?? -1;
      // Exit 1: an attempt got through, and the rows say which; anything else is the command failing.
      assert.equal(exitCode, 1, `npm run security failed (exit ${exitCode}):\n${failed.stderr ?? String(err)}`);
      rows = JSON.parse(failed.stdout!) as ProbeRow[];
    }
  });

  it('the command exits 0 exactly when every attempt it made held', () => {
    assert.equal(exitCode, notHeld(rows).length ? 1 : 0, markdownTable(notHeld(rows)));
  });

  for (const probe of await loadProbes()) {
    it(`${probe.area}: ${probe.name}`, (t) => {
      const own = rows.filter((r) => r.area === probe.area && r.probe === probe.name);
      assert.ok(own.length > 0, 'the command ran the probe');
      const through = notHeld(own);
      assert.equal(through.length, 0, `not held:\n${markdownTable(through)}`);
      const skipped = own.filter((r) => r.skipped);
      if (skipped.length === own.length) t.skip(skipped.map((r) => r.outcome).join('; '));
      else for (const r of skipped) t.diagnostic(`skipped: ${r.attempt}: ${r.outcome}`);
    });
  }
});
