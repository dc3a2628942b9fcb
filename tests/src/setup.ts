import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { notifications } from '@mantine/notifications';
import * as React from 'react';
import { afterEach, vi } from 'vitest';

// findBy*/waitFor give up after 1 s by default; a lazily loaded page on a loaded 2-core CI
// machine (server tests run beside the view tests) can take longer than that to appear.
configure({ asyncUtilTimeout: 10_000 });

// React 19's development build records an owner stack for each element it creates (an Error
// with its stack trace, and a console task), for at most 10,000 elements a second. In these tests
// that was about a sixth of their CPU time (jsx() was the costliest function of a profiled file), and
// nothing reads those stacks here: React's warnings still print, without the owner frames.
// The counter always reads as past the limit, so React takes its shared 'unknown owner' stack.
const reactInternals = (React as unknown as Record<string, object>).__CLIENT_INTERNALS_DO_NOT_USE_OR_WARN_USERS_THEY_CANNOT_UPGRADE;
if (reactInternals) Object.defineProperty(reactInternals, 'recentlyCreatedOwnerStacks', { get: () => Infinity, set: () => {}, configurable: true });

// Mantine reads media queries (colour scheme, breakpoints) and observes element sizes.
Object.defineProperty(window, 'matchMedia', {
  writable: true,
  value: vi.fn((query: string) => ({
    matches: false,
    media: query,
    onchange: null,
    addListener: vi.fn(),
    removeListener: vi.fn(),
    addEventListener: vi.fn(),
    removeEventListener: vi.fn(),
    dispatchEvent: vi.fn(),
  })),
});

class ResizeObserverStub {
  observe(): void {}
  unobserve(): void {}
  disconnect(): void {}
}
window.ResizeObserver = ResizeObserverStub;

// jsdom lacks these; Mantine's ScrollArea and Combobox call them.
window.HTMLElement.prototype.scrollIntoView = function scrollIntoView() {};
window.scrollTo = () => {};

afterEach(() => {
  cleanup();
  notifications.clean();
  window.localStorage.clear();
  document.documentElement.removeAttribute('data-mantine-color-scheme');
});
