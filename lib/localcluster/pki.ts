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
  serviceAccountKey: string;
  serviceAccountPub: string;
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Creates (or reuses) a CA, a loopback serving certificate, an admin client certificate in
 * `system:masters`, and the service-account signing key pair. One CA serves both apiservers.
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
    serviceAccountKey: p('sa.key'),
    serviceAccountPub: p('sa.pub'),
  };
  if (await exists(pki.serviceAccountPub)) return pki;

  const ssl = (...args: string[]) => runCommand('openssl', args, { cwd: dir });
  await ssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    pki.caKey,
    '-out',
    pki.caCert,
    '-days',
    '3650',
    '-subj',
    '/CN=tenantplane-local-ca',
  );
  await writeFile(
    p('serving.ext'),
    'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default\nextendedKeyUsage=serverAuth\n',
  );
  await ssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    pki.servingKey,
    '-out',
    p('serving.csr'),
    '-subj',
    '/CN=kube-apiserver',
  );
  await ssl(
    'x509',
    '-req',
    '-in',
    p('serving.csr'),
    '-CA',
    pki.caCert,
    '-CAkey',
    pki.caKey,
    '-CAcreateserial',
    '-out',
    pki.servingCert,
    '-days',
    '3650',
    '-extfile',
    p('serving.ext'),
  );
  await writeFile(p('admin.ext'), 'extendedKeyUsage=clientAuth\n');
  await ssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    pki.adminKey,
    '-out',
    p('admin.csr'),
    '-subj',
    '/O=system:masters/CN=tenantplane-admin',
  );
  await ssl(
    'x509',
    '-req',
    '-in',
    p('admin.csr'),
    '-CA',
    pki.caCert,
    '-CAkey',
    pki.caKey,
    '-CAcreateserial',
    '-out',
    pki.adminCert,
    '-days',
    '3650',
    '-extfile',
    p('admin.ext'),
  );
  await ssl('genrsa', '-out', pki.serviceAccountKey, '2048');
  await ssl('rsa', '-in', pki.serviceAccountKey, '-pubout', '-out', pki.serviceAccountPub);
  return pki;
}
