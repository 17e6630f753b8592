/**
 * `npm start`: the product working on a fresh clone, with no configuration. Brings up the local
 * tenant + host clusters (building them the first time), seeds TenantCluster `dev` and a few
 * sample tenant objects the first time, runs one pass, and shows the Decisions, the Events as
 * `kubectl describe tenantcluster dev` shows them, and what to try next.
 */
import { execFile } from 'node:child_process';
import { relative } from 'node:path';
import { promisify } from 'node:util';
import { KubernetesEventsSink } from '../adapters/events/index.js';
import { createClusterApi } from '../adapters/kube/cluster-client.js';
import { plural } from '../common/index.js';
import { requestDelta, runPass } from '../engine/index.js';
import { ensureLocalClusters, LocalKubeconfigSource } from '../localcluster/index.js';
import {
  DELETE_SAMPLE,
  DEMO_HOST_NAMESPACE,
  DEMO_TENANT,
  demoHostName,
  EDIT_SAMPLE,
  LONG_SAMPLE_NAME,
  SYSTEM_SAMPLE,
  seedDemo,
  shellQuote,
} from './demo.js';
import { errorLine, errorText } from './errors.js';
import { exitCodeForPass } from './exit-codes.js';
import { painter, passReport, requestsText, withProgressLine } from './format.js';
import { colorsEnabled, localLog, processIo } from './io.js';

const io = processIo();
const paint = painter(colorsEnabled(io));
const say = (text = '') => io.out(`${text}\n`);
const heading = (text: string) => say(`\n${paint('bold', `== ${text}`)}`);

async function main(): Promise<number> {
  const t0 = Date.now();
  const state = await ensureLocalClusters({ log: localLog(io) });
  const source = new LocalKubeconfigSource(state);
  const tenantApi = createClusterApi(await source.load('tenant'));
  const hostApi = createClusterApi(await source.load('host'));
  try {
    const kubectl = state.binaries.kubectl;
    const tenantKc = state.clusters.tenant.kubeconfig;
    const hostKc = state.clusters.host.kubeconfig;
    say(
      `Local clusters (Kubernetes v${state.version}): tenant ${state.clusters.tenant.server}, host ${state.clusters.host.server}`,
    );

    // Setup: host namespace, and the first time the samples and the TenantCluster.
    const seed = await seedDemo(tenantApi, hostApi);
    const setup = { tenant: tenantApi.requestCount(), host: hostApi.requestCount() };
    heading(seed.firstRun ? 'First run: sample tenant cluster "dev"' : 'Tenant cluster "dev"');
    if (seed.firstRun) {
      say(
        `Created TenantCluster ${DEMO_TENANT} on the host (host namespace ${DEMO_HOST_NAMESPACE}, default policy: ConfigMaps and Secrets) and sample tenant objects:`,
      );
      for (const line of seed.created) say(`  ${line}`);
    } else {
      say(
        `TenantCluster ${DEMO_TENANT} and its sample objects exist from an earlier run; they are left as they are${seed.created.length ? ` (re-created: ${seed.created.join(', ')})` : ''}.`,
      );
    }

    heading(`One pass (what "npx tenantplane sync ${DEMO_TENANT}" does)`);
    const hostBefore = hostApi.requestCount();
    const result = await withProgressLine(io.err, io.stderrIsTTY, (progress) =>
      runPass({
        tenant: DEMO_TENANT,
        tenantApi,
        hostApi,
        sinks: [new KubernetesEventsSink({ hostApi, tenant: DEMO_TENANT })],
        onProgress: (p) => progress.update(p),
      }),
    );
    const bookkeepingWrites =
      requestDelta(hostApi.requestCount(), hostBefore).writes - result.requests.host.writes;
    io.out(passReport(result, paint));

    const longHost = demoHostName('shop', LONG_SAMPLE_NAME);
    const systemHost = demoHostName(SYSTEM_SAMPLE.namespace, SYSTEM_SAMPLE.name);
    const systemOnHost = await hostApi.get(
      { apiVersion: 'v1', kind: 'ConfigMap' },
      DEMO_HOST_NAMESPACE,
      systemHost,
    );
    say('');
    say(
      `Hashed name: tenant ConfigMap shop/${LONG_SAMPLE_NAME} is host ConfigMap ${DEMO_HOST_NAMESPACE}/${longHost} (the plain name would exceed 63 characters); its annotations keep the original name.`,
    );
    say(
      `Never synced: ConfigMap ${SYSTEM_SAMPLE.namespace}/${SYSTEM_SAMPLE.name}: ${SYSTEM_SAMPLE.namespace} belongs to the tenant's control plane, so no Decision is made and ${systemOnHost ? paint('red', 'yet a host copy exists!') : 'no host copy exists'}.`,
    );

    heading(`kubectl describe tenantcluster ${DEMO_TENANT}`);
    try {
      const { stdout } = await promisify(execFile)(
        kubectl,
        ['--kubeconfig', hostKc, 'describe', 'tenantcluster', DEMO_TENANT],
        { maxBuffer: 16 * 1024 * 1024 },
      );
      io.out(stdout.endsWith('\n') ? stdout : `${stdout}\n`);
    } catch (error) {
      say(`(kubectl describe failed: ${errorText(error)})`);
    }

    heading('Requests');
    say(`  setup (namespaces, TenantCluster, samples): ${requestsText(setup)}`);
    say(`  pass:                                      ${requestsText(result.requests)}`);
    say(`  around the pass (status, Events, lease):    host ${plural(bookkeepingWrites, 'write')}`);
    const objectWrites = setup.tenant.writes + setup.host.writes + result.requests.host.writes;
    if (objectWrites === 0) {
      say(
        paint(
          'green',
          '  Zero writes: the samples already existed and the host already matched the tenant.',
        ),
      );
    }

    const k = (kc: string, ...args: string[]) =>
      [kubectl, '--kubeconfig', kc, ...args].map(shellQuote).join(' ');
    const npx = (args: string) => `npx tenantplane ${args}`;
    const rel = relative(process.cwd(), state.stateDir);
    heading('Try next');
    say('1. Edit a tenant object, then run again and see an Update:');
    say(
      `     ${k(tenantKc, '-n', EDIT_SAMPLE.namespace, 'patch', 'configmap', EDIT_SAMPLE.name, '--type', 'merge', '-p', '{"data":{"theme":"light"}}')}`,
    );
    say('     npm start');
    say('2. Delete one, run again and see a Delete:');
    say(
      `     ${k(tenantKc, '-n', DELETE_SAMPLE.namespace, 'delete', 'configmap', DELETE_SAMPLE.name)}`,
    );
    say('     npm start');
    say(`3. Preview a pass without writing anything:  ${npx(`plan ${DEMO_TENANT}`)}`);
    say(
      `4. Ask why a host object exists:             ${npx(`explain ${DEMO_HOST_NAMESPACE}/${longHost}`)}`,
    );
    say(`5. The last pass and recent Events:          ${npx(`status ${DEMO_TENANT}`)}`);
    say(
      `6. Look at the host copies:                  ${k(hostKc, '-n', DEMO_HOST_NAMESPACE, 'get', 'configmaps,secrets')}`,
    );
    say(`7. Stop the local clusters (data is kept):   npm run cluster:down`);
    say(
      `\n(Local cluster state: ${rel.startsWith('..') ? state.stateDir : rel}; took ${((Date.now() - t0) / 1000).toFixed(1)} s.)`,
    );
    return exitCodeForPass(result);
  } finally {
    await Promise.allSettled([tenantApi.close(), hostApi.close()]);
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    io.err(errorLine(error));
    process.exit(1);
  },
);
