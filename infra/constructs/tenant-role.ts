/**
 * The execution role of one tenant's sync function, least privilege and inline (one resource):
 * read its two secrets (decrypting them with the secrets' KMS key through Secrets Manager only),
 * write its own log group, send its failed events to the dead-letter queue, and, in a VPC, the
 * network interfaces Lambda attaches for it.
 */
import { ArnFormat, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';

/**
 * The IAM resource for a secret id: a name becomes a partial ARN with the `-??????` suffix
 * Secrets Manager appends to names; a full ARN is used as is.
 */
export function secretResourceArn(scope: Construct, secretId: string): string {
  if (secretId.startsWith('arn:')) return secretId;
  return Stack.of(scope).formatArn({
    service: 'secretsmanager',
    resource: 'secret',
    resourceName: `${secretId}-??????`,
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });
}

export interface TenantRoleProps {
  tenant: string;
  /** The kubeconfig secrets it reads (none for clusters on EKS). */
  secretIds: string[];
  /** Statements of the ways it reaches its clusters (DescribeCluster on an EKS cluster). */
  extraStatements?: iam.PolicyStatement[];
  logGroup: logs.ILogGroup;
  /** The key the secrets are encrypted with, when it is a customer managed key. */
  kmsKeyArn?: string | undefined;
  /** Where Lambda sends an asynchronous event it gave up on (unset: no destination). */
  deadLetterQueueArn?: string | undefined;
  /** The function runs in a VPC: it needs to manage its network interfaces. */
  inVpc: boolean;
}

/**
 * The network interface actions Lambda needs from a VPC function's role (the AWS managed
 * AWSLambdaVPCAccessExecutionRole, without its logs:* on every resource). Create, delete and
 * the address assignments are scoped to EC2 resources of this account and region; the two
 * Describe actions support no resource-level permission at all.
 */
function vpcStatements(scope: Construct): iam.PolicyStatement[] {
  const ec2Resources = Stack.of(scope).formatArn({
    service: 'ec2',
    resource: '*',
    resourceName: '*',
  });
  return [
    new iam.PolicyStatement({
      sid: 'ManageVpcNetworkInterfaces',
      actions: [
        'ec2:CreateNetworkInterface',
        'ec2:DeleteNetworkInterface',
        'ec2:AssignPrivateIpAddresses',
        'ec2:UnassignPrivateIpAddresses',
      ],
      resources: [ec2Resources],
    }),
    new iam.PolicyStatement({
      sid: 'DescribeVpcNetworkInterfaces',
      actions: ['ec2:DescribeNetworkInterfaces', 'ec2:DescribeSubnets'],
      resources: ['*'],
    }),
  ];
}

export function tenantRole(scope: Construct, id: string, props: TenantRoleProps): iam.Role {
  const statements = [
    ...(props.secretIds.length === 0
      ? []
      : [
          new iam.PolicyStatement({
            sid: 'ReadKubeconfigSecrets',
            actions: ['secretsmanager:GetSecretValue'],
            resources: props.secretIds.map((secretId) => secretResourceArn(scope, secretId)),
          }),
        ]),
    ...(props.extraStatements ?? []),
    new iam.PolicyStatement({
      sid: 'WriteOwnLogs',
      actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
      resources: [props.logGroup.logGroupArn],
    }),
  ];
  if (props.kmsKeyArn)
    statements.push(
      new iam.PolicyStatement({
        sid: 'DecryptSecretsThroughSecretsManager',
        actions: ['kms:Decrypt'],
        resources: [props.kmsKeyArn],
        conditions: {
          StringEquals: {
            'kms:ViaService': `secretsmanager.${Stack.of(scope).region}.amazonaws.com`,
          },
        },
      }),
    );
  if (props.deadLetterQueueArn)
    statements.push(
      new iam.PolicyStatement({
        sid: 'SendFailedEventsToDeadLetterQueue',
        actions: ['sqs:SendMessage'],
        resources: [props.deadLetterQueueArn],
      }),
    );
  if (props.inVpc) statements.push(...vpcStatements(scope));
  const role = new iam.Role(scope, id, {
    assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    description: `tenantplane sync of tenant ${props.tenant}`,
    inlinePolicies: { sync: new iam.PolicyDocument({ statements }) },
  });
  if (props.inVpc) {
    const reason =
      'A VPC function needs ec2:DescribeNetworkInterfaces and ec2:DescribeSubnets, which support no resource-level permission, and manages network interfaces whose ids Lambda picks at run time (scoped to EC2 resources of this account and region).';
    Validations.of(role).acknowledge(
      { id: 'AwsSolutions-IAM5[Resource::*]', reason },
      {
        id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ec2:<AWS::Region>:<AWS::AccountId>:*/*]',
        reason,
      },
    );
  }
  return role;
}
