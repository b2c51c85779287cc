// Every workflow the control worker registers. Workflows are deterministic: all I/O lives in activities.
export * from './smoke.js';
export * from './policy-update-smoke.js';
export { campaign } from './campaign/index.js';
export { probe } from './probe.js';
export { grpoStep } from './grpo-step.js';
export { evaluation } from './evaluation.js';
export { updatePreflight } from './preflight.js';
