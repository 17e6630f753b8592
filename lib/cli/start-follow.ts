/**
 * `npm start -- --follow`: after the demo, follow tenant cluster `dev` (`runFollow`) until Ctrl-C,
 * printing each pass's Decisions as it ends, so a change made from another terminal (scale the
 * sample Deployment, edit a ConfigMap) shows up on the host, and back in the tenant, in seconds.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { KubernetesEventsSink } from '../adapters/events/index.js';
import { runFollow } from '../engine/index.js';
import type { ClusterApi } from '../ports/index.js';
import { followSummary, processSignals } from './commands/follow.js';
import { shellQuote } from './demo.js';
import { WORKLOAD_NAME, WORKLOAD_NAMESPACE } from './demo-workload.js';
import { messageOf } from './errors.js';
import { decisionTable, type Paint } from './format.js';

/** `show(kubeconfig, ...args)`: runs the built kubectl and prints what it prints (or why it failed). */
export function kubectlShow(kubectl: string, say: (text?: string) => void, paint: Paint) {
  return async (kc: string, ...args: string[]): Promise<void> => {
    say(paint('dim', `$ kubectl ${args.join(' ')}`));
    try {
      const { stdout } = await promisify(execFile)(kubectl, ['--kubeconfig', kc, ...args], {
        maxBuffer: 16 * 1024 * 1024,
      });
      if (stdout !== '') say(stdout.replace(/\n$/, ''));
    } catch (error) {
      say(`(kubectl ${args[0]} failed: ${messageOf(error)})`);
    }
  };
}

/** Whether `npm start` was asked to follow (`npm start -- --follow`). */
export function followAsked(argv: readonly string[] = process.argv.slice(2)): boolean {
  return argv.includes('--follow');
}

/**
 * Follows `tenant` until SIGINT or SIGTERM; prints what each pass did and how the follow went.
 * @returns the exit status: 0.
 */
export async function followDemo(
  apis: { tenantApi: ClusterApi; hostApi: ClusterApi },
  tenant: string,
  local: { kubectl: string; tenantKc: string; metrics?: boolean },
  out: { say: (text?: string) => void; paint: Paint },
): Promise<number> {
  const { say, paint } = out;
  const k = (...args: string[]) =>
    [local.kubectl, '--kubeconfig', local.tenantKc, '-n', WORKLOAD_NAMESPACE, ...args]
      .map(shellQuote)
      .join(' ');
  say('Following: each change converges as it arrives (Ctrl-C to stop). From another terminal:');
  say(`  ${k('scale', 'deployment', WORKLOAD_NAME, '--replicas=5')}`);
  say(`  ${k('get', 'pods', '-w')}`);
  // The gateway is the tenant's metrics.k8s.io while this runs (lib/cli/start-gateway.ts).
  if (local.metrics) say(`  ${k('top', 'pod')}    # usage through the kubelet gateway`);
  const signals = processSignals();
  try {
    const result = await runFollow({
      tenant,
      ...apis,
      sinks: [new KubernetesEventsSink({ hostApi: apis.hostApi, tenant })],
      signal: signals.signal,
      onHeld: (error) => say(`${error.message}; waiting for it.`),
      onPass: (pass, changes) => {
        if (pass.decisions.length === 0) return;
        const at = new Date().toISOString().slice(11, 23);
        say(paint('dim', `${at} a pass for ${changes} change(s), ${pass.durationMs} ms:`));
        say(decisionTable(pass.decisions, paint));
      },
    });
    say(followSummary(result));
    return 0;
  } finally {
    signals.release();
  }
}
