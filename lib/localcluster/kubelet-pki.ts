/**
 * The kubelet side of the local PKI (docs/kubelet-gateway.md): the tenant apiserver's kubelet
 * client certificate, from a CA of the tenant's own (the kubelet gateway knows the tenant by it),
 * and the kubelet gateway's serving certificate, from the local CA, which the tenant apiserver
 * checks the gateway against (`--kubelet-certificate-authority`). Made once per state directory,
 * beside (not inside) the rest of the PKI, so a state directory made before it gains it.
 */
import { X509Certificate } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TENANT_METRICS_TLS_NAME } from './metrics-server.js';
import { createCa, exists, type Pki, signCertificate } from './pki.js';

export interface KubeletPki {
  /** The tenant's kubelet client CA: what the gateway's configuration trusts for the tenant. */
  clientCaCert: string;
  clientCaKey: string;
  /** The tenant apiserver's `--kubelet-client-certificate` / `--kubelet-client-key`. */
  clientCert: string;
  clientKey: string;
  /**
   * The gateway's serving certificate (127.0.0.1, localhost, and the tenant's metrics Service name
   * of docs/metrics.md), signed by the local CA.
   */
  gatewayCert: string;
  gatewayKey: string;
}

/** The files of the kubelet PKI under `pkiDir` (the state directory's `pki`). */
export function kubeletPkiPaths(pkiDir: string): KubeletPki {
  const p = (f: string) => join(pkiDir, 'kubelet', f);
  return {
    clientCaCert: p('tenant-kubelet-client-ca.crt'),
    clientCaKey: p('tenant-kubelet-client-ca.key'),
    clientCert: p('tenant-kubelet-client.crt'),
    clientKey: p('tenant-kubelet-client.key'),
    gatewayCert: p('gateway-serving.crt'),
    gatewayKey: p('gateway-serving.key'),
  };
}

/** Makes (or reuses) the kubelet PKI of `pki`, in `pkiDir`. */
export async function ensureKubeletPki(pkiDir: string, pki: Pki): Promise<KubeletPki> {
  const paths = kubeletPkiPaths(pkiDir);
  const dir = join(pkiDir, 'kubelet');
  // The gateway's key is written last: its presence marks a complete kubelet PKI. A gateway
  // certificate made before the metrics API existed lacks its name: only that one is signed anew.
  if (await exists(paths.gatewayKey)) {
    if (!(await namesMetricsService(paths.gatewayCert))) await signGateway(dir, pki);
    return paths;
  }
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await createCa(
    { caCert: paths.clientCaCert, caKey: paths.clientCaKey },
    '/CN=tenantplane-local-tenant-kubelet-client-ca',
  );
  await signCertificate(
    { caCert: paths.clientCaCert, caKey: paths.clientCaKey },
    {
      dir,
      name: 'tenant-kubelet-client',
      subject: '/O=tenantplane:apiservers/CN=tenantplane-local-tenant-apiserver',
      extensions: 'extendedKeyUsage=clientAuth\n',
      days: 3650,
    },
  );
  await signGateway(dir, pki);
  return paths;
}

async function namesMetricsService(cert: string): Promise<boolean> {
  const san = new X509Certificate(await readFile(cert)).subjectAltName ?? '';
  return san.includes(`DNS:${TENANT_METRICS_TLS_NAME}`);
}

function signGateway(dir: string, pki: Pki): Promise<unknown> {
  return signCertificate(pki, {
    dir,
    name: 'gateway-serving',
    subject: '/CN=tenantplane-kubelet-gateway',
    extensions: `subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:${TENANT_METRICS_TLS_NAME}\nextendedKeyUsage=serverAuth\n`,
    days: 3650,
  });
}
