import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../../core/errors.js';
import { normalizePack, servesProfile } from '../../environment/domain.js';
import { checkedTaskSet } from '../../environment/invariants.js';
import { loadPackModule } from '../../environment/pack-modules.js';
import { writeTaskSet } from '../../environment/task-set.js';
import type { DemoPreset } from '../../schemas/demo.js';
import type { Split } from '../../schemas/task.js';

/** Mini tasks per split that `demo --pack` generates into the pack's tasks/ when it has none (seed 1). */
export const PACK_DEMO_COUNTS: Record<Split, number> = { train: 64, eval: 32 };

export interface PackDemo {
  /** The preset with the pack's own tasks as training and evaluation sets, and its domains as the base model's. */
  preset: DemoPreset;
  /** The pack's task directory: the base model's demonstrations and the campaign's task sets. */
  tasksDir: string;
  domains: string[];
}

/**
 * `finalstate demo --pack DIR`: the preset's campaign on a pack's own tasks. The pack (DIR, a built pack directory)
 * is added to FINALSTATE_DOMAIN_MODULES, so this process, its workers and every child load it; its mini train and
 * eval sets are generated into DIR/tasks when absent (checked against its invariants, like `tasks generate`).
 */
export async function packDemo(dir: string, preset: DemoPreset, log: (line: string) => void): Promise<PackDemo> {
  const packDir = path.resolve(dir);
  if (!fs.existsSync(path.join(packDir, 'package.json')))
    throw new UserError(
      `finalstate demo --pack: ${packDir} is no pack directory (no package.json); scaffold one with \`finalstate domain init ${dir}\``,
    );
  const packs = (
    await loadPackModule({ specifier: packDir, base: process.cwd(), origin: 'finalstate demo --pack' })
  ).map(normalizePack);
  const listed = (process.env.FINALSTATE_DOMAIN_MODULES ?? '').split(',').filter(Boolean);
  process.env.FINALSTATE_DOMAIN_MODULES = [...listed, packDir].join(',');
  const domains = packs.map((p) => p.name);
  for (const pack of packs)
    if (!servesProfile(pack, 'mini'))
      throw new UserError(
        `finalstate demo --pack: ${pack.name} serves no mini profile, and the demo trains the ~1M-parameter model on mini tasks: declare policy.mini, profileTools.mini and 'mini' in the profiles of its scenarios (the scaffold's pack does); see docs/domain-packs.md#profiles`,
      );

  const tasksDir = path.join(packDir, 'tasks');
  for (const pack of packs)
    for (const split of ['train', 'eval'] as const) {
      const name = `${pack.name}-${split}-mini`;
      if (fs.existsSync(path.join(tasksDir, `${name}.jsonl`))) continue;
      const count = PACK_DEMO_COUNTS[split];
      const tasks = checkedTaskSet(pack, { seed: 1, split, profile: 'mini', count }, 'finalstate demo --pack');
      const set = writeTaskSet(tasksDir, name, pack.version, tasks);
      log(`tasks: generated ${set.tasks.length} ${split} tasks of ${pack.name} into ${set.file}`);
    }

  const { campaign } = preset;
  const own = { taskSet: tasksDir, profile: 'mini' as const, domains };
  return {
    tasksDir,
    domains,
    preset: {
      ...preset,
      name: `${preset.name}-${domains.join('-').replace(/_/g, '-')}`,
      description: `${preset.description} On the pack ${domains.join(', ')} (${packDir}).`,
      baseModel: { ...preset.baseModel, domains },
      campaign: {
        ...campaign,
        tasks: { train: { ...campaign.tasks.train, ...own }, eval: { ...campaign.tasks.eval, ...own } },
      },
    },
  };
}
