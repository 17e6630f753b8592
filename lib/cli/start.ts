/**
 * `npm start`: the product working on a fresh clone, with no configuration. Brings up the local
 * tenant + host clusters (building them the first time), seeds TenantCluster `dev` and a few
 * sample tenant objects the first time, runs one pass, and shows the Decisions, the Events as
 * `kubectl describe tenantcluster dev` shows them, `kubectl logs` of a tenant Pod through a kubelet
 * gateway it runs beside the clusters meanwhile (docs/kubelet-gateway.md), and what to try next.
 * With `-- --follow` it then follows the tenant until Ctrl-C (`start-follow.ts`).
 */
import { relative } from 'node:path';
import { KubernetesEventsSink } from '../adapters/events/index.js';
import { createClusterApi } from '../adapters/kube/cluster-client.js';
import { plural } from '../common/index.js';
import { requestDelta, runPass } from '../engine/index.js';
import { ensureLocalClusters, LocalKubeconfigSource } from '../localcluster/index.js';
import type { PassResult } from '../ports/index.js';
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
import {
  hostWorkloadWanted,
  poll,
  readyEndpoints,
  runningAndScheduled,
  tenantPodsMade,
  WORKLOAD_NAME,
  WORKLOAD_NAMESPACE,
  WORKLOAD_REPLICAS,
  workloadPods,
} from './demo-workload.js';
import { errorLine } from './errors.js';
import { exitCodeForPass } from './exit-codes.js';
import { painter, passReport, requestsText, withProgressLine } from './format.js';
import { colorsEnabled, localLog, processIo } from './io.js';
import { tenantDnsLines } from './start-dns.js';
import { followAsked, followDemo, kubectlShow } from './start-follow.js';
import { type LocalGateway, startLocalGateway } from './start-gateway.js';

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
  let local: LocalGateway | undefined;
  try {
    const kubectl = state.binaries.kubectl;
    const tenantKc = state.clusters.tenant.kubeconfig;
    const hostKc = state.clusters.host.kubeconfig;
    say(
      `Local clusters (Kubernetes v${state.version}): tenant ${state.clusters.tenant.server}, host ${state.clusters.host.server}`,
    );

    // The kubelet gateway the TenantCluster's Nodes name, and for as long as this runs.
    local = await startLocalGateway(state.stateDir, hostKc, state.clusters.tenant.server, say);

    // Setup: host namespace, and the first time the samples and the TenantCluster.
    const seed = await seedDemo(
      tenantApi,
      hostApi,
      local ? { address: '127.0.0.1', port: local.port } : undefined,
    );
    const setup = { tenant: tenantApi.requestCount(), host: hostApi.requestCount() };
    heading(seed.firstRun ? 'First run: sample tenant cluster "dev"' : 'Tenant cluster "dev"');
    if (seed.firstRun) {
      say(
        `Created TenantCluster ${DEMO_TENANT} on the host (host namespace ${DEMO_HOST_NAMESPACE}; policy: ConfigMaps, Secrets, Services, Ingresses, Pods) and sample tenant objects:`,
      );
      for (const line of seed.created) say(`  ${line}`);
    } else {
      say(
        `TenantCluster ${DEMO_TENANT} and its sample objects exist from an earlier run; they are left as they are${seed.created.length ? ` (re-created: ${seed.created.join(', ')})` : ''}.`,
      );
    }

    // The tenant's controller manager makes the Deployment's Pods: the pass should see them.
    const workload = await hostWorkloadWanted(tenantApi);
    if (workload && !(await tenantPodsMade(tenantApi))) {
      say(
        `(The tenant's Deployment ${WORKLOAD_NAMESPACE}/${WORKLOAD_NAME} has no ${WORKLOAD_REPLICAS} Pods yet; the pass goes on.)`,
      );
    }

    heading(`One pass (what "npx tenantplane sync ${DEMO_TENANT}" does)`);
    const hostBefore = hostApi.requestCount();
    const runOnce = () =>
      withProgressLine(io.err, io.stderrIsTTY, (progress) =>
        runPass({
          tenant: DEMO_TENANT,
          tenantApi,
          hostApi,
          sinks: [new KubernetesEventsSink({ hostApi, tenant: DEMO_TENANT })],
          onProgress: (p) => progress.update(p),
        }),
      );
    const result = await runOnce();
    io.out(passReport(result, paint));

    // Pods the first pass put on the host run there a moment later, and the host scheduler's
    // Events follow; the next pass brings status, node and Events back to the tenant. A tenant
    // whose Pods run and show their Scheduled Events already (a pass saw both) needs none.
    let second: PassResult | undefined;
    if (workload && !(await runningAndScheduled(tenantApi, WORKLOAD_NAMESPACE))) {
      const running = await poll(
        async () => ((await runningAndScheduled(hostApi, DEMO_HOST_NAMESPACE)) ? true : undefined),
        90_000,
      );
      heading('A second pass: what the host did comes back to the tenant');
      if (!running)
        say(
          `(Not every host Pod of ${WORKLOAD_NAMESPACE}/${WORKLOAD_NAME} runs with its Scheduled Event after 90 s; the pass shows what there is.)`,
        );
      second = await runOnce();
      io.out(passReport(second, paint));
    }
    const passes = second ? [result, second] : [result];
    const passHostWrites = passes.reduce((n, r) => n + r.requests.host.writes, 0);
    const bookkeepingWrites =
      requestDelta(hostApi.requestCount(), hostBefore).writes - passHostWrites;

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

    const show = kubectlShow(kubectl, say, paint);

    if (workload) {
      const hostService = demoHostName(WORKLOAD_NAMESPACE, WORKLOAD_NAME);
      // The host's controller manager lists the ready host Pods in the Service's EndpointSlice.
      await poll(
        async () =>
          (await readyEndpoints(hostApi, DEMO_HOST_NAMESPACE, hostService)) >= WORKLOAD_REPLICAS
            ? true
            : undefined,
        30_000,
      );
      heading(
        `The workload: Deployment ${WORKLOAD_NAMESPACE}/${WORKLOAD_NAME} in the tenant, its Pods on the host`,
      );
      say('In the tenant:');
      await show(tenantKc, 'get', 'pods', '-n', WORKLOAD_NAMESPACE, '-o', 'wide');
      say('On the host:');
      await show(hostKc, 'get', 'pods', '-n', DEMO_HOST_NAMESPACE, '-l', 'app=web', '-o', 'wide');
      say(`The host Service ${hostService} selects exactly these Pods:`);
      await show(
        hostKc,
        'get',
        'endpointslices',
        '-n',
        DEMO_HOST_NAMESPACE,
        '-l',
        `kubernetes.io/service-name=${hostService}`,
      );
      const [pod] = await workloadPods(tenantApi, WORKLOAD_NAMESPACE);
      if (pod) {
        say(
          `The Events of tenant Pod ${WORKLOAD_NAMESPACE}/${pod.metadata.name}, from the host, in tenant names:`,
        );
        await show(
          tenantKc,
          'get',
          'events',
          '-n',
          WORKLOAD_NAMESPACE,
          '--field-selector',
          `involvedObject.kind=Pod,involvedObject.name=${pod.metadata.name}`,
        );
      }
    }

    heading('The tenant DNS: the sample Service by its tenant name');
    for (const line of await tenantDnsLines(state.clusters.tenant.dns, tenantApi, hostApi))
      say(line);

    const [logged] = workload && local ? await workloadPods(tenantApi, WORKLOAD_NAMESPACE) : [];
    if (logged && local) {
      heading('kubectl logs of a tenant Pod, through the kubelet gateway');
      say(
        `The tenant apiserver asks the kubelet of the Pod's Node, which is the gateway on 127.0.0.1:${local.port}; it relays to the host copy's log (kwok writes it).`,
      );
      await show(tenantKc, 'logs', '-n', WORKLOAD_NAMESPACE, logged.metadata.name, '--tail=5');
    }

    heading(`kubectl describe tenantcluster ${DEMO_TENANT}`);
    await show(hostKc, 'describe', 'tenantcluster', DEMO_TENANT);

    heading('Requests');
    say(`  setup (namespaces, TenantCluster, samples): ${requestsText(setup)}`);
    say(`  pass:                                      ${requestsText(result.requests)}`);
    if (second)
      say(`  second pass:                               ${requestsText(second.requests)}`);
    say(`  around the pass (status, Events, lease):    host ${plural(bookkeepingWrites, 'write')}`);
    const objectWrites =
      setup.tenant.writes +
      setup.host.writes +
      passes.reduce((n, r) => n + r.requests.host.writes + r.requests.tenant.writes, 0);
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
    say('7. Scale the tenant Deployment, run again, and see the new Pods run on the host:');
    say(
      `     ${k(tenantKc, '-n', WORKLOAD_NAMESPACE, 'scale', 'deployment', WORKLOAD_NAME, '--replicas=5')}`,
    );
    say('     npm start');
    const [shown] = workload ? await workloadPods(hostApi, DEMO_HOST_NAMESPACE) : [];
    if (shown) {
      say(
        `8. Ask about a host Pod (its tenant Pod's status too): ${npx(`explain --kind Pod ${DEMO_HOST_NAMESPACE}/${shown.metadata.name}`)}`,
      );
    }
    say(`${shown ? 9 : 8}. Follow the tenant: changes converge in seconds: npm start -- --follow`);
    say(
      `${shown ? 10 : 9}. Serverless, as deployed: the tenant apiserver wakes its function (docs/wake.md): npm run local:serverless`,
    );
    say(`${shown ? 11 : 10}. Stop the local clusters (data is kept):   npm run cluster:down`);
    say(
      `\n(Local cluster state: ${rel.startsWith('..') ? state.stateDir : rel}; took ${((Date.now() - t0) / 1000).toFixed(1)} s.)`,
    );
    if (followAsked()) {
      heading(
        `Following tenant cluster ${DEMO_TENANT} (what "npx tenantplane sync ${DEMO_TENANT} --follow" does)`,
      );
      return await followDemo(
        { tenantApi, hostApi },
        DEMO_TENANT,
        { kubectl, tenantKc, metrics: local?.metrics === true },
        { say, paint },
      );
    }
    return exitCodeForPass(second ?? result);
  } finally {
    await Promise.allSettled([tenantApi.close(), hostApi.close(), local?.close()]);
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    io.err(errorLine(error));
    process.exit(1);
  },
);
