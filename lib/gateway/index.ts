/** The kubelet gateway: its public surface for the CLI and the local control plane. */
export { GatewayConfigError, type GatewayTenant, loadGatewayTenants } from './config.js';
export { createGateway, type Gateway, type GatewayOptions } from './server.js';
export { DEFAULT_LIMITS, type StreamCounts, type StreamLimits } from './streams.js';
