export { VERSION } from '../base/version.js';
