import { loadConfig } from '../../workers/config.js';
import { UserError } from '../../core/errors.js';
import * as stack from '../../infra/stack/index.js';
import { uiUrl } from '../../infra/stack/temporal.js';
import { parse, printJson, type Command } from '../command.js';

const usage = `finalstate dev up|down|status [--json]

  up      start the local stack (PostgreSQL cluster, Temporal dev server); idempotent
  down    stop what \`up\` started, nothing else
  status  health of every component; exits 1 when one is unhealthy`;

export const devCommand: Command = {
  name: 'dev',
  summary: 'start, stop and check the local stack (PostgreSQL, Temporal dev server)',
  usage,
  async run(argv) {
    const { values, positionals } = parse('dev', argv, {});
    if (values.help) {
      console.log(usage);
      return 0;
    }
    const config = loadConfig();
    switch (positionals[0]) {
      case 'up': {
        const report = await stack.up(config);
        if (values.json) printJson({ components: report, ui: uiUrl(config) });
        else {
          for (const r of report) console.log(`${r.name.padEnd(10)} ${r.action}`);
          console.log(`Temporal UI: ${uiUrl(config)}`);
        }
        return 0;
      }
      case 'down': {
        const stopped = await stack.down(config);
        if (values.json) printJson({ stopped });
        else console.log(stopped.length ? `stopped: ${stopped.join(', ')}` : 'nothing to stop');
        return 0;
      }
      case 'status': {
        const components = await stack.status(config);
        if (values.json) printJson({ components });
        else
          for (const c of components) console.log(`${c.healthy ? 'ok  ' : 'DOWN'} ${c.name.padEnd(12)} ${c.address}`);
        return components.every((c) => c.healthy) ? 0 : 1;
      }
      default:
        throw new UserError(
          `finalstate dev: expected up, down or status, got ${positionals[0] ?? 'nothing'}\n\n${usage}`,
        );
    }
  },
};
