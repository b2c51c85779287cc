import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../../core/errors.js';
import { projectRoot } from '../../core/paths.js';
import type { LoadedConfig } from '../../schemas/config.js';

/** Where ThinkingBox is: its sources, its copy under the data directory that its venv installs, and that venv. */
export interface ThinkingBoxHome {
  /** The configured folder (thinkingbox/ and thinkingbox-data/ side by side). */
  home: string;
  /** The dataset folder of thinkingbox-data (scenario/, agent/, test_case/). */
  dataset: string;
  /** The servers' launch file. */
  serversFile: string;
  /** thinkingbox-data itself (THINKINGBOX_DATA for its servers). */
  data: string;
  /** The venv's python, which runs the proxy and the sidecar. */
  python: string;
}

/** The default home: ../shared/thinkingbox beside the checkout, when it exists. */
export const DEFAULT_THINKINGBOX_HOME = path.resolve(projectRoot, '..', 'shared', 'thinkingbox');

/** The configured home, or the default when it exists; undefined when there is none. */
export function thinkingBoxHomeDir(config: LoadedConfig): string | undefined {
  if (config.thinkingbox.home) return path.resolve(config.configDir, config.thinkingbox.home);
  return fs.existsSync(DEFAULT_THINKINGBOX_HOME) ? DEFAULT_THINKINGBOX_HOME : undefined;
}

/**
 * ThinkingBox's folders as setup installed them (infra/setup-thinkingbox.sh copies the home under
 * the venv's src/, writable, and installs it editable into the venv). A missing home or venv is one line
 * naming the setting.
 */
export function thinkingBoxHome(config: LoadedConfig): ThinkingBoxHome {
  const home = thinkingBoxHomeDir(config);
  if (!home || !fs.existsSync(path.join(home, 'thinkingbox-data')))
    throw new UserError(
      `thinkingbox: THINKINGBOX_HOME (config key thinkingbox.home) ${home ? `is ${home}, which holds no thinkingbox-data/` : 'is not set and ../shared/thinkingbox does not exist'}: point it at a folder holding thinkingbox/ and thinkingbox-data/`,
    );
  const venv = path.resolve(projectRoot, config.thinkingbox.venv);
  const src = path.join(venv, 'src');
  const python = path.join(venv, 'bin', 'python');
  if (!fs.existsSync(python) || !fs.existsSync(path.join(src, 'thinkingbox-data')))
    throw new UserError(
      `thinkingbox: ThinkingBox's venv ${venv} or its sources ${src} are missing: run npm run setup (infra/setup-thinkingbox.sh) with THINKINGBOX_HOME=${home}`,
    );
  const data = path.join(src, 'thinkingbox-data');
  return {
    home,
    data,
    dataset: path.join(data, 'dataset'),
    serversFile: path.join(data, 'servers', 'servers.yaml'),
    python,
  };
}
