/**
 * One row of the fault matrix, run the same way every time: arm the proxies, run one pass of the
 * scenario's tenant through them, disarm, check what the pass reports, prove from the snapshots
 * that nothing outside the expected set was written or deleted, record the row, and show that a
 * clean pass converges (nothing lost) and the steady pass after it writes nothing.
 */
import { afterAll, beforeAll } from '@jest/globals';
import type { Budget } from '../../../lib/engine/index.js';
import { integrationClusters } from '../support/clusters.js';
import { FaultProxy, type FaultRule } from '../support/fault-proxy.js';
import {
  expectConverges,
  expectNoWrongfulChange,
  type FaultedPass,
  faultedPass,
  proxiedApis,
  recordRow,
  type Scenario,
  type SnapshotDiff,
} from './support.js';

export interface Proxies {
  tenant: FaultProxy;
  host: FaultProxy;
}

/** A tenant proxy and a host proxy for the calling test file, in front of the run's clusters. */
export function useProxies(): () => Proxies {
  let proxies: Proxies | undefined;
  beforeAll(async () => {
    const clusters = integrationClusters();
    proxies = {
      tenant: await FaultProxy.start(clusters.tenant),
      host: await FaultProxy.start(clusters.host),
    };
  });
  afterAll(async () => {
    await proxies?.tenant.close();
    await proxies?.host.close();
  });
  return () => {
    if (!proxies) throw new Error('the proxies run only while the tests run');
    return proxies;
  };
}

export interface MatrixRow {
  /** The README row's name. */
  fault: string;
  tenantRules?: FaultRule[];
  hostRules?: FaultRule[];
  budget?: Partial<Budget>;
  /** Kinds whose failure is not the fault's but the cluster's (a kind not installed). */
  tolerate?: string[];
}

export interface RowOutcome {
  run: FaultedPass;
  changes: SnapshotDiff;
}

/**
 * Runs a matrix row; `check` asserts what the pass reported before the snapshots are compared.
 */
export async function matrixRow(
  s: Scenario,
  proxies: Proxies,
  row: MatrixRow,
  check: (run: FaultedPass) => void | Promise<void>,
): Promise<RowOutcome> {
  const clusters = integrationClusters();
  const apis = proxiedApis(proxies, clusters);
  proxies.tenant.setRules(...(row.tenantRules ?? []));
  proxies.host.setRules(...(row.hostRules ?? []));
  let run: FaultedPass;
  try {
    run = await faultedPass(s, apis, row.budget);
  } finally {
    proxies.tenant.clear();
    proxies.host.clear();
    await apis.tenantApi.close();
    await apis.hostApi.close();
  }
  await check(run);
  const changes = await expectNoWrongfulChange(s);
  recordRow(row.fault, run, changes);
  await expectConverges(s, row.tolerate);
  return { run, changes };
}

/** The host path of the scenario's ConfigMaps collection, or of one of them. */
export function hostConfigMaps(s: Scenario): RegExp {
  return new RegExp(`^/api/v1/namespaces/${s.t.hostNamespace}/configmaps(/[^/]+)?$`);
}

/** The tenant LIST of ConfigMaps in all namespaces. */
export const TENANT_CONFIGMAP_LIST = /^\/api\/v1\/configmaps$/;
