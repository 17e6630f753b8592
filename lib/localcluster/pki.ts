import { randomBytes } from 'node:crypto';
import { access, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCommand } from './run.js';

/** Files of the local control plane's PKI. Generated once per state directory with openssl. */
export interface Pki {
  caCert: string;
  caKey: string;
  servingCert: string;
  servingKey: string;
  adminCert: string;
  adminKey: string;
  /**
   * Each cluster's own service-account signing key pair: a token one apiserver issues is never
   * accepted by the other (a tenant token must not authenticate to the host, nor the reverse).
   */
  serviceAccounts: Readonly<Record<'tenant' | 'host', { key: string; pub: string }>>;
}

/** Whether `path` exists. */
export async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

export interface SignRequest {
  /** Directory the key, CSR and certificate are written to. */
  dir: string;
  /** Base file name: `<name>.key`, `<name>.crt`. */
  name: string;
  /** openssl subject, e.g. `/O=system:masters/CN=admin`. */
  subject: string;
  /** openssl x509 extensions, one per line. */
  extensions: string;
  days: number;
}

/**
 * Creates a key pair and a certificate for it signed by the local CA. A random serial (instead
 * of `-CAcreateserial`) means concurrent signings never race on a shared serial file.
 */
export async function signCertificate(
  pki: Pick<Pki, 'caCert' | 'caKey'>,
  request: SignRequest,
): Promise<{ cert: string; key: string }> {
  const f = (ext: string) => join(request.dir, `${request.name}.${ext}`);
  const ssl = (...args: string[]) => runCommand('openssl', args, { cwd: request.dir });
  await writeFile(f('ext'), request.extensions);
  await ssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    f('key'),
    '-out',
    f('csr'),
    '-subj',
    request.subject,
  );
  await ssl(
    'x509',
    '-req',
    '-in',
    f('csr'),
    '-CA',
    pki.caCert,
    '-CAkey',
    pki.caKey,
    '-set_serial',
    `0x${randomBytes(16).toString('hex')}`,
    '-out',
    f('crt'),
    '-days',
    String(request.days),
    '-extfile',
    f('ext'),
  );
  return { cert: f('crt'), key: f('key') };
}

/** Creates a self-signed CA: `key` and `cert` (valid `days`, subject `subject`). */
export async function createCa(
  ca: Pick<Pki, 'caCert' | 'caKey'>,
  subject: string,
  days = 3650,
): Promise<void> {
  await runCommand('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    ca.caKey,
    '-out',
    ca.caCert,
    '-days',
    String(days),
    '-subj',
    subject,
  ]);
}

/**
 * Creates (or reuses) a CA, a loopback serving certificate, an admin client certificate in
 * `system:masters`, and a service-account signing key pair per cluster. One CA serves both
 * apiservers (a local convenience; production clusters have their own).
 */
export async function ensurePki(dir: string): Promise<Pki> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const p = (f: string) => join(dir, f);
  const pki: Pki = {
    caCert: p('ca.crt'),
    caKey: p('ca.key'),
    servingCert: p('serving.crt'),
    servingKey: p('serving.key'),
    adminCert: p('admin.crt'),
    adminKey: p('admin.key'),
    serviceAccounts: {
      tenant: { key: p('sa-tenant.key'), pub: p('sa-tenant.pub') },
      host: { key: p('sa-host.key'), pub: p('sa-host.pub') },
    },
  };
  if (await exists(pki.serviceAccounts.host.pub)) return pki;

  const ssl = (...args: string[]) => runCommand('openssl', args, { cwd: dir });
  await createCa(pki, '/CN=tenantplane-local-ca');
  await signCertificate(pki, {
    dir,
    name: 'serving',
    subject: '/CN=kube-apiserver',
    extensions:
      'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default\nextendedKeyUsage=serverAuth\n',
    days: 3650,
  });
  await signCertificate(pki, {
    dir,
    name: 'admin',
    subject: '/O=system:masters/CN=tenantplane-admin',
    extensions: 'extendedKeyUsage=clientAuth\n',
    days: 3650,
  });
  // The host's written last: its presence marks a complete PKI (see the check above).
  for (const { key, pub } of [pki.serviceAccounts.tenant, pki.serviceAccounts.host]) {
    await ssl('genrsa', '-out', key, '2048');
    await ssl('rsa', '-in', key, '-pubout', '-out', pub);
  }
  return pki;
}
