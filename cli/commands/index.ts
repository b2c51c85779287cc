import type { Command } from '../command.js';
import { devCommand } from './dev.js';
import { tasksCommand } from './tasks.js';

/** Every `finalstate` subcommand; a new command is a file in this folder plus one line here. */
export const commands: Command[] = [devCommand, tasksCommand];
