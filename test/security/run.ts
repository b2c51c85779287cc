/**
 * The security command (`npm run security`): runs every probe in dist/test/security/probes/ against the running stack,
 * prints what each tried and what happened as a Markdown table (docs/reliability.md), and exits 1 when any attempt
 * was not held. Start the stack first: `node bin/finalstate.js dev up`.
 */
import { loadProbes, markdownTable, runProbe, type ProbeRow } from './runner.js';

async function main(): Promise<number> {
  const rows: ProbeRow[] = [];
  for (const probe of await loadProbes()) {
    const started = Date.now();
    const got = await runProbe(probe);
    rows.push(...got);
    const failed = got.filter((r) => !r.held).length;
    console.error(
      `security: ${probe.area}/${probe.name}: ${got.length - failed}/${got.length} held (${Date.now() - started} ms)`,
    );
  }
  console.log(markdownTable(rows));
  const notHeld = rows.filter((r) => !r.held);
  console.log(`\n${rows.length - notHeld.length} of ${rows.length} attempts held.`);
  return notHeld.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error((err as Error).message);
    process.exit(2);
  },
);
