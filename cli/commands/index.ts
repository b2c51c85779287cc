import type { Command } from '../command.js';
import { demoCommand } from './demo.js';
import { devCommand } from './dev.js';

/** Every `finalstate` subcommand; a new command is a file in this folder plus one line here. */
export const commands: Command[] = [devCommand, demoCommand];
