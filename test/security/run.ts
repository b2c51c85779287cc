/**
 * The security command (`npm run security`): runs every probe in dist/test/security/probes/ against the running stack,
 * prints what each tried and what happened as a Markdown table (docs/reliability.md), or with `--json` the rows, and
 * exits 1 when any attempt got through (an attempt skipped here, e.g. one that needs root, is counted apart). Start the
 * stack first: `node bin/finalstate.js dev up`. test/security/security.test.ts runs it in CI.
 */
import { parseArgs } from 'node:util';
import { loadProbes, markdownTable, notHeld, runProbe, type ProbeRow } from './runner.js';

async function main(json: boolean): Promise<number> {
  const rows: ProbeRow[] = [];
  for (const probe of await loadProbes()) {
    const started = Date.now();
    const got = await runProbe(probe);
    rows.push(...got);
    const failed = notHeld(got).length;
    const skipped = got.filter((r) => r.skipped).length;
    console.error(
      `security: ${probe.area}/${probe.name}: ${got.length - failed - skipped}/${got.length} held${skipped ? `, ${skipped} skipped` : ''} (${Date.now() - started} ms)`,
    );
  }
  const through = notHeld(rows);
  const skipped = rows.filter((r) => r.skipped);
  if (json) console.log(JSON.stringify(rows, null, 2));
  else {
    console.log(markdownTable(rows));
    console.log(
      `\n${rows.length - through.length - skipped.length} of ${rows.length} attempts held` +
        (skipped.length ? `, ${skipped.length} skipped (not made here: see their outcome).` : '.'),
    );
  }
  return through.length ? 1 : 0;
}

const { values } = parseArgs({ options: { json: { type: 'boolean', default: false } } });
main(values.json!).then(
  (code) => process.exit(code),
  (err) => {
    console.error((err as Error).message);
    process.exit(2);
  },
);
