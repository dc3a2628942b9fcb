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

/**
 * In dark mode Mantine 9 paints 'light' variants of a colour as a very dark solid; for the
 * brand (active navigation, icons, badges) a translucent tint with light text reads better.
 */
export const cssVariablesResolver: CSSVariablesResolver = () => ({
  variables: {},
  light: {},
  dark: {
    '--mantine-color-brand-light': 'rgba(107, 114, 223, 0.16)',
    '--mantine-color-brand-light-hover': 'rgba(107, 114, 223, 0.26)',
    '--mantine-color-brand-light-color': 'var(--mantine-color-brand-2)',
  },
});
