import { chromium, type Browser, type Response } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

/**
 * The browser half of `npm run bench:report`: Debian's Chromium driven by Playwright, against
 * the production build the server serves.
 */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export const TOKEN_STORAGE_KEY = 'subscope.token';
/** The page's contract: each section card is `<section id="section-{id}" data-chart-state="pending|drawn">`. */
export const DRAWN_SELECTOR = 'section[data-chart-state="drawn"]';
export const SECTION_SELECTOR = 'section[data-chart-state]';
/** gzip level of the initial-JS figure: 9, the most a server or CDN would spend on static files compressed once. */
export const GZIP_LEVEL = 9;

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
}

export interface RenderRun {
  /** performance.now() in the page when `wanted` section cards were drawn: ms since navigation start. */
  render_ms: number;
  /** When the report's answer (GET by_secret) had arrived, ms since navigation start; null if the page did not ask. */
  data_ms: number | null;
  /** When the first section card was in the DOM, ms since navigation start. */
  first_section_ms: number | null;
  dom_content_loaded_ms: number;
  /** When each of the first six section cards (page order) turned drawn, ms since navigation start. */
  drawn_ms: (number | null)[];
  /** Scripts the page had fetched by then. */
  scripts: number;
  /** The JavaScript files among them, largest first: KB as decoded, when fetched (ms since navigation start). */
  script_files: { name: string; kb: number; end_ms: number }[];
  /** ApexCharts drawn on the page by then (`.apexcharts-canvas`; more than six when more cards were near the viewport). */
  charts: number;
  /** Chromium's main-thread counters over the run (Performance.getMetrics deltas): all tasks, script, layout, style. */
  main_thread_ms: { task: number; script: number; layout: number; style: number };
  /**
   * CPU time (user + system, from /proc, 10 ms ticks) the renderer processes spent over the run:
   * their main threads (`main`, the thread whose id is the process's) and all their threads
   * (`process`: compositor, raster, GC helpers too). Time waiting for a CPU is not in it, so
   * other work on the machine distorts it far less than `render_ms` or `task`.
   */
  cpu_ms: { main: number; process: number };
}

const TICK_MS = 1000 / Number(process.env.CLK_TCK ?? 100);

/** utime + stime of a /proc stat file, ms; 0 when the process or thread is gone. */
function statCpuMs(file: string): number {
  try {
    const fields = readFileSync(file, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/** The renderer processes' CPU so far, by pid: main thread and whole process (Linux /proc; the pids from CDP's SystemInfo). */
async function rendererCpu(cdp: { send: (method: 'SystemInfo.getProcessInfo') => Promise<{ processInfo: { type: string; id: number }[] }> }): Promise<Map<number, { main: number; process: number }>> {
  const { processInfo } = await cdp.send('SystemInfo.getProcessInfo');
  return new Map(processInfo.filter((p) => p.type === 'renderer').map((p) => [p.id, { main: statCpuMs(`/proc/${p.id}/task/${p.id}/stat`), process: statCpuMs(`/proc/${p.id}/stat`) }]));
}

function cpuSpent(before: Map<number, { main: number; process: number }>, after: Map<number, { main: number; process: number }>): { main: number; process: number } {
  let main = 0;
  let all = 0;
  for (const [pid, now] of after) {
    const then = before.get(pid) ?? { main: 0, process: 0 };
    main += Math.max(0, now.main - then.main);
    all += Math.max(0, now.process - then.process);
  }
  return { main: Math.round(main), process: Math.round(all) };
}

/**
 * Renders of the report page `/reports/{secret}`, signed in by the token in localStorage: the
 * first in a fresh context (empty HTTP cache: cold), the next `warmRuns` in the same context
 * (assets cached, as when a user comes back). Each waits until `wanted` section cards are drawn.
 */
export async function measureRender(
  browser: Browser,
  options: { base: string; secret: string; token: string; wanted: number; warmRuns: number; viewport: { width: number; height: number }; timeoutMs?: number },
  log: (line: string) => void,
): Promise<{ cold: RenderRun; warm: RenderRun[] }> {
  const context = await browser.newContext({ viewport: options.viewport, deviceScaleFactor: 1 });
  try {
    // A string, not a function: tsx would wrap named functions in its `__name` helper, which the page lacks.
    await context.addInitScript(`
      window.localStorage.setItem(${JSON.stringify(TOKEN_STORAGE_KEY)}, ${JSON.stringify(options.token)});
      window.__bench = { firstSectionMs: null, drawnMs: {} };
      new MutationObserver(function () {
        var cards = document.querySelectorAll('section[data-chart-state]');
        if (cards.length > 0 && window.__bench.firstSectionMs === null) window.__bench.firstSectionMs = performance.now();
        for (var k = 0; k < cards.length; k++) {
          var card = cards[k];
          if (card.getAttribute('data-chart-state') === 'drawn' && !(card.id in window.__bench.drawnMs)) window.__bench.drawnMs[card.id] = performance.now();
        }
      }).observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ['data-chart-state'] });
    `);
    const page = await context.newPage();
    // Main-thread time by kind (Chromium's own counters), to tell where a slow render goes.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable');
    const browserCdp = await browser.newBrowserCDPSession();
    const counters = async () => Object.fromEntries(((await cdp.send('Performance.getMetrics')) as { metrics: { name: string; value: number }[] }).metrics.map((m) => [m.name, m.value]));
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const runs: RenderRun[] = [];
    for (let k = 0; k <= options.warmRuns; k++) {
      const before = await counters();
      const cpuBefore = await rendererCpu(browserCdp);
      await page.goto(`${options.base}/reports/${options.secret}`, { waitUntil: 'commit' });
      let renderMs: number;
      let after: Record<string, number> = {};
      let cpu = { main: 0, process: 0 };
      try {
        // The first `wanted` cards in page order, each drawn (not any `wanted` of them).
        const handle = await page.waitForFunction(
          ([selector, wanted]) => {
            const first = [...document.querySelectorAll(selector as string)].slice(0, wanted as number);
            return first.length === wanted && first.every((card) => card.getAttribute('data-chart-state') === 'drawn') ? performance.now() : false;
          },
          [SECTION_SELECTOR, options.wanted] as const,
          { polling: 'raf', timeout: options.timeoutMs ?? 60_000 },
        );
        renderMs = (await handle.jsonValue()) as number;
        // Read at once, before more work piles up.
        after = await counters();
        cpu = cpuSpent(cpuBefore, await rendererCpu(browserCdp));
      } catch (error) {
        const states = await page.evaluate((selector) => [...document.querySelectorAll(selector)].map((s) => s.getAttribute('data-chart-state')), SECTION_SELECTOR).catch(() => []);
        throw new Error(
          `the report page did not draw its first ${options.wanted} section cards (${DRAWN_SELECTOR}); section cards and their data-chart-state: ${JSON.stringify(states)}; page errors: ${JSON.stringify(errors)}; ${(error as Error).message.split('\n')[0]}`,
          { cause: error },
        );
      }
      const timing = await page.evaluate((wanted) => {
        const bench = (window as unknown as { __bench: { firstSectionMs: number | null; drawnMs: Record<string, number> } }).__bench;
        const navigation = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
        const resources = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
        const data = resources.find((r) => r.name.includes('/business_reports/by_secret'));
        return {
          data_ms: data ? data.responseEnd : null,
          first_section_ms: bench.firstSectionMs,
          // When each of the first `wanted` cards (in page order) turned drawn.
          drawn_ms: [...document.querySelectorAll('section[data-chart-state]')].slice(0, wanted).map((card) => bench.drawnMs[card.id] ?? null),
          dom_content_loaded_ms: navigation?.domContentLoadedEventEnd ?? 0,
          scripts: resources.filter((r) => r.initiatorType === 'script' || /\.js(\?|$)/.test(r.name)).length,
          script_files: resources
            .filter((r) => /\.js(\?|$)/.test(r.name))
            .map((r) => ({ name: new URL(r.name).pathname.replace(/^\/assets\//, ''), kb: Math.round(r.decodedBodySize / 1024), end_ms: Math.round(r.responseEnd) }))
            .sort((a, b) => b.kb - a.kb),
          charts: document.querySelectorAll('.apexcharts-canvas').length,
        };
      }, options.wanted);
      const spent = (name: string) => Math.round(((after[name] ?? 0) - ((after[name] ?? 0) >= (before[name] ?? 0) ? (before[name] ?? 0) : 0)) * 1000);
      const mainThread = { task: spent('TaskDuration'), script: spent('ScriptDuration'), layout: spent('LayoutDuration'), style: spent('RecalcStyleDuration') };
      const run: RenderRun = { render_ms: Math.round(renderMs), ...timing, drawn_ms: timing.drawn_ms.map((ms) => (ms === null ? null : Math.round(ms))), main_thread_ms: mainThread, cpu_ms: cpu };
      run.data_ms = run.data_ms === null ? null : Math.round(run.data_ms);
      run.first_section_ms = run.first_section_ms === null ? null : Math.round(run.first_section_ms);
      run.dom_content_loaded_ms = Math.round(run.dom_content_loaded_ms);
      log(
        `  ${k === 0 ? 'cold' : `warm ${k}`}: ${options.wanted} sections drawn at ${run.render_ms} ms (DOMContentLoaded ${run.dom_content_loaded_ms} ms, ` +
          `report data arrived ${run.data_ms ?? '-'} ms, first section card ${run.first_section_ms ?? '-'} ms, cards drawn at ${run.drawn_ms.map((ms) => ms ?? '-').join(', ')} ms; ` +
          `${run.charts} ApexCharts on the page by then; main thread busy ${mainThread.task} ms: script ${mainThread.script}, layout ${mainThread.layout}, style ${mainThread.style}; ` +
          `renderer CPU ${cpu.main} ms on its main thread, ${cpu.process} ms in all its threads; ${run.scripts} scripts)`,
      );
      if (k === 0) log(`    scripts of the page (decoded KB, fetched by ms): ${run.script_files.map((f) => `${f.name} ${f.kb} KB @${f.end_ms}`).join(', ')}`);
      runs.push(run);
    }
    if (errors.length > 0) log(`  page errors: ${errors.join(' | ')}`);
    return { cold: runs[0] as RenderRun, warm: runs.slice(1) };
  } finally {
    await context.close();
  }
}

export interface ScriptFile {
  url: string;
  bytes: number;
  gzipBytes: number;
}

/**
 * Every JavaScript response the sign-in page `/sign_in` loads in a fresh context (not signed
 * in, empty cache) until its `load` event and then `idleMs` without new requests (lazy chunks
 * of the route included), each gzipped at GZIP_LEVEL.
 */
export async function measureInitialJs(browser: Browser, base: string, idleMs: number): Promise<ScriptFile[]> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const pending: Promise<ScriptFile | null>[] = [];
    let lastRequest = performance.now();
    page.on('request', () => (lastRequest = performance.now()));
    page.on('response', (response: Response) => {
      const type = response.headers()['content-type'] ?? '';
      const url = response.url();
      if (!/javascript|ecmascript/.test(type) && !/\.m?js(\?|$)/.test(new URL(url).pathname)) return;
      pending.push(
        response.body().then(
          (body) => ({ url, bytes: body.length, gzipBytes: gzipSync(body, { level: GZIP_LEVEL }).length }),
          () => null,
        ),
      );
    });
    const response = await page.goto(`${base}/sign_in`, { waitUntil: 'load' });
    if (!response?.ok()) throw new Error(`GET /sign_in answered ${String(response?.status())}`);
    // The form on screen: the route's own chunks are in.
    await page.getByLabel('Email').waitFor({ timeout: 30_000 });
    while (performance.now() - lastRequest < idleMs) await page.waitForTimeout(50);
    const files = (await Promise.all(pending)).filter((file): file is ScriptFile => file !== null);
    if (files.length === 0) throw new Error('the sign-in page loaded no JavaScript');
    return files.sort((a, b) => b.gzipBytes - a.gzipBytes);
  } finally {
    await context.close();
  }
}
