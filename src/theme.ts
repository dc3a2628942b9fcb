import { Button, Card, Container, createTheme, Paper, Tooltip } from '@mantine/core';
import type { CSSVariablesResolver, MantineColorsTuple } from '@mantine/core';

/** Brand indigo-violet: the logo mark, primary buttons and active navigation. */
const brand: MantineColorsTuple = [
  '#eef0ff',
  '#dcdefa',
  '#b6baf0',
  '#8d93e7',
  '#6b72df',
  '#555dda',
  '#4a52d9',
  '#3b43c1',
  '#333bad',
  '#283299',
];

export const theme = createTheme({
  colors: { brand },
  primaryColor: 'brand',
  primaryShade: { light: 6, dark: 5 },
  defaultRadius: 'md',
  cursorType: 'pointer',
  focusRing: 'auto',
  respectReducedMotion: true,
  fontFamily:
    'Inter, system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif',
  headings: {
    fontFamily:
      'Inter, system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif',
    fontWeight: '650',
  },
  components: {
    Button: Button.extend({ defaultProps: { radius: 'md' } }),
    Card: Card.extend({ defaultProps: { withBorder: true, radius: 'lg', padding: 'lg' } }),
    Paper: Paper.extend({ defaultProps: { radius: 'lg' } }),
    Container: Container.extend({ defaultProps: { size: 'xl' } }),
    Tooltip: Tooltip.extend({ defaultProps: { withArrow: true, openDelay: 300 } }),
  },
});

/** A translucent tint with light text for a colour's 'light' variant in dark mode. */
function darkTint(color: string, rgb: string): Record<string, string> {
  return {
    [`--mantine-color-${color}-light`]: `rgba(${rgb}, 0.16)`,
    [`--mantine-color-${color}-light-hover`]: `rgba(${rgb}, 0.26)`,
    [`--mantine-color-${color}-light-color`]: `var(--mantine-color-${color}-2)`,
  };
}

/**
 * In dark mode Mantine 9 paints 'light' variants of a colour as a very dark solid; for the
 * brand (active navigation, icons, badges) and the status colours of alerts and badges
 * (errors, warnings, confirmations) a translucent tint with light text reads better.
 */
export const cssVariablesResolver: CSSVariablesResolver = () => ({
  variables: {},
  light: {},
  dark: {
    ...darkTint('brand', '107, 114, 223'),
    ...darkTint('red', '250, 82, 82'),
    ...darkTint('yellow', '250, 176, 5'),
    ...darkTint('orange', '253, 126, 20'),
    ...darkTint('teal', '18, 184, 134'),
    ...darkTint('gray', '134, 142, 150'),
  },
});
