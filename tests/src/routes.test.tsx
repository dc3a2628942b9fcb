import { renderHook, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { useRouter } from 'wouter';
import { findRoute, routes } from '../../src/routes';
import { defaultFakeApi, fullAccessUser, renderApp } from './renderApp';

/** A concrete path for a route pattern: each ':param' becomes a sample value. */
function samplePath(pattern: string): string {
  return pattern.replace(/:(\w+)/g, (_, name: string) => `sample-${name}`);
}

/** Every path of both specification documents, with the pattern that must serve it. */
const specPaths: [path: string, pattern: string][] = [
  ['/', '/'],
  ['/sign_in', '/sign_in'],
  ['/sign_up', '/sign_up'],
  ['/reset_password', '/reset_password'],
  ['/reset_password/abc123', '/reset_password/:token'],
  ['/invitation/abc123', '/invitation/:token'],
  ['/sign_in_via_token/eyJhbGciOi', '/sign_in_via_token/:jwtToken'],
  ['/reports/library', '/reports/library'],
  ['/reports/shared/s3cr3t', '/reports/shared/:secret'],
  ['/reports/group/s3cr3t', '/reports/group/:secret'],
  ['/reports/s3cr3t', '/reports/:secret'],
  ['/reports/s3cr3t/new-section', '/reports/:secret/new-section'],
  ['/reports/s3cr3t/new-section/17', '/reports/:secret/new-section/:sectionId'],
  ['/demo/s3cr3t', '/demo/:secret'],
  ['/explore/4/9/2024-03-01', '/explore/:sectionId/:segmentId/:date'],
  ['/settings', '/settings'],
  ['/users', '/users'],
  ['/customers', '/customers'],
  ['/customers/42', '/customers/:customerId'],
  ['/subscriptions', '/subscriptions'],
  ['/payments', '/payments'],
  ['/invoices', '/invoices'],
  ['/import-segments', '/import-segments'],
  ['/import-subscriptions', '/import-subscriptions'],
  ['/costs', '/costs'],
  ['/getting-started', '/getting-started'],
];

/** wouter's default path parser, as the app's router uses it. */
const parse = renderHook(() => useRouter().parser).result.current;

describe('route table', () => {
  it.each(specPaths)('serves %s with the %s route', (path, pattern) => {
    expect(findRoute(parse, path)?.path).toBe(pattern);
  });

  it('has one entry per pattern', () => {
    const patterns = routes.map((route) => route.path);
    expect(new Set(patterns).size).toBe(patterns.length);
  });

  it('puts exactly the six sign-in area routes outside the app shell', () => {
    const signInArea = routes.filter((route) => route.area === 'signIn').map((route) => route.path);
    expect(signInArea.sort()).toEqual(
      ['/invitation/:token', '/reset_password', '/reset_password/:token', '/sign_in', '/sign_in_via_token/:jwtToken', '/sign_up'].sort(),
    );
  });

  it('keeps the shared, group and demo report routes public', () => {
    for (const path of ['/reports/shared/:secret', '/reports/group/:secret', '/demo/:secret']) {
      expect(routes.find((route) => route.path === path)?.access).toBe('public');
    }
  });
});

describe('every route renders a page', () => {
  it.each(routes.map((route) => [route.path, route] as const))('%s shows a heading, never a blank page', async (_, route) => {
    const api = defaultFakeApi();
    // The token page's check stays in flight, so the page (not where it leads) is what renders.
    api.hold('GET /users/me');
    renderApp({ path: samplePath(route.path), user: fullAccessUser, api });

    const heading = await screen.findByRole('heading', { level: 1 });
    expect(heading).toHaveTextContent(/\S/);
    expect(document.title).toBe(`${route.title} · Subscope`);

    if (route.area === 'signIn') {
      expect(screen.queryByRole('banner')).not.toBeInTheDocument();
    } else {
      // The app shell's header comes first; a drawer open over the page (a customer at
      // /customers/:customerId) has a header of its own, portalled after it.
      expect(within(screen.getAllByRole('banner')[0] as HTMLElement).getByRole('link', { name: /Subscope/ })).toHaveAttribute('href', '/');
    }
  });

  it('shows the sign-in placeholder with links to sign up and reset', async () => {
    renderApp({ path: '/sign_in' });

    expect(await screen.findByRole('heading', { level: 1, name: 'Sign in' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Create an account' })).toHaveAttribute('href', '/sign_up');
    expect(screen.getByRole('link', { name: 'Forgot your password?' })).toHaveAttribute('href', '/reset_password');
  });

  it('tells adding a section from editing one', async () => {
    renderApp({ path: '/reports/abc/new-section/12', user: fullAccessUser });
    expect(await screen.findByRole('heading', { level: 1, name: 'Edit section calculation' })).toBeInTheDocument();
  });
});

describe('unknown paths', () => {
  it.each(['/nope', '/reports', '/customers/1/extra', '/settings/unknown'])('%s shows the 404 page inside the shell', async (path) => {
    renderApp({ path, user: fullAccessUser });

    expect(await screen.findByRole('heading', { level: 1, name: 'Page not found' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to reports' })).toHaveAttribute('href', '/');
    expect(screen.getByRole('banner')).toBeInTheDocument();
    expect(document.title).toBe('Page not found · Subscope');
  });
});
