/**
 * A local AWS Lambda endpoint speaking the service's Invoke wire protocol (restJson1:
 * `POST /2015-03-31/functions/<FunctionName>/invocations`, `X-Amz-Invocation-Type`, the payload as
 * the body): an `Event` invocation is answered 202 with no body, as Lambda queues it. Point an SDK
 * at it with `AWS_ENDPOINT_URL_LAMBDA=<url>`; it records every invocation and runs nothing.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LambdaInvocation {
  functionName: string;
  invocationType: string | undefined;
  /** The payload, parsed as JSON. */
  payload: unknown;
  /** The `Authorization` header (SigV4 from the SDK). */
  authorization: string | undefined;
}

export interface LambdaInvokeEndpoint {
  url: string;
  invocations: LambdaInvocation[];
  /** Functions that exist (others answer ResourceNotFoundException, as Lambda does). */
  functions: Set<string>;
  close(): Promise<void>;
}

const PATH = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/;

function fail(res: ServerResponse, status: number, type: string, message: string): void {
  const body = JSON.stringify({ Type: 'User', message });
  res.writeHead(status, {
    'content-type': 'application/json',
    'x-amzn-errortype': type,
    'x-amzn-requestid': randomUUID(),
  });
  res.end(body);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Starts the endpoint on a free loopback port, knowing `functions`. */
export async function startLambdaInvokeEndpoint(
  functions: string[],
): Promise<LambdaInvokeEndpoint> {
  const invocations: LambdaInvocation[] = [];
  const known = new Set(functions);
  const server = createServer((req, res) => {
    void (async () => {
      const match = PATH.exec((req.url ?? '').split('?')[0] ?? '');
      const text = await readBody(req);
      if (req.method !== 'POST' || !match?.[1])
        return fail(
          res,
          404,
          'UnknownOperationException',
          'POST /2015-03-31/functions/<name>/invocations expected',
        );
      const functionName = decodeURIComponent(match[1]);
      if (!known.has(functionName))
        return fail(res, 404, 'ResourceNotFoundException', `Function not found: ${functionName}`);
      const invocationType = req.headers['x-amz-invocation-type'] as string | undefined;
      invocations.push({
        functionName,
        invocationType,
        payload: text === '' ? undefined : (JSON.parse(text) as unknown),
        authorization: req.headers.authorization,
      });
      if (invocationType !== 'Event')
        return fail(res, 400, 'InvalidParameterValueException', 'only Event invocations here');
      res.writeHead(202, { 'x-amzn-requestid': randomUUID(), 'content-length': '0' });
      res.end();
    })().catch((cause: unknown) => {
      fail(res, 500, 'ServiceException', cause instanceof Error ? cause.message : 'failed');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    invocations,
    functions: known,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
