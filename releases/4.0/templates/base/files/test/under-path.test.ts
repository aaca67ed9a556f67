import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { underPath } from '../src/http/under-path.js';

/** Which way underPath(prefix, router) sends a request for `path`: into the router, or past it. */
function routeOf(prefix: string, path: string): 'router' | 'next' | 'neither' {
  let taken: 'router' | 'next' | 'neither' = 'neither';
  const handler = underPath(prefix, () => {
    taken = 'router';
  });
  void handler({ path } as Request, {} as Response, () => {
    taken = 'next';
  });
  return taken;
}

describe('underPath', () => {
  it('hands the router the prefix itself and every path under it, in any case', () => {
    for (const path of ['/api/auth', '/api/auth/', '/api/auth/me', '/API/Auth/providers', '/api/auth/google/callback']) {
      expect(routeOf('/api/auth', path), path).toBe('router');
    }
  });

  it('sends every other path past the router without running it', () => {
    for (const path of ['/healthz', '/api', '/api/authx/me', '/api/organizations/1/members', '/x/api/auth/me']) {
      expect(routeOf('/api/auth', path), path).toBe('next');
    }
  });

  it('reads the prefix as a plain path, not a pattern', () => {
    expect(routeOf('/api/v1.0', '/api/v1.0/items')).toBe('router');
    expect(routeOf('/api/v1.0', '/api/v1x0/items')).toBe('next');
  });
});
