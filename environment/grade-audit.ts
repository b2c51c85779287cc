import type pg from 'pg';
import type { GradeReport } from '../schemas/grading.js';

/** Control-database table where every graded episode's report (diff included) is kept for audit. */
export const GRADE_AUDIT_TABLE = 'environment_episode_grades';

export async function ensureGradeAuditTable(control: pg.ClientBase | pg.Pool): Promise<void> {
  await control.query(`CREATE TABLE IF NOT EXISTS ${GRADE_AUDIT_TABLE} (
    episode_id text PRIMARY KEY,
    task_id text NOT NULL,
    task_sha256 text NOT NULL,
    pass boolean NOT NULL,
    report jsonb NOT NULL,
    graded_at timestamptz NOT NULL DEFAULT now()
  )`);
}

/** Keep an episode's grade; grading the same episode again (a retried activity) overwrites it with the same report. */
export async function recordGrade(
  control: pg.ClientBase | pg.Pool,
  episodeId: string,
  report: GradeReport,
): Promise<void> {
  await ensureGradeAuditTable(control);
  await control.query(
    `INSERT INTO ${GRADE_AUDIT_TABLE} (episode_id, task_id, task_sha256, pass, report) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (episode_id) DO UPDATE SET pass = EXCLUDED.pass, report = EXCLUDED.report, graded_at = now()`,
    [episodeId, report.taskId, report.taskSha256, report.pass, JSON.stringify(report)],
  );
}

export async function readGrade(control: pg.ClientBase | pg.Pool, episodeId: string): Promise<GradeReport | undefined> {
  const res = await control.query<{ report: GradeReport }>(
    `SELECT report FROM ${GRADE_AUDIT_TABLE} WHERE episode_id = $1`,
    [episodeId],
  );
  return res.rows[0]?.report;
}
