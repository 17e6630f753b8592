/**
 * A small in-memory ClusterApi for the adapters' unit tests: create-only creates, resourceVersion
 * checks on update, uid preconditions on delete, request counting, and injectable failures.
 */
import {
  type ClusterApi,
  ClusterError,
  ClusterErrorReason,
  type DeletePreconditions,
  type KindRef,
  type KubeObject,
  type ListOptions,
  type ListPage,
  type RequestCount,
} from '../../../lib/ports/index.js';

export type Operation = 'list' | 'get' | 'create' | 'update' | 'delete' | 'patchStatus';

export class InMemoryCluster implements ClusterApi {
  readonly objects = new Map<string, KubeObject>();
  readonly calls: { op: Operation; key: string }[] = [];
  private counts: RequestCount = { reads: 0, writes: 0 };
  private nextId = 1;
  /** Return an error to make the call fail. */
  failWith: ((op: Operation, key: string) => Error | undefined) | undefined;

  static key(kind: KindRef, namespace: string | undefined, name: string): string {
    return `${kind.apiVersion}/${kind.kind}/${namespace ?? ''}/${name}`;
  }

  /** Objects of a kind, deep copies. */
  all(kind: KindRef): KubeObject[] {
    return [...this.objects.values()]
      .filter((o) => o.apiVersion === kind.apiVersion && o.kind === kind.kind)
      .map((o) => structuredClone(o));
  }

  /** Seeds an object as if it existed (no request counted). */
  seed(object: KubeObject): KubeObject {
    const stored = structuredClone(object);
    stored.metadata.uid ??= `uid-${this.nextId++}`;
    stored.metadata.resourceVersion = String(this.nextId++);
    this.objects.set(this.keyOf(stored), stored);
    return structuredClone(stored);
  }

  requestCount(): RequestCount {
    return { ...this.counts };
  }

  private keyOf(o: KubeObject): string {
    return InMemoryCluster.key(o, o.metadata.namespace, o.metadata.name);
  }

  private enter(op: Operation, key: string): void {
    this.calls.push({ op, key });
    if (op === 'list' || op === 'get') this.counts.reads += 1;
    else this.counts.writes += 1;
    const failure = this.failWith?.(op, key);
    if (failure) throw failure;
  }

  async list(kind: KindRef, options: ListOptions = {}): Promise<ListPage> {
    this.enter('list', `${kind.apiVersion}/${kind.kind}`);
    const items = this.all(kind).filter(
      (o) => options.namespace === undefined || o.metadata.namespace === options.namespace,
    );
    return { items };
  }

  async get(kind: KindRef, namespace: string | undefined, name: string) {
    const key = InMemoryCluster.key(kind, namespace, name);
    this.enter('get', key);
    const found = this.objects.get(key);
    return found ? structuredClone(found) : undefined;
  }

  async create(object: KubeObject): Promise<KubeObject> {
    const key = this.keyOf(object);
    this.enter('create', key);
    if (this.objects.has(key)) {
      throw new ClusterError(ClusterErrorReason.AlreadyExists, `${key} already exists`, {
        status: 409,
      });
    }
    const stored = structuredClone(object);
    stored.metadata.uid = `uid-${this.nextId++}`;
    stored.metadata.resourceVersion = String(this.nextId++);
    this.objects.set(key, stored);
    return structuredClone(stored);
  }

  async update(object: KubeObject): Promise<KubeObject> {
    const key = this.keyOf(object);
    this.enter('update', key);
    const existing = this.objects.get(key);
    if (!existing) throw new ClusterError(ClusterErrorReason.NotFound, `${key} not found`);
    if (existing.metadata.resourceVersion !== object.metadata.resourceVersion) {
      throw new ClusterError(ClusterErrorReason.Conflict, `${key} was modified`, { status: 409 });
    }
    const stored = structuredClone(object);
    stored.metadata.uid = existing.metadata.uid;
    stored.metadata.resourceVersion = String(this.nextId++);
    this.objects.set(key, stored);
    return structuredClone(stored);
  }

  async delete(
    kind: KindRef,
    namespace: string | undefined,
    name: string,
    preconditions: DeletePreconditions,
  ): Promise<void> {
    const key = InMemoryCluster.key(kind, namespace, name);
    this.enter('delete', key);
    const existing = this.objects.get(key);
    if (!existing) throw new ClusterError(ClusterErrorReason.NotFound, `${key} not found`);
    if (existing.metadata.uid !== preconditions.uid) {
      throw new ClusterError(ClusterErrorReason.Conflict, 'Precondition failed: UID', {
        status: 409,
      });
    }
    this.objects.delete(key);
  }

  async patchStatus(
    kind: KindRef,
    namespace: string | undefined,
    name: string,
    status: Record<string, unknown>,
  ): Promise<KubeObject> {
    const key = InMemoryCluster.key(kind, namespace, name);
    this.enter('patchStatus', key);
    const existing = this.objects.get(key);
    if (!existing) throw new ClusterError(ClusterErrorReason.NotFound, `${key} not found`);
    existing.status = { ...((existing.status as object) ?? {}), ...status };
    existing.metadata.resourceVersion = String(this.nextId++);
    return structuredClone(existing);
  }
}
