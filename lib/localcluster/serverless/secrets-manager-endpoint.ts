/**
 * A local AWS Secrets Manager endpoint speaking the service's JSON wire protocol (awsJson1_1:
 * `POST /`, `X-Amz-Target: secretsmanager.<Operation>`, a JSON body), enough for
 * `GetSecretValue`, `PutSecretValue` and `CreateSecret` (with its tags and KMS key id). Point an SDK at it with `AWS_ENDPOINT_URL_SECRETS_MANAGER=<url>` (and any
 * credentials and region); it records every request it answers.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const JSON_1_1 = 'application/x-amz-json-1.1';
const REGION = 'eu-west-1';
const ACCOUNT = '123456789012';

export interface SecretsManagerRequest {
  /** The `X-Amz-Target` header, e.g. `secretsmanager.GetSecretValue`. */
  target: string;
  /** `SecretId` of the request body. */
  secretId: string | undefined;
  /** The `Authorization` header (SigV4 from the SDK). */
  authorization: string | undefined;
  contentType: string | undefined;
}

export interface SecretsManagerEndpoint {
  /** `http://127.0.0.1:<port>` */
  url: string;
  requests: SecretsManagerRequest[];
  /** Sets (or replaces) a secret's `SecretString`. */
  putSecret(id: string, secretString: string): void;
  /** A secret's current `SecretString`, as stored. */
  secretString(id: string): string | undefined;
  /** What `CreateSecret` was given besides the value, per secret name. */
  created: Map<string, { tags: unknown; kmsKeyId: unknown; description: unknown }>;
  deleteSecret(id: string): void;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, body: Record<string, unknown>): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': JSON_1_1,
    'content-length': Buffer.byteLength(text),
    'x-amzn-requestid': randomUUID(),
  });
  res.end(text);
}

function error(res: ServerResponse, status: number, type: string, message: string): void {
  send(res, status, { __type: type, message });
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Starts the endpoint on a free loopback port with `secrets` (id or name -> SecretString). */
export async function startSecretsManagerEndpoint(
  secrets: Record<string, string> = {},
): Promise<SecretsManagerEndpoint> {
  const store = new Map(Object.entries(secrets));
  const requests: SecretsManagerRequest[] = [];
  const created: SecretsManagerEndpoint['created'] = new Map();
  const arnOf = (id: string) =>
    `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:${id.startsWith('arn:') ? id.split(':').pop() : id}-AbCdEf`;

  const server = createServer((req, res) => {
    void (async () => {
      const target = String(req.headers['x-amz-target'] ?? '');
      const text = await readBody(req);
      let body: Record<string, unknown> = {};
      try {
        body = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
      } catch {
        return error(res, 400, 'SerializationException', 'the request body is not JSON');
      }
      const secretId = typeof body.SecretId === 'string' ? body.SecretId : undefined;
      requests.push({
        target,
        secretId,
        authorization: req.headers.authorization,
        contentType: req.headers['content-type'],
      });
      if (req.method !== 'POST' || req.url !== '/')
        return error(res, 404, 'UnknownOperationException', 'POST / expected');
      if (target === 'secretsmanager.CreateSecret') {
        const name = typeof body.Name === 'string' ? body.Name : undefined;
        if (name === undefined || typeof body.SecretString !== 'string')
          return error(res, 400, 'InvalidParameterException', 'Name and SecretString are required');
        if (store.has(name))
          return error(res, 400, 'ResourceExistsException', `the secret ${name} already exists`);
        store.set(name, body.SecretString);
        created.set(name, {
          tags: body.Tags,
          kmsKeyId: body.KmsKeyId,
          description: body.Description,
        });
        return send(res, 200, { ARN: arnOf(name), Name: name, VersionId: randomUUID() });
      }
      if (target === 'secretsmanager.PutSecretValue') {
        if (secretId === undefined || typeof body.SecretString !== 'string')
          return error(
            res,
            400,
            'InvalidParameterException',
            'SecretId and SecretString are required',
          );
        if (!store.has(secretId))
          return error(
            res,
            400,
            'ResourceNotFoundException',
            "Secrets Manager can't find the specified secret.",
          );
        store.set(secretId, body.SecretString);
        return send(res, 200, { ARN: arnOf(secretId), Name: secretId, VersionId: randomUUID() });
      }
      if (target !== 'secretsmanager.GetSecretValue')
        return error(res, 400, 'UnknownOperationException', `unsupported target ${target}`);
      if (secretId === undefined)
        return error(res, 400, 'InvalidParameterException', 'SecretId is required');
      const value = store.get(secretId);
      if (value === undefined)
        return error(
          res,
          400,
          'ResourceNotFoundException',
          "Secrets Manager can't find the specified secret.",
        );
      const name = secretId.startsWith('arn:') ? secretId.split(':').pop()! : secretId;
      return send(res, 200, {
        ARN: `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:${name}-AbCdEf`,
        Name: name,
        VersionId: '00000000-0000-4000-8000-000000000001',
        SecretString: value,
        VersionStages: ['AWSCURRENT'],
        CreatedDate: 1_767_225_600,
      });
    })().catch((cause: unknown) => {
      error(res, 500, 'InternalServiceError', cause instanceof Error ? cause.message : 'failed');
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    putSecret: (id, secretString) => store.set(id, secretString),
    secretString: (id) => store.get(id),
    created,
    deleteSecret: (id) => store.delete(id),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
