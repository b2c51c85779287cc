import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../../core/errors.js';
import { BearerToken } from '../../schemas/bearer-token.js';
import type { PolicyServerRef } from '../../schemas/clients.js';

/**
 * The stack's token file for its policy servers' admin routes: the local fleets start the policy server with
 * `--admin-token-file` set to it (the server makes it, mode 0600, on first start), and a publisher whose server ref
 * names no token reads it. On a cluster, `dataDir` is the shared storage every worker mounts.
 */
export const policyAdminTokenFile = (dataPath: string) => path.join(dataPath, 'secrets', 'policy-server.token');

function readToken(file: string, where: string): string {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new UserError(`${where}: cannot read token file ${file} (${(err as NodeJS.ErrnoException).code ?? err})`);
  }
  return checked(text.trim(), `${where}: token file ${file}`);
}

function checked(token: string, where: string): string {
  const parsed = BearerToken.safeParse(token);
  if (!parsed.success) throw new UserError(`${where}: ${parsed.error.issues[0]!.message}`);
  return parsed.data;
}

/**
 * The bearer token to send to `server`'s admin routes, read where the ref says (tokenFile, tokenEnv), else from
 * `defaultFile` when that exists; undefined: send none. A named source that is missing or malformed is a UserError
 * naming the server, the source and what is wrong (never the token).
 */
export function adminTokenOf(
  server: PolicyServerRef,
  defaultFile: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const where = `policy server ${server.url}`;
  if (server.tokenEnv) {
    const value = env[server.tokenEnv];
    if (!value) throw new UserError(`${where}: environment variable ${server.tokenEnv} (tokenEnv) is not set`);
    return checked(value.trim(), `${where}: environment variable ${server.tokenEnv}`);
  }
  if (server.tokenFile) return readToken(server.tokenFile, where);
  if (defaultFile && fs.existsSync(defaultFile)) return readToken(defaultFile, where);
  return undefined;
}
