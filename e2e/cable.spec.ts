import type { Page, Route, WebSocketRoute } from '@playwright/test';
import { signInThroughForm } from './support/auth';
import { chooseFile, writeCsv } from './support/csv';
import { expect, test } from './support/test';

/**
 * Live channels against the real server: the attribute values import page follows its import
 * over SegmentsImportChannel (`/cable`, Action Cable protocol), and a dropped connection shows
 * the connection-lost notice, then 'Connection re-established'.
 *
 * The page's WebSocket goes through Playwright's WebSocket route, which passes frames on and
 * lets the test hold some back and cut the connection. The import's status route is held too
 * (never answered), so whatever the page shows of the import came over the channel.
 */

const DEMO = { email: 'demo@subscope.dev', password: 'subscope-demo-2026' };
const LOST_NOTICE = 'Connection lost. Trying to reconnect…';

interface ChannelMessage {
  import_id: string;
  status: string;
  progress: number;
}

/** The message a server frame carries to a subscription, if it is one. */
function channelMessage(frame: string | Buffer): ChannelMessage | null {
  const parsed = JSON.parse(String(frame)) as { type?: string; identifier?: string; message?: ChannelMessage };
  return parsed.type === undefined && parsed.identifier?.includes('SegmentsImportChannel') && parsed.message ? parsed.message : null;
}

async function demoToken(page: Page): Promise<string> {
  const response = await page.request.post('/api/v11/users/sign_in', { data: { user: DEMO } });
  expect(response.status()).toBe(200);
  return (response.headers()['authorization'] ?? '').replace(/^Bearer /, '');
}

test('an attribute values import shows its progress and result over SegmentsImportChannel, and a dropped connection is noticed and re-established', async ({ page }, testInfo) => {
  // The demo account has customer attributes (segments) and customers C000001…
  const token = await demoToken(page);
  const segments = await page.request.get('/api/v11/customer_segments', { headers: { authorization: `Bearer ${token}` } });
  const industry = ((await segments.json()) as { items: { id: string; name: string }[] }).items.find((item) => item.name === 'Industry');
  if (!industry) throw new Error('the demo account has no Industry attribute');

  // The cable, passed through; the import's end held back while `holdEnd` is set.
  const sockets: Array<{ page: WebSocketRoute; server: WebSocketRoute }> = [];
  const forwarded: ChannelMessage[] = [];
  const held: string[] = [];
  let holdEnd = true;
  await page.routeWebSocket(/\/cable\?/, (ws) => {
    const server = ws.connectToServer();
    sockets.push({ page: ws, server });
    ws.onMessage((frame) => server.send(frame));
    server.onMessage((frame) => {
      const message = channelMessage(frame);
      if (message && holdEnd && message.status === 'done') {
        held.push(String(frame));
        return;
      }
      if (message) forwarded.push(message);
      ws.send(frame);
    });
  });
  // The status polls never get an answer: only the channel can move the page.
  const heldPolls: Route[] = [];
  await page.route('**/api/v11/segments_importer/*', (route) => {
    if (route.request().method() === 'GET') heldPolls.push(route);
    else return route.continue();
  });

  await page.goto('/sign_in');
  await signInThroughForm(page, DEMO.email, DEMO.password);
  await expect(page).toHaveURL(/\/$/);
  await page.goto(`/import-segments?segment=${encodeURIComponent(industry.id)}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Import attribute values' })).toBeVisible();

  const file = writeCsv(testInfo, 'industries.csv', ['Customer ID,Industry', 'C000001,Software']);
  await chooseFile(page, page.getByLabel('CSV file'), file);
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  await page.getByRole('button', { name: 'Import 1 row' }).click();

  // Subscribed: the progress step says the import is followed live, and shows what the channel sent.
  const progress = page.getByRole('progressbar', { name: 'Import progress' });
  // At 0 % the bar has no width: its value is what is checked.
  await expect(progress).toHaveAttribute('aria-valuetext', /^\d+%$/);
  await expect(page.getByText('Live', { exact: true })).toBeVisible();
  await expect.poll(() => held.length, { message: 'the import finished on the server', timeout: 15_000 }).toBeGreaterThan(0);
  const shown = Math.max(0, ...forwarded.map((message) => message.progress));
  await expect(progress).toHaveAttribute('aria-valuenow', String(shown));
  await expect(page.getByText(`${shown}%`, { exact: true })).toBeVisible();

  // The connection drops: the notice shows, and stays.
  holdEnd = false;
  const first = sockets[0];
  if (!first) throw new Error('the page opened no cable connection');
  await first.server.close();
  await first.page.close();
  await expect(page.getByText(LOST_NOTICE)).toBeVisible();
  await expect(page.getByText('Live', { exact: true })).toBeHidden();

  // The consumer reconnects (it checks again at once when the tab becomes visible, else within
  // its stale threshold), resubscribes, and the channel sends the import's state: done.
  await page.evaluate(() => window.dispatchEvent(new Event('visibilitychange')));
  await expect(page.getByText('Connection re-established')).toBeVisible();
  await expect(page.getByText(LOST_NOTICE)).toBeHidden();
  expect(sockets.length).toBeGreaterThan(1);
  await expect(page.getByText('all 1 value imported')).toBeVisible();
  expect(heldPolls.every((route) => route.request().method() === 'GET')).toBe(true);
});
