// Lint rules: typescript-eslint's recommended set, with the type-aware promise rules (a floating promise hides a
// failure), and no Node built-ins in
// workflow code (Temporal's samples do the same: workflows run in a deterministic sandbox without them).
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      // every venv (.venv, .venv-vllm, .venv-thinkingbox, .venv-openenv, .venv-trl): gradio, which OpenEnv pulls in,
      // ships megabytes of bundled JavaScript that ESLint would parse until its heap runs out
      '.venv*/**',
      '.data/**',
      'python/**',
      'tasks/**',
      'bin/**',
    ],
  },
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // node:test registers and awaits what test() and its hooks return.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            {
              from: 'package',
              package: 'node:test',
              name: ['test', 'describe', 'it', 'before', 'after', 'beforeEach', 'afterEach', 'suite'],
            },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({
            name,
            message: 'Workflow code runs in a deterministic sandbox without Node built-ins; do I/O in an activity.',
          })),
        },
      ],
    },
  },
  { files: ['eslint.config.js'], ...tseslint.configs.disableTypeChecked },
);
