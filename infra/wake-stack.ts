/**
 * The wake stack (docs/wake.md), made when a tenant is woken: ONE wake function for the
 * deployment behind a Lambda function URL, one generated token secret per woken tenant, and the
 * grants: read those token secrets, invoke those tenants' sync functions, nothing else.
 *
 * The function URL's auth type is NONE on purpose: the caller is a tenant's kube-apiserver, whose
 * audit webhook can present a bearer token but cannot sign AWS requests (IAM auth). The function
 * authenticates each request itself, with the tenant's token compared in constant time, and
 * answers 401/403 before it does anything else (lib/wake).
 */
import {
  ArnFormat,
  CfnOutput,
  Duration,
  RemovalPolicy,
  Stack,
  type StackProps,
  Validations,
} from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import {
  encodeWokenTenants,
  WAKE_SERVICE_NAME,
  WakeEnv,
  wakeSecretPrefix,
} from '../functions/wake/contract.js';
import { BUNDLE_HANDLER } from './bundle.js';
import type { TenantsConfig } from './config.js';
import { isWoken, wokenTenantTable } from './config-wake.js';
import { NODEJS_24 } from './constructs/tenant-sync-function.js';
import { functionNameFor, staged } from './names.js';

export const WAKE_STACK_NAME = 'TenantplaneWake';
/** The stack output holding the wake function's URL (`tenantplane wake-config --url`). */
export const WAKE_URL_OUTPUT = 'WakeUrl';

/** The wake function's timeout: a token read and an async invoke, well under a second warm. */
export const WAKE_TIMEOUT_SECONDS = 10;
export const WAKE_MEMORY_MIB = 256;

/** `[<stage>-]tenantplane-wake` */
export const wakeFunctionNameFor = (stage?: string): string => staged('tenantplane-wake', stage);
/** `[/<stage>]/tenantplane/wake` */
export const wakeLogGroupNameFor = (stage?: string): string =>
  `${stage ? `/${stage}` : ''}/tenantplane/wake`;

export interface WakeStackProps extends StackProps {
  config: TenantsConfig;
  /** Directory of the wake function's bundle (infra/bundle.ts, `bundleWakeHandler`). */
  bundleDir: string;
}

export class WakeStack extends Stack {
  readonly function: lambda.Function;
  readonly url: lambda.FunctionUrl;
  /** The token secret of each woken tenant. */
  readonly tokens = new Map<string, secretsmanager.Secret>();

  constructor(scope: Construct, id: string, props: WakeStackProps) {
    super(scope, id, {
      description:
        'tenantplane: the wake function, its URL and the wake token of each woken tenant',
      ...props,
    });
    const { global, tenants } = props.config;
    const { stage } = global;
    const woken = tenants.filter(isWoken);
    const prefix = wakeSecretPrefix(stage);
    const key = global.kmsKeyArn ? kms.Key.fromKeyArn(this, 'Key', global.kmsKeyArn) : undefined;

    for (const tenant of woken) {
      const secret = new secretsmanager.Secret(this, `Token-${tenant.name}`, {
        secretName: `${prefix}${tenant.name}`,
        description: `tenantplane: the wake token of tenant ${tenant.name} (its audit webhook's bearer token)`,
        // Letters and digits only: a bearer token of visible ASCII with nothing to escape.
        generateSecretString: { passwordLength: 48, excludePunctuation: true, includeSpace: false },
        ...(key ? { encryptionKey: key } : {}),
        removalPolicy: RemovalPolicy.DESTROY,
      });
      Validations.of(secret).acknowledge({
        id: 'AwsSolutions-SMG4',
        reason: `The wake token of tenant ${tenant.name} is also in its kube-apiserver's audit webhook kubeconfig, which no rotation Lambda can update; rotate it by hand (docs/wake.md: put a new value, hand out the new kubeconfig), a missed wake only waits for the schedule.`,
      });
      this.tokens.set(tenant.name, secret);
    }

    const logGroup = new logs.LogGroup(this, 'Logs', {
      logGroupName: wakeLogGroupNameFor(stage),
      retention: global.logRetentionDays as logs.RetentionDays,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const statements = [
      new iam.PolicyStatement({
        sid: 'ReadWakeTokens',
        actions: ['secretsmanager:GetSecretValue'],
        resources: [...this.tokens.values()].map((s) => s.secretArn),
      }),
      new iam.PolicyStatement({
        sid: 'InvokeWokenTenants',
        actions: ['lambda:InvokeFunction'],
        resources: woken.map((t) =>
          this.formatArn({
            service: 'lambda',
            resource: 'function',
            resourceName: functionNameFor(t.name, stage),
            arnFormat: ArnFormat.COLON_RESOURCE_NAME,
          }),
        ),
      }),
      new iam.PolicyStatement({
        sid: 'WriteOwnLogs',
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [logGroup.logGroupArn],
      }),
    ];
    if (global.kmsKeyArn)
      statements.push(
        new iam.PolicyStatement({
          sid: 'DecryptTokensThroughSecretsManager',
          actions: ['kms:Decrypt'],
          resources: [global.kmsKeyArn],
          conditions: {
            StringEquals: { 'kms:ViaService': `secretsmanager.${this.region}.amazonaws.com` },
          },
        }),
      );
    const role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: 'tenantplane wake: reads the wake tokens, invokes the woken tenants',
      inlinePolicies: { wake: new iam.PolicyDocument({ statements }) },
    });

    const environment: Record<string, string> = {
      [WakeEnv.Tenants]: encodeWokenTenants(wokenTenantTable(tenants, stage)),
      [WakeEnv.FunctionStem]: staged('tenantplane-sync', stage),
      [WakeEnv.SecretPrefix]: prefix,
      POWERTOOLS_SERVICE_NAME: WAKE_SERVICE_NAME,
      NODE_OPTIONS: '--enable-source-maps',
    };
    if (global.wake?.maxBodyBytes !== undefined)
      environment[WakeEnv.MaxBodyBytes] = String(global.wake.maxBodyBytes);
    if (global.logLevel) environment.POWERTOOLS_LOG_LEVEL = global.logLevel;

    this.function = new lambda.Function(this, 'Function', {
      functionName: wakeFunctionNameFor(stage),
      description: 'tenantplane: wakes a tenant sync function when its apiserver reports a write',
      runtime: NODEJS_24,
      architecture: lambda.Architecture.ARM_64,
      memorySize: WAKE_MEMORY_MIB,
      timeout: Duration.seconds(WAKE_TIMEOUT_SECONDS),
      code: lambda.Code.fromAsset(props.bundleDir),
      handler: BUNDLE_HANDLER,
      role,
      logGroup,
      loggingFormat: lambda.LoggingFormat.JSON,
      environment,
    });
    this.url = this.function.addFunctionUrl({ authType: lambda.FunctionUrlAuthType.NONE });
    new CfnOutput(this, WAKE_URL_OUTPUT, {
      value: this.url.url,
      description: 'The wake URL: tenantplane wake-config <tenant> --url <this>',
    });
  }
}
