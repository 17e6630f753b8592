/**
 * Readiness of the local daemons: probes over HTTP(S) as the admin user, and a wait that fails
 * fast, with the daemon's last log lines, when the daemon exits instead of becoming ready.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { request } from 'node:https';
import { LocalClusterError } from './errors.js';
import type { Pki } from './pki.js';
import { isOurProcess } from './process.js';

/** The admin user's TLS material, read once for the many readiness probes. */
export interface AdminTls {
  ca: Buffer;
  cert: Buffer;
  key: Buffer;
}

export function adminTls(pki: Pki): AdminTls {
  return {
    ca: readFileSync(pki.caCert),
    cert: readFileSync(pki.adminCert),
    key: readFileSync(pki.adminKey),
  };
}

/**
 * Trust for a component's health port: kube-scheduler and kube-controller-manager serve it with
 * a self-signed certificate they make at start, which no CA of ours can verify.
 */
export const SELF_SIGNED = { rejectUnauthorized: false } as const;

/**
 * One GET with a short timeout; with `tls`, over HTTPS as the admin user (or, with
 * {@link SELF_SIGNED}, anonymously to a component's self-signed health port).
 */
export function get(
  url: string,
  tls?: AdminTls | typeof SELF_SIGNED,
): Promise<{ status: number; body: string }> {
  return send('GET', url, tls);
}

/**
 * One request with a short timeout and an optional JSON body. A few direct requests instead of
 * a `kubectl` run, whose start and API discovery cost seconds on a busy machine.
 */
export function send(
  method: string,
  url: string,
  tls?: AdminTls | typeof SELF_SIGNED,
  json?: unknown,
): Promise<{ status: number; body: string }> {
  return new Promise((resolvePromise, reject) => {
    // A PATCH's body is a merge patch; every other body is the object itself.
    const type = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
    const headers = json === undefined ? {} : { 'content-type': type };
    const options = { ...tls, method, headers, timeout: 5000 };
    const req = (tls ? request : httpRequest)(url, options, (res) => {
      let body = '';
      res.on('data', (c) => {
        body += c;
      });
      res.on('end', () => resolvePromise({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(json === undefined ? undefined : JSON.stringify(json));
  });
}

/** The last lines of a daemon's log, for an error that says why it did not come up. */
export async function logTail(file: string): Promise<string> {
  try {
    const text = await readFile(file, 'utf8');
    return text.split('\n').slice(-15).join('\n');
  } catch {
    return '(no log)';
  }
}

export async function waitUntil(
  what: string,
  probe: () => Promise<boolean>,
  pid: number,
  binary: string,
  logFile: string,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!(await isOurProcess(pid, binary))) {
      throw new LocalClusterError(
        `${what} exited during startup; last log lines (${logFile}):\n${await logTail(logFile)}`,
      );
    }
    try {
      if (await probe()) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new LocalClusterError(
    `${what} was not ready within ${timeoutMs / 1000} s; last log lines (${logFile}):\n${await logTail(logFile)}`,
  );
}
