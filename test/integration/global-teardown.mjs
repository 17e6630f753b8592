import { rm } from 'node:fs/promises';
import { tsImport } from 'tsx/esm/api';

/** Stops every process the run started, by PID, and removes the throw-away state. */
export default async function globalTeardown() {
  const stateDir = process.env.TENANTPLANE_TEST_STATE_DIR;
  if (!stateDir) return;
  const { stopControlPlane } = await tsImport('../../lib/localcluster/index.ts', import.meta.url);
  await stopControlPlane(stateDir);
  await rm(stateDir, { recursive: true, force: true });
}
