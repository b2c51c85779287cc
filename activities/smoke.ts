import type pg from 'pg';

export interface SmokeDeps {
  pool: pg.Pool;
}

/** Activities are thin adapters: dependencies come in through createXActivities(deps), as in Temporal's samples. */
export function createSmokeActivities({ pool }: SmokeDeps) {
  return {
    async writeAndReadRow(label: string): Promise<{ id: number; label: string; readBack: string }> {
      await pool.query(
        'CREATE TABLE IF NOT EXISTS smoke_rows (id bigserial PRIMARY KEY, label text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())',
      );
      const inserted = await pool.query<{ id: string }>('INSERT INTO smoke_rows (label) VALUES ($1) RETURNING id', [
        label,
      ]);
      const id = Number(inserted.rows[0]!.id);
      const read = await pool.query<{ label: string }>('SELECT label FROM smoke_rows WHERE id = $1', [id]);
      return { id, label, readBack: read.rows[0]!.label };
    },
  };
}

export type SmokeActivities = ReturnType<typeof createSmokeActivities>;
