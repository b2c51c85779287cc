import type pg from 'pg';
import type { LoadedConfig } from '../schemas/config.js';
import { superuserPassword } from './superuser-password.js';

/**
 * How to reach the configured PostgreSQL server (a DATABASE_URL, or the local cluster's host, port, superuser and its
 * password), optionally another database on it.
 */
export function connectionConfig(config: LoadedConfig, database?: string): pg.ClientConfig {
  if (config.postgres.url) {
    const url = new URL(config.postgres.url);
    if (database) url.pathname = `/${database}`;
    return { connectionString: url.toString() };
  }
  const { host, port, user } = config.postgres;
  return { host, port, user, password: superuserPassword(config), database: database ?? config.postgres.database };
}

export function databaseAddress(config: LoadedConfig): string {
  if (config.postgres.url) {
    const url = new URL(config.postgres.url);
    return `postgres://${url.hostname}:${url.port || 5432}${url.pathname}`;
  }
  return `postgres://${config.postgres.host}:${config.postgres.port}/${config.postgres.database}`;
}
