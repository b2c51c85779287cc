import type pg from 'pg';
import { UserError } from '../core/errors.js';
import type { Task } from '../schemas/task.js';
import type { DatabaseCatalog } from './catalog.js';
import { deleteRow, upsertRow } from './sql.js';

/** Apply a task's init on top of the seed: deletes (in reverse table order, children first), then upserts by primary key. */
export async function applyTaskInit(client: pg.ClientBase, task: Task, catalog: DatabaseCatalog): Promise<void> {
  const tableOf = (table: string, field: string) => {
    const info = catalog[table];
    if (!info) throw new UserError(`task ${task.id}: ${field} names unknown table ${table}`);
    return info;
  };
  for (const [table, keys] of Object.entries(task.init.delete).reverse()) {
    const info = tableOf(table, `init.delete.${table}`);
    for (const [i, key] of keys.entries()) {
      await step(task, `init.delete.${table}[${i}]`, () => deleteRow(client, table, info, key));
    }
  }
  for (const [table, rows] of Object.entries(task.init.upsert)) {
    const info = tableOf(table, `init.upsert.${table}`);
    for (const [i, row] of rows.entries()) {
      await step(task, `init.upsert.${table}[${i}]`, () => upsertRow(client, table, info, row));
    }
  }
}

async function step(task: Task, field: string, fn: () => Promise<unknown>): Promise<void> {
  await fn().catch((err: Error & { code?: string }) => {
    // data and constraint errors (SQLSTATE classes 22, 23, 42) are the task's fault; anything else is not
    if (err.code && /^(22|23|42)/.test(err.code)) throw new UserError(`task ${task.id}: ${field}: ${err.message}`);
    throw err;
  });
}
