import { rm } from 'node:fs/promises';
import { stopControlPlane } from '../../lib/localcluster/index.js';

/** Stops every process the run started, by PID, and removes the throw-away state. */
export default async function globalTeardown(): Promise<void> {
  const stateDir = process.env.TENANTPLANE_TEST_STATE_DIR;
  if (!stateDir) return;
  await stopControlPlane(stateDir);
  await rm(stateDir, { recursive: true, force: true });
}
