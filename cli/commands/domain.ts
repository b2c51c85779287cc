import path from 'node:path';
import { UserError } from '../../core/errors.js';
import { fromRoot } from '../../core/paths.js';
import { scaffoldPack } from '../domain/scaffold.js';
import { parse, printJson, type Command } from '../command.js';

const usage = `finalstate domain init DIR [--name NAME] [--json]

Scaffolds an external domain pack in DIR (new or empty, outside this checkout): package.json, tsconfig.json,
finalstate.config.json, a small worked example (src/) and its test (test/). It builds against the declarations of
the package export \`finalstate/domain\` (node_modules/finalstate links to this installation) and generates, validates
and verifies green as it comes. NAME is the domain name (default: DIR's name in lower_snake_case).
Guide: docs/domain-packs.md.`;

export const domainCommand: Command = {
  name: 'domain',
  summary: 'scaffold an external domain pack (domain init DIR)',
  usage,
  async run(argv) {
    const { values, positionals } = parse('domain', argv, { name: { type: 'string' } });
    if (values.help) {
      console.log(usage);
      return 0;
    }
    if (positionals[0] !== 'init')
      throw new UserError(`finalstate domain: expected init, got ${positionals[0] ?? 'nothing'}\n\n${usage}`);
    const dir = positionals[1];
    if (!dir) throw new UserError('finalstate domain init: give the directory of the new pack');
    const result = scaffoldPack(dir, values.name ? { name: values.name } : {});
    if (values.json) {
      printJson(result);
      return 0;
    }
    const cli = path.relative(result.dir, fromRoot('bin', 'finalstate.js'));
    const tsc = path.join('node_modules', 'finalstate', 'node_modules', 'typescript', 'bin', 'tsc');
    console.log(`pack ${result.name} scaffolded in ${result.dir} (${result.files.length} files)

next, in ${result.dir}:
  node ${tsc} -p .                              build (or npm run build, with typescript installed)
  node --test dist/test/                        the pack's own test
  export FINALSTATE_CONFIG=$PWD/finalstate.config.json
  node ${cli} tasks check                      the invariants over 16,000 tasks in memory (seconds)
  node ${cli} tasks generate --dir tasks --count 8
                                                8 tasks per set while iterating (default 300, for training)
  node ${cli} tasks verify --dir tasks          about 5 episodes per task
  node ${cli} demo --pack .                     a campaign on the pack, to its report (docs/domain-packs.md)`);
    return 0;
  },
};
