import type { Command } from '../command.js';
import { campaignCommand } from './campaign.js';
import { compareCommand } from './compare.js';
import { demoCommand } from './demo.js';
import { devCommand } from './dev.js';
import { domainCommand } from './domain.js';
import { envCommand } from './env.js';
import { episodeCommand } from './episode.js';
import { evalCommand } from './eval.js';
import { metricsCommand } from './metrics.js';
import { modelCommand } from './model.js';
import { runCommand } from './run.js';
import { reportCommand } from './report.js';
import { selectCommand } from './select.js';
import { tasksCommand } from './tasks.js';

/** Every `finalstate` subcommand; a new command is a file in this folder plus one line here. */
export const commands: Command[] = [
  devCommand,
  demoCommand,
  tasksCommand,
  envCommand,
  domainCommand,
  runCommand,
  modelCommand,
  campaignCommand,
  evalCommand,
  reportCommand,
  episodeCommand,
  metricsCommand,
  compareCommand,
  selectCommand,
];
