/**
 * TLS material for fault tests, from the test run's own PKI (`<state dir>/pki`, made by the
 * global setup): a serving certificate for the fault proxy (127.0.0.1, signed by the local CA),
 * and client certificates that must fail (expired; signed by an unknown CA), as kubeconfigs.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { ensurePki, type Pki, signCertificate } from '../../../lib/localcluster/pki.js';
import { runCommand } from '../../../lib/localcluster/run.js';
import type { KubeconfigText } from '../../../lib/ports/index.js';

export interface TestPki {
  dir: string;
  files: Pki;
  ca: Buffer;
  adminCert: Buffer;
  adminKey: Buffer;
  /** The admin certificate's CN (the proxy forwards it without impersonation). */
  adminUser: string;
  proxyCert: Buffer;
  proxyKey: Buffer;
}

function runStateDir(): string {
  const dir = process.env.TENANTPLANE_TEST_STATE_DIR;
  if (!dir) throw new Error('fault tests need the control plane of the global setup');
  return dir;
}

const cached = new Map<string, Promise<TestPki>>();

/**
 * The PKI of a control plane (default: the test run's) plus a proxy serving certificate, signed
 * once per test file and plane.
 */
export function testPki(stateDir: string = runStateDir()): Promise<TestPki> {
  let pki = cached.get(stateDir);
  if (!pki) {
    pki = loadPki(stateDir);
    cached.set(stateDir, pki);
  }
  return pki;
}

async function loadPki(stateDir: string): Promise<TestPki> {
  const dir = join(stateDir, 'pki');
  const files = await ensurePki(dir);
  const own = join(dir, 'faults');
  await mkdir(own, { recursive: true, mode: 0o700 });
  const name = `proxy-${randomBytes(4).toString('hex')}`;
  const serving = await signCertificate(files, {
    dir: own,
    name,
    subject: '/CN=tenantplane-fault-proxy',
    extensions: 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n',
    days: 2,
  });
  return {
    dir,
    files,
    ca: await readFile(files.caCert),
    adminCert: await readFile(files.adminCert),
    adminKey: await readFile(files.adminKey),
    adminUser: 'tenantplane-admin',
    proxyCert: await readFile(serving.cert),
    proxyKey: await readFile(serving.key),
  };
}

type Doc = {
  clusters: { cluster: Record<string, string> }[];
  users: { user: Record<string, string> }[];
};

const b64 = (data: Buffer) => data.toString('base64');

/** `kubeconfig` with its user's client certificate and key replaced. */
function withClientCert(kubeconfig: KubeconfigText, cert: Buffer, key: Buffer, origin: string) {
  const doc = parse(kubeconfig.text) as Doc;
  for (const u of doc.users) {
    u.user['client-certificate-data'] = b64(cert);
    u.user['client-key-data'] = b64(key);
  }
  return { text: stringify(doc), origin };
}

/**
 * `kubeconfig` with a client certificate of the local CA (O=system:masters) that expired in 2020:
 * the apiserver answers 401.
 */
export async function expiredClientKubeconfig(kubeconfig: KubeconfigText): Promise<KubeconfigText> {
  const pki = await testPki();
  const dir = await mkdtemp(join(pki.dir, 'faults', 'expired-'));
  const f = (n: string) => join(dir, n);
  const ssl = (...args: string[]) => runCommand('openssl', args, { cwd: dir });
  await writeFile(f('index.txt'), '');
  await writeFile(f('serial'), `${randomBytes(8).toString('hex')}\n`);
  await writeFile(f('ext'), 'extendedKeyUsage=clientAuth\n');
  await writeFile(
    f('ca.cnf'),
    [
      '[ ca ]',
      'default_ca = ca_default',
      '[ ca_default ]',
      'database = index.txt',
      'new_certs_dir = .',
      'serial = serial',
      'default_md = sha256',
      'policy = any',
      'unique_subject = no',
      '[ any ]',
      'organizationName = optional',
      'commonName = supplied',
      '',
    ].join('\n'),
  );
  const subject = '/O=system:masters/CN=expired-admin';
  await ssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    f('u.key'),
    '-out',
    f('u.csr'),
    '-subj',
    subject,
  );
  await ssl(
    'ca',
    '-batch',
    '-config',
    f('ca.cnf'),
    '-cert',
    pki.files.caCert,
    '-keyfile',
    pki.files.caKey,
    '-in',
    f('u.csr'),
    '-out',
    f('u.crt'),
    '-startdate',
    '20200101000000Z',
    '-enddate',
    '20200102000000Z',
    '-extfile',
    f('ext'),
    '-notext',
  );
  return withClientCert(
    kubeconfig,
    await readFile(f('u.crt')),
    await readFile(f('u.key')),
    'expired client certificate',
  );
}

/** `kubeconfig` trusting a CA that did not sign the server's certificate. */
export async function unknownCaKubeconfig(kubeconfig: KubeconfigText): Promise<KubeconfigText> {
  const pki = await testPki();
  const dir = await mkdtemp(join(pki.dir, 'faults', 'other-ca-'));
  await runCommand(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt'].concat(
      ['-days', '2', '-subj', '/CN=unknown-ca'],
    ),
    { cwd: dir },
  );
  const doc = parse(kubeconfig.text) as Doc;
  const ca = await readFile(join(dir, 'ca.crt'));
  for (const c of doc.clusters) c.cluster['certificate-authority-data'] = b64(ca);
  return { text: stringify(doc), origin: 'unknown CA' };
}
