/** Every built-in domain pack, one line each: `export { <name>Domain } from './<name>/index.js';` */
export {};
