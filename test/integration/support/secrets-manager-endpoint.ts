/** The local Secrets Manager endpoint lives with the local plane, which `local:serverless` runs on. */
export {
  type SecretsManagerEndpoint,
  type SecretsManagerRequest,
  startSecretsManagerEndpoint,
} from '../../../lib/localcluster/serverless/secrets-manager-endpoint.js';
