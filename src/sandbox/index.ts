export * from './types.js';
export * from '../base/process.js';
export * from './common.js';
export * from './rootfs.js';
export * from './docker.js';
export * from './host.js';
export * from './factory.js';
export * from './build-cache.js';
