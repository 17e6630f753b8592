export * from './clock.js';
export * from './cluster.js';
export * from './decisions.js';
export * from './errors.js';
export * from './kinds.js';
export * from './kubeconfig.js';
export * from './request-deadline.js';
