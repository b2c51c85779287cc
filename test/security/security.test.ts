import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadProbes, markdownTable, runProbe } from './runner.js';

// the same probes `npm run security` prints, each one a test that fails naming every attempt that was not held
describe('security probes on the real stack', async () => {
  for (const probe of await loadProbes()) {
    it(`${probe.area}: ${probe.name}`, async () => {
      const rows = await runProbe(probe);
      const notHeld = rows.filter((r) => !r.held);
      assert.equal(notHeld.length, 0, `not held:\n${markdownTable(notHeld)}`);
    });
  }
});
