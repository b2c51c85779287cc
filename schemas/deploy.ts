import { z } from 'zod';
import { CampaignConfig } from './campaign.js';
import { StackConfig } from './config.js';

const Positive = z.number().int().positive();

/**
 * A cluster deployment (docs/deploy.md): the stack every machine shares, the fleet of workers and servers, and the
 * campaign it runs. Read by people and by `docs/examples/cluster.json`'s test; nothing starts machines from it.
 */
export const ClusterPreset = z
  .object({
    stack: StackConfig.describe(
      'finalstate.config.json of every machine: the Temporal cluster (managed: false), PostgreSQL (postgres.url or DATABASE_URL), dataDir on shared storage.',
    ),
    sharedStorage: z
      .string()
      .min(1)
      .describe(
        'Mount point of the filesystem shared by the control worker, the gpu worker nodes and the rollout servers (batches, checkpoints).',
      ),
    episodeWorkers: z
      .object({ count: Positive, concurrency: Positive.describe('Episodes one worker runs at once.') })
      .strict(),
    rolloutServers: z
      .object({
        count: Positive,
        gpusPerServer: Positive.describe('Tensor-parallel size of one server.'),
      })
      .strict(),
    gpuWorker: z
      .object({
        nnodes: Positive,
        nprocPerNode: Positive.describe('GPUs per training node, one rank each.'),
        rdzvEndpoint: z.string().min(1).describe('host:port of the c10d rendezvous (the first training node).'),
        maxRestarts: z.number().int().min(0).default(100).describe('torchrun restarts of every rank after one failed.'),
        collectiveTimeoutS: z.number().positive().default(600),
        gpuMemoryGiB: z.number().positive().describe('Memory of one training GPU.'),
      })
      .strict(),
    campaign: CampaignConfig,
  })
  .strict()
  .refine((p) => p.campaign.policyServers?.length === p.rolloutServers.count, {
    message: 'campaign.policyServers must list one server per rollout server',
    path: ['campaign', 'policyServers'],
  })
  .refine((p) => p.campaign.update.checkpointDir?.startsWith(`${p.sharedStorage}/`) ?? false, {
    message:
      'campaign.update.checkpointDir must lie on sharedStorage: every rank writes its shards there and the rollout servers load the export from it',
    path: ['campaign', 'update', 'checkpointDir'],
  });
export type ClusterPreset = z.infer<typeof ClusterPreset>;
