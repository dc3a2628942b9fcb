import type { Locator, Page } from '@playwright/test';

/** The colours a reader sees of an element's text, as 'rgb(r, g, b)', with their WCAG figures. */
export interface SeenColours {
  text: string;
  background: string;
  /** WCAG 2 contrast ratio of the text on its background, 1..21. */
  contrast: number;
  /** WCAG 2 relative luminance, 0 (black) .. 1 (white). */
  textLuminance: number;
  backgroundLuminance: number;
}

/**
 * What a reader sees of `locator`'s text: its colour (an SVG text's fill), and the colour behind
 * it, made of the backgrounds of the element and its ancestors, translucent ones laid over the
 * first opaque one (white if none is). Any CSS colour syntax is read through a canvas.
 */
export function seenColours(locator: Locator): Promise<SeenColours> {
  return locator.evaluate((element) => {
    type Rgba = [number, number, number, number];
    const canvas = document.createElement('canvas');
    canvas.width = 1;
    canvas.height = 1;
    const context = canvas.getContext('2d', { willReadFrequently: true });
    if (!context) throw new Error('no 2d canvas');
    const rgba = (css: string): Rgba => {
      context.clearRect(0, 0, 1, 1);
      context.fillStyle = 'rgba(0, 0, 0, 0)';
      context.fillStyle = css;
      context.fillRect(0, 0, 1, 1);
      const [r = 0, g = 0, b = 0, a = 0] = context.getImageData(0, 0, 1, 1).data;
      return [r, g, b, a / 255];
    };
    const over = (top: Rgba, bottom: Rgba): Rgba => [0, 1, 2].map((i) => top[i]! * top[3] + bottom[i]! * (1 - top[3])).concat(1) as Rgba;
    const luminance = ([r, g, b]: Rgba) =>
      [r, g, b].map((c) => c / 255).map((c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4)).reduce((sum, c, i) => sum + c * [0.2126, 0.7152, 0.0722][i]!, 0);
    const css = ([r, g, b]: Rgba) => `rgb(${[r, g, b].map(Math.round).join(', ')})`;

    const layers: Rgba[] = [];
    for (let node: Element | null = element; node; node = node.parentElement) {
      const layer = rgba(getComputedStyle(node).backgroundColor);
      if (layer[3] > 0) layers.push(layer);
      if (layer[3] >= 1) break;
    }
    const background = layers.reduceRight<Rgba>((below, layer) => over(layer, below), [255, 255, 255, 1]);
    const style = getComputedStyle(element);
    const text = over(rgba(element instanceof SVGElement ? style.fill : style.color), background);
    const [lighter, darker] = [luminance(text), luminance(background)].sort((a, b) => b - a) as [number, number];
    return {
      text: css(text),
      background: css(background),
      contrast: (lighter + 0.05) / (darker + 0.05),
      textLuminance: luminance(text),
      backgroundLuminance: luminance(background),
    };
  });
}

/** How many CSS pixels the page is wider than its viewport (0: no horizontal scrolling). */
export function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}
