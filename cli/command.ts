import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UserError } from '../core/errors.js';

/** One `finalstate <name>` command; subcommands are the command's own business. */
export interface Command {
  name: string;
  summary: string;
  usage: string;
  run(argv: string[]): Promise<number>;
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** parseArgs with errors that name the command, and `--json`/`--help` always understood. */
export function parse<O extends Options>(command: string, argv: string[], options: O) {
  try {
    return parseArgs({
      args: argv,
      options: {
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
        ...options,
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    throw new UserError(`finalstate ${command}: ${(err as Error).message}`);
  }
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
