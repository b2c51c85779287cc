import { z } from 'zod';

/**
 * A bearer token (`Authorization: Bearer <token>`): the HTTP MCP server's and the policy server's admin routes'.
 * Printable ASCII without spaces, at least 16 characters; the generated ones are 32 random bytes, base64url.
 */
export const BearerToken = z
  .string()
  .min(16, 'a bearer token needs at least 16 characters')
  .regex(/^[\x21-\x7e]+$/, 'a bearer token is printable ASCII without spaces');
export type BearerToken = z.infer<typeof BearerToken>;
