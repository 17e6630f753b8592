/** The pure sync engine. Depends only on `lib/ports`. */
export * from './apply.js';
export * from './decisions.js';
export * from './errors.js';
export * from './gc.js';
export * from './label-selector.js';
export * from './metadata.js';
export * from './naming.js';
export * from './pass.js';
export * from './policy.js';
export * from './reverse-mapping.js';
export * from './transform.js';
