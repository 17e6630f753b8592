/**
 * `npm start` on a machine with no configuration: it gets its own state directory (and so its
 * own etcd + tenant + host apiservers) through XDG_STATE_HOME, runs twice, and is stopped after.
 * The binaries come from the shared cache, as on a warm machine.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { demoHostName, LONG_SAMPLE_NAME } from '../../../lib/cli/demo.js';
import { stopControlPlane } from '../../../lib/localcluster/index.js';
import { type CliRun, runProcess } from './support.js';

let stateHome: string;
let env: NodeJS.ProcessEnv;
const runs: CliRun[] = [];

function npmStart(): Promise<CliRun> {
  return runProcess('npm', ['start', '--silent'], env, 300_000);
}

/** The text of `out` from the line starting with `heading` to the next `== ` heading. */
function section(out: string, heading: string): string {
  const start = out.indexOf(heading);
  if (start < 0) throw new Error(`no section ${heading} in:\n${out}`);
  const end = out.indexOf('\n== ', start + heading.length);
  return out.slice(start, end < 0 ? undefined : end);
}

/** The captures of `row` on the lines after `label` up to the next line ending with `:`. */
function rows(text: string, label: string, row: RegExp): string[][] {
  const lines = text
    .slice(text.indexOf(label) + label.length)
    .split('\n')
    .slice(1);
  const found: string[][] = [];
  for (const line of lines) {
    if (/:$/.test(line)) break;
    const match = line.match(row);
    if (match) found.push(match.slice(1));
  }
  return found;
}

/** `tenant-dev/<host Pod>` of the first Pod the first run's Decisions created. */
function podHostName(out: string): string {
  const match = out.match(/^Create\s+Pod\s+\S+\s+(tenant-dev\/\S+)/m);
  if (!match?.[1]) throw new Error(`no Pod created in:\n${out}`);
  return match[1];
}

function expectOk(run: CliRun) {
  if (run.code !== 0) {
    throw new Error(`npm start exited ${run.code}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`);
  }
}

beforeAll(async () => {
  stateHome = await mkdtemp(join(tmpdir(), 'tenantplane-start-'));
  env = { ...process.env, XDG_STATE_HOME: stateHome, NO_COLOR: '1' };
  // Not the test clusters: npm start must find its own way.
  delete env.TENANTPLANE_TENANT_KUBECONFIG;
  delete env.TENANTPLANE_HOST_KUBECONFIG;
});

afterAll(async () => {
  if (!stateHome) return;
  await stopControlPlane(join(stateHome, 'tenantplane', 'local'));
  await rm(stateHome, { recursive: true, force: true });
}, 60_000);

describe('npm start', () => {
  it('first run: starts the clusters, seeds "dev", syncs, shows Decisions, Events and next steps', async () => {
    const run = await npmStart();
    runs.push(run);
    expectOk(run);
    const out = run.stdout;
    const hashed = demoHostName('shop', LONG_SAMPLE_NAME);

    expect(run.stderr).toMatch(/\[local\] starting kube-apiserver 'tenant'/);
    expect(out).toContain('First run: sample tenant cluster "dev"');
    expect(out).toContain('host TenantCluster dev (hostNamespace tenant-dev)');
    expect(out).toContain('tenant Secret billing/payment-gateway');

    // The Decisions: 5 Creates (4 ConfigMaps, 1 Secret), none for kube-system.
    expect(out).toMatch(/^ACTION\s+KIND\s+TENANT OBJECT\s+HOST OBJECT\s+REASON$/m);
    expect(out).toMatch(
      /^Create\s+ConfigMap\s+default\/app-settings\s+tenant-dev\/app-settings-x-default-x-dev\s/m,
    );
    expect(out).toMatch(
      new RegExp(
        `^Create\\s+ConfigMap\\s+shop/${LONG_SAMPLE_NAME}\\s+tenant-dev/${hashed}\\s`,
        'm',
      ),
    );
    expect(out).toMatch(
      /^Create\s+Secret\s+billing\/payment-gateway\s+tenant-dev\/payment-gateway-x-billing-x-dev\s/m,
    );
    // The workload: the Deployment's 3 Pods, their Service and Ingress, what they refer to.
    expect(out).toMatch(
      /^Create\s+Secret\s+shop\/storefront-credentials\s+tenant-dev\/storefront-credentials-x-shop-x-dev\s/m,
    );
    expect(out).toMatch(/^Create\s+Service\s+shop\/web\s+tenant-dev\/web-x-shop-x-dev\s/m);
    expect(out).toMatch(/^Create\s+Ingress\s+shop\/web\s+tenant-dev\/web-x-shop-x-dev\s/m);
    expect(out.match(/^Create\s+Pod\s+shop\/web-/gm)).toHaveLength(3);
    expect(out).toMatch(/^Decisions: \d+ Create, 0 Update, 0 Delete, 0 Skip/m);
    expect(out).not.toMatch(/^Decisions: .* [1-9]\d* Skip/m);

    // The tenant shows 3 Running Pods with IPs and nodes, as the host runs them.
    const workload = section(out, '== The workload');
    const tenantPods = rows(
      workload,
      'In the tenant:',
      /^web-\S+\s+1\/1\s+Running\s+\d+\s+\S+\s+(\S+)\s+(kwok-node-\d+)/,
    );
    expect(tenantPods).toHaveLength(3);
    const hostPods = rows(
      workload,
      'On the host:',
      /^web-\S+-x-shop-x-dev\s+1\/1\s+Running\s+\d+\s+\S+\s+(\S+)\s+(kwok-node-\d+)/,
    );
    expect(hostPods).toHaveLength(3);
    // The same IPs and nodes on both sides.
    expect(tenantPods.map((r) => r.join(' ')).sort()).toEqual(
      hostPods.map((r) => r.join(' ')).sort(),
    );
    // The host Service's EndpointSlice lists the three Pods.
    const slice = workload.match(/^web-x-shop-x-dev-\S+\s+IPv4\s+80\s+(\S+)/m);
    expect(slice?.[1]?.split(',').sort()).toEqual(tenantPods.map(([ip]) => ip).sort());
    // The tenant Pod's Events: the host scheduler's, in tenant names.
    expect(workload).toMatch(
      /Normal\s+Scheduled\s+pod\/web-\S+\s+Successfully assigned shop\/web-\S+ to kwok-node-\d/,
    );
    expect(workload).not.toContain('-x-shop-x-dev to');
    expect(out).not.toMatch(/^\w+\s+ConfigMap\s+kube-system\//m);
    expect(out).toContain('Never synced: ConfigMap kube-system/tenant-internal-settings');
    expect(out).toContain('no host copy exists');

    // The sample Service's name, asked of the local tenant DNS (a real CoreDNS): the tenant IP.
    const dns = section(out, '== The tenant DNS');
    const answered = dns.match(/^ {2}web\.shop\.svc\.cluster\.local -> (\d+\.\d+\.\d+\.\d+)$/m);
    expect(dns).toMatch(new RegExp(`tenant Service shop/web: cluster IP ${answered?.[1]}$`, 'm'));
    expect(dns).toMatch(/^ {2}host copy tenant-dev\/web-x-shop-x-dev: cluster IP \d/m);

    // kubectl logs of a tenant Pod, through the kubelet gateway npm start runs meanwhile.
    const logs = section(out, '== kubectl logs of a tenant Pod, through the kubelet gateway');
    expect(logs).toMatch(/\$ kubectl logs -n shop web-\S+ --tail=5\n/);
    expect(logs).toContain('kwok: the container started');

    // kubectl describe tenantcluster dev, as printed by the built kubectl.
    expect(out).toContain('== kubectl describe tenantcluster dev');
    expect(out).toMatch(/^Name:\s+dev$/m);
    expect(out).toMatch(/^Kind:\s+TenantCluster$/m);
    expect(out).toMatch(/^Events:$/m);
    expect(out).toMatch(/^\s+Normal\s+Create\s+.*app-settings-x-default-x-dev/m);

    // What to try next, with real names.
    expect(out).toMatch(
      /kubectl --kubeconfig \S+tenant\.kubeconfig -n shop patch configmap storefront --type merge -p '\{"data":\{"theme":"light"\}\}'/,
    );
    expect(out).toMatch(
      /kubectl --kubeconfig \S+tenant\.kubeconfig -n billing delete configmap invoice-template/,
    );
    expect(out).toContain('npx tenantplane plan dev');
    expect(out).toContain(`npx tenantplane explain tenant-dev/${hashed}`);
    expect(out).toContain('npm run cluster:down');
    expect(out).toMatch(/npx tenantplane explain --kind Pod tenant-dev\/web-\S+-x-shop-x-dev/);
  }, 600_000);

  it('second run: makes zero writes and says so', async () => {
    const run = await npmStart();
    runs.push(run);
    expectOk(run);
    const out = run.stdout;
    expect(run.stderr).not.toContain('starting kube-apiserver');
    expect(out).toContain('exist from an earlier run; they are left as they are.');
    expect(out).toContain(
      'No decisions: the host already matched the tenant; nothing was written.',
    );
    expect(out).toContain('Decisions: 0 Create, 0 Update, 0 Delete, 0 Skip');
    // The workload runs on: no second pass was needed, nothing written on either side.
    expect(out).not.toContain('A second pass');
    expect(
      rows(section(out, '== The workload'), 'In the tenant:', /^web-\S+\s+1\/1\s+Running/),
    ).toHaveLength(3);
    expect(out).toMatch(
      /setup \(namespaces, TenantCluster, samples\): tenant \d+ reads? \/ 0 writes, host \d+ reads? \/ 0 writes/,
    );
    expect(out).toMatch(/pass: +tenant \d+ reads? \/ 0 writes, host \d+ reads? \/ 0 writes/);
    expect(out).toContain(
      'Zero writes: the samples already existed and the host already matched the tenant.',
    );
    // The gateway again, at the port the TenantCluster names.
    expect(section(out, '== kubectl logs of a tenant Pod')).toContain(
      'kwok: the container started',
    );
  }, 300_000);

  it('the CLI then finds the same local clusters by default', async () => {
    const { NODE, BIN } = await import('./support.js');
    const run = await runProcess(
      NODE,
      [BIN, 'explain', `tenant-dev/${demoHostName('shop', LONG_SAMPLE_NAME)}`],
      env,
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      new RegExp(`^Source:\\s+ConfigMap shop/${LONG_SAMPLE_NAME} \\(uid `, 'm'),
    );
    const plan = await runProcess(NODE, [BIN, 'plan', 'dev'], env);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('No decisions');
    // A host Pod: explain shows its tenant Pod's status.
    const pods = await runProcess(
      NODE,
      [BIN, 'explain', '--kind', 'Pod', podHostName(runs[0]?.stdout ?? '')],
      env,
    );
    expect(pods.code).toBe(0);
    expect(pods.stdout).toMatch(
      /^Tenant status:\s+Running, IP 10\.\S+, node kwok-node-\d, Ready$/m,
    );
  }, 120_000);
});
