import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { notifications } from '@mantine/notifications';
import { afterEach, vi } from 'vitest';

// findBy*/waitFor give up after 1 s by default; a lazily loaded page on a loaded 2-core CI
// machine (server tests run beside the view tests) can take longer than that to appear.
configure({ asyncUtilTimeout: 10_000 });

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
