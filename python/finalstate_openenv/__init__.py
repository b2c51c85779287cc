"""finalstate's task sets served as OpenEnv environments, on OpenEnv's own server (openenv-core, in .venv-openenv).

`finalstate env serve --openenv` (cli/commands/env.ts) hosts the episodes in its TypeScript process (the episode host:
runtime/openenv/) and runs `python -m finalstate_openenv`, whose Environment forwards reset, step and close to it.
The wire shapes are schemas/openenv.ts's, read here from their JSON Schema export (schemas/json/OpenEnv*.schema.json).
"""
