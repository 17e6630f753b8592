/**
 * An in-memory ClusterApi for unit tests. It behaves like a kube-apiserver where the engine
 * depends on it: create-only creates, resourceVersion conflicts on update, uid preconditions on
 * delete, label selectors, LIST pagination (limit + continue), the status subresource, request
 * counting, the immutability of ConfigMaps and Secrets (`immutability.ts`), a host that rewrites
 * what it stores (`normalize`), and failures injected on chosen calls.
 */
import { matchesLabelSelector, parseLabelSelector } from '../../../lib/engine/label-selector.js';
import {
  type ClusterApi,
  ClusterError,
  type DeletePreconditions,
  type KindRef,
  type KubeObject,
  type ListOptions,
  type ListPage,
  type RequestCount,
} from '../../../lib/ports/index.js';
import { immutabilityError } from './immutability.js';

export type FakeMethod = 'list' | 'get' | 'create' | 'update' | 'delete' | 'patchStatus';

/** One call the fake received, as the failure rules and hooks see it. */
export interface FakeCall {
  method: FakeMethod;
  apiVersion: string;
  kind: string;
  namespace: string | undefined;
  /** The object name; undefined for `list`. */
  name: string | undefined;
  options?: ListOptions;
}

/** Returns an error to make that call fail, or undefined to let it through. */
export type FailureRule = (call: FakeCall) => ClusterError | undefined;

export interface MemoryClusterOptions {
  /** When set, any other kind answers NotFound (like a CRD that is not installed). */
  installedKinds?: KindRef[];
  /** Called (and awaited) before every call is served: lets a test act "concurrently". */
  beforeCall?: (call: FakeCall, cluster: MemoryCluster) => void | Promise<void>;
  /** Kinds {@link MemoryCluster.namespaced} answers as cluster-scoped (every other kind: namespaced). */
  clusterScopedKinds?: KindRef[];
  /**
   * Rewrites what a create or update stores (a pruning schema, defaulting, a mutating admission
   * policy); the caller gets the rewritten object back, like from a real apiserver.
   */
  normalize?: (object: KubeObject) => void;
}

const WRITES: ReadonlySet<FakeMethod> = new Set(['create', 'update', 'delete', 'patchStatus']);

function keyOf(apiVersion: string, kind: string, namespace: string | undefined, name: string) {
  return `${apiVersion}|${kind}|${namespace ?? ''}|${name}`;
}

/** A call on one object (everything but `list`); `kind` may be the object itself. */
function objectCall(
  method: Exclude<FakeMethod, 'list'>,
  kind: KindRef,
  namespace: string | undefined,
  name: string,
): FakeCall {
  return { method, apiVersion: kind.apiVersion, kind: kind.kind, namespace, name };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** RFC 7386 JSON merge patch. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return structuredClone(patch);
  const result: Record<string, unknown> = isRecord(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

export class MemoryCluster implements ClusterApi {
  private readonly store = new Map<string, KubeObject>();
  private readonly rules: FailureRule[] = [];
  private readonly counts: RequestCount = { reads: 0, writes: 0 };
  private nextRv = 1;
  private nextUid = 1;
  readonly calls: FakeCall[] = [];

  constructor(
    readonly name: string,
    private readonly options: MemoryClusterOptions = {},
  ) {}

  // ---- test helpers (not counted as requests) ----

  /** Stores objects as they are, filling in uid/resourceVersion when missing. */
  seed(...objects: KubeObject[]): this {
    for (const object of objects) {
      const copy = structuredClone(object);
      copy.metadata.uid ??= `${this.name}-uid-${this.nextUid++}`;
      copy.metadata.resourceVersion = String(this.nextRv++);
      const { apiVersion, kind, metadata } = copy;
      this.store.set(keyOf(apiVersion, kind, metadata.namespace, metadata.name), copy);
    }
    return this;
  }

  /** Snapshot of the stored objects (optionally of one kind), sorted by namespace and name. */
  objects(kind?: KindRef): KubeObject[] {
    return [...this.store.values()]
      .filter((o) => !kind || (o.apiVersion === kind.apiVersion && o.kind === kind.kind))
      .sort((a, b) =>
        `${a.metadata.namespace ?? ''}/${a.metadata.name}`.localeCompare(
          `${b.metadata.namespace ?? ''}/${b.metadata.name}`,
        ),
      )
      .map((o) => structuredClone(o));
  }

  /** One stored object, or undefined. */
  peek(kind: KindRef, namespace: string | undefined, name: string): KubeObject | undefined {
    const found = this.store.get(keyOf(kind.apiVersion, kind.kind, namespace, name));
    return found && structuredClone(found);
  }

  /** Removes an object directly (a "concurrent" actor). */
  remove(kind: KindRef, namespace: string | undefined, name: string): void {
    this.store.delete(keyOf(kind.apiVersion, kind.kind, namespace, name));
  }

  /** Replaces an object directly, bumping its resourceVersion (a "concurrent" writer). */
  replace(object: KubeObject): void {
    const copy = structuredClone(object);
    copy.metadata.resourceVersion = String(this.nextRv++);
    this.store.set(
      keyOf(copy.apiVersion, copy.kind, copy.metadata.namespace, copy.metadata.name),
      copy,
    );
  }

  /** Makes matching calls fail; rules are checked in order, the first error wins. */
  failWhen(rule: FailureRule): this {
    this.rules.push(rule);
    return this;
  }

  /** Drops every rule added with {@link failWhen}: calls succeed again. */
  clearFailures(): this {
    this.rules.length = 0;
    return this;
  }

  /** Calls of one method so far. */
  callsOf(method: FakeMethod): FakeCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  // ---- ClusterApi ----

  requestCount(): RequestCount {
    return { ...this.counts };
  }

  private async enter(call: FakeCall): Promise<void> {
    this.calls.push(call);
    if (WRITES.has(call.method)) this.counts.writes += 1;
    else this.counts.reads += 1;
    await this.options.beforeCall?.(call, this);
    for (const rule of this.rules) {
      const error = rule(call);
      if (error) throw error;
    }
    const installed = this.options.installedKinds;
    if (
      installed &&
      !installed.some((k) => k.apiVersion === call.apiVersion && k.kind === call.kind)
    ) {
      throw new ClusterError(
        'NotFound',
        `the server could not find the requested resource (${call.kind})`,
        {
          status: 404,
        },
      );
    }
  }

  /** Enters a call on an object that must exist: its store key and the stored object. */
  private async enterExisting(
    method: 'update' | 'delete' | 'patchStatus',
    kind: KindRef,
    namespace: string | undefined,
    name: string,
  ): Promise<{ key: string; current: KubeObject }> {
    await this.enter(objectCall(method, kind, namespace, name));
    const key = keyOf(kind.apiVersion, kind.kind, namespace, name);
    const current = this.store.get(key);
    if (!current)
      throw new ClusterError('NotFound', `${kind.kind} "${name}" not found`, { status: 404 });
    return { key, current };
  }

  async list(kind: KindRef, options: ListOptions = {}): Promise<ListPage> {
    await this.enter({
      method: 'list',
      ...kind,
      namespace: options.namespace,
      name: undefined,
      options,
    });
    const selector = parseLabelSelector(options.labelSelector ?? '');
    const all = [...this.store.entries()]
      .filter(([, o]) => o.apiVersion === kind.apiVersion && o.kind === kind.kind)
      .filter(
        ([, o]) => options.namespace === undefined || o.metadata.namespace === options.namespace,
      )
      .filter(([, o]) => matchesLabelSelector(selector, o.metadata.labels))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    let start = 0;
    if (options.continueToken) {
      const after = Buffer.from(options.continueToken, 'base64url').toString('utf8');
      start = all.findIndex(([key]) => key > after);
      if (start < 0) start = all.length;
    }
    const limit = options.limit && options.limit > 0 ? options.limit : all.length;
    const slice = all.slice(start, start + limit);
    const page: ListPage = { items: slice.map(([, o]) => structuredClone(o)) };
    const last = slice.at(-1);
    if (last && start + limit < all.length) {
      page.continueToken = Buffer.from(last[0], 'utf8').toString('base64url');
    }
    return page;
  }

  async get(
    kind: KindRef,
    namespace: string | undefined,
    name: string,
  ): Promise<KubeObject | undefined> {
    await this.enter(objectCall('get', kind, namespace, name));
    return this.peek(kind, namespace, name);
  }

  async create(object: KubeObject): Promise<KubeObject> {
    const { apiVersion, kind, metadata } = object;
    await this.enter(objectCall('create', object, metadata.namespace, metadata.name));
    if (!metadata.name)
      throw new ClusterError('Invalid', 'metadata.name: Required value', { status: 422 });
    const key = keyOf(apiVersion, kind, metadata.namespace, metadata.name);
    if (this.store.has(key)) {
      throw new ClusterError('AlreadyExists', `${kind} "${metadata.name}" already exists`, {
        status: 409,
      });
    }
    const stored = structuredClone(object);
    stored.metadata.uid = `${this.name}-uid-${this.nextUid++}`;
    stored.metadata.resourceVersion = String(this.nextRv++);
    stored.metadata.creationTimestamp = '2025-01-01T00:00:00Z';
    this.options.normalize?.(stored);
    this.store.set(key, stored);
    return structuredClone(stored);
  }

  async update(object: KubeObject): Promise<KubeObject> {
    const { kind, metadata } = object;
    const { key, current } = await this.enterExisting(
      'update',
      object,
      metadata.namespace,
      metadata.name,
    );
    if (!metadata.resourceVersion) {
      throw new ClusterError(
        'Invalid',
        'metadata.resourceVersion: must be specified for an update',
        {
          status: 422,
        },
      );
    }
    if (metadata.resourceVersion !== current.metadata.resourceVersion) {
      throw new ClusterError(
        'Conflict',
        `Operation cannot be fulfilled on ${kind} "${metadata.name}": the object has been modified; please apply your changes to the latest version and try again`,
        { status: 409 },
      );
    }
    const refused = immutabilityError(current, object);
    if (refused) throw refused;
    const stored = structuredClone(object);
    stored.metadata.uid = current.metadata.uid;
    stored.metadata.creationTimestamp = current.metadata.creationTimestamp;
    stored.metadata.resourceVersion = String(this.nextRv++);
    if (current.status !== undefined) stored.status = structuredClone(current.status);
    this.options.normalize?.(stored);
    this.store.set(key, stored);
    return structuredClone(stored);
  }

  async delete(
    kind: KindRef,
    namespace: string | undefined,
    name: string,
    preconditions: DeletePreconditions,
  ): Promise<void> {
    const { key, current } = await this.enterExisting('delete', kind, namespace, name);
    if (
      preconditions.uid !== current.metadata.uid ||
      (preconditions.resourceVersion !== undefined &&
        preconditions.resourceVersion !== current.metadata.resourceVersion)
    ) {
      throw new ClusterError(
        'Conflict',
        `Precondition failed: UID in precondition: ${preconditions.uid}, UID in object meta: ${current.metadata.uid}`,
        { status: 409 },
      );
    }
    this.store.delete(key);
  }

  /**
   * API discovery: whether `kind` is namespaced (see `clusterScopedKinds`). Answered from discovery
   * the client caches, so it is neither counted as a request nor recorded in {@link calls}; a kind
   * outside `installedKinds` answers NotFound, like a kind the server does not serve.
   */
  async namespaced(kind: KindRef): Promise<boolean> {
    const installed = this.options.installedKinds;
    if (
      installed &&
      !installed.some((k) => k.apiVersion === kind.apiVersion && k.kind === kind.kind)
    )
      throw new ClusterError(
        'NotFound',
        `the server could not find the requested resource (${kind.kind})`,
        { status: 404 },
      );
    return !(this.options.clusterScopedKinds ?? []).some(
      (k) => k.apiVersion === kind.apiVersion && k.kind === kind.kind,
    );
  }

  async patchStatus(
    kind: KindRef,
    namespace: string | undefined,
    name: string,
    status: Record<string, unknown>,
  ): Promise<KubeObject> {
    const { current } = await this.enterExisting('patchStatus', kind, namespace, name);
    current.status = mergePatch(current.status, status);
    current.metadata.resourceVersion = String(this.nextRv++);
    return structuredClone(current);
  }
}
