/** What the kubelet gateway's tests share: kubectl as a given kubeconfig's user. */
import { execFile } from 'node:child_process';
import { clusters } from '../engine/support.js';

/** Runs the local kubectl with `kubeconfig`; rejects with its stderr when it fails. */
export function kubectl(kubeconfig: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      clusters.kubectl,
      ['--kubeconfig', kubeconfig, ...args],
      { timeout: 60_000 },
      (error, stdout, stderr) =>
        error
          ? reject(new Error(`kubectl ${args.join(' ')}: ${stderr || error.message}`))
          : resolve(stdout),
    );
  });
}
