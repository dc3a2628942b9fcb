import { act, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { connectionNotices } from '../../../src/cable/connectionNotice';
import { renderWithProviders } from '../renderApp';

/** The spec: a connection-lost notice on a live-channel disconnect becomes 'Connection re-established' on reconnect. */
describe('the live connection notice', () => {
  const LOST = 'Connection lost. Trying to reconnect…';

  it("shows the lost notice, which stays, then turns it into 'Connection re-established'", async () => {
    renderWithProviders(null);
    act(() => connectionNotices.lost());
    expect(await screen.findByText(LOST)).toBeInTheDocument();

    act(() => connectionNotices.restored());
    expect(await screen.findByText('Connection re-established')).toBeInTheDocument();
    expect(screen.queryByText(LOST)).not.toBeInTheDocument();
    // One notice, replaced: not a second toast.
    expect(document.querySelectorAll('.mantine-Notification-root')).toHaveLength(1);
  });

  it('takes the lost notice away when nothing listens any more', async () => {
    renderWithProviders(null);
    act(() => connectionNotices.lost());
    expect(await screen.findByText(LOST)).toBeInTheDocument();
    act(() => connectionNotices.dismissed());
    await waitFor(() => expect(screen.queryByText(LOST)).not.toBeInTheDocument());
  });
});
