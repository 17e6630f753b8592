/**
 * The part of the kubelet API an apiserver proxies to (`pkg/registry/core/pod/strategy.go` of
 * Kubernetes 1.36: `LogLocation`, `streamLocation`, `PortForwardLocation`), and the host
 * apiserver request each maps to. Pure: no I/O.
 *
 * | kubelet path (tenant names) | host apiserver path (host names) |
 * |---|---|
 * | `GET /containerLogs/{ns}/{pod}/{container}` | `GET .../pods/{host}/log?container=` |
 * | `/exec/{ns}/{pod}/{container}` (upgrade) | `.../pods/{host}/exec?container=` |
 * | `/attach/{ns}/{pod}/{container}` (upgrade) | `.../pods/{host}/attach?container=` |
 * | `/portForward/{ns}/{pod}` (upgrade) | `.../pods/{host}/portforward` |
 *
 * The kubelet's query names differ from the apiserver's: `input`/`output`/`error`/`tty` are
 * `stdin`/`stdout`/`stderr`/`tty`, `port` is `ports`. Only the parameters the apiserver sends are
 * carried; anything else is dropped.
 */

/** What a kubelet request asks for. */
export type KubeletAction = 'logs' | 'exec' | 'attach' | 'portforward';

export interface KubeletRequest {
  action: KubeletAction;
  /** The tenant namespace and Pod name, as the tenant apiserver names them. */
  namespace: string;
  pod: string;
  container?: string;
  /** The query to send to the host apiserver's subresource (container included). */
  hostQuery: URLSearchParams;
}

const LOG_PARAMS = [
  'follow',
  'previous',
  'timestamps',
  'sinceSeconds',
  'sinceTime',
  'tailLines',
  'limitBytes',
  'stream',
] as const;

/** kubelet stream parameter -> the apiserver's (`pkg/apis/core/types.go`: ExecStdinParam...). */
const STREAM_PARAMS: Readonly<Record<string, string>> = {
  input: 'stdin',
  output: 'stdout',
  error: 'stderr',
  tty: 'tty',
};

const SEGMENT = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

function segments(path: string): string[] | undefined {
  const parts = path.split('/').slice(1);
  try {
    const decoded = parts.map(decodeURIComponent);
    const names = decoded.slice(1);
    return names.every((p) => SEGMENT.test(p) && p.length <= 253) ? decoded : undefined;
  } catch {
    return undefined;
  }
}

/** The tenant's request in a kubelet URL (path and query), or `undefined` if it is none. */
export function parseKubeletRequest(url: string, upgrade: boolean): KubeletRequest | undefined {
  const parsed = new URL(url, 'https://gateway.invalid');
  const parts = segments(parsed.pathname);
  if (!parts) return undefined;
  const [route, namespace, pod, container, ...rest] = parts;
  if (rest.length > 0 || !namespace || !pod) return undefined;
  const query = parsed.searchParams;
  const hostQuery = new URLSearchParams();
  if (route === 'containerLogs' && !upgrade && container) {
    hostQuery.set('container', container);
    for (const name of LOG_PARAMS) {
      const value = query.get(name);
      if (value !== null) hostQuery.set(name, value);
    }
    return { action: 'logs', namespace, pod, container, hostQuery };
  }
  if ((route === 'exec' || route === 'attach') && upgrade && container) {
    hostQuery.set('container', container);
    for (const [kubelet, apiserver] of Object.entries(STREAM_PARAMS)) {
      const value = query.get(kubelet);
      if (value !== null && value !== '0' && value !== 'false') hostQuery.set(apiserver, 'true');
    }
    if (route === 'exec') {
      const command = query.getAll('command');
      if (command.length === 0) return undefined;
      for (const word of command) hostQuery.append('command', word);
    }
    return { action: route, namespace, pod, container, hostQuery };
  }
  if (route === 'portForward' && upgrade && container === undefined) {
    for (const value of [...query.getAll('port'), ...query.getAll('ports')]) {
      for (const port of value.split(',')) {
        if (/^\d{1,5}$/.test(port)) hostQuery.append('ports', port);
        else return undefined;
      }
    }
    return { action: 'portforward', namespace, pod, hostQuery };
  }
  return undefined;
}

/** The host apiserver path of `request` for the host Pod `hostPod` in `hostNamespace`. */
export function hostPath(request: KubeletRequest, hostNamespace: string, hostPod: string): string {
  const sub = request.action === 'logs' ? 'log' : request.action;
  const base = `/api/v1/namespaces/${encodeURIComponent(hostNamespace)}/pods/${encodeURIComponent(hostPod)}`;
  const query = request.hostQuery.toString();
  return `${base}/${sub}${query ? `?${query}` : ''}`;
}
