/**
 * An in-memory ClusterApi for unit tests. It behaves like a kube-apiserver where the engine
 * depends on it: create-only creates, resourceVersion conflicts on update, uid preconditions on
 * delete, label and field selectors, LIST pagination (limit + continue), the status subresource,
 * request counting, the immutability of ConfigMaps and Secrets (`immutability.ts`), a host that
 * rewrites what it stores (`normalize`), and failures injected on chosen calls.
 */
import {
  matchesLabelSelector,
  parseLabelSelector,
} from '../../../lib/engine/policy/label-selector.js';
import {
  type ClusterApi,
  ClusterError,
  type CreateOptions,
  type DeleteOptions,
  type DeletePreconditions,
  type IssuedToken,
  type KindRef,
  type KubeObject,
  type ListOptions,
  type ListPage,
  type RequestCount,
  type TokenRequestSpec,
  type WatchChange,
  type WatchOptions,
  type WatchOutcome,
} from '../../../lib/ports/index.js';
import { immutabilityError } from './immutability.js';

export type FakeMethod =
  | 'list'
  | 'get'
  | 'create'
  /** A create with `dryRun`: answered, never stored. */
  | 'createDryRun'
  | 'update'
  | 'delete'
  | 'patchStatus'
  | 'watch'
  | 'createToken'
  | 'bind';

/** One call the fake received, as the failure rules and hooks see it. */
export interface FakeCall {
  method: FakeMethod;
  apiVersion: string;
  kind: string;
  namespace: string | undefined;
  /** The object name; undefined for `list`. */
  name: string | undefined;
  options?: ListOptions;
  /** A delete's options, when it was given any. */
  deleteOptions?: DeleteOptions;
}

/** Returns an error to make that call fail, or undefined to let it through. */
export type FailureRule = (call: FakeCall) => ClusterError | undefined;

export interface MemoryClusterOptions {
  /**
   * Serve TokenRequest (`createToken`) for service accounts that exist in the store, with
   * expiries from this clock (ms); without it the fake has no `createToken`, as a bare client.
   */
  tokens?: { now: () => number; certificateAuthority?: string };
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
  /**
   * Changes the watch log keeps (default 1000), like the apiserver's watch cache: a watch from a
   * resourceVersion older than the oldest kept change answers 410 Expired.
   */
  watchLogSize?: number;
  /**
   * Deletes a Pod bound to a node as an apiserver whose kubelets confirm Pod ends: it stays,
   * terminating, with its grace period, unless deleted with a grace period of 0. Without it every
   * delete removes the object at once.
   */
  kubeletGrace?: boolean;
}

const WRITES: ReadonlySet<FakeMethod> = new Set([
  'create',
  'update',
  'delete',
  'patchStatus',
  'createToken',
  'bind',
]);

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

/** A Pod's own grace period (`spec.terminationGracePeriodSeconds`, default 30), as a delete uses it. */
function podGracePeriod(pod: KubeObject): number | undefined {
  if (pod.kind !== 'Pod') return undefined;
  const asked = pod.metadata.deletionGracePeriodSeconds;
  if (typeof asked === 'number') return asked;
  const own = isRecord(pod.spec) ? pod.spec.terminationGracePeriodSeconds : undefined;
  return typeof own === 'number' ? own : 30;
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

/**
 * A field selector as the apiserver takes it: `path=value`, `path==value` or `path!=value`,
 * joined by commas (every one must hold); a missing field reads as `""`.
 */
function matchesFieldSelector(selector: string | undefined, object: KubeObject): boolean {
  if (!selector) return true;
  return selector.split(',').every((term) => {
    const match = /^([^!=]+)(!=|==|=)(.*)$/.exec(term.trim());
    if (!match) throw new ClusterError('Invalid', `invalid field selector "${term}"`);
    const [, path = '', op, want] = match;
    let at: unknown = object;
    for (const key of path.split('.')) at = isRecord(at) ? at[key] : undefined;
    const value = at === undefined || at === null ? '' : String(at);
    return op === '!=' ? value !== want : value === want;
  });
}

export class MemoryCluster implements ClusterApi {
  private readonly store = new Map<string, KubeObject>();
  private readonly rules: FailureRule[] = [];
  private readonly counts: RequestCount = { reads: 0, writes: 0 };
  private nextRv = 1;
  private nextUid = 1;
  readonly calls: FakeCall[] = [];
  /** Changes with their resourceVersions, oldest first, at most `watchLogSize`. */
  private readonly log: { rv: number; change: WatchChange }[] = [];
  /** Resource versions up to this one are no longer in the log (compacted). */
  private compactedThrough = 0;

  /** Records a change in the bounded watch log. */
  private logged(type: WatchChange['type'], object: KubeObject, rv: number): void {
    this.log.push({ rv, change: { type, object: structuredClone(object) } });
    const size = this.options.watchLogSize ?? 1000;
    while (this.log.length > size) this.compactedThrough = this.log.shift()?.rv ?? 0;
  }

  /** Forgets the watch log, like an apiserver restart empties its watch cache. */
  forgetWatchLog(): void {
    this.compactedThrough = this.nextRv - 1;
    this.log.length = 0;
  }

  /** The current resourceVersion (of the last change). */
  currentResourceVersion(): string {
    return String(this.nextRv - 1);
  }

  /** The tokens this fake minted, in order (tests check what they were bound to). */
  readonly issued: Array<
    { namespace: string; serviceAccount: string } & TokenRequestSpec & IssuedToken
  > = [];
  createToken?: (
    namespace: string,
    serviceAccount: string,
    request: TokenRequestSpec,
  ) => Promise<IssuedToken>;
  readonly certificateAuthority?: string;

  constructor(
    readonly name: string,
    private readonly options: MemoryClusterOptions = {},
  ) {
    const tokens = options.tokens;
    if (!tokens) return;
    if (tokens.certificateAuthority !== undefined) {
      this.certificateAuthority = tokens.certificateAuthority;
    }
    this.createToken = async (namespace, serviceAccount, request) => {
      const sa = { apiVersion: 'v1', kind: 'ServiceAccount' };
      await this.enter({ method: 'createToken', ...sa, namespace, name: serviceAccount });
      if (!this.peek(sa, namespace, serviceAccount)) {
        throw new ClusterError('NotFound', `serviceaccounts "${serviceAccount}" not found`, {
          status: 404,
        });
      }
      const expirationTimestamp = new Date(
        tokens.now() + request.expirationSeconds * 1000,
      ).toISOString();
      const token = `token-${this.issued.length + 1}-for-${namespace}-${serviceAccount}`;
      this.issued.push({ namespace, serviceAccount, ...request, token, expirationTimestamp });
      return { token, expirationTimestamp };
    };
  }

  // ---- test helpers (not counted as requests) ----

  /** Stores objects as they are, filling in uid/resourceVersion when missing. */
  seed(...objects: KubeObject[]): this {
    for (const object of objects) {
      const copy = structuredClone(object);
      copy.metadata.uid ??= `${this.name}-uid-${this.nextUid++}`;
      const { apiVersion, kind, metadata } = copy;
      const key = keyOf(apiVersion, kind, metadata.namespace, metadata.name);
      const type = this.store.has(key) ? 'MODIFIED' : 'ADDED';
      copy.metadata.resourceVersion = String(this.nextRv++);
      this.store.set(key, copy);
      this.logged(type, copy, Number(copy.metadata.resourceVersion));
    }
    return this;
  }

  /**
   * Replaces a stored object keeping its uid and resourceVersion: a state no apiserver makes (every
   * write gets a new resourceVersion), for tests that prove what relies on that.
   */
  tamper(object: KubeObject): void {
    const { apiVersion, kind, metadata } = object;
    const key = keyOf(apiVersion, kind, metadata.namespace, metadata.name);
    const stored = this.store.get(key);
    if (!stored)
      throw new Error(`tamper: no stored ${kind} ${metadata.namespace}/${metadata.name}`);
    const copy = structuredClone(object);
    copy.metadata.uid = stored.metadata.uid;
    copy.metadata.resourceVersion = stored.metadata.resourceVersion;
    this.store.set(key, copy);
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
    const key = keyOf(kind.apiVersion, kind.kind, namespace, name);
    const gone = this.store.get(key);
    this.store.delete(key);
    if (gone) this.logged('DELETED', gone, this.nextRv++);
  }

  /** Replaces an object directly, bumping its resourceVersion (a "concurrent" writer). */
  replace(object: KubeObject): void {
    const copy = structuredClone(object);
    copy.metadata.resourceVersion = String(this.nextRv++);
    const key = keyOf(copy.apiVersion, copy.kind, copy.metadata.namespace, copy.metadata.name);
    const type = this.store.has(key) ? 'MODIFIED' : 'ADDED';
    this.store.set(key, copy);
    this.logged(type, copy, Number(copy.metadata.resourceVersion));
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
      .filter(([, o]) => matchesFieldSelector(options.fieldSelector, o))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    let start = 0;
    if (options.continueToken) {
      const after = Buffer.from(options.continueToken, 'base64url').toString('utf8');
      start = all.findIndex(([key]) => key > after);
      if (start < 0) start = all.length;
    }
    const limit = options.limit && options.limit > 0 ? options.limit : all.length;
    const slice = all.slice(start, start + limit);
    const page: ListPage = {
      items: slice.map(([, o]) => structuredClone(o)),
      resourceVersion: this.currentResourceVersion(),
    };
    const last = slice.at(-1);
    if (last && start + limit < all.length) {
      page.continueToken = Buffer.from(last[0], 'utf8').toString('base64url');
    }
    // Like the HTTP client: a page longer than the caller takes is cut off, not returned.
    if (options.maxBytes !== undefined && JSON.stringify(page).length > options.maxBytes) {
      throw new ClusterError('TooLarge', `${kind.kind} list cut off at ${options.maxBytes} bytes`);
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

  async create(object: KubeObject, options: CreateOptions = {}): Promise<KubeObject> {
    const { apiVersion, kind, metadata } = object;
    const method = options.dryRun ? 'createDryRun' : 'create';
    await this.enter(objectCall(method, object, metadata.namespace, metadata.name));
    // A dry run's generated name, as the apiserver would make one.
    if (options.dryRun && !metadata.name && metadata.generateName)
      return structuredClone({
        ...object,
        metadata: { ...metadata, name: `${metadata.generateName}dry` },
      });
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
    this.logged('ADDED', stored, Number(stored.metadata.resourceVersion));
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
    this.logged('MODIFIED', stored, Number(stored.metadata.resourceVersion));
    return structuredClone(stored);
  }

  async delete(
    kind: KindRef,
    namespace: string | undefined,
    name: string,
    preconditions: DeletePreconditions,
    options?: DeleteOptions,
  ): Promise<void> {
    const { key, current } = await this.enterExisting('delete', kind, namespace, name);
    if (options) {
      // This delete's own call: concurrent requests may have been recorded after it.
      const call = this.calls.findLast(
        (c) =>
          c.method === 'delete' &&
          c.kind === kind.kind &&
          c.namespace === namespace &&
          c.name === name &&
          c.deleteOptions === undefined,
      );
      if (call) call.deleteOptions = options;
    }
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
    // As the apiserver does: a Pod bound to a node waits for its kubelet to confirm its end, unless
    // deleted with a grace period of 0 (or asked again with one).
    const grace = options?.gracePeriodSeconds ?? podGracePeriod(current);
    const bound =
      this.options.kubeletGrace === true &&
      kind.kind === 'Pod' &&
      isRecord(current.spec) &&
      Boolean(current.spec.nodeName);
    if (bound && grace !== undefined && grace > 0) {
      current.metadata.deletionTimestamp ??= new Date(0).toISOString();
      current.metadata.deletionGracePeriodSeconds = grace;
      current.metadata.resourceVersion = String(this.nextRv++);
      this.logged('MODIFIED', current, Number(current.metadata.resourceVersion));
      return;
    }
    this.store.delete(key);
    this.logged('DELETED', current, this.nextRv++);
  }

  /**
   * A WATCH from `options.resourceVersion` to a bookmark at the current resourceVersion: the
   * logged changes of `kind` after it. Too old (compacted out of the log) answers like the
   * apiserver's 410 ERROR event; a resourceVersion not yet reached, or one that does not parse,
   * fails too. Counted as a read.
   */
  async watchChanges(kind: KindRef, options: WatchOptions): Promise<WatchOutcome> {
    try {
      await this.enter({ method: 'watch', ...kind, namespace: undefined, name: undefined });
    } catch (error) {
      const status = error instanceof ClusterError ? error.status : undefined;
      return { resumed: false, reason: `the watch answered HTTP ${status ?? '?'}` };
    }
    const rv = /^[0-9]+$/.test(options.resourceVersion) ? Number(options.resourceVersion) : NaN;
    if (!Number.isFinite(rv))
      return { resumed: false, reason: 'the resourceVersion does not parse' };
    if (rv < this.compactedThrough) {
      return { resumed: false, reason: 'the watch answered ERROR 410 (too old resource version)' };
    }
    if (rv > this.nextRv - 1) {
      return {
        resumed: false,
        reason: 'the watch answered ERROR 504 (too large resource version)',
      };
    }
    const changes = this.log
      .filter((e) => e.rv > rv)
      .filter((e) => e.change.object.apiVersion === kind.apiVersion)
      .filter((e) => e.change.object.kind === kind.kind)
      .map((e) => structuredClone(e.change));
    const { take } = options;
    if (!take) return { resumed: true, changes, resourceVersion: this.currentResourceVersion() };
    // Streamed one by one, like the real client: the taker holds what it keeps.
    for (const change of changes) {
      const refused = take(change, JSON.stringify(change).length);
      if (refused !== undefined) return { resumed: false, reason: refused, bounded: true };
    }
    return { resumed: true, changes: [], resourceVersion: this.currentResourceVersion() };
  }

  /**
   * API discovery of every namespaced kind: `installedKinds` when given, else the kinds of the
   * objects stored, less `clusterScopedKinds`. Not counted, like {@link namespaced}.
   */
  async namespacedKinds(): Promise<KindRef[]> {
    const seen = new Map<string, KindRef>();
    for (const { apiVersion, kind } of this.options.installedKinds ?? [...this.store.values()])
      seen.set(`${apiVersion}/${kind}`, { apiVersion, kind });
    const scoped = this.options.clusterScopedKinds ?? [];
    return [...seen.values()].filter(
      (k) => !scoped.some((c) => c.apiVersion === k.apiVersion && c.kind === k.kind),
    );
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

  /**
   * A Pod's binding: sets `spec.nodeName` to the Binding's target, once (an already bound Pod is
   * a Conflict, as from the apiserver).
   */
  async bind(binding: KubeObject): Promise<void> {
    const { namespace, name } = binding.metadata;
    const pod = { apiVersion: 'v1', kind: 'Pod' };
    await this.enter(objectCall('bind', pod, namespace, name));
    const current = this.store.get(keyOf(pod.apiVersion, pod.kind, namespace, name));
    if (!current) throw new ClusterError('NotFound', `pods "${name}" not found`, { status: 404 });
    const spec = isRecord(current.spec) ? current.spec : {};
    const target = isRecord(binding.target) ? binding.target.name : undefined;
    if (typeof spec.nodeName === 'string' && spec.nodeName !== '') {
      throw new ClusterError(
        'Conflict',
        `Operation cannot be fulfilled on pods/binding "${name}": pod ${name} is already assigned to node "${spec.nodeName}"`,
        { status: 409 },
      );
    }
    current.spec = { ...spec, nodeName: target };
    // The apiserver copies the Binding's annotations to the Pod.
    const annotations = binding.metadata.annotations;
    if (annotations) {
      current.metadata.annotations = { ...current.metadata.annotations, ...annotations };
    }
    current.metadata.resourceVersion = String(this.nextRv++);
    this.logged('MODIFIED', current, Number(current.metadata.resourceVersion));
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
    this.logged('MODIFIED', current, Number(current.metadata.resourceVersion));
    return structuredClone(current);
  }
}
