import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { fromRoot } from '../../core/paths.js';

/**
 * Temporal's time-skipping test environment, on the Java SDK's test server (Maven Central, fetched by infra/setup.sh):
 * @temporalio/testing's own copy of that server is downloaded from temporal.download, out of reach of a machine that
 * reaches only the package registries. Timers, backoffs and timeouts pass as soon as nothing else is pending.
 */
export async function timeSkippingEnvironment(): Promise<TestWorkflowEnvironment> {
  const classpathFile = fromRoot('.temporal-test-server', 'classpath.txt');
  if (!fs.existsSync(classpathFile))
    throw new Error(`${classpathFile} is missing: run npm run setup (infra/setup.sh fetches the test server)`);
  // The SDK starts the server as `<executable> <port>`.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-time-skipping-'));
  const executable = path.join(dir, 'temporal-test-server');
  fs.writeFileSync(
    executable,
    `#!/bin/sh\nexec java -cp "$(cat '${classpathFile}')" io.temporal.testserver.TestServer "$@"\n`,
    { mode: 0o755 },
  );
  try {
    return await TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: 'existing-path', path: executable } },
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true }); // the server is started: the script has done its part
  }
}
