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

/** One GET with a short timeout; with `tls`, over HTTPS as the admin user. */
export function get(url: string, tls?: AdminTls): Promise<{ status: number; body: string }> {
  return new Promise((resolvePromise, reject) => {
    const req = (tls ? request : httpRequest)(url, { ...tls, timeout: 5000 }, (res) => {
      let body = '';
      res.on('data', (c) => {
        body += c;
      });
      res.on('end', () => resolvePromise({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

async function logTail(file: string): Promise<string> {
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
