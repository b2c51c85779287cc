import type { TrainingSpend } from '../cost-with-training.js';
import type { DomainEvalPoint } from './charts.js';
import type { ReportEpisodes } from './episodes.js';
import type { PoolVersion } from '../../schemas/campaign.js';
import type { EvalPoint, PoolRecord, PriceTable, ResultRow, StepSummary } from '../../schemas/results.js';

/** Everything a campaign report shows. */
export interface ReportInput {
  title: string;
  /** Evaluation rows of the base policy and of the trained policy (same split). */
  base: ResultRow[];
  trained: ResultRow[];
  /** One summary per GRPO step, for the training curves. */
  steps: StepSummary[];
  /** pass@1 at each evaluation (step 0 = base). */
  evalPoints: EvalPoint[];
  /** pass@1 per domain at each evaluation, for the per-domain curves. */
  domainEvalPoints?: DomainEvalPoint[];
  /** The episodes behind the numbers, with links to their pages (written by the caller). */
  episodes?: ReportEpisodes;
  /** The probed tasks' difficulty records (kept and dropped), for the pool histogram. */
  pool: PoolRecord[];
  /** The pool was gated on a reference probe: only tasks the reference solved were kept. */
  solvabilityFilter?: boolean;
  /** With re-probing: every version of the pool (the frozen one first). */
  poolHistory?: PoolVersion[];
  /** Difficulty bin edges of the pool; default the standard ones. */
  edges?: number[];
  k?: number;
  prices?: PriceTable;
  /** The campaign's probe and training spend: the cost per dependable task with the training in it. */
  training?: TrainingSpend;
  /** Domains training used: the comparison is also shown in-domain against out-of-domain. */
  trainingDomains?: string[];
  /** A step that failed and waits for replay-step: its number and its whole cause (core/failure-causes.ts). */
  failedStep?: { step: number; message: string };
  /** How the tasks ran unlike their reference setup (a ThinkingBox set without Typesense), one line each. */
  deviations?: string[];
  /** Shown in the header; pass a fixed value for reproducible files. */
  generatedAt?: string;
}
