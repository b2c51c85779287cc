import { UserError } from '../core/errors.js';
import { describeFailure } from '../core/failure-causes.js';
import { loadConfig } from '../workers/config.js';
import type { LoadedConfig } from '../schemas/config.js';
import { commands } from './commands/index.js';
import { postgresUnreachable } from './postgres-unreachable.js';

function help(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  const lines = commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return `finalstate: post-train tool-using agents with RL rewarded by the final database state

Usage: finalstate <command> [args] [--json]

Commands:
${lines.join('\n')}

Run \`finalstate <command> --help\` for a command's usage.`;
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    console.log(help());
    return 0;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    console.error(`finalstate: unknown command ${JSON.stringify(name)}\n\n${help()}`);
    return 2;
  }
  try {
    return await command.run(rest);
  } catch (err) {
    const unreachable = postgresUnreachable(err, configOrUndefined());
    if (unreachable) {
      console.error(unreachable);
      return 2;
    }
    if (err instanceof UserError) {
      console.error(err.message);
      return 2;
    }
    if (err instanceof Error && err.name === 'InfrastructureError') {
      console.error(`infrastructure error: ${err.message}`);
      return 3;
    }
    // A workflow the command ran failed: its whole cause, not Temporal's "Workflow execution failed" and a stack.
    if (err instanceof Error && err.name === 'WorkflowFailedError') {
      console.error(`finalstate ${name}: ${describeFailure(err)}`);
      return 1;
    }
    throw err;
  }
}

/** The stack config, when it loads (a command that failed on it has said so already). */
function configOrUndefined(): LoadedConfig | undefined {
  try {
    return loadConfig();
  } catch {
    return undefined;
  }
}
