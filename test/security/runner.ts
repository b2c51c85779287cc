import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { fromRoot } from '../../core/paths.js';
import type { ProbeResult, SecurityProbe } from './probe.js';

/** Where the compiled probe modules are: every `.js` file here default-exports an array of probes. */
export const PROBES_DIR = fromRoot('dist', 'test', 'security', 'probes');

export interface ProbeRow extends ProbeResult {
  area: string;
  probe: string;
}

/** The attempts that got through: neither held nor skipped. */
export const notHeld = (rows: ProbeRow[]) => rows.filter((r) => !r.held && !r.skipped);

function isProbe(value: unknown): value is SecurityProbe {
  const p = value as SecurityProbe;
  return (
    typeof p === 'object' &&
    p !== null &&
    typeof p.area === 'string' &&
    typeof p.name === 'string' &&
    typeof p.run === 'function'
  );
}

/** Every probe of every module in `dir`, in file order; a module that exports anything else is an error naming it. */
export async function loadProbes(dir = PROBES_DIR): Promise<SecurityProbe[]> {
  if (!fs.existsSync(dir)) throw new Error(`security: no probe modules at ${dir}; run \`npm run build\` first`);
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.js'))
    .sort();
  const probes: SecurityProbe[] = [];
  for (const file of files) {
    const exported = ((await import(pathToFileURL(path.join(dir, file)).href)) as { default?: unknown }).default;
    if (!Array.isArray(exported) || !exported.every(isProbe)) {
      throw new Error(
        `security: ${path.join(dir, file)} must default-export an array of SecurityProbe ({ area, name, run })`,
      );
    }
    probes.push(...exported);
  }
  return probes;
}

/** Run one probe; a probe that throws is itself an attempt that was not held (nobody saw what happened). */
export async function runProbe(probe: SecurityProbe): Promise<ProbeRow[]> {
  try {
    const results = await probe.run();
    if (results.length === 0)
      return [
        {
          area: probe.area,
          probe: probe.name,
          attempt: probe.name,
          outcome: 'the probe reported no attempt',
          held: false,
        },
      ];
    return results.map((r) => ({ area: probe.area, probe: probe.name, ...r }));
  } catch (err) {
    return [
      {
        area: probe.area,
        probe: probe.name,
        attempt: probe.name,
        outcome: `the probe failed: ${(err as Error).stack ?? String(err)}`,
        held: false,
      },
    ];
  }
}

const cell = (text: string) => text.replace(/\s+/g, ' ').replace(/\|/g, '\\|').trim();

/** The table docs/reliability.md shows. */
export function markdownTable(rows: ProbeRow[]): string {
  const lines = ['| area | attempt | outcome | held |', '|---|---|---|---|'];
  for (const r of rows)
    lines.push(
      `| ${cell(r.area)} | ${cell(r.attempt)} | ${cell(r.outcome)} | ${r.skipped ? 'skipped' : r.held ? 'yes' : '**NO**'} |`,
    );
  return lines.join('\n');
}
