import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MantineProvider } from '@mantine/core';
import { useState } from 'react';
import type { ReactNode } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AppErrorBoundary, SectionErrorBoundary } from '../../src/components/ErrorBoundary';

function Broken(): ReactNode {
  throw new Error('chart config is invalid');
}

function renderInTheme(ui: ReactNode) {
  return render(<MantineProvider env="test">{ui}</MantineProvider>);
}

beforeEach(() => {
  // React reports caught render errors on the console; keep the test output readable.
  vi.spyOn(console, 'error').mockImplementation(() => {});
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('SectionErrorBoundary', () => {
  it('shows the exact message when a section throws, and the other sections still render', () => {
    renderInTheme(
      <>
        <SectionErrorBoundary>
          <Broken />
        </SectionErrorBoundary>
        <SectionErrorBoundary>
          <p>MRR section</p>
        </SectionErrorBoundary>
      </>,
    );

    expect(screen.getByRole('alert')).toHaveTextContent(/^Something went wrong and we could not render this section$/);
    expect(screen.getByText('MRR section')).toBeInTheDocument();
  });

  it('renders its children when nothing throws', () => {
    renderInTheme(
      <SectionErrorBoundary>
        <p>Churn section</p>
      </SectionErrorBoundary>,
    );
    expect(screen.getByText('Churn section')).toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });
});

describe('AppErrorBoundary', () => {
  it('shows a friendly message with a reload button instead of a blank screen', () => {
    renderInTheme(
      <AppErrorBoundary>
        <Broken />
      </AppErrorBoundary>,
    );

    expect(screen.getByRole('heading', { name: 'Something went wrong' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Reload page' })).toBeInTheDocument();
  });

  it('renders the page again after "Try again" once the problem is gone', async () => {
    const user = userEvent.setup({ delay: null });
    function Flaky({ fail }: { fail: boolean }) {
      if (fail) throw new Error('flaky');
      return <p>Recovered</p>;
    }
    function Harness() {
      const [fail, setFail] = useState(true);
      return (
        <>
          <button type="button" onClick={() => setFail(false)}>
            Fix it
          </button>
          <AppErrorBoundary>
            <Flaky fail={fail} />
          </AppErrorBoundary>
        </>
      );
    }
    renderInTheme(<Harness />);

    await user.click(screen.getByRole('button', { name: 'Fix it' }));
    await user.click(screen.getByRole('button', { name: 'Try again' }));

    expect(screen.getByText('Recovered')).toBeInTheDocument();
  });

  it('forgets the error when its reset key (the path) changes', () => {
    const { rerender } = renderInTheme(
      <AppErrorBoundary resetKey="/customers">
        <Broken />
      </AppErrorBoundary>,
    );
    expect(screen.getByRole('heading', { name: 'Something went wrong' })).toBeInTheDocument();

    rerender(
      <MantineProvider env="test">
        <AppErrorBoundary resetKey="/costs">
          <p>Costs page</p>
        </AppErrorBoundary>
      </MantineProvider>,
    );
    expect(screen.getByText('Costs page')).toBeInTheDocument();
  });
});
